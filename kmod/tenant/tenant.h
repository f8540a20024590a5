/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the tenant registry, tenant selectors and QP classification.
 *
 * A tenant is a named policy (class, weight, optional guaranteed and
 * maximum rate) plus a selector that says which QPs belong to it. Tenants
 * are module-wide: every attached device schedules all of them. The
 * built-in tenant "default" (id 0) exists while the module is loaded and
 * takes every QP no other tenant selects.
 *
 * Classification (vg_tenant_classify()): a QP belongs to one tenant,
 * found in this order, the first rule that matches wins:
 *  1. cgroup: a QP created by a task belongs to the tenant whose cgroup is
 *     the deepest ancestor-or-self of the task's cgroup v2 (the cgroup at
 *     QP creation; a task that migrates later does not move its QPs).
 *  2. address: once the QP's address vector is set, the tenant with the
 *     longest local or peer prefix matching the QP's source or destination
 *     GID (IPv4 prefixes match IPv4-mapped GIDs); at equal length a peer
 *     prefix wins (it names the remote host a kernel worker serves).
 *  3. ULP: a kernel-owned QP belongs to the tenant whose ULP name equals
 *     the QP's restrack owner name.
 *  4. the default tenant.
 * So a user QP's container decides before its addresses, and a kernel
 * QP's peer (an NVMe-oF host served by nvmet_rdma workers) decides before
 * the driver that created it.
 *
 * Re-classification rules, which the QP path implements:
 *  R1 A QP is classified when it is created (facts without addresses) and
 *     again when its address vector is first set or changes (modify QP to
 *     RTR with a new AH): rule 2 may then move it.
 *  R2 Adding a tenant re-classifies every existing QP; only QPs whose
 *     result is the new tenant move (it is the only possible new answer).
 *  R3 Deleting a tenant moves each of its QPs to the result of
 *     classifying it again without the deleted tenant (the next deepest
 *     cgroup, another prefix, the ULP tenant or the default). Nothing else
 *     moves.
 *  R4 Changing a tenant's class, weight or rates moves no QP; selectors
 *     cannot change (delete and add instead).
 *  R5 Deleting a cgroup does not delete its tenant: the tenant keeps a
 *     reference on it, and its QPs stay until they are destroyed.
 *  R6 A move happens between WRs: WRs already queued are posted and
 *     counted in the old tenant; counters are never transferred.
 * The registry calls the notifier chain (vg_tenant_register_notifier())
 * with VG_TENANT_ADDED / VG_TENANT_REMOVED / VG_TENANT_CHANGED after each
 * change is visible, for R2-R4. Races between classifying a new QP and a
 * concurrent add or delete are closed with the generation counter: read
 * vg_tenants_generation() before vg_tenant_classify(), and attach the QP
 * under the lock the notifier's pass also takes only if the generation is
 * unchanged, else classify again.
 *
 * Lifetime: a tenant is reference counted through its kobject
 * (/sys/kernel/verbsgate/tenants/<name>/). The registry holds one
 * reference while the tenant is linked; vg_tenant_classify() and the
 * lookups return one more, dropped with vg_tenant_put(). Memory is freed
 * an RCU grace period after the last reference.
 *
 * Locking: vg_tenants_lock (a mutex, in registry.c) serializes registry
 * changes and walks; its place in the lock order is in kmod/lock_order.h.
 * Classification and the counters take no lock.
 */
#ifndef _VG_TENANT_H
#define _VG_TENANT_H

#include <linux/atomic.h>
#include <linux/cgroup.h>
#include <linux/in6.h>
#include <linux/kobject.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/notifier.h>
#include <linux/percpu.h>
#include <linux/spinlock.h>
#include <linux/u64_stats_sync.h>
#include <linux/verbsgate.h>
#include <net/netlink.h>
#include <rdma/ib_verbs.h>

#include "core/qpbounds.h"
#include "core/sched.h"
#include "core/verbpace.h"

/**
 * struct vg_selector - which QPs a tenant selects (fixed after creation)
 * @type: enum verbsgate_selector
 * @v4: address selector given as IPv4 (shown as such)
 * @plen: address selector: prefix length over @addr, 0..128
 * @addr: address selector: IPv6 address, GID, or IPv4-mapped IPv4
 * @cgrp: cgroup selector: the cgroup, referenced
 * @path: cgroup selector: the path the operator gave (kmalloc'ed)
 * @ulp: ULP selector: restrack owner name
 */
struct vg_selector {
	u32 type;
	bool v4;
	u8 plen;
	struct in6_addr addr;
	struct cgroup *cgrp;
	char *path;
	char ulp[MODULE_NAME_LEN];
};

