// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: control verbs of processes, paced per tenant.
 *
 * The interposed create, modify, destroy, register and allocate
 * operations (interpose.c) call vg_ctrl_verb() first when a process
 * calls them through uverbs (@udata set): the verb is charged to the
 * process's tenant (tenant/ctrl_pace.c) and, if the tenant's pace says
 * so and the verb may wait, the caller sleeps in its own context,
 * interruptibly, before the driver sees anything: a signal ends the wait
 * with -EINTR and nothing was created.
 *
 * The caller sleeps inside the wrapper's vg_interpose_srcu section, so
 * detach waits for it; vg_ctrl_verbs_stop() ends every wait on a device
 * first (the verbs then go unpaced), so that detach and unload never
 * wait for a tenant's pace.
 */
#include <linux/hrtimer.h>
#include <linux/ktime.h>
#include <linux/wait.h>

#include "tenant/tenant.h"

#include "ctrl_verbs.h"
#include "interpose.h"

/* Waiters of every device; each waits for its own device's stop. */
static DECLARE_WAIT_QUEUE_HEAD(vg_ctrl_wq);

/**
 * vg_ctrl_verb() - charge a control verb and wait for its turn
 * @ip: the device's interposition
 * @udata: the verb's user data; NULL (a kernel ULP's verb): not paced
 * @may_wait: the verb may wait (create, register, allocate, modify);
 *	destroys and deregisters are only charged
 *
 * Context: process (the verb's caller), inside the wrapper's
 * vg_interpose_srcu section; may sleep; takes the tenant's verb_lock.
 * Return: 0: go on; -EINTR: a signal came while waiting.
 */
int vg_ctrl_verb(struct vg_interpose *ip, struct ib_udata *udata,
		 bool may_wait)
{
	struct vg_ktenant *t;
	u64 wait, start;
	long ret = 0;

	if (!udata)
		return 0;
	t = vg_tenant_of_current();
	if (!t)
		return 0;
	wait = vg_tenant_verb_charge(t, may_wait);
	if (wait) {
		start = ktime_get_ns();
		ret = wait_event_interruptible_hrtimeout(vg_ctrl_wq,
							 READ_ONCE(ip->stopping),
							 ns_to_ktime(wait));
		atomic64_add(ktime_get_ns() - start, &t->ctrl_wait_ns);
	}
	vg_tenant_put(t);
	return ret == -ERESTARTSYS ? -EINTR : 0;
}

/**
 * vg_ctrl_verbs_stop() - end every control verb's wait on a device
 * @ip: the device's interposition, being detached
 *
 * Context: process; before detach waits for the wrappers.
 */
void vg_ctrl_verbs_stop(struct vg_interpose *ip)
{
	WRITE_ONCE(ip->stopping, true);
	wake_up_all(&vg_ctrl_wq);
}
