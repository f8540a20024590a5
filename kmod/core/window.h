/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate tail-latency window.
 *
 * Holds the last @cap latency samples (nanoseconds; default 10000, Justitia's
 * RefCount) and answers percentile queries over exactly those samples.
 *
 * Representation: a log-linear histogram plus a ring of bucket indices.
 * A sample v falls in bucket
 *
 *	e = max(0, fls64(v) - 1 - VG_WIN_SUB_BITS),  idx = e * 2^SUB + (v >> e)
 *
 * so values below 2^(SUB+1) (256 ns) have their own bucket and every
 * larger octave [2^k, 2^(k+1)) is split into 2^SUB (128) equal buckets.
 * The ring remembers each sample's bucket so the oldest sample can be
 * removed when a new one arrives; a per-octave ("group") count makes a
 * query walk at most VG_WIN_GROUPS groups plus 2^SUB buckets of one group.
 *
 * Accuracy: the sample of rank r = ceil(q * count) (nearest-rank definition)
 * is located exactly; the value reported is the midpoint of its bucket, so
 * the answer x' for exact order statistic x satisfies
 *
 *	|x' - x| <= x / 2^(VG_WIN_SUB_BITS + 1)	(0.39 %; exact below 256 ns)
 *
 * Costs: insert O(1) (two counter updates, one more when evicting); query
 * O(VG_WIN_GROUPS + 2^SUB); memory vg_window_size(cap) bytes (29.3 KiB +
 * 2 bytes per sample, 48.8 KiB for 10000 samples).
 *
 * Context and locking: the window takes no locks and never allocates or
 * sleeps; all functions may be called in any context, including hardirq.
 * The caller serializes writers (insert, reset) against each other and
 * against readers; concurrent readers are fine.
 */
#ifndef _VG_CORE_WINDOW_H
#define _VG_CORE_WINDOW_H

#include "vg_compat.h"

#define VG_WIN_SUB_BITS		7
#define VG_WIN_SUB		BIT(VG_WIN_SUB_BITS)
#define VG_WIN_GROUPS		(64 - VG_WIN_SUB_BITS + 1)
#define VG_WIN_NBUCKETS		(VG_WIN_GROUPS * VG_WIN_SUB)
#define VG_WIN_DEFAULT_CAP	10000U
#define VG_WIN_MAX_CAP		BIT(24)
/* Quantiles are given in parts per million: 990000 is p99. */
#define VG_PPM			1000000U

struct vg_window {
	u32 cap;			/* samples kept */
	u32 count;			/* samples held now, <= cap */
	u32 head;			/* ring slot the next sample goes to */
	u32 group[VG_WIN_GROUPS];	/* samples per group of buckets */
	u32 bucket[VG_WIN_NBUCKETS];	/* samples per bucket */
	u16 ring[];			/* bucket index of each held sample */
};

/**
 * vg_window_size() - bytes needed for a window of @cap samples
 * @cap: number of samples, 1..VG_WIN_MAX_CAP
 *
 * Return: the size to allocate for vg_window_init(), or 0 if @cap is out of
 * range. Any context.
 */
size_t vg_window_size(u32 cap);

/**
 * vg_window_init() - initialize caller-provided memory as an empty window
 * @w: at least vg_window_size(@cap) bytes, any alignment suitable for u32
 * @cap: number of samples to keep, 1..VG_WIN_MAX_CAP
 *
 * Return: 0, or -EINVAL if @cap is 0 or above VG_WIN_MAX_CAP.
 * Any context; the caller owns @w exclusively.
 */
int vg_window_init(struct vg_window *w, u32 cap);

/**
 * vg_window_reset() - forget all samples, keep the capacity
 * @w: window
 *
 * Any context; caller serializes against all other users of @w.
 */
void vg_window_reset(struct vg_window *w);

/**
 * vg_window_insert() - add a sample, evicting the oldest if full
 * @w: window
 * @ns: sample value (any u64)
 *
 * O(1), any context; caller serializes against other users of @w.
 */
void vg_window_insert(struct vg_window *w, u64 ns);

/**
 * vg_window_count() - number of samples currently held
 * @w: window
 */
static inline u32 vg_window_count(const struct vg_window *w)
{
	return w->count;
}

/**
 * vg_window_quantile() - value at quantile @ppm of the held samples
 * @w: window
 * @ppm: quantile in parts per million, 0..VG_PPM (0 and 1 give the minimum)
 * @out: result, within the accuracy stated above
 *
 * Return: 0; -ENODATA if the window is empty; -EINVAL if @ppm > VG_PPM.
 * Any context; caller excludes concurrent writers.
 */
int vg_window_quantile(const struct vg_window *w, u32 ppm, u64 *out);

/**
 * vg_window_quantiles() - several quantiles in one pass
 * @w: window
 * @ppm: @n quantiles in parts per million, non-decreasing
 * @out: @n results
 * @n: number of quantiles
 *
 * Return: 0; -ENODATA if empty; -EINVAL if a quantile is above VG_PPM or
 * the list is not sorted. Any context; caller excludes concurrent writers.
 */
int vg_window_quantiles(const struct vg_window *w, const u32 *ppm, u64 *out,
			unsigned int n);

/**
 * vg_window_bucket() - bucket index of a value (exposed for tests)
 * @v: value
 */
static inline u32 vg_window_bucket(u64 v)
{
	u32 f = fls64(v);
	u32 e = f > VG_WIN_SUB_BITS ? f - VG_WIN_SUB_BITS - 1 : 0;

	return (e << VG_WIN_SUB_BITS) + (u32)(v >> e);
}

/**
 * vg_window_bucket_value() - value reported for bucket @idx
 * @idx: bucket index, < VG_WIN_NBUCKETS
 *
 * Return: the bucket's midpoint (its only value for exact buckets).
 */
u64 vg_window_bucket_value(u32 idx);

#endif /* _VG_CORE_WINDOW_H */