/**
 * struct vg_tenant_policy - what a tenant is entitled to
 * @class: enum verbsgate_class
 * @weight: VERBSGATE_WEIGHT_MIN..VERBSGATE_WEIGHT_MAX
 * @min_rate: guaranteed token bytes/s, 0: none
 * @max_rate: cap in token bytes/s, 0: none; >= @min_rate otherwise
 * @qpb: bounds on its QPs' retry attributes (core/qpbounds.h)
 * @ctrl_rate: pace of its processes' control verbs, verbs/s, 0: none
 *	(core/verbpace.h)
 * @ctrl_burst: control verbs that may go back to back, 1..
 * @mr_bytes_max: most bytes its processes may hold registered as MRs,
 *	0: no quota (core/quota.h)
 */
struct vg_tenant_policy {
	u32 class;
	u32 weight;
	u64 min_rate;
	u64 max_rate;
	struct vg_qp_bounds qpb;
	u32 ctrl_rate;
	u32 ctrl_burst;
	u64 mr_bytes_max;
};

/* Per-CPU counters; see enum verbsgate_stat_attr. */
struct vg_tenant_pcpu {
	u64_stats_t tx_bytes;
	u64_stats_t tx_wrs;
	u64_stats_t chunks;
	u64_stats_t split_wrs;
	u64_stats_t throttled_ns;
	u64_stats_t enqueued_wrs;	/* queued_wrs = enqueued - dequeued */
	u64_stats_t dequeued_wrs;
	struct u64_stats_sync syncp;
};

/* Counters summed over CPUs. */
struct vg_tenant_stats {
	u64 tx_bytes;
	u64 tx_wrs;
	u64 chunks;
	u64 split_wrs;
	u64 throttled_ns;
	u64 queued_wrs;
	u64 qp_clamps;
	u64 ctrl_verbs;
	u64 ctrl_wait_ns;
	u64 qp_errors;
	u64 mr_bytes;
	u64 mr_refused;
	u64 retry_bytes;
};

/**
 * struct vg_ktenant - a tenant (the module's object; struct vg_tenant in
 *	core/sched.h is one device scheduler's slot for it)
 * @kobj: /sys/kernel/verbsgate/tenants/<name>/ and the reference count
 * @rcu: frees the tenant after the last reference
 * @id: registry key, 0 for the default tenant
 * @linked: in the registry; cleared (under vg_tenants_lock) on deletion
 * @name: unique name
 * @sel: selector, fixed
 * @pol: policy; written under vg_tenants_lock with WRITE_ONCE, readable
 *	field by field with READ_ONCE anywhere
 * @nqps: QPs classified into the tenant (maintained by the QP path)
 * @qp_clamps: modify QP calls given a bound of @pol.qpb (control path,
 *	rare: one atomic)
 * @verb_lock: serializes @verb_pace
 * @verb_pace: the pace of its control verbs (ctrl_pace.c)
 * @ctrl_verbs: control verbs of its processes
 * @ctrl_wait_ns: time they waited for @verb_pace
 * @qp_errors: work requests of its processes that failed their QP
 * @mr_bytes: bytes its processes hold registered as MRs
 *	(datapath/mr_quota.c)
 * @mr_refused: registrations refused by @pol.mr_bytes_max
 * @retry_bytes: payload its QPs sent again in retries that verbsgate
 *	paced (datapath/usq.c)
 * @pcpu: counters
 */
struct vg_ktenant {
	struct kobject kobj;
	struct rcu_head rcu;
	u32 id;
	bool linked;
	char name[VERBSGATE_TENANT_NAME_MAX];
	struct vg_selector sel;
	struct vg_tenant_policy pol;
	atomic_t nqps;
	atomic64_t qp_clamps;
	spinlock_t verb_lock;	/* serializes verb_pace; a leaf */
	struct vg_verb_pace verb_pace;
	atomic64_t ctrl_verbs;
	atomic64_t ctrl_wait_ns;
	atomic64_t qp_errors;
	atomic64_t mr_bytes;
	atomic64_t mr_refused;
	atomic64_t retry_bytes;
	struct vg_tenant_pcpu __percpu *pcpu;
};

/**
 * struct vg_qp_facts - what classification knows about a QP
 * @user: created through uverbs on behalf of a process (else by the kernel)
 * @cgrp: user QP: the creating task's cgroup v2 at creation
 *	(task_dfl_cgroup(), or cgroup_get_from_id() of the id recorded then),
 *	NULL if unknown (the cgroup is gone); must stay valid during the call
 *	(RCU read lock or a reference)
 * @ulp: kernel QP: restrack owner name (res.kern_name), or NULL
 * @local: source GID once the address vector is set, else NULL
 * @peer: destination GID once the address vector is set, else NULL
 */
