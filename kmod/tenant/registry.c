// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the tenant registry: tenants added, changed, deleted,
 * looked up, walked and referenced, and the notifier that tells of each
 * change (see tenant.h for the rules; selectors and classification are
 * classify.c's).
 *
 * Tenants live in an allocating xarray keyed by id (0 is the default
 * tenant; others get ids 1..VERBSGATE_MAX_TENANTS - 1, cyclically, so an
 * id is not reused right away). Changes and walks take vg_tenants_lock;
 * classification walks the xarray under RCU. Every change is validated
 * completely before anything is published, so a failed request leaves no
 * trace.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ctype.h>
#include <linux/mutex.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "classify.h"
#include "tenant.h"

DEFINE_MUTEX(vg_tenants_lock);	/* the registry; kmod/lock_order.h */
DEFINE_XARRAY_ALLOC(vg_tenants);
/* Under vg_tenants_lock: */
static u32 vg_tenants_next;	/* next id to try (cyclic allocation) */
static u32 vg_ntenants;
static u64 vg_min_rate_sum;	/* written under the lock, read anywhere */
/* Lock-free: */
static atomic64_t vg_tenants_gen = ATOMIC64_INIT(0);
static atomic_t vg_tenant_nobjects = ATOMIC_INIT(0);
static BLOCKING_NOTIFIER_HEAD(vg_tenant_chain);
/* The control plane's hooks (struct vg_tenant_ops), set at init. */
static const struct vg_tenant_ops *vg_tenant_ops;

static const char *const vg_class_names[] = {
	[VERBSGATE_CLASS_BANDWIDTH] = "bandwidth",
	[VERBSGATE_CLASS_THROUGHPUT] = "throughput",
	[VERBSGATE_CLASS_LATENCY] = "latency",
};

/* The uapi mirrors the policy core's limits and enums. */
static_assert((int)VERBSGATE_CLASS_BANDWIDTH == (int)VG_CLASS_BANDWIDTH);
static_assert((int)VERBSGATE_CLASS_THROUGHPUT == (int)VG_CLASS_THROUGHPUT);
static_assert((int)VERBSGATE_CLASS_LATENCY == (int)VG_CLASS_LATENCY);
static_assert((int)__VERBSGATE_CLASS_MAX == (int)VG_CLASS_NR);
static_assert(VERBSGATE_WEIGHT_MIN == VG_WEIGHT_MIN);
static_assert(VERBSGATE_WEIGHT_MAX == VG_WEIGHT_MAX);
static_assert(VERBSGATE_MAX_TENANTS == VG_MAX_TENANTS);
static_assert(VERBSGATE_RATE_MAX == VG_RATE_MAX);

/**
 * vg_class_name() - name of a tenant class, as the CLI spells it
 * @class: enum verbsgate_class
 *
 * Context: any.
 */
const char *vg_class_name(u32 class)
{
	return class < ARRAY_SIZE(vg_class_names) ? vg_class_names[class] : "?";
}

/**
 * vg_tenant_name_valid() - whether @name may name a tenant
 * @name: NUL-terminated string
 *
 * 1..VERBSGATE_TENANT_NAME_MAX - 1 characters of [A-Za-z0-9_.-], neither
 * "." nor "..": it names a sysfs directory.
 *
 * Context: any.
 */
bool vg_tenant_name_valid(const char *name)
{
	size_t len = strnlen(name, VERBSGATE_TENANT_NAME_MAX);
	size_t i;

	if (!len || len >= VERBSGATE_TENANT_NAME_MAX ||
	    !strcmp(name, ".") || !strcmp(name, ".."))
		return false;
	for (i = 0; i < len; i++) {
		char c = name[i];

		if (!isalnum(c) && c != '_' && c != '.' && c != '-')
			return false;
	}
	return true;
}

/* RCU callback (softirq): the last reference is gone. */
static void vg_tenant_free_rcu(struct rcu_head *head)
{
	struct vg_ktenant *t = container_of(head, struct vg_ktenant, rcu);

	if (t->sel.cgrp)
		cgroup_put(t->sel.cgrp);
	kfree(t->sel.path);
	free_percpu(t->pcpu);
	kfree(t);
	atomic_dec(&vg_tenant_nobjects);
}

/*
 * kobject release: any context the last vg_tenant_put() runs in. Readers
 * under RCU (vg_tenant_classify()) may still look at the tenant.
 */
static void vg_tenant_release(struct kobject *kobj)
{
	struct vg_ktenant *t = container_of(kobj, struct vg_ktenant, kobj);

	call_rcu(&t->rcu, vg_tenant_free_rcu);
}

static const struct kobj_type vg_tenant_ktype = {
	.release = vg_tenant_release,
	.sysfs_ops = &kobj_sysfs_ops,
};

/* Process context; GFP_KERNEL. The kobject is initialized, not added. */
static struct vg_ktenant *vg_tenant_alloc(const char *name)
{
	struct vg_ktenant *t;
	int cpu;

	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return NULL;
	t->pcpu = alloc_percpu(struct vg_tenant_pcpu);
	if (!t->pcpu) {
		kfree(t);
		return NULL;
	}
	for_each_possible_cpu(cpu)
		u64_stats_init(&per_cpu_ptr(t->pcpu, cpu)->syncp);
	strscpy(t->name, name, sizeof(t->name));
	spin_lock_init(&t->verb_lock);
	atomic_inc(&vg_tenant_nobjects);
	/* From here on vg_tenant_put() frees everything. */
	kobject_init(&t->kobj, &vg_tenant_ktype);
	return t;
}

/**
 * vg_tenants_generation() - changes with every tenant added or deleted
 *
 * See tenant.h for how the QP path uses it. Context: any.
 */
u64 vg_tenants_generation(void)
{
	return atomic64_read(&vg_tenants_gen);
}

/**
 * vg_tenants_min_rate_sum() - sum of the tenants' guaranteed rates
 *
 * Context: any; exact when the caller excludes tenant changes (netlink
 * handlers are serialized by genl_mutex).
 */
u64 vg_tenants_min_rate_sum(void)
{
	return READ_ONCE(vg_min_rate_sum);
}

/**
 * vg_tenant_objects() - tenant objects allocated and not yet freed
 *
 * Counts deleted tenants until their last reference and RCU grace period
 * are gone: a leak check's measure. Context: any.
 */
int vg_tenant_objects(void)
{
	return atomic_read(&vg_tenant_nobjects);
}

/**
 * vg_tenant_register_notifier() - be told about tenant changes
 * @nb: called with enum vg_tenant_event and the struct vg_ktenant, in
 *	process context with vg_tenants_lock held, after the change is
 *	visible to vg_tenant_classify(); it must not change tenants
 *
 * Context: process. Return: 0.
 */
int vg_tenant_register_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_register(&vg_tenant_chain, nb);
}

