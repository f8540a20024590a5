// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a modify QP within its tenant's bounds on retry and RDMA
 * READ attributes.
 *
 * The modify wrapper (interpose.c) asks vg_qp_bound_attr() before the
 * driver sees the attributes. Where the QP's tenant bounds what they ask
 * for, the driver gets a copy with the bounds in it: the attributes are
 * the caller's (a kernel ULP's, or uverbs'), and a caller must find them
 * as it left them. The driver stores what it was given, so a query of
 * the QP shows the bound, as if the owner had asked for it.
 */
#include <linux/slab.h>

#include "core/qpbounds.h"
#include "qp_bounds.h"

/* The bounded fields @attr_mask carries, as VG_QPA_* bits. */
static u32 vg_qp_bound_mask(int attr_mask)
{
	u32 mask = 0;

	if (attr_mask & IB_QP_RNR_RETRY)
		mask |= VG_QPA_RNR_RETRY;
	if (attr_mask & IB_QP_RETRY_CNT)
		mask |= VG_QPA_RETRY_CNT;
	if (attr_mask & IB_QP_MIN_RNR_TIMER)
		mask |= VG_QPA_MIN_RNR_TIMER;
	if (attr_mask & IB_QP_TIMEOUT)
		mask |= VG_QPA_TIMEOUT;
	if (attr_mask & IB_QP_MAX_QP_RD_ATOMIC)
		mask |= VG_QPA_MAX_RD_ATOMIC;
	return mask;
}

/**
 * vg_qp_bound_attr() - the attributes a modify QP gives the driver
 * @t: the QP's device's table
 * @qp: the QP
 * @attr: what the caller asks for
 * @attr_mask: which of @attr it sets
 *
 * The bounds are those of @qp's tenant when the modify starts; a QP whose
 * address moves it to another tenant (tenant.h, rule R1) is bounded by
 * the new one from its next modify on (RTR to RTS, where the requester's
 * retry counts are set).
 *
 * Context: process (the modify's caller, which may sleep); takes
 * rcu_read_lock().
 * Return: NULL: give the driver @attr; else a copy of @attr within the
 *	bounds, which the caller kfree()s; ERR_PTR(-ENOMEM).
 */
struct ib_qp_attr *vg_qp_bound_attr(struct vg_qp_table *t, struct ib_qp *qp,
				    const struct ib_qp_attr *attr,
				    int attr_mask)
{
	struct vg_qp_retry_attr ra = {
		.rnr_retry = attr->rnr_retry,
		.retry_cnt = attr->retry_cnt,
		.min_rnr_timer = attr->min_rnr_timer,
		.timeout = attr->timeout,
		.max_rd_atomic = attr->max_rd_atomic,
	};
	u32 mask = vg_qp_bound_mask(attr_mask);
	struct vg_qp_bounds b = VG_QP_BOUNDS_NONE;
	struct vg_ktenant *tn = NULL;
	struct ib_qp_attr *copy;
	struct vg_qp *q;

	if (!mask)
		return NULL;
	rcu_read_lock();
	q = vg_qp_find(t, qp);
	if (q)
		tn = rcu_dereference(q->tenant);
	if (tn)
		vg_tenant_qp_bounds(tn, &b);
	rcu_read_unlock();
	if (!vg_qp_bounds_apply(&b, mask, &ra))
		return NULL;

	copy = kmemdup(attr, sizeof(*attr), GFP_KERNEL);
	if (!copy)
		return ERR_PTR(-ENOMEM);
	copy->rnr_retry = ra.rnr_retry;
	copy->retry_cnt = ra.retry_cnt;
	copy->min_rnr_timer = ra.min_rnr_timer;
	copy->timeout = ra.timeout;
	copy->max_rd_atomic = ra.max_rd_atomic;
	return copy;
}

/**
 * vg_qp_bound_count() - count a bounded modify the driver accepted
 * @t: the QP's device's table
 * @qp: the QP
 *
 * Counted in the tenant the QP is in now (the one that bounded it, but
 * for a move between the two calls).
 *
 * Context: any; takes rcu_read_lock().
 */
void vg_qp_bound_count(struct vg_qp_table *t, struct ib_qp *qp)
{
	struct vg_ktenant *tn;
	struct vg_qp *q;

	rcu_read_lock();
	q = vg_qp_find(t, qp);
	tn = q ? rcu_dereference(q->tenant) : NULL;
	/* Freed an RCU grace period after its last reference goes. */
	if (tn)
		atomic64_inc(&tn->qp_clamps);
	rcu_read_unlock();
}
