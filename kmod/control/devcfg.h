/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: a device's settings (MaxRate, latency target, chunk table,
 * per-operation cost, enforcement) and its controller's state.
 */
#ifndef _VG_DEVCFG_H
#define _VG_DEVCFG_H

#include <net/netlink.h>
#include <rdma/ib_verbs.h>

/* The core's ctrl.h and token.h, included the way device.h needs them. */
#include "datapath/device.h"

/* Which fields of a struct vg_devcfg_change are set. */
#define VG_DC_MAX_RATE		BIT(0)
#define VG_DC_MAX_OPS		BIT(1)
#define VG_DC_TARGET_P99	BIT(2)
#define VG_DC_AIMD_STEP		BIT(3)
#define VG_DC_AIMD_PERIOD	BIT(4)
#define VG_DC_CHUNK_NOLAT	BIT(5)
#define VG_DC_CHUNK_TABLE	BIT(6)
#define VG_DC_OP_COSTS		BIT(7)
#define VG_DC_LAT_EACH		BIT(8)
#define VG_DC_ENFORCE		BIT(9)
#define VG_DC_USER_QPS		BIT(10)
#define VG_DC_BURST		BIT(11)
#define VG_DC_LINK_RATE		BIT(12)
#define VG_DC_PKT_OVERHEAD	BIT(13)

/* New cost of one operation class; unset parts keep their value. */
struct vg_opcost_change {
	u32 cls;		/* enum vg_op_class */
	bool has_bytes;
	bool has_units;
	u32 bytes;
	u32 units;
};

/**
 * struct vg_devcfg_change - a DEV_SET request, as netlink parsed it
 * @set: VG_DC_* of the fields below that are given
 * @max_rate: MaxRate, token bytes/s
 * @max_ops: op/s at MaxRate, 0: no op pacing
 * @target_p99_ns: latency target, 0: none
 * @step: AIMD additive increase, 0: MaxRate / 256 (and follow MaxRate)
 * @period_ns: AIMD period
 * @chunk_nolat: chunk size while no latency tenant exists
 * @ntable: entries in @table
 * @table: chunk table, replaces the device's
 * @ncost: entries in @cost, each a different class
 * @cost: per-operation costs
 * @lat_each: Rmin sums every latency tenant's weight
 * @enforce: pace and split this device's QPs
 * @user_qps: enum verbsgate_user_qps
 * @burst: depth of the ports' pacer buckets, token bytes
 * @link_rate: the ports' link rate, bytes/s, 0: as the device reports
 * @pkt_overhead: bytes each packet adds at the port besides its payload,
 *	or VERBSGATE_PKT_OVERHEAD_AUTO (the link layer's)
 */
struct vg_devcfg_change {
	u32 set;
	u64 max_rate;
	u64 max_ops;
	u64 target_p99_ns;
	u64 step;
	u64 period_ns;
	u32 chunk_nolat;
	u32 ntable;
	struct vg_chunk_ent table[VG_CTRL_MAX_TABLE];
	u32 ncost;
	struct vg_opcost_change cost[VG_OPC_NR];
	bool lat_each;
	bool enforce;
	u32 user_qps;
	u32 burst;
	u64 link_rate;
	u32 pkt_overhead;
};

/*
 * A consistent copy of a device's settings, its controller's state and
 * its ports' link rates (vg_device::link_rate, ::port_rate and
 * ::link_rate_set).
 */
struct vg_devcfg_view {
	struct vg_ctrl ctrl;
	struct vg_cost_model cost;
	bool step_auto;
	bool max_rate_set;
	bool enforce;
	u32 user_qps;
	u32 burst;
	u64 ref_p99_ns;
	u64 link_rate[VG_SHAPER_MAX_PORTS];
	u64 port_rate[VG_SHAPER_MAX_PORTS];
	u64 link_rate_set;
	bool pkt_set;
	u32 pkt_default;
};

void vg_devcfg_init(struct vg_device *dev);
void vg_devcfg_start(struct vg_device *dev);
void vg_devcfg_publish(struct vg_device *dev);
void vg_devcfg_stop(struct vg_device *dev);
void vg_devcfg_read(struct vg_device *dev, struct vg_devcfg_view *v);
int vg_devcfg_apply(struct vg_device *dev, const struct vg_devcfg_change *c,
		    struct netlink_ext_ack *extack);
int vg_devices_check_guarantees(u64 sum, struct netlink_ext_ack *extack);
void vg_devcfg_set_class_weights(const struct vg_class_weights *cw);

#endif /* _VG_DEVCFG_H */
