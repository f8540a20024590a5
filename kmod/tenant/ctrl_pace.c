// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the tenant a process's control verbs are charged to, and
 * the charge (the pace itself is core/verbpace.h; the wait is the
 * interposed verbs', datapath/ctrl_verbs.c).
 */
#include <linux/cgroup.h>
#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/timekeeping.h>

#include "tenant.h"

/**
 * vg_tenant_of_current() - the tenant of the calling process
 *
 * The tenant a QP the process created now would be in before its address
 * is known: the deepest tenant cgroup over the process's cgroup v2, else
 * the default tenant (tenant.h, rules 1 and 4).
 *
 * Context: process; takes rcu_read_lock().
 * Return: the tenant with a reference, or NULL while the module unloads.
 */
struct vg_ktenant *vg_tenant_of_current(void)
{
	struct vg_qp_facts f = { .user = true };
	struct vg_ktenant *t;

	rcu_read_lock();
	f.cgrp = task_dfl_cgroup(current);
	t = vg_tenant_classify(&f);
	rcu_read_unlock();
	return t;
}

/*
 * Charge one verb to @t's pace: nanoseconds it is to wait, 0 to go now.
 * Any context; takes @t->verb_lock with interrupts off (a leaf, held for
 * a few instructions): a failed work request is charged from softirq.
 */
static u64 vg_tenant_pace_take(struct vg_ktenant *t, bool may_wait)
{
	u32 rate = READ_ONCE(t->pol.ctrl_rate);
	u32 burst = READ_ONCE(t->pol.ctrl_burst);
	unsigned long flags;
	u64 wait;

	if (!rate)
		return 0;
	spin_lock_irqsave(&t->verb_lock, flags);
	wait = vg_verb_pace_take(&t->verb_pace, ktime_get_ns(), rate, burst,
				 may_wait);
	spin_unlock_irqrestore(&t->verb_lock, flags);
	return wait;
}

/**
 * vg_tenant_verb_charge() - charge one control verb to a tenant
 * @t: the tenant
 * @may_wait: the verb may wait for its turn (create, register, allocate,
 *	modify); destroys are charged without waiting
 *
 * Context: any; takes @t->verb_lock (a leaf, held for a few instructions).
 * Return: nanoseconds the verb is to wait before it goes; 0 to go now.
 */
u64 vg_tenant_verb_charge(struct vg_ktenant *t, bool may_wait)
{
	atomic64_inc(&t->ctrl_verbs);
	return vg_tenant_pace_take(t, may_wait);
}

/**
 * vg_tenant_qp_error() - a work request of a tenant's process failed its QP
 * @t: the tenant
 *
 * Counted, and charged to the tenant's control verb pace as a verb that
 * does not wait: a QP in the error state sends nothing until its owner
 * resets or recreates it, through control verbs that do wait, so a
 * process that fails QPs on purpose (a bad rkey, RNR or transport retries
 * run out) goes no faster than the pace, failures and recoveries
 * together.
 *
 * Context: any, also softirq with interrupts off (a driver's report);
 * takes @t->verb_lock.
 */
void vg_tenant_qp_error(struct vg_ktenant *t)
{
	atomic64_inc(&t->qp_errors);
	vg_tenant_pace_take(t, false);
}
