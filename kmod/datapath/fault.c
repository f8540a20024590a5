// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: fault injection.
 *
 * The kernel's fault_attr framework (CONFIG_FAULT_INJECTION) is off in
 * the distribution kernels verbsgate is deployed on, so the module
 * carries its own, with the same shape: one directory per point under
 * /sys/kernel/debug/verbsgate/fault/, holding
 *
 *   probability  percent of the point's calls that fail (0 disarms it)
 *   times        failures left to inject; -1 for no limit (the default)
 *   calls        calls of the point while it was armed (read only)
 *   injected     failures injected (read only)
 *
 * Unlike fault_attr, the failing calls are not drawn at random: exactly
 * @probability percent of them fail, evenly spaced (at 10, calls 10, 20,
 * 30, ...), so a test's outcome does not depend on chance. While no point
 * is armed, vg_should_fail() costs one patched-out branch.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/mutex.h>

#include "fault.h"

/**
 * struct vg_fault - one point's settings and counts
 * @probability: percent of calls that fail, 0..100
 * @times: failures left; -1: no limit
 * @calls: calls while armed
 * @injected: failures injected
 */
struct vg_fault {
	u32 probability;
	atomic_t times;
	atomic_t calls;
	atomic_t injected;
};

static const char *const vg_fault_names[VG_FAULT_NR] = {
	[VG_FAULT_QP_STATE] = "qp_state",
	[VG_FAULT_WR_COPY] = "wr_copy",
	[VG_FAULT_CHUNK_POST] = "chunk_post",
};

static struct vg_fault vg_faults[VG_FAULT_NR];
DEFINE_STATIC_KEY_FALSE(vg_fault_armed);
/* Serialises arming and disarming (the static key's count). */
static DEFINE_MUTEX(vg_fault_lock);

/**
 * vg_fault_hit() - count a call of an armed point; fail it or not
 * @point: the point
 *
 * Context: any; no locks.
 * Return: true if the caller is to fail.
 */
bool vg_fault_hit(enum vg_fault_point point)
{
	struct vg_fault *f = &vg_faults[point];
	u64 prob = READ_ONCE(f->probability);
	u64 n;

	if (!prob)
		return false;
	n = (u32)atomic_inc_return(&f->calls);
	/* Call n fails when n * prob / 100 steps past a whole number. */
	if (!n || n * prob / 100 == (n - 1) * prob / 100)
		return false;
	if (atomic_read(&f->times) != -1 &&
	    atomic_dec_if_positive(&f->times) < 0)
		return false;
	atomic_inc(&f->injected);
	return true;
}

static int vg_fault_probability_get(void *data, u64 *val)
{
	*val = READ_ONCE(((struct vg_fault *)data)->probability);
	return 0;
}

/* Process context (write(2)); takes vg_fault_lock. */
static int vg_fault_probability_set(void *data, u64 val)
{
	struct vg_fault *f = data;

	if (val > 100)
		return -EINVAL;
	mutex_lock(&vg_fault_lock);
	if (val && !f->probability)
		static_branch_inc(&vg_fault_armed);
	else if (!val && f->probability)
		static_branch_dec(&vg_fault_armed);
	WRITE_ONCE(f->probability, val);
	mutex_unlock(&vg_fault_lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vg_fault_probability_fops, vg_fault_probability_get,
			 vg_fault_probability_set, "%llu\n");

/**
 * vg_fault_debugfs_init() - create the fault directory
 * @root: verbsgate's debugfs directory
 *
 * Context: process context (module init). debugfs failures are not fatal.
 */
void vg_fault_debugfs_init(struct dentry *root)
{
	struct dentry *dir = debugfs_create_dir("fault", root);
	struct dentry *d;
	int i;

	for (i = 0; i < VG_FAULT_NR; i++) {
		atomic_set(&vg_faults[i].times, -1);
		d = debugfs_create_dir(vg_fault_names[i], dir);
		debugfs_create_file_unsafe("probability", 0600, d,
					   &vg_faults[i],
					   &vg_fault_probability_fops);
		debugfs_create_atomic_t("times", 0600, d, &vg_faults[i].times);
		debugfs_create_atomic_t("calls", 0400, d, &vg_faults[i].calls);
		debugfs_create_atomic_t("injected", 0400, d,
					&vg_faults[i].injected);
	}
}
