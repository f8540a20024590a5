/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: fault injection at the points where the module itself can
 * fail, to test that every failure ends in a clean error its caller
 * handles. Driven from /sys/kernel/debug/verbsgate/fault/ (fault.c).
 */
#ifndef _VG_FAULT_H
#define _VG_FAULT_H

#include <linux/jump_label.h>
#include <linux/types.h>

struct dentry;

/**
 * enum vg_fault_point - where verbsgate can be told to fail
 * @VG_FAULT_QP_STATE: allocating the module's state of a new QP (its
 *	tracking entry, its send queue state); the QP is created anyway,
 *	reported untracked or unsupported (no-memory)
 * @VG_FAULT_WR_COPY: the GFP_ATOMIC allocation of the copy of a WR the
 *	post wrapper queues; the copy comes from the reserve (sendq.c) or,
 *	beyond it, ib_post_send() fails with -ENOMEM as for a full send queue
 * @VG_FAULT_CHUNK_POST: the driver's post_send of a chunk, answered with
 *	-ENOMEM as a driver with a full send queue does; the chunk waits
 *	for a completion of its QP and is posted again
 * @VG_FAULT_NR: number of points
 */
enum vg_fault_point {
	VG_FAULT_QP_STATE,
	VG_FAULT_WR_COPY,
	VG_FAULT_CHUNK_POST,
	VG_FAULT_NR
};

DECLARE_STATIC_KEY_FALSE(vg_fault_armed);

bool vg_fault_hit(enum vg_fault_point point);

/**
 * vg_should_fail() - whether the caller is to fail at @point now
 * @point: the point
 *
 * Costs one patched-out branch while no point is armed.
 *
 * Context: any.
 */
static inline bool vg_should_fail(enum vg_fault_point point)
{
	if (static_branch_unlikely(&vg_fault_armed))
		return vg_fault_hit(point);
	return false;
}

void vg_fault_debugfs_init(struct dentry *root);

#endif /* _VG_FAULT_H */
