/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate device controller: Rmin, SafeUtil and chunk size.
 *
 * Rmin (Justitia §4.3.1) is the share of the device the resource-hungry
 * tenants are guaranteed:
 *
 *	Rmin = (sum w_B + sum w_T) / (sum w_B + sum w_T + W_L) * MaxRate
 *
 * where W_L counts all latency tenants as one tenant of the largest
 * latency weight (Justitia's default "L = 1"; with equal weights this is
 * their formula with L = 1), or, with VG_CTRL_LAT_EACH, sums every latency
 * tenant's weight.
 *
 * SafeUtil follows Justitia's Pseudocode 1 (AIMD), evaluated at most once
 * per @period_ns: with no latency tenant it is MaxRate; otherwise, if the
 * reference flow's p99 exceeds the target it halves, else it grows by
 * @step; it is always clamped to [max(Rmin, 1), MaxRate]. A target of 0
 * means "no latency target": SafeUtil is Rmin while latency tenants exist.
 *
 * Chunk size (Justitia §5.2): with no latency or throughput tenant,
 * @chunk_nolat (default 1 MiB); otherwise the smallest chunk in the
 * device's table that sustains SafeUtil (default table: 5 KiB sustains
 * MaxRate). Throughput tenants (small messages, judged by their message
 * rate) count here though not in SafeUtil: one that keeps a few small
 * messages in flight waits a chunk of every other tenant's per round,
 * so its rate falls with the chunk size as a latency tenant's p99 rises
 * with it. Every chunk size is at most the device's @max_chunk.
 *
 * The op rate follows SafeUtil in proportion: max_ops * SafeUtil / MaxRate.
 * All rates are in token bytes (token.h) per second.
 *
 * Context and locking: no locks, no sleeping, no allocation; any context.
 * The caller serializes all calls on one struct vg_ctrl (the device's
 * controller runs in the reference-flow kthread or a timer; configuration
 * changes take the same lock).
 */
#ifndef _VG_CORE_CTRL_H
#define _VG_CORE_CTRL_H

#include "rate.h"
#include "sched.h"
#include "split.h"
#include "vg_compat.h"
#include "window.h"

#define VG_CTRL_MAX_TABLE	16U
#define VG_CTRL_CHUNK_NOLAT	BIT(20)		/* 1 MiB */
#define VG_CTRL_CHUNK_LAT	(5U << 10)	/* 5 KiB */
#define VG_CTRL_PERIOD_NS	(100 * NSEC_PER_USEC)

/* Count every latency tenant's weight in Rmin, not the group as one. */
#define VG_CTRL_LAT_EACH	BIT(0)

/* @chunk sustains @util_ppm parts per million of MaxRate. */
struct vg_chunk_ent {
	u32 chunk;
	u32 util_ppm;
};

struct vg_ctrl_cfg {
	u64 max_rate;		/* MaxRate, 1..VG_RATE_MAX */
	u64 max_ops;		/* op/s at MaxRate, 0..VG_RATE_MAX; 0: no op pacing */
	u64 target_p99_ns;	/* Target99; 0: none */
	u64 step;		/* additive increase, 1..max_rate */
	u64 period_ns;		/* AIMD period, >= 1 */
	u32 max_chunk;		/* device's largest message, 1..VG_SPLIT_MAX_CHUNK */
	u32 chunk_nolat;	/* 1..max_chunk */
	u32 flags;		/* VG_CTRL_* */
	u32 ntable;		/* 1..VG_CTRL_MAX_TABLE */
	struct vg_chunk_ent table[VG_CTRL_MAX_TABLE];
};

struct vg_ctrl {
	struct vg_ctrl_cfg cfg;
	u64 rmin_num, rmin_den;	/* Rmin / MaxRate */
	u64 rmin;		/* Rmin, >= 1 */
	u64 safe;		/* SafeUtil, in [rmin, max_rate] */
	u64 last_ns;		/* last AIMD step */
	u64 decreases, increases;
	u32 chunk;		/* current chunk size */
	u32 nlat;		/* latency tenants */
	u32 nthr;		/* throughput tenants */
	bool stepped;		/* an AIMD step has happened */
};

/**
 * vg_ctrl_default_cfg() - defaults for a device
 * @cfg: result
 * @max_rate: MaxRate, token bytes/s
 * @max_ops: op/s at MaxRate (0: no op pacing)
 * @max_chunk: the device's largest message
 *
 * Defaults: no target, step max_rate / 256, period VG_CTRL_PERIOD_NS,
 * chunk 1 MiB without latency tenants and a one-entry table (5 KiB
 * sustains MaxRate), both limited to @max_chunk. vg_ctrl_init() checks the
 * arguments.
 */
void vg_ctrl_default_cfg(struct vg_ctrl_cfg *cfg, u64 max_rate, u64 max_ops,
			 u32 max_chunk);

/**
 * vg_ctrl_check_cfg() - validate a configuration
 * @cfg: configuration
 *
 * Errors: -EINVAL max_rate, step, period, max_chunk or a chunk size is
 * 0, ntable is 0, unknown flags, or the table is not sorted by both chunk
 * and util_ppm; -ERANGE a rate above VG_RATE_MAX, step above max_rate,
 * max_chunk above VG_SPLIT_MAX_CHUNK, a chunk above max_chunk, or
 * util_ppm above 1000000; -E2BIG ntable above VG_CTRL_MAX_TABLE.
 * Return: 0 or an error above.
 */
int vg_ctrl_check_cfg(const struct vg_ctrl_cfg *cfg);

/**
 * vg_ctrl_init() - start a controller with no tenants
 * @c: controller
 * @cfg: configuration (copied)
 * @now: time, ns
 *
 * Return: 0 or as vg_ctrl_check_cfg().
 */
int vg_ctrl_init(struct vg_ctrl *c, const struct vg_ctrl_cfg *cfg, u64 now);

/**
 * vg_ctrl_set_cfg() - replace the configuration, keeping SafeUtil (clamped)
 * @c: controller
 * @cfg: new configuration (copied)
 *
 * Return: 0 or as vg_ctrl_check_cfg() (nothing changed).
 */
int vg_ctrl_set_cfg(struct vg_ctrl *c, const struct vg_ctrl_cfg *cfg);

/**
 * vg_ctrl_set_weights() - tenants changed: recompute Rmin, SafeUtil, chunk
 * @c: controller
 * @cw: per-class weights (vg_sched_class_weights())
 */
void vg_ctrl_set_weights(struct vg_ctrl *c, const struct vg_class_weights *cw);

/**
 * vg_ctrl_update() - one AIMD step on a new tail-latency estimate
 * @c: controller
 * @now: time, ns
 * @p99_ns: the reference flow's p99 (window.h)
 *
 * Does nothing before @period_ns has passed since the last step.
 * Return: true if SafeUtil or the chunk size changed.
 */
bool vg_ctrl_update(struct vg_ctrl *c, u64 now, u64 p99_ns);

/**
 * vg_ctrl_op_rate() - op/s that go with the current SafeUtil
 * @c: controller
 *
 * Return: max_ops * SafeUtil / MaxRate, at least 1; 0 if max_ops is 0.
 */
u64 vg_ctrl_op_rate(const struct vg_ctrl *c);

#endif /* _VG_CORE_CTRL_H */