struct vg_qp_facts {
	bool user;
	struct cgroup *cgrp;
	const char *ulp;
	const union ib_gid *local;
	const union ib_gid *peer;
};

/**
 * struct vg_tenant_spec - a tenant to create, as netlink parsed it
 * @name: tenant name (validated here)
 * @sel_type: enum verbsgate_selector
 * @cgroup_path: cgroup selector: path, else NULL
 * @ulp: ULP selector: owner name, else NULL
 * @addr: address selector: 4 or 16 bytes
 * @addr_len: 4 or 16 (other lengths are rejected)
 * @plen: prefix length, or -1 for all bits
 * @pol: policy
 */
struct vg_tenant_spec {
	const char *name;
	u32 sel_type;
	const char *cgroup_path;
	const char *ulp;
	const u8 *addr;
	int addr_len;
	int plen;
	struct vg_tenant_policy pol;
};

/* Which fields of a struct vg_tenant_policy a change sets. */
#define VG_TP_CLASS	BIT(0)
#define VG_TP_WEIGHT	BIT(1)
#define VG_TP_MIN_RATE	BIT(2)
#define VG_TP_MAX_RATE	BIT(3)
#define VG_TP_RNR_RETRY_MAX	BIT(4)
#define VG_TP_RETRY_CNT_MAX	BIT(5)
#define VG_TP_RNR_TIMER_MIN	BIT(6)
#define VG_TP_TIMEOUT_MIN	BIT(7)
#define VG_TP_RD_ATOMIC_MAX	BIT(8)
#define VG_TP_CTRL_RATE		BIT(9)
#define VG_TP_CTRL_BURST	BIT(10)
#define VG_TP_MR_BYTES_MAX	BIT(11)

/* Notifier events; the data is the struct vg_ktenant. */
enum vg_tenant_event {
	VG_TENANT_ADDED,
	VG_TENANT_REMOVED,
	VG_TENANT_CHANGED,
};

/**
 * struct vg_tenant_ops - what the registry asks of the layers above it
 * @check_guarantees: whether every device can honour guaranteed rates
 *	that sum to @sum (token bytes/s); 0, or an error with the reason in
 *	@extack. Process context, under vg_tenants_lock.
 * @class_weights: the per-class weight sums changed (the controllers'
 *	Rmin). Process context, under vg_tenants_lock.
 * @publish: show a tenant being added (its sysfs directory); on error
 *	the tenant is not added. Process context, under vg_tenants_lock.
 * @unpublish: a tenant is being deleted: undo @publish. Process context,
 *	under vg_tenants_lock.
 *
 * The registry sits below the devices and the control plane; these are
 * its only calls upward, so tenant/ includes nothing from above it.
 */
struct vg_tenant_ops {
	int (*check_guarantees)(u64 sum, struct netlink_ext_ack *extack);
	void (*class_weights)(const struct vg_class_weights *cw);
	int (*publish)(struct vg_ktenant *t);
	void (*unpublish)(struct vg_ktenant *t);
};

typedef int (*vg_tenant_fn)(struct vg_ktenant *t, void *arg);

/*
 * The registry's lock (kmod/lock_order.h). Visible for
 * lockdep_assert_held() in the callbacks that run under it; only registry.c
 * takes it.
 */
extern struct mutex vg_tenants_lock;

int vg_tenants_init(const struct vg_tenant_ops *ops);
void vg_tenants_exit(void);

struct vg_ktenant *vg_tenant_add(const struct vg_tenant_spec *spec,
				 struct netlink_ext_ack *extack);
struct vg_ktenant *vg_tenant_del(const char *name,
				 struct netlink_ext_ack *extack);
struct vg_ktenant *vg_tenant_set(const char *name, u32 mask,
				 const struct vg_tenant_policy *pol,
				 struct netlink_ext_ack *extack);
struct vg_ktenant *vg_tenant_find(const char *name);
int vg_tenant_for_each(unsigned long *pos, vg_tenant_fn fn, void *arg);

struct vg_ktenant *vg_tenant_classify(const struct vg_qp_facts *facts);
bool vg_tenant_outranks(const struct vg_ktenant *cand,
			const struct vg_ktenant *cur,
			const struct vg_qp_facts *facts);
u64 vg_tenants_generation(void);
u64 vg_tenants_min_rate_sum(void);
int vg_tenant_objects(void);

int vg_tenant_register_notifier(struct notifier_block *nb);
int vg_tenant_unregister_notifier(struct notifier_block *nb);

