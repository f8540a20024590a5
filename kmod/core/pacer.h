/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate device pacer arithmetic.
 *
 * Two token buckets per device, one for token bytes (payload plus
 * per-operation overhead, see token.h) and one for operations, filled at
 * SafeUtil and its op-rate counterpart, each with a burst bound. They are
 * kept as earliest-departure times (EDT): a bucket of rate r and depth B
 * whose tokens return to zero at time D lets a chunk go at any time
 * now >= D, and sending c tokens at @now moves D to
 *
 *	D = max(D, now - B / r) + c / r
 *
 * which is exactly the token bucket (tokens(now) = min(B, r * (now - D)),
 * allowed to go negative by one chunk). The pacer may therefore send when
 * now >= vg_pacer_next(), and otherwise the kernel pacer sleeps on an
 * hrtimer until vg_pacer_next() instead of spinning. Over any interval
 * [t1, t2] the pacer releases at most  B + r * (t2 - t1) + c_max  tokens
 * of each kind, c_max being the largest single charge.
 *
 * Changing a rate takes effect for the next charge; the EDT already
 * accumulated (at most one chunk's worth beyond now) is kept.
 *
 * Context and locking: no locks, no sleeping, no allocation; any context
 * (the kernel calls it from the hrtimer/softirq pacer and from the
 * controller). The caller serializes all calls on one pacer (the device's
 * pacer lock).
 */
#ifndef _VG_CORE_PACER_H
#define _VG_CORE_PACER_H

#include "rate.h"
#include "token.h"

struct vg_pacer_cfg {
	u64 byte_rate;		/* token bytes per second; 0 = unlimited */
	u64 op_rate;		/* operations per second; 0 = unlimited */
	u64 burst_bytes;	/* byte bucket depth, <= VG_COST_MAX */
	u64 burst_ops;		/* op bucket depth, <= VG_COST_MAX */
};

struct vg_pacer {
	struct vg_rate brate, orate;
	struct vg_edt bedt, oedt;	/* biased by VG_TIME_BIAS */
	u64 burst_bytes, burst_ops;
	u64 bburst_ns, oburst_ns;	/* bucket depths as time at the rate */
	u64 sent_bytes, sent_ops;	/* totals charged, for statistics */
};

/**
 * vg_pacer_init() - set up a pacer whose buckets are full at @now
 * @p: pacer
 * @cfg: rates and bursts
 * @now: current time, ns, below 2^62 (any monotonic clock the caller keeps
 *	using for this pacer)
 *
 * Return: 0; -ERANGE if a rate is above VG_RATE_MAX or a burst above
 * VG_COST_MAX. Any context.
 */
int vg_pacer_init(struct vg_pacer *p, const struct vg_pacer_cfg *cfg, u64 now);

/**
 * vg_pacer_set_rates() - change both rates (e.g. to a new SafeUtil)
 * @p: pacer
 * @byte_rate: token bytes per second, 0 (unlimited) or up to VG_RATE_MAX
 * @op_rate: operations per second, 0 (unlimited) or up to VG_RATE_MAX
 *
 * Return: 0, or -ERANGE (pacer unchanged). Any context.
 */
int vg_pacer_set_rates(struct vg_pacer *p, u64 byte_rate, u64 op_rate);

/**
 * vg_pacer_set_burst() - change the byte bucket's depth
 * @p: pacer
 * @burst_bytes: new depth, <= VG_COST_MAX; 0: every chunk waits for its
 *	own tokens (one chunk may still leave an idle pacer at once)
 *
 * Tokens already saved beyond the new depth are dropped at the next
 * charge; a deeper bucket fills at the rate, not at once.
 *
 * Return: 0, or -ERANGE (pacer unchanged). Any context.
 */
int vg_pacer_set_burst(struct vg_pacer *p, u64 burst_bytes);

/**
 * vg_pacer_next() - earliest time the next chunk may depart
 * @p: pacer
 *
 * Return: time in ns; the caller may send at any now >= this value.
 * O(1), any context.
 */
static inline u64 vg_pacer_next(const struct vg_pacer *p)
{
	return vg_edt_time(p->bedt.ns > p->oedt.ns ? &p->bedt : &p->oedt);
}

/**
 * vg_pacer_full() - whether the byte bucket is full at @now
 * @p: pacer
 * @now: time, ns
 *
 * A full bucket loses what the rate adds from @now on: whatever was sent
 * over the last bucket depth's worth of time fell short of the rate.
 *
 * Return: true if a byte rate is set, its bucket holds its depth and the
 * op bucket lets a chunk go. O(1), any context.
 */
static inline bool vg_pacer_full(const struct vg_pacer *p, u64 now)
{
	return p->brate.npu && vg_edt_time(&p->bedt) + p->bburst_ns <= now &&
	       vg_edt_time(&p->oedt) <= now;
}

/**
 * vg_pacer_charge() - account for a chunk sent at @now
 * @p: pacer
 * @now: time of departure, ns
 * @t: its cost; t->bytes <= VG_COST_MAX
 *
 * O(1), no division, any context.
 */
void vg_pacer_charge(struct vg_pacer *p, u64 now, const struct vg_token *t);

#endif /* _VG_CORE_PACER_H */