/**
 * vg_tenant_unregister_notifier() - stop being told about tenant changes
 * @nb: as registered
 *
 * Context: process. Return: 0 or -ENOENT.
 */
int vg_tenant_unregister_notifier(struct notifier_block *nb)
{
	return blocking_notifier_chain_unregister(&vg_tenant_chain, nb);
}

/**
 * vg_tenant_stats_read() - sum a tenant's per-CPU counters
 * @t: tenant
 * @s: result
 *
 * Context: any; O(possible CPUs).
 */
void vg_tenant_stats_read(struct vg_ktenant *t, struct vg_tenant_stats *s)
{
	u64 enq = 0, deq = 0;
	int cpu;

	memset(s, 0, sizeof(*s));
	for_each_possible_cpu(cpu) {
		const struct vg_tenant_pcpu *c = per_cpu_ptr(t->pcpu, cpu);
		u64 bytes, wrs, chunks, split, ns, in, out;
		unsigned int start;

		do {
			start = u64_stats_fetch_begin(&c->syncp);
			bytes = u64_stats_read(&c->tx_bytes);
			wrs = u64_stats_read(&c->tx_wrs);
			chunks = u64_stats_read(&c->chunks);
			split = u64_stats_read(&c->split_wrs);
			ns = u64_stats_read(&c->throttled_ns);
			in = u64_stats_read(&c->enqueued_wrs);
			out = u64_stats_read(&c->dequeued_wrs);
		} while (u64_stats_fetch_retry(&c->syncp, start));
		s->tx_bytes += bytes;
		s->tx_wrs += wrs;
		s->chunks += chunks;
		s->split_wrs += split;
		s->throttled_ns += ns;
		enq += in;
		deq += out;
	}
	s->qp_clamps = atomic64_read(&t->qp_clamps);
	s->ctrl_verbs = atomic64_read(&t->ctrl_verbs);
	s->ctrl_wait_ns = atomic64_read(&t->ctrl_wait_ns);
	s->qp_errors = atomic64_read(&t->qp_errors);
	s->retry_bytes = atomic64_read(&t->retry_bytes);
	s->mr_bytes = atomic64_read(&t->mr_bytes);
	s->mr_refused = atomic64_read(&t->mr_refused);
	/* A reader between a dequeue and its enqueue's CPU sees no "-1". */
	s->queued_wrs = enq > deq ? enq - deq : 0;
}

