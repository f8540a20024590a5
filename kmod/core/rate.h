/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate rate arithmetic: earliest-departure-time (EDT) clocks.
 *
 * A rate of R units per second is kept as nanoseconds per unit in 32.32
 * fixed point, so charging a cost needs one 64x64->128 multiply and no
 * division. An EDT clock is a time in nanoseconds plus a 32-bit fraction;
 * charging @units at rate R moves it by units / R seconds with a rounding
 * error below 2^-32 ns per unit of cost, so long-run rates are exact to
 * about one part in 4e6 at VG_RATE_MAX and far better at lower rates.
 *
 * Context and locking: inline arithmetic on caller-owned data; any context.
 */
#ifndef _VG_CORE_RATE_H
#define _VG_CORE_RATE_H

#include "vg_compat.h"

/* Highest rate accepted: 2^40 units/s (8.8 Tbit/s of bytes). */
#define VG_RATE_MAX		BIT_ULL(40)
/* Largest cost one charge may carry without overflow. */
#define VG_COST_MAX		BIT_ULL(33)
/*
 * EDT clocks run VG_TIME_BIAS ahead of the caller's clock so that credit
 * reaching back before the caller's time 0 needs no signed arithmetic;
 * back-dating is limited to VG_BACKDATE_MAX (73 years).
 */
#define VG_TIME_BIAS		BIT_ULL(62)
#define VG_BACKDATE_MAX		BIT_ULL(61)
/*
 * EDT clocks saturate here, 146 years past the caller's time 0, so that
 * repeated huge charges at tiny rates cannot wrap them around.
 */
#define VG_EDT_MAX		BIT_ULL(63)

struct vg_rate {
	u64 per_sec;		/* units per second; 0 = unlimited */
	u64 npu;		/* ns per unit, 32.32 fixed point; 0 = unlimited */
};

struct vg_edt {
	u64 ns;
	u32 frac;		/* 2^-32 ns */
};

/**
 * vg_rate_set() - set a rate
 * @r: rate
 * @per_sec: units per second, 0 (unlimited) or 1..VG_RATE_MAX
 *
 * Return: 0, or -ERANGE if @per_sec is above VG_RATE_MAX (@r unchanged).
 */
static inline int vg_rate_set(struct vg_rate *r, u64 per_sec)
{
	if (per_sec > VG_RATE_MAX)
		return -ERANGE;
	r->per_sec = per_sec;
	r->npu = per_sec ? div64_u64((u64)NSEC_PER_SEC << 32, per_sec) : 0;
	return 0;
}

/**
 * vg_rate_ns() - time @units take at rate @r, rounded down
 * @r: rate
 * @units: cost, <= VG_COST_MAX
 */
static inline u64 vg_rate_ns(const struct vg_rate *r, u64 units)
{
	return mul_u64_u64_shr(units, r->npu, 32);
}

/**
 * vg_edt_advance() - move @t forward by the time @units take at rate @r
 * @t: EDT clock
 * @r: rate
 * @units: cost, <= VG_COST_MAX
 */
static inline void vg_edt_advance(struct vg_edt *t, const struct vg_rate *r,
				  u64 units)
{
	u64 frac = (u64)t->frac + (u32)(units * r->npu);

	/* From at most VG_EDT_MAX, one step (< 2^63) cannot wrap. */
	t->ns += vg_rate_ns(r, units) + (frac >> 32);
	t->frac = (u32)frac;
	if (unlikely(t->ns > VG_EDT_MAX))
		t->ns = VG_EDT_MAX;
}

/**
 * vg_edt_floor() - raise @t to at least @now - @back (biased clock)
 * @t: EDT clock, biased by VG_TIME_BIAS
 * @now: caller's time, ns, below 2^62
 * @back: credit kept, ns (clamped to VG_BACKDATE_MAX)
 *
 * Drops credit older than @back nanoseconds before @now.
 */
static inline void vg_edt_floor(struct vg_edt *t, u64 now, u64 back)
{
	u64 floor = now + VG_TIME_BIAS - min(back, VG_BACKDATE_MAX);

	if (t->ns < floor) {
		t->ns = floor;
		t->frac = 0;
	}
}

/**
 * vg_edt_time() - caller's time of a biased EDT clock, 0 if before 0
 * @t: EDT clock
 */
static inline u64 vg_edt_time(const struct vg_edt *t)
{
	return t->ns > VG_TIME_BIAS ? t->ns - VG_TIME_BIAS : 0;
}

#endif /* _VG_CORE_RATE_H */
