/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate indexed 4-ary min-heap of (key, id) pairs.
 *
 * Ids are small integers (tenant or QP slots); the heap keeps each id's
 * position in a table indexed by id, so any member can be re-keyed or
 * removed in O(log n). A 4-ary heap is half as deep as a binary one and
 * its children share cache lines, which matters more here than the extra
 * comparisons. Keys compare with wrap-around (vg_before()): every two keys
 * in one heap must be less than 2^63 apart, which holds for the
 * scheduler's virtual times (spread at most 2^62) and for its biased
 * nanosecond clocks.
 *
 * Storage is the caller's: @cap entries and a position table covering the
 * id space. Several heaps may share one position table if each id is in at
 * most one of them, and a heap may be a view built on the fly over a slice
 * of a larger entry array. (The scheduler's per-tenant QP heaps, whose
 * entries live in blocks, are the same 4-ary heaps addressed differently:
 * struct vg_qheap in sched.h.)
 *
 * The operations are inline: they are most of the scheduler's per-WR
 * work. Context and locking: no locks, no allocation, any context; the
 * caller serializes all operations on one heap.
 */
#ifndef _VG_CORE_HEAP_H
#define _VG_CORE_HEAP_H

#include "vg_compat.h"

#define VG_HEAP_D	4

struct vg_heap_ent {
	u64 key;
	u32 id;
	u32 aux;		/* the user's, moves with the entry */
};

struct vg_heap {
	struct vg_heap_ent *ent;	/* @cap entries */
	u32 *pos;			/* id -> index + 1; 0: not in heap */
	u32 n;
	u32 cap;
};

/* Is @a before @b, modulo 2^64? */
static inline bool vg_before(u64 a, u64 b)
{
	return (s64)(a - b) < 0;
}

/**
 * vg_heap_init() - set up an empty heap over caller storage
 * @h: heap
 * @ent: @cap entries
 * @pos: one u32 per id, ids 0..@cap-1; zeroed here
 * @cap: capacity and id space
 */
void vg_heap_init(struct vg_heap *h, struct vg_heap_ent *ent, u32 *pos,
		  u32 cap);

/**
 * vg_heap_contains() - whether @id is in @h
 * @h: heap
 * @id: id below @h->cap
 */
static inline bool vg_heap_contains(const struct vg_heap *h, u32 id)
{
	return h->pos[id] != 0;
}

static inline void vg_heap_place(struct vg_heap *h, u32 i,
				 struct vg_heap_ent e)
{
	h->ent[i] = e;
	h->pos[e.id] = i + 1;
}

static inline void vg_heap_up(struct vg_heap *h, u32 i)
{
	struct vg_heap_ent e = h->ent[i];

	while (i) {
		u32 parent = (i - 1) / VG_HEAP_D;

		if (!vg_before(e.key, h->ent[parent].key))
			break;
		vg_heap_place(h, i, h->ent[parent]);
		i = parent;
	}
	vg_heap_place(h, i, e);
}

/* Index of the smaller key of @a and @b (compiles to a cmov). */
static inline u32 vg_heap_min2(const struct vg_heap_ent *ent, u32 a, u32 b)
{
	return vg_before(ent[b].key, ent[a].key) ? b : a;
}

static inline void vg_heap_down(struct vg_heap *h, u32 i)
{
	struct vg_heap_ent e = h->ent[i];
	const struct vg_heap_ent *ent = h->ent;
	u32 n = h->n;

	for (;;) {
		u32 f = VG_HEAP_D * i + 1, c, k;

		if (f >= n)
			break;
		if (likely(f + VG_HEAP_D <= n)) {
			/* Start loading the grandchildren meanwhile. */
			if (VG_HEAP_D * f + 1 < n) {
				prefetch(&ent[VG_HEAP_D * f + 1]);
				prefetch(&ent[VG_HEAP_D * f + 5]);
				prefetch(&ent[VG_HEAP_D * f + 9]);
				prefetch(&ent[VG_HEAP_D * f + 13]);
			}
			/* A full set of children: a branch-free tournament. */
			c = vg_heap_min2(ent, vg_heap_min2(ent, f, f + 1),
					 vg_heap_min2(ent, f + 2, f + 3));
		} else {
			for (c = f, k = f + 1; k < n; k++)
				c = vg_heap_min2(ent, c, k);
		}
		if (!vg_before(ent[c].key, e.key))
			break;
		vg_heap_place(h, i, ent[c]);
		i = c;
	}
	vg_heap_place(h, i, e);
}

/**
 * vg_heap_push() - insert @id with @key; @id must not be in @h
 * @h: heap
 * @id: id below @h->cap
 * @key: its key
 * @aux: a value kept with the entry
 */
static inline void vg_heap_push(struct vg_heap *h, u32 id, u64 key, u32 aux)
{
	struct vg_heap_ent e = { .key = key, .id = id, .aux = aux };

	vg_heap_place(h, h->n++, e);
	vg_heap_up(h, h->n - 1);
}

/**
 * vg_heap_remove() - remove @id if present
 * @h: heap
 * @id: id below @h->cap
 */
static inline void vg_heap_remove(struct vg_heap *h, u32 id)
{
	u32 i = h->pos[id];

	if (!i)
		return;
	i--;
	h->pos[id] = 0;
	if (i == --h->n)
		return;
	/* Fill the hole with the last entry and restore order around it. */
	vg_heap_place(h, i, h->ent[h->n]);
	if (i && vg_before(h->ent[i].key, h->ent[(i - 1) / VG_HEAP_D].key))
		vg_heap_up(h, i);
	else
		vg_heap_down(h, i);
}

/**
 * vg_heap_update_at() - change the key of the entry at index @i
 * @h: heap
 * @i: index below @h->n
 * @key: new key
 */
static inline void vg_heap_update_at(struct vg_heap *h, u32 i, u64 key)
{
	u64 old = h->ent[i].key;

	h->ent[i].key = key;
	if (vg_before(key, old))
		vg_heap_up(h, i);
	else
		vg_heap_down(h, i);
}

/**
 * vg_heap_update() - change the key of @id, which must be in @h
 * @h: heap
 * @id: id below @h->cap
 * @key: new key
 */
static inline void vg_heap_update(struct vg_heap *h, u32 id, u64 key)
{
	vg_heap_update_at(h, h->pos[id] - 1, key);
}

#endif /* _VG_CORE_HEAP_H */
