/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate hierarchical weighted scheduler: the pool of QP heap blocks
 * (qheap.c), for the scheduler (sched.c) only.
 *
 * Pure, no locks, no allocation: the caller (the scheduler, under its
 * glue's lock) provides the pool in struct vg_sched, sized with
 * vg_qpool_blocks().
 */
#ifndef _VG_CORE_QHEAP_H
#define _VG_CORE_QHEAP_H

#include "sched.h"

/* Blocks a tenant of @r QPs takes to hold one more (0 to 3). */
u32 vg_qheap_grow_need(u32 r);
/* Tenant @id gets one more QP; the pool has vg_qheap_grow_need() free. */
void vg_qheap_grow(struct vg_sched *s, u32 id);
/* Tenant @id lost a QP: the exact reverse of vg_qheap_grow(). */
void vg_qheap_shrink(struct vg_sched *s, u32 id);
/* Blocks for any spread of at most @q QPs over at most @t tenants. */
u32 vg_qpool_blocks(u32 t, u32 q);

#endif /* _VG_CORE_QHEAP_H */
