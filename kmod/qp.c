// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the table of tracked QPs of a device.
 *
 * The interposed create/modify/destroy QP operations (interpose.c) keep
 * one struct vg_qp per QP that verbsgate may shape: RC, UC, UD and XRC
 * initiator QPs that are their own real QP. Special QPs (SMI/GSI), XRC
 * targets and driver-private types (mlx5's UMR QP, for instance) are left
 * alone.
 *
 * Locking: the xarray's own lock (xa_lock) serializes writers; readers
 * walk or look up under rcu_read_lock(). Entries are freed with
 * kfree_rcu(), so a reader that found an entry may use it until it leaves
 * its RCU read-side critical section.
 */
#include <linux/cgroup.h>
#include <linux/slab.h>

#include "qp.h"

/* Process context. */
void vg_qp_table_init(struct vg_qp_table *t)
{
	xa_init(&t->qps);
}

/*
 * Process context, once the table can no longer change (the device's
 * operations are restored and their callers drained). Frees what is left:
 * QPs that still exist but are no longer tracked.
 */
void vg_qp_table_destroy(struct vg_qp_table *t)
{
	struct vg_qp *q;
	unsigned long qpn;

	xa_for_each(&t->qps, qpn, q) {
		xa_erase(&t->qps, qpn);
		kfree_rcu(q, rcu);
	}
	xa_destroy(&t->qps);
}

/* Any context. */
bool vg_qp_tracked_type(enum ib_qp_type type)
{
	switch (type) {
	case IB_QPT_RC:
	case IB_QPT_UC:
	case IB_QPT_UD:
	case IB_QPT_XRC_INI:
		return true;
	default:
		return false;
	}
}

/*
 * The kernel ULP behind a kernel QP. ib_core names a QP after the module
 * that called ib_create_qp(), which for every rdma_cm user is "rdma_cm";
 * the PD is allocated by the ULP itself (ib_alloc_pd() records its
 * KBUILD_MODNAME), so its name tells nvme_rdma from nvmet_rdma.
 */
static const char *vg_qp_kernel_owner(const struct ib_qp *qp)
{
	if (qp->pd && qp->pd->res.kern_name)
		return qp->pd->res.kern_name;
	return qp->res.kern_name ?: "";
}

/**
 * vg_qp_add() - start tracking a QP the driver has just created
 * @t: its device's table
 * @qp: the new QP (qp_num and qp_type set)
 * @user: created through uverbs, in the context of the creating process
 *
 * Context: process context (the QP creator's, for user QPs); may sleep.
 * Takes xa_lock.
 * Return: 0, -ENOMEM, or -EBUSY if the QP number is already tracked.
 */
int vg_qp_add(struct vg_qp_table *t, struct ib_qp *qp, bool user)
{
	struct vg_qp *q;
	int ret;

	q = kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->qp = qp;
	q->qpn = qp->qp_num;
	q->type = qp->qp_type;
	q->user = user;
	if (user) {
		q->pid = task_tgid_nr(current);
		get_task_comm(q->comm, current);
		rcu_read_lock();
		q->cgroup_id = cgroup_id(task_dfl_cgroup(current));
		rcu_read_unlock();
	} else {
		strscpy(q->owner, vg_qp_kernel_owner(qp), sizeof(q->owner));
	}

	ret = xa_insert(&t->qps, q->qpn, q, GFP_KERNEL);
	if (ret)
		kfree(q);
	return ret;
}

/**
 * vg_qp_set_av() - record a QP's addresses from a successful modify
 * @t: its device's table
 * @qp: the QP
 * @attr: the attributes the driver accepted
 * @attr_mask: which of them were set
 *
 * Only a modify that carries an address vector with a GRH (RoCE, or IB
 * with global routing) tells the addresses. The first one wins: readers
 * walk the table locklessly, so the addresses never change once published
 * (a connected QP keeps its path; path migration is not followed).
 *
 * Context: process context; takes xa_lock.
 */
void vg_qp_set_av(struct vg_qp_table *t, struct ib_qp *qp,
		  const struct ib_qp_attr *attr, int attr_mask)
{
	const struct ib_global_route *grh;
	struct vg_qp *q;

	if (!(attr_mask & IB_QP_AV) ||
	    !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
		return;
	grh = rdma_ah_read_grh(&attr->ah_attr);

	xa_lock(&t->qps);
	q = xa_load(&t->qps, qp->qp_num);
	if (q && q->qp == qp && !q->has_av) {
		q->peer_gid = grh->dgid;
		if (grh->sgid_attr)
			q->local_gid = grh->sgid_attr->gid;
		/* Pairs with readers' smp_load_acquire() of has_av. */
		smp_store_release(&q->has_av, true);
	}
	xa_unlock(&t->qps);
}

/**
 * vg_qp_take() - untrack a QP that is about to be destroyed
 * @t: its device's table
 * @qp: the QP
 *
 * Context: process context; takes xa_lock.
 * Return: the entry, now owned by the caller, or NULL if @qp is untracked.
 */
struct vg_qp *vg_qp_take(struct vg_qp_table *t, struct ib_qp *qp)
{
	struct vg_qp *q;

	xa_lock(&t->qps);
	q = xa_load(&t->qps, qp->qp_num);
	if (q && q->qp == qp)
		__xa_erase(&t->qps, qp->qp_num);
	else
		q = NULL;
	xa_unlock(&t->qps);
	return q;
}

/**
 * vg_qp_put_back() - track again a QP whose destruction failed
 * @t: its device's table
 * @q: what vg_qp_take() returned
 *
 * The QP still owns its number, so only memory can be short; then the QP
 * stays untracked.
 *
 * Context: process context; may sleep; takes xa_lock.
 */
void vg_qp_put_back(struct vg_qp_table *t, struct vg_qp *q)
{
	if (xa_insert(&t->qps, q->qpn, q, GFP_KERNEL)) {
		pr_warn_ratelimited("verbsgate: QP %u is no longer tracked\n",
				    q->qpn);
		vg_qp_free(q);
	}
}

/*
 * Any context. Frees an entry once current RCU readers are done with it.
 */
void vg_qp_free(struct vg_qp *q)
{
	kfree_rcu(q, rcu);
}

/**
 * vg_qp_for_each() - call @fn on tracked QPs in QP-number order
 * @t: the table
 * @pos: in: first QP number to visit; out: where @fn stopped, or one past
 *	 the last QP visited (netlink dumps resume there)
 * @fn: callback; runs under rcu_read_lock() and must not sleep; a non-zero
 *	return stops the walk and is returned
 * @arg: passed to @fn
 *
 * Context: any context that may enter an RCU read-side critical section.
 */
int vg_qp_for_each(struct vg_qp_table *t, unsigned long *pos, vg_qp_fn fn,
		   void *arg)
{
	struct vg_qp *q;
	unsigned long qpn;
	int ret = 0;

	rcu_read_lock();
	xa_for_each_start(&t->qps, qpn, q, *pos) {
		ret = fn(q, arg);
		if (ret) {
			*pos = qpn;
			goto out;
		}
		*pos = qpn + 1;
	}
out:
	rcu_read_unlock();
	return ret;
}
