// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate hierarchical weighted scheduler: the pool of QP heap blocks
 * (see qheap.h). A tenant's QP heap beyond its first VG_QHEAD indices
 * lives in fixed-size blocks of the shared pool s->qpool: data blocks,
 * found through a directory block, and through a second level of them
 * for the largest tenants (struct vg_qheap in sched.h).
 */
#include "qheap.h"
#include "sched.h"

#define NONE	VG_SCHED_NONE

/* The QP heap blocks: a free list, and a top below which all were used. */

/* Take a free block; the caller made sure there is one. */
static u32 vg_qblk_take(struct vg_sched *s)
{
	u32 b = s->qblk_free;

	if (b != NONE)
		s->qblk_free = s->qpool[b].dir[0];
	else
		b = s->qpool_top++;
	s->nqblk_free--;
	s->qblocks++;
	return b;
}

static void vg_qblk_give(struct vg_sched *s, u32 b)
{
	s->qpool[b].dir[0] = s->qblk_free;
	s->qblk_free = b;
	s->nqblk_free++;
	s->qblocks++;
}

/*
 * Blocks a tenant of @r QPs takes to hold one more: heap index r, which
 * may start a data block, which in turn may need the tenant's first
 * directory or a second-level one.
 */
u32 vg_qheap_grow_need(u32 r)
{
	u32 b = (r - VG_QHEAD) / VG_QBLK;

	if (r < VG_QHEAD || (r - VG_QHEAD) % VG_QBLK)
		return 0;
	if (b == 1 || (b > VG_QDIR && !(b % VG_QDIR)))
		return 2;
	return b == VG_QDIR ? 3 : 1;
}

/*
 * Tenant @id gets one more QP: make room for heap index nqps. O(1), and
 * nothing moves: a deeper directory takes the old one as its first entry.
 */
void vg_qheap_grow(struct vg_sched *s, u32 id)
{
	struct vg_sched_tenant *t = &s->tenants[id];
	u32 r = s->text[id].nqps, b = (r - VG_QHEAD) / VG_QBLK, l1;

	if (!vg_qheap_grow_need(r))
		return;
	if (!b) {
		t->qblk0 = vg_qblk_take(s);
		return;
	}
	if (b == 1 || b == VG_QDIR) {
		l1 = vg_qblk_take(s);
		s->qpool[l1].dir[0] = b == 1 ? t->qblk0 : t->qdir;
		t->qdir = l1;
		t->qdepth++;
	}
	if (t->qdepth == 1) {
		s->qpool[t->qdir].dir[b] = vg_qblk_take(s);
		return;
	}
	if (!(b % VG_QDIR))
		s->qpool[t->qdir].dir[b / VG_QDIR] = vg_qblk_take(s);
	l1 = s->qpool[t->qdir].dir[b / VG_QDIR];
	s->qpool[l1].dir[b % VG_QDIR] = vg_qblk_take(s);
}

/*
 * Tenant @id lost a QP: heap index nqps, which no active QP uses, goes;
 * the exact reverse of vg_qheap_grow().
 */
void vg_qheap_shrink(struct vg_sched *s, u32 id)
{
	struct vg_sched_tenant *t = &s->tenants[id];
	u32 r = s->text[id].nqps, b = (r - VG_QHEAD) / VG_QBLK, l1;

	if (!vg_qheap_grow_need(r))
		return;
	if (!b) {
		vg_qblk_give(s, t->qblk0);
		t->qblk0 = 0;
		return;
	}
	if (t->qdepth == 1) {
		vg_qblk_give(s, s->qpool[t->qdir].dir[b]);
	} else {
		l1 = s->qpool[t->qdir].dir[b / VG_QDIR];
		vg_qblk_give(s, s->qpool[l1].dir[b % VG_QDIR]);
		if (!(b % VG_QDIR))
			vg_qblk_give(s, l1);
	}
	if (b == 1 || b == VG_QDIR) {
		l1 = t->qdir;
		t->qdir = b == 1 ? 0 : s->qpool[l1].dir[0];
		t->qdepth--;
		vg_qblk_give(s, l1);
	}
}

/*
 * QP heap blocks for any spread of at most @q QPs over at most @t
 * tenants. With H = VG_QHEAD (indices kept in s->qroot and s->qtop) and
 * B = VG_QBLK, a tenant of r > H QPs holds d = ceil((r - H) / B) data
 * blocks, one directory if d > 1 (r >= H + B + 1), and ceil(d / VG_QDIR)
 * second-level ones if d > VG_QDIR (r >= H + VG_QDIR * B + 1). Summed
 * over the tenants:
 *
 *	data <= sum (r - H + B - 1) / B over tenants of r > H
 *	     <= (q + min(t, q / (H + 1)) * (B - 1 - H)) / B
 *	directories <= min(t, q / (H + B + 1))
 *	second level <= sum (d / VG_QDIR + 1) over tenants of d > VG_QDIR
 *		     <= data / VG_QDIR + q / (H + VG_QDIR * B + 1)
 *
 * so vg_sched_qp_add() always finds its blocks.
 */
u32 vg_qpool_blocks(u32 t, u32 q)
{
	u32 data = (q + min(t, q / (VG_QHEAD + 1)) * (VG_QBLK - 1 - VG_QHEAD)) /
		   VG_QBLK;

	return data + min(t, q / (VG_QHEAD + VG_QBLK + 1)) +
	       DIV_ROUND_UP(data, VG_QDIR) +
	       q / (VG_QHEAD + VG_QDIR * VG_QBLK + 1);
}