void vg_tenant_stats_read(struct vg_ktenant *t, struct vg_tenant_stats *s);
struct vg_ktenant *vg_tenant_of_current(void);
u64 vg_tenant_verb_charge(struct vg_ktenant *t, bool may_wait);
void vg_tenant_qp_error(struct vg_ktenant *t);
const char *vg_class_name(u32 class);
const char *vg_selector_name(u32 type);
bool vg_tenant_name_valid(const char *name);

/**
 * vg_tenant_get() - take a reference on a tenant
 * @t: tenant the caller already holds a reference on
 *
 * Context: any.
 */
static inline struct vg_ktenant *vg_tenant_get(struct vg_ktenant *t)
{
	kobject_get(&t->kobj);
	return t;
}

/**
 * vg_tenant_put() - drop a reference; the last one frees the tenant
 *	after an RCU grace period
 * @t: tenant, or NULL
 *
 * Context: process or softirq.
 */
static inline void vg_tenant_put(struct vg_ktenant *t)
{
	if (t)
		kobject_put(&t->kobj);
}

/**
 * vg_tenant_count_tx() - account WRs posted to the device (hot path)
 * @t: tenant
 * @bytes: payload bytes
 * @wrs: work requests completed posting (the last chunk of each)
 * @chunks: chunks posted
 * @split: WRs among @wrs that were split into more than one chunk
 *
 * Context: any; per-CPU, no lock, no atomic instruction.
 */
static inline void vg_tenant_count_tx(struct vg_ktenant *t, u64 bytes,
				      u32 wrs, u32 chunks, u32 split)
{
	struct vg_tenant_pcpu *c = get_cpu_ptr(t->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	u64_stats_add(&c->tx_bytes, bytes);
	u64_stats_add(&c->tx_wrs, wrs);
	u64_stats_add(&c->chunks, chunks);
	u64_stats_add(&c->split_wrs, split);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(t->pcpu);
}

/**
 * vg_tenant_count_retry() - account a retry verbsgate paced
 * @t: tenant
 * @bytes: the payload the driver sent again
 *
 * Context: any; one atomic (retries are rare next to posts).
 */
static inline void vg_tenant_count_retry(struct vg_ktenant *t, u64 bytes)
{
	atomic64_add(bytes, &t->retry_bytes);
}

/**
 * vg_tenant_count_wait() - account time WRs waited for tokens (hot path)
 * @t: tenant
 * @ns: nanoseconds waited
 *
 * Context: any; per-CPU, no lock.
 */
static inline void vg_tenant_count_wait(struct vg_ktenant *t, u64 ns)
{
	struct vg_tenant_pcpu *c = get_cpu_ptr(t->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	u64_stats_add(&c->throttled_ns, ns);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(t->pcpu);
}

/**
 * vg_tenant_count_queue() - account WRs entering and leaving the tenant's
 *	queues (hot path)
 * @t: tenant
 * @in: WRs queued
 * @out: WRs dequeued (posted or flushed)
 *
 * The queue length is the sum of @in minus the sum of @out over all CPUs,
 * so a WR may enter on one CPU and leave on another.
 * Context: any; per-CPU, no lock.
 */
static inline void vg_tenant_count_queue(struct vg_ktenant *t, u32 in,
					 u32 out)
{
	struct vg_tenant_pcpu *c = get_cpu_ptr(t->pcpu);
	unsigned long flags;

	flags = u64_stats_update_begin_irqsave(&c->syncp);
	u64_stats_add(&c->enqueued_wrs, in);
	u64_stats_add(&c->dequeued_wrs, out);
	u64_stats_update_end_irqrestore(&c->syncp, flags);
	put_cpu_ptr(t->pcpu);
}

/**
 * vg_tenant_qp_bounds() - read a tenant's bounds on its QPs
 * @t: tenant
 * @b: result
 *
 * Field by field: a change made meanwhile may show half of it, which
 * bounds a modify by old and new values alike.
 * Context: any.
 */
static inline void vg_tenant_qp_bounds(const struct vg_ktenant *t,
				       struct vg_qp_bounds *b)
{
	b->rnr_timer_min_ns = READ_ONCE(t->pol.qpb.rnr_timer_min_ns);
	b->timeout_min_ns = READ_ONCE(t->pol.qpb.timeout_min_ns);
	b->rnr_retry_max = READ_ONCE(t->pol.qpb.rnr_retry_max);
	b->retry_cnt_max = READ_ONCE(t->pol.qpb.retry_cnt_max);
	b->rd_atomic_max = READ_ONCE(t->pol.qpb.rd_atomic_max);
}

#endif /* _VG_TENANT_H */