/* Under vg_tenants_lock. */
static struct vg_ktenant *vg_tenant_lookup(const char *name)
{
	struct vg_ktenant *t;
	unsigned long id;

	lockdep_assert_held(&vg_tenants_lock);

	xa_for_each(&vg_tenants, id, t)
		if (!strcmp(t->name, name))
			return t;
	return NULL;
}

/* Under vg_tenants_lock. */
static struct vg_ktenant *vg_tenant_same_selector(const struct vg_selector *s)
{
	struct vg_ktenant *t;
	unsigned long id;

	lockdep_assert_held(&vg_tenants_lock);

	xa_for_each(&vg_tenants, id, t)
		if (vg_selector_equal(&t->sel, s))
			return t;
	return NULL;
}

/*
 * Under vg_tenants_lock: hand the per-class weights to the devices'
 * controllers (Rmin) and tell the QP path. Takes vg_devices_lock.
 */
static void vg_tenants_changed(enum vg_tenant_event ev, struct vg_ktenant *t)
{
	struct vg_class_weights cw = {};
	struct vg_ktenant *it;
	unsigned long id;

	lockdep_assert_held(&vg_tenants_lock);

	xa_for_each(&vg_tenants, id, it) {
		u32 class = it->pol.class, w = it->pol.weight;

		cw.sum[class] += w;
		cw.count[class]++;
		if (class == VG_CLASS_LATENCY && w > cw.max_latency)
			cw.max_latency = w;
	}
	vg_tenant_ops->class_weights(&cw);
	blocking_notifier_call_chain(&vg_tenant_chain, ev, t);
}

/* Checks a policy on its own; the devices' capacity is checked apart. */
static int vg_policy_check(const struct vg_tenant_policy *p,
			   struct netlink_ext_ack *extack)
{
	if (p->class > VERBSGATE_CLASS_MAX) {
		NL_SET_ERR_MSG(extack, "unknown tenant class");
		return -EINVAL;
	}
	if (p->weight < VG_WEIGHT_MIN || p->weight > VG_WEIGHT_MAX) {
		NL_SET_ERR_MSG(extack, "weight must be 1..10000");
		return -ERANGE;
	}
	if (p->min_rate > VG_RATE_MAX || p->max_rate > VG_RATE_MAX) {
		NL_SET_ERR_MSG(extack, "rate above 2^40 bytes/s");
		return -ERANGE;
	}
	if (p->max_rate && p->min_rate > p->max_rate) {
		NL_SET_ERR_MSG(extack,
			       "guaranteed (min) rate above the maximum rate");
		return -EINVAL;
	}
	if (vg_qp_bounds_check(&p->qpb)) {
		NL_SET_ERR_MSG(extack, "QP bound out of range");
		return -ERANGE;
	}
	if (p->ctrl_rate > VG_VERB_RATE_MAX || !p->ctrl_burst ||
	    p->ctrl_burst > VG_VERB_BURST_MAX) {
		NL_SET_ERR_MSG(extack,
			       "control verb rate above 1000000/s or burst not 1..1000000");
		return -ERANGE;
	}
	return 0;
}

/**
 * vg_tenant_add() - create a tenant
 * @spec: name, selector, policy
 * @extack: for the reason of a refusal
 *
 * Errors: -EINVAL/-ERANGE bad name, selector or policy; -EEXIST the name
 * or the selector is taken; -ENOENT/-ENOTDIR no such cgroup; -ENOSPC
 * VERBSGATE_MAX_TENANTS tenants exist; -EDQUOT the guaranteed rates would
 * exceed a device's MaxRate; -ENOMEM. Nothing changes on error.
 *
 * Context: process (the requester's, for its cgroup namespace); takes
 * vg_tenants_lock, then vg_devices_lock.
 * Return: the tenant with a reference for the caller, or an ERR_PTR.
 */
struct vg_ktenant *vg_tenant_add(const struct vg_tenant_spec *spec,
				 struct netlink_ext_ack *extack)
{
	struct vg_ktenant *t, *other;
	u64 sum;
	int ret;

