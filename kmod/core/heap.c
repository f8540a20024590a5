// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate indexed 4-ary min-heap: see heap.h (the operations are inline
 * there).
 */
#include "heap.h"

void vg_heap_init(struct vg_heap *h, struct vg_heap_ent *ent, u32 *pos,
		  u32 cap)
{
	h->ent = ent;
	h->pos = pos;
	h->n = 0;
	h->cap = cap;
	memset(pos, 0, cap * sizeof(*pos));
}
