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
	u32 rate = READ_ONCE(t->pol.ctrl_rate);
	u32 burst = READ_ONCE(t->pol.ctrl_burst);
	u64 wait;

	atomic64_inc(&t->ctrl_verbs);
	if (!rate)
		return 0;
	spin_lock(&t->verb_lock);
	wait = vg_verb_pace_take(&t->verb_pace, ktime_get_ns(), rate, burst,
				 may_wait);
	spin_unlock(&t->verb_lock);
	return wait;
}