	if (!vg_tenant_name_valid(spec->name)) {
		NL_SET_ERR_MSG(extack,
			       "tenant name must be 1..31 characters of A-Z a-z 0-9 _ . -, not . or ..");
		return ERR_PTR(-EINVAL);
	}
	ret = vg_policy_check(&spec->pol, extack);
	if (ret)
		return ERR_PTR(ret);

	t = vg_tenant_alloc(spec->name);
	if (!t)
		return ERR_PTR(-ENOMEM);
	ret = vg_selector_init(&t->sel, spec, extack);
	if (ret)
		goto out_put;
	t->pol = spec->pol;

	mutex_lock(&vg_tenants_lock);
	if (vg_tenant_lookup(spec->name)) {
		NL_SET_ERR_MSG(extack, "a tenant with this name exists");
		ret = -EEXIST;
		goto out_unlock;
	}
	other = vg_tenant_same_selector(&t->sel);
	if (other) {
		NL_SET_ERR_MSG(extack, "another tenant has the same selector");
		ret = -EEXIST;
		goto out_unlock;
	}
	if (vg_ntenants >= VG_MAX_TENANTS) {
		NL_SET_ERR_MSG(extack, "too many tenants (4096)");
		ret = -ENOSPC;
		goto out_unlock;
	}
	sum = vg_min_rate_sum + t->pol.min_rate;
	ret = vg_tenant_ops->check_guarantees(sum, extack);
	if (ret)
		goto out_unlock;

	/* Reserve the id, create the directory, then publish. */
	ret = xa_alloc_cyclic(&vg_tenants, &t->id, NULL,
			      XA_LIMIT(1, VG_MAX_TENANTS - 1),
			      &vg_tenants_next, GFP_KERNEL);
	if (ret < 0) {
		NL_SET_ERR_MSG(extack, "no free tenant id");
		goto out_unlock;
	}
	ret = vg_tenant_ops->publish(t);
	if (ret) {
		xa_erase(&vg_tenants, t->id);
		NL_SET_ERR_MSG(extack, "cannot create the sysfs directory");
		goto out_unlock;
	}
	WRITE_ONCE(t->linked, true);
	xa_store(&vg_tenants, t->id, t, GFP_KERNEL);	/* reserved: no alloc */
	vg_ntenants++;
	WRITE_ONCE(vg_min_rate_sum, sum);
	atomic64_inc_return(&vg_tenants_gen);
	vg_tenants_changed(VG_TENANT_ADDED, t);
	mutex_unlock(&vg_tenants_lock);
	/* The registry's reference is the initial one; one more for the caller. */
	return vg_tenant_get(t);

out_unlock:
	mutex_unlock(&vg_tenants_lock);
out_put:
	vg_tenant_put(t);
	return ERR_PTR(ret);
}

/*
 * Under vg_tenants_lock: take @t out of the registry and sysfs. Its QPs
 * keep their references until the QP path moves them (rule R3).
 */
static void vg_tenant_unlink(struct vg_ktenant *t)
{
	lockdep_assert_held(&vg_tenants_lock);

	WRITE_ONCE(t->linked, false);
	xa_erase(&vg_tenants, t->id);
	vg_ntenants--;
	WRITE_ONCE(vg_min_rate_sum, vg_min_rate_sum - t->pol.min_rate);
	atomic64_inc_return(&vg_tenants_gen);
	/* Readers of its files take no lock: safe to drain under ours. */
	vg_tenant_ops->unpublish(t);
}

/**
 * vg_tenant_del() - delete a tenant
 * @name: its name
 * @extack: for the reason of a refusal
 *
 * Errors: -ENOENT no such tenant; -EINVAL it is the default tenant.
 *
 * Context: process; takes vg_tenants_lock, then vg_devices_lock; waits for
 * readers of the tenant's sysfs files.
 * Return: the unlinked tenant, whose reference (the registry's) passes to
 * the caller, or an ERR_PTR.
 */
struct vg_ktenant *vg_tenant_del(const char *name,
				 struct netlink_ext_ack *extack)
{
	struct vg_ktenant *t;

	mutex_lock(&vg_tenants_lock);
	t = vg_tenant_lookup(name);
	if (!t) {
		mutex_unlock(&vg_tenants_lock);
		NL_SET_ERR_MSG(extack, "no such tenant");
		return ERR_PTR(-ENOENT);
	}
	if (!t->id) {
		mutex_unlock(&vg_tenants_lock);
		NL_SET_ERR_MSG(extack, "the default tenant cannot be deleted");
		return ERR_PTR(-EINVAL);
	}
	vg_tenant_unlink(t);
	vg_tenants_changed(VG_TENANT_REMOVED, t);
	mutex_unlock(&vg_tenants_lock);
	return t;
}

