// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate tail-latency window: see window.h for the representation and
 * its accuracy.
 */
#include "window.h"

size_t vg_window_size(u32 cap)
{
	struct vg_window *w = NULL;

	if (!cap || cap > VG_WIN_MAX_CAP)
		return 0;
	return struct_size(w, ring, cap);
}

int vg_window_init(struct vg_window *w, u32 cap)
{
	/* The ring stores bucket indices in u16. */
	BUILD_BUG_ON(VG_WIN_NBUCKETS > 65536);

	if (!cap || cap > VG_WIN_MAX_CAP)
		return -EINVAL;
	w->cap = cap;
	vg_window_reset(w);
	return 0;
}

void vg_window_reset(struct vg_window *w)
{
	w->count = 0;
	w->head = 0;
	memset(w->group, 0, sizeof(w->group));
	memset(w->bucket, 0, sizeof(w->bucket));
}

void vg_window_insert(struct vg_window *w, u64 ns)
{
	u32 idx = vg_window_bucket(ns);
	u32 head = w->head;

	if (w->count == w->cap) {
		u32 old = w->ring[head];

		w->bucket[old]--;
		w->group[old >> VG_WIN_SUB_BITS]--;
	} else {
		w->count++;
	}
	w->ring[head] = (u16)idx;
	w->bucket[idx]++;
	w->group[idx >> VG_WIN_SUB_BITS]++;
	w->head = head + 1 == w->cap ? 0 : head + 1;
}

u64 vg_window_bucket_value(u32 idx)
{
	u32 g = idx >> VG_WIN_SUB_BITS;
	u32 e;
	u64 m;

	/* Groups 0 and 1 hold one value per bucket. */
	if (g <= 1)
		return idx;
	e = g - 1;
	m = (idx & (VG_WIN_SUB - 1)) + VG_WIN_SUB;
	return (m << e) + (1ULL << (e - 1));
}

/* 1-based nearest rank of quantile @ppm among @count samples. */
static u32 vg_window_rank(u32 count, u32 ppm)
{
	u64 r = div_u64((u64)ppm * count + VG_PPM - 1, VG_PPM);

	return clamp_t(u32, r, 1, count);
}

int vg_window_quantiles(const struct vg_window *w, const u32 *ppm, u64 *out,
			unsigned int n)
{
	const u32 mask = VG_WIN_SUB - 1;
	u32 b = 0, below = 0;
	unsigned int i;

	if (!w->count)
		return -ENODATA;
	for (i = 0; i < n; i++)
		if (ppm[i] > VG_PPM || (i && ppm[i] < ppm[i - 1]))
			return -EINVAL;

	/*
	 * Invariant: @below samples lie in buckets before @b. Ranks do not
	 * decrease, so the cursor only moves forward across the quantiles,
	 * and every loop stops at the latest in the bucket holding the
	 * sample of rank @rank because the counts sum to w->count >= rank.
	 */
	for (i = 0; i < n; i++) {
		u32 rank = vg_window_rank(w->count, ppm[i]);
		u32 g;

		/* Finish a partly walked group bucket by bucket. */
		while ((b & mask) && below + w->bucket[b] < rank)
			below += w->bucket[b++];
		if (!(b & mask)) {
			/* At a group boundary: skip whole groups. */
			for (g = b >> VG_WIN_SUB_BITS;
			     below + w->group[g] < rank; g++)
				below += w->group[g];
			b = g << VG_WIN_SUB_BITS;
			while (below + w->bucket[b] < rank)
				below += w->bucket[b++];
		}
		out[i] = vg_window_bucket_value(b);
	}
	return 0;
}

int vg_window_quantile(const struct vg_window *w, u32 ppm, u64 *out)
{
	return vg_window_quantiles(w, &ppm, out, 1);
}
