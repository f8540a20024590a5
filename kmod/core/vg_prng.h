/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * Deterministic pseudo-random numbers for verbsgate's property tests and
 * benchmarks (splitmix64). Not for anything that needs unpredictability.
 * Any context; the state is the caller's.
 */
#ifndef _VG_CORE_PRNG_H
#define _VG_CORE_PRNG_H

#include "vg_compat.h"

struct vg_prng {
	u64 s;
};

static inline void vg_prng_seed(struct vg_prng *r, u64 seed)
{
	r->s = seed;
}

static inline u64 vg_prng_next(struct vg_prng *r)
{
	u64 z = (r->s += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* Uniform in [lo, hi] (inclusive); lo <= hi. Bias below 2^-32 for spans < 2^32. */
static inline u64 vg_prng_range(struct vg_prng *r, u64 lo, u64 hi)
{
	u64 span = hi - lo + 1;

	if (!span)
		return vg_prng_next(r);
	return lo + mul_u64_u64_shr(vg_prng_next(r), span, 64);
}

#endif /* _VG_CORE_PRNG_H */