/**
 * vg_tenant_set() - change a tenant's policy
 * @name: its name
 * @mask: VG_TP_* fields of @pol to apply
 * @pol: new values
 * @extack: for the reason of a refusal
 *
 * Errors: -ENOENT no such tenant; -EINVAL nothing to change or an invalid
 * combination; -ERANGE; -EDQUOT guarantees above a device's MaxRate.
 * Nothing changes on error.
 *
 * Context: process; takes vg_tenants_lock, then vg_devices_lock.
 * Return: the tenant with a reference for the caller, or an ERR_PTR.
 */
struct vg_ktenant *vg_tenant_set(const char *name, u32 mask,
				 const struct vg_tenant_policy *pol,
				 struct netlink_ext_ack *extack)
{
	struct vg_tenant_policy np;
	struct vg_ktenant *t;
	u64 sum;
	int ret;

	if (!mask) {
		NL_SET_ERR_MSG(extack,
			       "nothing to change: give a class, weight, min or max rate, a QP bound or a control verb pace");
		return ERR_PTR(-EINVAL);
	}
	mutex_lock(&vg_tenants_lock);
	t = vg_tenant_lookup(name);
	if (!t) {
		NL_SET_ERR_MSG(extack, "no such tenant");
		ret = -ENOENT;
		goto out_unlock;
	}
	np = t->pol;
	if (mask & VG_TP_CLASS)
		np.class = pol->class;
	if (mask & VG_TP_WEIGHT)
		np.weight = pol->weight;
	if (mask & VG_TP_MIN_RATE)
		np.min_rate = pol->min_rate;
	if (mask & VG_TP_MAX_RATE)
		np.max_rate = pol->max_rate;
	if (mask & VG_TP_RNR_RETRY_MAX)
		np.qpb.rnr_retry_max = pol->qpb.rnr_retry_max;
	if (mask & VG_TP_RETRY_CNT_MAX)
		np.qpb.retry_cnt_max = pol->qpb.retry_cnt_max;
	if (mask & VG_TP_RNR_TIMER_MIN)
		np.qpb.rnr_timer_min_ns = pol->qpb.rnr_timer_min_ns;
	if (mask & VG_TP_TIMEOUT_MIN)
		np.qpb.timeout_min_ns = pol->qpb.timeout_min_ns;
	if (mask & VG_TP_RD_ATOMIC_MAX)
		np.qpb.rd_atomic_max = pol->qpb.rd_atomic_max;
	if (mask & VG_TP_CTRL_RATE)
		np.ctrl_rate = pol->ctrl_rate;
	if (mask & VG_TP_CTRL_BURST)
		np.ctrl_burst = pol->ctrl_burst;
	if (mask & VG_TP_MR_BYTES_MAX)
		np.mr_bytes_max = pol->mr_bytes_max;
	ret = vg_policy_check(&np, extack);
	if (ret)
		goto out_unlock;
	sum = vg_min_rate_sum - t->pol.min_rate + np.min_rate;
	if (np.min_rate > t->pol.min_rate) {
		ret = vg_tenant_ops->check_guarantees(sum, extack);
		if (ret)
			goto out_unlock;
	}

	WRITE_ONCE(t->pol.class, np.class);
	WRITE_ONCE(t->pol.weight, np.weight);
	WRITE_ONCE(t->pol.min_rate, np.min_rate);
	WRITE_ONCE(t->pol.max_rate, np.max_rate);
	WRITE_ONCE(t->pol.qpb.rnr_timer_min_ns, np.qpb.rnr_timer_min_ns);
	WRITE_ONCE(t->pol.qpb.timeout_min_ns, np.qpb.timeout_min_ns);
	WRITE_ONCE(t->pol.qpb.rnr_retry_max, np.qpb.rnr_retry_max);
	WRITE_ONCE(t->pol.qpb.retry_cnt_max, np.qpb.retry_cnt_max);
	WRITE_ONCE(t->pol.qpb.rd_atomic_max, np.qpb.rd_atomic_max);
	WRITE_ONCE(t->pol.ctrl_rate, np.ctrl_rate);
	WRITE_ONCE(t->pol.ctrl_burst, np.ctrl_burst);
	WRITE_ONCE(t->pol.mr_bytes_max, np.mr_bytes_max);
	WRITE_ONCE(vg_min_rate_sum, sum);
	vg_tenants_changed(VG_TENANT_CHANGED, t);
	vg_tenant_get(t);
	mutex_unlock(&vg_tenants_lock);
	return t;

out_unlock:
	mutex_unlock(&vg_tenants_lock);
	return ERR_PTR(ret);
}

