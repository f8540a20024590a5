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
#include <linux/cred.h>
#include <linux/pid.h>
#include <linux/slab.h>

#include <rdma/restrack.h>

#include "fault.h"
#include "qp.h"

/* Process context. */
void vg_qp_table_init(struct vg_qp_table *t)
{
	xa_init(&t->qps);
}

/*
 * Process context, once the table can no longer change (the device's
 * operations are restored and their callers drained). Frees what is left:
 * QPs that still exist but are no longer tracked. Returns once every entry
 * of the table is freed, so no RCU callback of this module is pending
 * after the last device is detached.
 */
void vg_qp_table_destroy(struct vg_qp_table *t)
{
	struct vg_qp *q;
	unsigned long qpn;

	xa_for_each(&t->qps, qpn, q) {
		xa_erase(&t->qps, qpn);
		vg_qp_free(q);
	}
	xa_destroy(&t->qps);
	rcu_barrier();
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

/*
 * What classification knows about @q. The pointers point into @q.
 * Context: any; the caller keeps @q alive (RCU, xa_lock or ownership).
 */
static void vg_qp_facts(const struct vg_qp *q, struct vg_qp_facts *f)
{
	memset(f, 0, sizeof(*f));
	f->user = q->user;
	f->cgrp = q->cgrp;
	f->ulp = q->user ? NULL : q->owner;
	/* Pairs with vg_qp_set_av(): the GIDs are set before has_av. */
	if (smp_load_acquire(&q->has_av)) {
		f->local = &q->local_gid;
		f->peer = &q->peer_gid;
	}
}

/*
 * Under the table's xa_lock: make @tn (a reference the caller passes on)
 * @q's tenant. Return: the previous tenant, whose reference the caller
 * drops after unlocking, or NULL.
 */
static struct vg_ktenant *vg_qp_install(struct vg_qp_table *t,
					struct vg_qp *q,
					struct vg_ktenant *tn)
{
	struct vg_ktenant *old;

	lockdep_assert_held(&t->qps.xa_lock);

	old = rcu_replace_pointer(q->tenant, tn,
				  lockdep_is_held(&t->qps.xa_lock));
	if (old != tn) {
		if (tn)
			atomic_inc(&tn->nqps);
		if (old)
			atomic_dec(&old->nqps);
	}
	return old;
}

/*
 * Classify @q, a QP in @t that the caller keeps alive, and install the
 * result. A tenant added or deleted while classifying (the generation
 * moved) makes it try again, so that the result never comes from a
 * registry the notifier pass has already dealt with (tenant.h).
 *
 * Context: process or any context that may spin on xa_lock; takes xa_lock.
 * Return: whether @q changed tenant.
 */
static bool vg_qp_classify(struct vg_qp_table *t, struct vg_qp *q)
{
	struct vg_ktenant *tn, *old;
	struct vg_qp_facts f;
	u64 gen;

	for (;;) {
		gen = vg_tenants_generation();
		vg_qp_facts(q, &f);
		tn = vg_tenant_classify(&f);
		xa_lock(&t->qps);
		if (gen == vg_tenants_generation())
			break;
		xa_unlock(&t->qps);
		vg_tenant_put(tn);
	}
	old = vg_qp_install(t, q, tn);
	xa_unlock(&t->qps);
	vg_tenant_put(old);
	return old != tn;
}

/**
 * vg_qp_add() - start tracking a QP the driver has just created
 * @t: its device's table
 * @qp: the new QP (qp_num and qp_type set)
 * @user: created through uverbs, in the context of the creating process
 * @out: the entry; valid until the QP is destroyed
 *
 * Records who created the QP and classifies it into a tenant (rule R1).
 * The QP is not yet visible to its creator, so nothing posts on it before
 * it has a tenant.
 *
 * Context: process context (the QP creator's, for user QPs); may sleep.
 * Takes xa_lock.
 * Return: 0, -ENOMEM, or -EBUSY if the QP number is already tracked.
 */
int vg_qp_add(struct vg_qp_table *t, struct ib_qp *qp, bool user,
	      struct vg_qp **out)
{
	struct vg_qp *q;
	int ret;

	q = vg_should_fail(VG_FAULT_QP_STATE) ? NULL :
		kzalloc(sizeof(*q), GFP_KERNEL);
	if (!q)
		return -ENOMEM;
	q->qp = qp;
	q->qpn = qp->qp_num;
	q->type = qp->qp_type;
	q->user = user;
	if (user) {
		q->pid = get_task_pid(current, PIDTYPE_TGID);
		q->uid = current_euid();
		get_task_comm(q->comm, current);
		rcu_read_lock();
		q->cgrp = task_dfl_cgroup(current);
		cgroup_get(q->cgrp);
		rcu_read_unlock();
		q->cgroup_id = cgroup_id(q->cgrp);
	} else {
		strscpy(q->owner, vg_qp_kernel_owner(qp), sizeof(q->owner));
	}

	/*
	 * Insert first, classify second: a tenant change after the insertion
	 * either finds the entry (and skips it while it has no tenant) or
	 * moves the generation, and vg_qp_classify() tries again.
	 */
	ret = xa_insert(&t->qps, q->qpn, q, GFP_KERNEL);
	if (ret) {
		if (q->cgrp)
			cgroup_put(q->cgrp);
		put_pid(q->pid);
		kfree(q);
		return ret;
	}
	vg_qp_classify(t, q);
	*out = q;
	return 0;
}

/**
 * vg_qp_enforcement() - how verbsgate covers a tracked QP
 * @q: the QP
 * @reason: set to why it is not enforced (enum verbsgate_qp_reason)
 *
 * A kernel RC/UC QP whose state is not yet published, nor its reason
 * for having none, counts as tracked: it is being created.
 *
 * Context: under rcu_read_lock(), or holding the QP.
 * Return: enum verbsgate_qp_enforcement.
 */
u32 vg_qp_enforcement(const struct vg_qp *q, u32 *reason)
{
	*reason = VERBSGATE_QP_REASON_NONE;
	if (q->user) {
		if (rcu_access_pointer(q->usq))
			return VERBSGATE_QP_ENFORCED;
		*reason = VERBSGATE_QP_REASON_USER_QP;
		return VERBSGATE_QP_TRACKED;
	}
	if (q->type != IB_QPT_RC && q->type != IB_QPT_UC) {
		*reason = VERBSGATE_QP_REASON_QP_TYPE;
		return VERBSGATE_QP_UNSUPPORTED;
	}
	/* Pairs with the release in the create wrapper. */
	if (smp_load_acquire(&q->sq))
		return VERBSGATE_QP_ENFORCED;
	*reason = READ_ONCE(q->unshaped);
	return *reason ? VERBSGATE_QP_UNSUPPORTED : VERBSGATE_QP_TRACKED;
}

/**
 * vg_qp_table_count() - a device's tracked QPs by enforcement
 * @t: the table
 * @count: per enum verbsgate_qp_enforcement
 *
 * Context: any that may enter an RCU read-side section; O(QPs).
 */
void vg_qp_table_count(struct vg_qp_table *t,
		       u32 count[VERBSGATE_QP_ENFORCEMENT_MAX + 1])
{
	unsigned long qpn;
	struct vg_qp *q;
	u32 reason;

	memset(count, 0, sizeof(u32) * (VERBSGATE_QP_ENFORCEMENT_MAX + 1));
	rcu_read_lock();
	xa_for_each(&t->qps, qpn, q)
		count[vg_qp_enforcement(q, &reason)]++;
	rcu_read_unlock();
}

/**
 * vg_qp_untracked() - QPs of a device that verbsgate does not track
 * @ibdev: the device
 * @t: its table
 *
 * ib_core's count of the device's QPs less the tracked ones; the two are
 * read at different instants, so a QP created or destroyed meanwhile may
 * be off by one for that moment.
 *
 * Context: process context (ib_core takes its restrack xa_lock).
 */
u32 vg_qp_untracked(struct ib_device *ibdev, struct vg_qp_table *t)
{
	u32 count[VERBSGATE_QP_ENFORCEMENT_MAX + 1], tracked = 0;
	int all = rdma_restrack_count(ibdev, RDMA_RESTRACK_QP, false);
	int i;

	vg_qp_table_count(t, count);
	for (i = 0; i <= VERBSGATE_QP_ENFORCEMENT_MAX; i++)
		tracked += count[i];
	return (u32)all > tracked ? all - tracked : 0;
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
 * (a connected QP keeps its path; path migration is not followed). Once
 * they are known the QP is classified again (rule R1).
 *
 * Context: process context; takes xa_lock.
 * Return: whether the addresses became known now.
 */
bool vg_qp_set_av(struct vg_qp_table *t, struct ib_qp *qp,
		  const struct ib_qp_attr *attr, int attr_mask)
{
	const struct ib_global_route *grh;
	struct vg_qp *q;

	if (!(attr_mask & IB_QP_AV) ||
	    !(rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
		return false;
	grh = rdma_ah_read_grh(&attr->ah_attr);

	xa_lock(&t->qps);
	q = xa_load(&t->qps, qp->qp_num);
	if (!q || q->qp != qp || q->has_av) {
		xa_unlock(&t->qps);
		return false;
	}
	q->peer_gid = grh->dgid;
	if (grh->sgid_attr)
		q->local_gid = grh->sgid_attr->gid;
	/* Pairs with readers' smp_load_acquire() of has_av. */
	smp_store_release(&q->has_av, true);
	xa_unlock(&t->qps);

	/* The modifier owns the QP: it cannot be destroyed meanwhile. */
	vg_qp_classify(t, q);
	return true;
}

/**
 * vg_qp_table_retenant() - apply a tenant change to a device's QPs
 * @t: the table
 * @ev: what happened to @changed
 * @changed: the tenant added (rule R2) or deleted (rule R3)
 * @moved: called for each QP that changed tenant, or NULL
 * @arg: passed to @moved
 *
 * An added tenant takes the QPs it outranks their current tenant on; the
 * QPs of a deleted tenant are classified again. Each QP is decided under
 * xa_lock, so a concurrent vg_qp_set_av() or vg_qp_add() either sees the
 * new registry or is seen by this pass.
 *
 * Context: process context, called from the tenant notifier (under
 * vg_tenants_lock and vg_devices_lock), after the change is visible to
 * vg_tenant_classify(); takes xa_lock per QP, sleeps between QPs.
 */
void vg_qp_table_retenant(struct vg_qp_table *t, enum vg_tenant_event ev,
			  struct vg_ktenant *changed, vg_qp_moved_fn moved,
			  void *arg)
{
	struct vg_ktenant *cur, *tn, *old;
	unsigned long qpn = 0;
	struct vg_qp_facts f;
	struct vg_qp *q;

	if (ev != VG_TENANT_ADDED && ev != VG_TENANT_REMOVED)
		return;
	/*
	 * An insertion that completed before this empty critical section is
	 * found by the walk below; one after it reads the new generation in
	 * vg_qp_classify() and classifies against the new registry.
	 */
	xa_lock(&t->qps);
	xa_unlock(&t->qps);

	for (;;) {
		rcu_read_lock();
		q = xa_find(&t->qps, &qpn, ULONG_MAX, XA_PRESENT);
		if (!q) {
			rcu_read_unlock();
			break;
		}
		tn = NULL;
		old = NULL;
		xa_lock(&t->qps);
		cur = rcu_dereference_protected(q->tenant,
						lockdep_is_held(&t->qps.xa_lock));
		/* Gone, or not yet classified: vg_qp_add() decides. */
		if (xa_load(&t->qps, qpn) == q && cur) {
			vg_qp_facts(q, &f);
			if (ev == VG_TENANT_ADDED &&
			    vg_tenant_outranks(changed, cur, &f))
				tn = vg_tenant_get(changed);
			else if (ev == VG_TENANT_REMOVED && cur == changed)
				tn = vg_tenant_classify(&f);
			if (tn)
				old = vg_qp_install(t, q, tn);
		}
		xa_unlock(&t->qps);
		if (tn && moved)
			moved(q, arg);
		rcu_read_unlock();
		vg_tenant_put(old);
		qpn++;
		cond_resched();
	}
}

/**
 * vg_qp_find() - the entry of a tracked QP
 * @t: its device's table
 * @qp: the QP
 *
 * Context: under rcu_read_lock(); the entry stays valid until the caller
 * leaves the read-side section.
 * Return: the entry, or NULL if @qp is not tracked.
 */
struct vg_qp *vg_qp_find(struct vg_qp_table *t, struct ib_qp *qp)
{
	struct vg_qp *q = xa_load(&t->qps, qp->qp_num);

	return q && q->qp == qp ? q : NULL;
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
 * RCU callback (softirq context): a dump may have read @q->pid until the
 * grace period ended, so the reference is dropped only now.
 */
static void vg_qp_free_rcu(struct rcu_head *head)
{
	struct vg_qp *q = container_of(head, struct vg_qp, rcu);

	put_pid(q->pid);
	kfree(q);
}

/*
 * Process or softirq context. Drops an untracked entry's references and
 * frees it once current RCU readers are done with it
 * (vg_qp_table_destroy() waits for that).
 */
void vg_qp_free(struct vg_qp *q)
{
	struct vg_ktenant *tn = rcu_dereference_protected(q->tenant, true);

	if (tn) {
		atomic_dec(&tn->nqps);
		vg_tenant_put(tn);
	}
	if (q->cgrp)
		cgroup_put(q->cgrp);
	call_rcu(&q->rcu, vg_qp_free_rcu);
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
