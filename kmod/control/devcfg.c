// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: device settings and the controller state that follows them.
 *
 * Each attached device carries a struct vg_ctrl (core/ctrl.h: MaxRate,
 * latency target, AIMD step and period, chunk sizes; Rmin, SafeUtil and the
 * current chunk size derived from them and from the tenants' weights), a
 * token cost model (core/token.h), its ports' pacer burst and an
 * enforcement switch, all under the device's ctrl_lock. Defaults come from
 * the port: MaxRate is its data rate, the largest chunk its largest
 * message, what each packet adds besides its payload its link layer's
 * headers and framing. Where the device cannot know its line (a software
 * device behind a shaped link), the operator states the line's rate
 * (link-rate) and what it counts per packet (pkt-overhead), and MaxRate
 * follows the stated rate.
 *
 * A change is validated on a copy, with the core's own checks, and
 * committed in one critical section, so it applies completely or not at
 * all. Changes come from netlink handlers, which genl_mutex serializes;
 * that is also what keeps the guarantees check (sum of the tenants'
 * minimum rates <= every device's MaxRate) exact between tenant and device
 * changes.
 *
 * The tenants' per-class weights reach every controller through
 * vg_devcfg_set_class_weights(); a snapshot of them (vg_cw, under the
 * leaf spinlock vg_cw_lock) initializes devices that attach later. The
 * snapshot is written before vg_devices_lock is taken and read under it,
 * so a device is either initialized from the new snapshot or visited by
 * the walk that follows.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/spinlock.h>

#include <linux/verbsgate.h>

#include "datapath/device.h"
#include "tenant/tenant.h"

#include "devcfg.h"

/* The uapi mirrors the policy core's enums and limits. */
static_assert((int)VERBSGATE_OP_CLASS_DATA == (int)VG_OPC_DATA);
static_assert((int)VERBSGATE_OP_CLASS_ATOMIC == (int)VG_OPC_ATOMIC);
static_assert((int)VERBSGATE_OP_CLASS_MR == (int)VG_OPC_MR);
static_assert((int)__VERBSGATE_OP_CLASS_MAX == (int)VG_OPC_NR);
static_assert(VERBSGATE_CHUNK_TABLE_MAX == VG_CTRL_MAX_TABLE);
static_assert(VERBSGATE_PPM == VG_PPM);

static DEFINE_SPINLOCK(vg_cw_lock);
static struct vg_class_weights vg_cw;

/* 1 Gbit/s, when the port does not say: ib_core's own fallback speed. */
#define VG_FALLBACK_RATE	(125ULL * 1000 * 1000)

/*
 * What a packet adds at the port besides its payload, by the link layer,
 * until the operator says (DEV_PKT_OVERHEAD). Ethernet, RoCEv2 over
 * IPv4: preamble and delimiter 8, Ethernet header 14, IPv4 20, UDP 8,
 * BTH 12, ICRC 4, FCS 4, inter-frame gap 12. InfiniBand: LRH 8, BTH 12,
 * ICRC 4, VCRC 2. Extended headers (RETH, AETH, immediate data) come
 * once per message or less, and are left to the operation's cost.
 */
#define VG_PKT_BYTES_ETH	82
#define VG_PKT_BYTES_IB		26

/* Data rate of one lane in Mbit/s, by enum ib_port_speed. */
static u32 vg_lane_mbps(u16 speed)
{
	switch (speed) {
	case IB_SPEED_SDR:
		return 2000;
	case IB_SPEED_DDR:
		return 4000;
	case IB_SPEED_QDR:
		return 8000;
	case IB_SPEED_FDR10:
		return 10000;
	case IB_SPEED_FDR:
		return 13636;
	case IB_SPEED_EDR:
		return 25000;
	case IB_SPEED_HDR:
		return 50000;
	case IB_SPEED_NDR:
		return 100000;
	default:
		return 0;
	}
}

/*
 * A port's data rate in bytes/s (0 if unknown) and its largest message
 * (at most VG_SPLIT_MAX_CHUNK). Process context; ib_query_port() may
 * take the RTNL (RoCE devices read their netdev's speed).
 */
static void vg_devcfg_port_limits(struct ib_device *ibdev, u32 port,
				  u64 *rate, u32 *max_chunk)
{
	struct ib_port_attr attr = {};
	int width;
	u32 mbps;

	*rate = 0;
	*max_chunk = VG_SPLIT_MAX_CHUNK;
	if (ib_query_port(ibdev, port, &attr))
		return;
	width = ib_width_enum_to_int(attr.active_width);
	mbps = vg_lane_mbps(attr.active_speed);
	if (width > 0 && mbps)
		*rate = (u64)mbps * width * 125000;
	if (attr.max_msg_sz)
		*max_chunk = min_t(u32, attr.max_msg_sz, VG_SPLIT_MAX_CHUNK);
}

/*
 * Under the device's ctrl_lock: the rate of port @i's pacer. The
 * controller steers SafeUtil against MaxRate, which follows the first
 * port; every other port runs at the same fraction of its own link rate,
 * unless the operator set MaxRate (then it is each port's) or a port's
 * rate is unknown.
 */
static u64 vg_devcfg_port_share(const struct vg_device *dev, u32 i, u64 rate)
{
	lockdep_assert_held(&dev->ctrl_lock);

	if (!i || dev->max_rate_set || !dev->link_rate[0] ||
	    !dev->link_rate[i])
		return rate;
	return min_t(u64, mul_u64_u64_div_u64(rate, dev->link_rate[i],
					      dev->link_rate[0]),
		     VG_RATE_MAX);
}

/*
 * Under the device's ctrl_lock: hand the pacing settings to the shaper
 * (which takes its own lock inside this one).
 */
static void vg_devcfg_publish_locked(struct vg_device *dev)
{
	lockdep_assert_held(&dev->ctrl_lock);

	struct vg_shaper_settings set = {
		.burst = dev->burst,
		.chunk = dev->ctrl.chunk,
		.enforce = dev->enforce,
		.cost = dev->cost,
	};
	u64 op_rate = vg_ctrl_op_rate(&dev->ctrl);
	u32 i;

	for (i = 0; i < VG_SHAPER_MAX_PORTS; i++) {
		set.rate[i] = vg_devcfg_port_share(dev, i, dev->ctrl.safe);
		set.op_rate[i] = vg_devcfg_port_share(dev, i, op_rate);
	}
	vg_shaper_settings(&dev->ipose.shaper, &set);
}

/**
 * vg_devcfg_publish() - hand a device's settings to its shaper
 * @dev: the device, attached
 *
 * Context: process or softirq; takes the device's ctrl_lock.
 */
void vg_devcfg_publish(struct vg_device *dev)
{
	spin_lock_bh(&dev->ctrl_lock);
	vg_devcfg_publish_locked(dev);
	spin_unlock_bh(&dev->ctrl_lock);
}

/*
 * Under vg_devices_lock: adopt the ports' limits, @reported rates (0:
 * unknown) and @pkt_bytes per packet by their link layer. MaxRate
 * follows the first port's link rate (the operator's, else the
 * reported one) unless the operator has set one or the tenants'
 * guarantees need more; chunk sizes above the port's largest message
 * are cut down to it.
 */
static void vg_devcfg_set_port(struct vg_device *dev, const u64 *reported,
			       u32 max_chunk, u32 pkt_bytes)
{
	u64 link[VG_SHAPER_MAX_PORTS], rate;
	struct vg_devcfg_view v;
	struct vg_ctrl_cfg *cfg = &v.ctrl.cfg;
	u32 i;

	lockdep_assert_held(&vg_devices_lock);

	vg_devcfg_read(dev, &v);
	for (i = 0; i < VG_SHAPER_MAX_PORTS; i++)
		link[i] = v.link_rate_set ?: reported[i];
	rate = link[0] ?: VG_FALLBACK_RATE;
	if (!v.max_rate_set && rate >= vg_tenants_min_rate_sum())
		cfg->max_rate = min_t(u64, rate, VG_RATE_MAX);
	if (v.step_auto)
		cfg->step = max_t(u64, cfg->max_rate >> 8, 1);
	cfg->max_chunk = max_chunk;
	cfg->chunk_nolat = min(cfg->chunk_nolat, max_chunk);
	/* Sizes increase strictly: keep the entries that fit. */
	for (i = 0; i < cfg->ntable && cfg->table[i].chunk <= max_chunk; i++)
		;
	cfg->ntable = i;
	spin_lock_bh(&dev->ctrl_lock);
	/* What the port is, whether or not the settings can follow it. */
	memcpy(dev->port_rate, reported, sizeof(dev->port_rate));
	memcpy(dev->link_rate, link, sizeof(dev->link_rate));
	dev->pkt_default = pkt_bytes;
	if (!dev->pkt_set)
		dev->cost.pkt_bytes = pkt_bytes;
	if (vg_ctrl_check_cfg(cfg))
		pr_warn("%s: port limits not applied\n", dev->name);
	/* Unless the operator set MaxRate meanwhile (the lock was dropped). */
	else if (dev->max_rate_set == v.max_rate_set)
		vg_ctrl_set_cfg(&dev->ctrl, cfg);
	vg_devcfg_publish_locked(dev);
	spin_unlock_bh(&dev->ctrl_lock);
}

/*
 * Work item queued when a device attaches: the port query cannot run in
 * the ib_client add callback, which ib_register_client() calls with
 * devices_rwsem held for writing while ib_query_port() may take the RTNL.
 * Process context (vg_wq). The device reference taken here
 * keeps unregistration (which waits for it before calling the client
 * remove) from starting while the port is queried.
 */
static void vg_devcfg_port_work(struct work_struct *work)
{
	struct vg_device *dev = container_of(work, struct vg_device,
					     port_work);
	u64 link[VG_SHAPER_MAX_PORTS] = {};
	u32 i, max_chunk = VG_SPLIT_MAX_CHUNK, port_chunk, pkt_bytes;

	if (!ib_device_try_get(dev->ibdev))
		return;
	pkt_bytes = rdma_port_get_link_layer(dev->ibdev,
					     rdma_start_port(dev->ibdev)) ==
		    IB_LINK_LAYER_ETHERNET ? VG_PKT_BYTES_ETH : VG_PKT_BYTES_IB;
	/* Chunks are sized per device: they must fit every port. */
	for (i = 0; i < min(dev->ports, VG_SHAPER_MAX_PORTS); i++) {
		vg_devcfg_port_limits(dev->ibdev,
				      rdma_start_port(dev->ibdev) + i,
				      &link[i], &port_chunk);
		max_chunk = min(max_chunk, port_chunk);
	}
	ib_device_put(dev->ibdev);
	vg_device_lock();
	vg_devcfg_set_port(dev, link, max_chunk, pkt_bytes);
	vg_device_unlock();
}

/**
 * vg_devcfg_init() - default settings for a device that attaches
 * @dev: the device, not yet visible
 *
 * MaxRate starts at VG_FALLBACK_RATE until the port has been queried
 * (vg_devcfg_start()).
 *
 * Context: process; the caller holds vg_devices_lock (see the file
 * comment). Takes vg_cw_lock.
 */
void vg_devcfg_init(struct vg_device *dev)
{
	struct vg_ctrl_cfg cfg;
	struct vg_class_weights cw;

	lockdep_assert_held(&vg_devices_lock);

	spin_lock_init(&dev->ctrl_lock);
	INIT_WORK(&dev->port_work, vg_devcfg_port_work);
	vg_ctrl_default_cfg(&cfg, VG_FALLBACK_RATE, 0, VG_SPLIT_MAX_CHUNK);
	/* Valid by construction: rate >= 1, chunks within max_chunk. */
	if (vg_ctrl_init(&dev->ctrl, &cfg, ktime_get_ns()))
		pr_err("%s: invalid default controller settings\n",
		       dev->name);
	vg_cost_model_default(&dev->cost);
	dev->step_auto = true;
	dev->max_rate_set = false;
	dev->link_rate_set = 0;
	dev->pkt_set = false;
	dev->pkt_default = 0;
	dev->burst = VG_SHAPER_BURST;
	dev->enforce = true;
	dev->user_qps = VERBSGATE_USER_QPS_ALLOW;
	dev->ref_p99_ns = 0;

	spin_lock(&vg_cw_lock);
	cw = vg_cw;
	spin_unlock(&vg_cw_lock);
	vg_ctrl_set_weights(&dev->ctrl, &cw);
}

/**
 * vg_devcfg_start() - query the device's port in the background
 * @dev: the device, visible in the registry
 *
 * Context: any.
 */
void vg_devcfg_start(struct vg_device *dev)
{
	queue_work(vg_wq, &dev->port_work);
}

/**
 * vg_devcfg_stop() - wait until the port query is done or cancelled
 * @dev: the device, no longer in the registry
 *
 * Context: process; the caller holds no verbsgate lock (the work item
 * takes vg_devices_lock).
 */
void vg_devcfg_stop(struct vg_device *dev)
{
	cancel_work_sync(&dev->port_work);
}

/**
 * vg_devcfg_read() - copy a device's settings and controller state
 * @dev: the device
 * @v: result
 *
 * Context: process or softirq; takes the device's ctrl_lock.
 */
void vg_devcfg_read(struct vg_device *dev, struct vg_devcfg_view *v)
{
	spin_lock_bh(&dev->ctrl_lock);
	v->ctrl = dev->ctrl;
	v->max_rate_set = dev->max_rate_set;
	v->cost = dev->cost;
	v->step_auto = dev->step_auto;
	v->enforce = dev->enforce;
	v->user_qps = dev->user_qps;
	v->burst = dev->burst;
	v->ref_p99_ns = dev->ref_p99_ns;
	memcpy(v->link_rate, dev->link_rate, sizeof(v->link_rate));
	memcpy(v->port_rate, dev->port_rate, sizeof(v->port_rate));
	v->link_rate_set = dev->link_rate_set;
	v->pkt_set = dev->pkt_set;
	v->pkt_default = dev->pkt_default;
	spin_unlock_bh(&dev->ctrl_lock);
}

/* Sizes strictly increase and utilizations do not decrease (ctrl.h). */
static int vg_devcfg_check_table(const struct vg_devcfg_change *c,
				 u32 max_chunk,
				 struct netlink_ext_ack *extack)
{
	u32 i;

	if (!c->ntable) {
		NL_SET_ERR_MSG(extack, "chunk table needs at least one entry");
		return -EINVAL;
	}
	for (i = 0; i < c->ntable; i++) {
		const struct vg_chunk_ent *e = &c->table[i];

		if (!e->chunk || e->chunk > max_chunk) {
			NL_SET_ERR_MSG(extack,
				       "chunk table: size above the device's largest message (max_chunk)");
			return -ERANGE;
		}
		if (e->util_ppm > VG_PPM) {
			NL_SET_ERR_MSG(extack,
				       "chunk table: utilization above 100%");
			return -ERANGE;
		}
		if (i && (e->chunk <= e[-1].chunk ||
			  e->util_ppm < e[-1].util_ppm)) {
			NL_SET_ERR_MSG(extack,
				       "chunk table: sizes must increase and utilizations must not decrease");
			return -EINVAL;
		}
	}
	return 0;
}

static int vg_devcfg_apply_costs(struct vg_cost_model *m,
				 const struct vg_devcfg_change *c,
				 struct netlink_ext_ack *extack)
{
	u32 i;
	int ret;

	for (i = 0; i < c->ncost; i++) {
		const struct vg_opcost_change *oc = &c->cost[i];
		const struct vg_op_cost *cur;

		if (oc->cls >= VG_OPC_NR) {
			NL_SET_ERR_MSG(extack, "unknown operation class");
			return -EINVAL;
		}
		cur = &m->cls[oc->cls];
		ret = vg_cost_model_set(m, oc->cls,
					oc->has_bytes ? oc->bytes : cur->bytes,
					oc->has_units ? oc->units : cur->units);
		if (ret) {
			NL_SET_ERR_MSG(extack,
				       "operation cost out of range: bytes 0..1048576, units 1..1024");
			return ret;
		}
	}
	return 0;
}

/*
 * The operator's link rate into @v: the ports' rates, and MaxRate with
 * them unless the operator set MaxRate (before, or in this change).
 */
static int vg_devcfg_link_rate(struct vg_devcfg_view *v,
			       const struct vg_devcfg_change *c,
			       struct netlink_ext_ack *extack)
{
	struct vg_ctrl_cfg *cfg = &v->ctrl.cfg;
	u64 rate;
	u32 i;

	if (c->link_rate > VG_RATE_MAX) {
		NL_SET_ERR_MSG(extack, "link rate above 2^40 bytes/s");
		return -ERANGE;
	}
	v->link_rate_set = c->link_rate;
	for (i = 0; i < VG_SHAPER_MAX_PORTS; i++)
		v->link_rate[i] = c->link_rate ?: v->port_rate[i];
	if (v->max_rate_set || (c->set & VG_DC_MAX_RATE))
		return 0;
	rate = v->link_rate[0] ?: VG_FALLBACK_RATE;
	if (rate < vg_tenants_min_rate_sum()) {
		NL_SET_ERR_MSG(extack,
			       "link rate below the sum of the tenants' guaranteed rates");
		return -EDQUOT;
	}
	cfg->max_rate = min_t(u64, rate, VG_RATE_MAX);
	return 0;
}

/**
 * vg_devcfg_apply() - change a device's settings, all or nothing
 * @dev: the device
 * @c: the change
 * @extack: for the reason of a refusal
 *
 * Errors: -ERANGE a value out of range (a chunk above the device's largest
 * message, a step above MaxRate); -EINVAL an unsorted chunk table or an
 * invalid combination; -EDQUOT MaxRate (or the link rate it follows)
 * below the tenants' guaranteed rates.
 *
 * Context: process, serialized with tenant changes (genl_mutex); the
 * caller holds vg_devices_lock. Takes the device's ctrl_lock.
 */
int vg_devcfg_apply(struct vg_device *dev, const struct vg_devcfg_change *c,
		    struct netlink_ext_ack *extack)
{
	struct vg_devcfg_view v;
	struct vg_ctrl_cfg *cfg = &v.ctrl.cfg;
	int ret;

	lockdep_assert_held(&vg_devices_lock);

	vg_devcfg_read(dev, &v);

	if (c->set & VG_DC_MAX_RATE) {
		if (!c->max_rate || c->max_rate > VG_RATE_MAX) {
			NL_SET_ERR_MSG(extack,
				       "max rate must be 1 byte/s to 2^40 bytes/s");
			return -ERANGE;
		}
		if (c->max_rate < vg_tenants_min_rate_sum()) {
			NL_SET_ERR_MSG(extack,
				       "max rate below the sum of the tenants' guaranteed rates");
			return -EDQUOT;
		}
		cfg->max_rate = c->max_rate;
	}
	if (c->set & VG_DC_LINK_RATE) {
		ret = vg_devcfg_link_rate(&v, c, extack);
		if (ret)
			return ret;
	}
	if (c->set & VG_DC_AIMD_STEP) {
		v.step_auto = !c->step;
		cfg->step = c->step;
	}
	if (v.step_auto)
		cfg->step = max_t(u64, cfg->max_rate >> 8, 1);
	if (cfg->step > cfg->max_rate) {
		NL_SET_ERR_MSG(extack, "AIMD step above the max rate");
		return -ERANGE;
	}
	if (c->set & VG_DC_MAX_OPS) {
		if (c->max_ops > VG_RATE_MAX) {
			NL_SET_ERR_MSG(extack, "max ops above 2^40 per second");
			return -ERANGE;
		}
		cfg->max_ops = c->max_ops;
	}
	if (c->set & VG_DC_TARGET_P99)
		cfg->target_p99_ns = c->target_p99_ns;
	if (c->set & VG_DC_AIMD_PERIOD) {
		if (!c->period_ns) {
			NL_SET_ERR_MSG(extack, "AIMD period must not be 0");
			return -EINVAL;
		}
		cfg->period_ns = c->period_ns;
	}
	if (c->set & VG_DC_CHUNK_NOLAT) {
		if (!c->chunk_nolat || c->chunk_nolat > cfg->max_chunk) {
			NL_SET_ERR_MSG(extack,
				       "chunk size above the device's largest message (max_chunk)");
			return -ERANGE;
		}
		cfg->chunk_nolat = c->chunk_nolat;
	}
	if (c->set & VG_DC_CHUNK_TABLE) {
		ret = vg_devcfg_check_table(c, cfg->max_chunk, extack);
		if (ret)
			return ret;
		cfg->ntable = c->ntable;
		memcpy(cfg->table, c->table, c->ntable * sizeof(c->table[0]));
	}
	if (c->set & VG_DC_LAT_EACH) {
		if (c->lat_each)
			cfg->flags |= VG_CTRL_LAT_EACH;
		else
			cfg->flags &= ~VG_CTRL_LAT_EACH;
	}
	if (c->set & VG_DC_OP_COSTS) {
		ret = vg_devcfg_apply_costs(&v.cost, c, extack);
		if (ret)
			return ret;
	}
	if (c->set & VG_DC_ENFORCE)
		v.enforce = c->enforce;
	if (c->set & VG_DC_USER_QPS)
		v.user_qps = c->user_qps;
	if (c->set & VG_DC_BURST) {
		if (c->burst > VG_SHAPER_BURST_MAX) {
			NL_SET_ERR_MSG(extack, "burst above 64 MiB");
			return -ERANGE;
		}
		v.burst = c->burst;
	}
	if (c->set & VG_DC_PKT_OVERHEAD) {
		v.pkt_set = c->pkt_overhead != VERBSGATE_PKT_OVERHEAD_AUTO;
		if (vg_cost_model_set_pkt(&v.cost, v.pkt_set ? c->pkt_overhead :
					  v.pkt_default)) {
			NL_SET_ERR_MSG(extack,
				       "packet overhead out of range: 0..512 bytes, or auto");
			return -ERANGE;
		}
	}

	/* The core's own rules, on the complete result. */
	ret = vg_ctrl_check_cfg(cfg);
	if (ret) {
		NL_SET_ERR_MSG(extack, "inconsistent device settings");
		return ret;
	}

	spin_lock_bh(&dev->ctrl_lock);
	ret = vg_ctrl_set_cfg(&dev->ctrl, cfg);
	if (!ret) {
		dev->cost = v.cost;
		dev->step_auto = v.step_auto;
		dev->enforce = v.enforce;
		WRITE_ONCE(dev->user_qps, v.user_qps);
		dev->burst = v.burst;
		dev->link_rate_set = v.link_rate_set;
		memcpy(dev->link_rate, v.link_rate, sizeof(dev->link_rate));
		dev->pkt_set = v.pkt_set;
		if (c->set & VG_DC_MAX_RATE)
			dev->max_rate_set = true;
		vg_devcfg_publish_locked(dev);
	}
	spin_unlock_bh(&dev->ctrl_lock);
	return ret;
}

/* Under vg_devices_lock (vg_device_for_each()). */
static int vg_devcfg_check_one(struct vg_device *dev, void *arg)
{
	u64 sum = *(u64 *)arg, max_rate;

	lockdep_assert_held(&vg_devices_lock);

	spin_lock_bh(&dev->ctrl_lock);
	max_rate = dev->ctrl.cfg.max_rate;
	spin_unlock_bh(&dev->ctrl_lock);
	return sum > max_rate ? -EDQUOT : 0;
}

/**
 * vg_devices_check_guarantees() - whether every device can guarantee @sum
 * @sum: the tenants' minimum rates added up, token bytes/s
 * @extack: for the reason of a refusal
 *
 * Context: process; takes vg_devices_lock and each device's ctrl_lock.
 * Return: 0 or -EDQUOT.
 */
int vg_devices_check_guarantees(u64 sum, struct netlink_ext_ack *extack)
{
	unsigned long pos = 0;
	int ret;

	ret = vg_device_for_each(&pos, vg_devcfg_check_one, &sum);
	if (ret)
		NL_SET_ERR_MSG(extack,
			       "the guaranteed rates would exceed a device's max rate");
	return ret;
}

/* Under vg_devices_lock (vg_device_for_each()). */
static int vg_devcfg_weights_one(struct vg_device *dev, void *arg)
{
	lockdep_assert_held(&vg_devices_lock);

	spin_lock_bh(&dev->ctrl_lock);
	vg_ctrl_set_weights(&dev->ctrl, arg);
	vg_devcfg_publish_locked(dev);
	spin_unlock_bh(&dev->ctrl_lock);
	return 0;
}

/**
 * vg_devcfg_set_class_weights() - the tenants' weights changed
 * @cw: per-class sums and counts over all tenants
 *
 * Recomputes every device's Rmin, SafeUtil and chunk size.
 *
 * Context: process; takes vg_cw_lock, then vg_devices_lock and each
 * device's ctrl_lock.
 */
void vg_devcfg_set_class_weights(const struct vg_class_weights *cw)
{
	struct vg_class_weights copy = *cw;
	unsigned long pos = 0;

	spin_lock(&vg_cw_lock);
	vg_cw = *cw;
	spin_unlock(&vg_cw_lock);
	vg_device_for_each(&pos, vg_devcfg_weights_one, &copy);
}