/**
 * vg_tenant_find() - look a tenant up by name
 * @name: its name
 *
 * Context: process; takes vg_tenants_lock.
 * Return: the tenant with a reference, or NULL.
 */
struct vg_ktenant *vg_tenant_find(const char *name)
{
	struct vg_ktenant *t;

	mutex_lock(&vg_tenants_lock);
	t = vg_tenant_lookup(name);
	if (t)
		vg_tenant_get(t);
	mutex_unlock(&vg_tenants_lock);
	return t;
}

/**
 * vg_tenant_for_each() - call @fn on tenants in id order
 * @pos: in: first id to visit; out: the id @fn stopped at, or one past the
 *	last id visited (resumable, for netlink dumps)
 * @fn: callback, under vg_tenants_lock; a non-zero return stops the walk
 * @arg: passed to @fn
 *
 * Context: process; takes vg_tenants_lock.
 * Return: what @fn returned last, 0 if it never stopped the walk.
 */
int vg_tenant_for_each(unsigned long *pos, vg_tenant_fn fn, void *arg)
{
	struct vg_ktenant *t;
	unsigned long id;
	int ret = 0;

	mutex_lock(&vg_tenants_lock);
	xa_for_each_start(&vg_tenants, id, t, *pos) {
		ret = fn(t, arg);
		if (ret) {
			*pos = id;
			goto out;
		}
		*pos = id + 1;
	}
out:
	mutex_unlock(&vg_tenants_lock);
	return ret;
}

/**
 * vg_tenants_init() - create the registry and the default tenant
 * @ops: the control plane's hooks; in use until vg_tenants_exit() returns
 *
 * Context: process (module init), once @ops->publish() works.
 * Return: 0, -ENOMEM, or what @ops->publish() returned.
 */
int vg_tenants_init(const struct vg_tenant_ops *ops)
{
	struct vg_ktenant *t;
	int ret;

	vg_tenant_ops = ops;
	t = vg_tenant_alloc(VERBSGATE_DEFAULT_TENANT);
	if (!t)
		return -ENOMEM;
	t->sel.type = VERBSGATE_SEL_DEFAULT;
	t->pol.class = VERBSGATE_CLASS_BANDWIDTH;
	t->pol.weight = 1;
	t->pol.qpb = VG_QP_BOUNDS_NONE;
	t->pol.ctrl_burst = VG_VERB_BURST_DEFAULT;

	mutex_lock(&vg_tenants_lock);
	ret = xa_insert(&vg_tenants, 0, NULL, GFP_KERNEL);
	if (!ret) {
		ret = vg_tenant_ops->publish(t);
		if (ret)
			xa_erase(&vg_tenants, 0);
	}
	if (!ret) {
		WRITE_ONCE(t->linked, true);
		xa_store(&vg_tenants, 0, t, GFP_KERNEL);
		vg_ntenants = 1;
		vg_tenants_changed(VG_TENANT_ADDED, t);
	}
	mutex_unlock(&vg_tenants_lock);
	if (ret) {
		vg_tenant_put(t);
		/* The module goes away: let vg_tenant_free_rcu() run first. */
		rcu_barrier();
	}
	return ret;
}

/**
 * vg_tenants_exit() - delete every tenant, the default one included
 *
 * The QP path must be gone (it holds tenant references). Waits until the
 * tenants are freed.
 *
 * Context: process (module exit); takes vg_tenants_lock.
 */
void vg_tenants_exit(void)
{
	struct vg_ktenant *t;
	unsigned long id;

	mutex_lock(&vg_tenants_lock);
	xa_for_each(&vg_tenants, id, t) {
		vg_tenant_unlink(t);
		vg_tenant_put(t);
	}
	mutex_unlock(&vg_tenants_lock);
	/* Wait for vg_tenant_free_rcu() of every tenant. */
	rcu_barrier();
	if (atomic_read(&vg_tenant_nobjects))
		pr_err("%d tenant objects still referenced at unload\n",
		       atomic_read(&vg_tenant_nobjects));
}
