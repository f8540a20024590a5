// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a device's shaper, the device side.
 *
 * Every shaped QP of the device (a kernel-owned RC or UC QP, sendq.c, or a
 * governed user QP, usq.c) has a slot in the device's scheduler (struct
 * vg_slot, which its handle names), under the scheduler slot of its
 * tenant; tenants get their slot when their first QP on the device binds
 * and lose it when they are deleted. The dispatcher picks the QP whose
 * chunk goes next (two-level fair queuing, core/sched.h), lets the pacer
 * (token buckets at SafeUtil, core/pacer.h) decide when, and has the QP's
 * kind of queue post the chunk (struct vg_slot_ops: a kernel QP's goes to
 * the driver's own post_send, a user QP's is released to its driver).
 * Neither kind is known here otherwise. When the pacer or a capped tenant
 * says "later", the dispatcher arms an hrtimer for that time and returns:
 * nothing spins and no thread is dedicated to pacing.
 *
 * Locking and context. vg_shaper::lock (spin_lock_irqsave: posts may come
 * from any context) protects the scheduler, the pacer, the settings copy
 * and every vg_sendq and bound vg_usq of the device. It is held for
 * bookkeeping only, a bounded amount per WR or chunk (the worst case is
 * written below); WR copies, the driver's post_send and the completion
 * handlers of owners all run without it.
 *
 * The dispatcher runs in the context of whoever kicks it (a post, the
 * hrtimer's worker), and several run at once, one per kicking context:
 * each picks a QP under the lock, charges its chunk, builds it in the
 * QP's own buffer and drops the lock around the driver's post_send (which
 * may run the driver's requester inline, on that CPU, and must see the
 * caller's interrupt state). While its chunk is in the driver the QP is
 * posting (vg_slot::posting) and inactive in the scheduler, so the other
 * dispatchers pick other QPs: two CPUs posting on two QPs drive the
 * driver in parallel, and a QP's chunks still reach the driver one at a
 * time, in order. A chain on the fast path (sendq_post.c) is charged
 * under the lock and goes to the driver from its poster after the lock
 * is dropped; it goes only while nothing of its QP is queued or in the
 * driver (vg_sendq::busy). The lock order is in kmod/lock_order.h.
 *
 * Worst-case hold of the lock, per acquisition on the post path: the QP's
 * state checks and its activation (O(log tenants + log QPs of the tenant)
 * in the scheduler, no allocation, no copy); per chunk a dispatcher posts:
 * a pick (O(1), plus O(log tenants) for each capped tenant whose time has
 * come), the splitter's next chunk (O(SGEs of the chunk)), the charge and
 * a deactivation and reactivation (O(log tenants + log QPs)). A QP's move
 * to another tenant adds a QP slot in the scheduler (core/sched.h gives
 * its bound).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "tenant/tenant.h"

#include "device.h"
#include "qp.h"
#include "shaper.h"

/* Op bucket's depth: operations an idle port may post back to back. */
#define VG_BURST_OPS	256U
/*
 * How long a chunk whose turn came while another QP's owner posted waits
 * for its own owner to post it before the hrtimer does (vg_shaper_kick()).
 */
#define VG_HANDOFF_NS	(20 * NSEC_PER_USEC)
/* How soon the hrtimer looks again at QPs it could not attend to. */
#define VG_ATTN_RETRY_NS	(50 * NSEC_PER_USEC)
/*
 * When the hrtimer looks again after handing a turn to a QP's home CPU:
 * should the QP close before its work runs, the work posts nothing and
 * arms nothing, and the other QPs' turns would wait for a post of their
 * own.
 */
#define VG_HOME_WAIT_NS	(1 * NSEC_PER_MSEC)
/*
 * How long a spare turn stays on offer (vg_shaper_offer_spare()): about
 * as long as a turn handed home waits, and tokens saved earlier than
 * that have gone anyway.
 */
#define VG_SPARE_NS	VG_HOME_WAIT_NS

/*
 * Under the shaper lock: arm the hrtimer for @when, unless it is earlier.
 * It is pinned: it fires on the CPU that armed it, and keeps to it as it
 * arms itself again (see vg_shaper_arm_here()).
 */
void vg_shaper_arm(struct vg_shaper *sh, u64 when)
{
	lockdep_assert_held(&sh->lock);

	if (hrtimer_is_queued(&sh->timer) &&
	    ktime_to_ns(hrtimer_get_expires(&sh->timer)) <= when)
		return;
	hrtimer_start(&sh->timer, ns_to_ktime(when),
		      HRTIMER_MODE_ABS_PINNED_HARD);
}

/**
 * vg_shaper_arm_here() - move the hrtimer to this CPU
 * @sh: the shaper
 *
 * A chunk the hrtimer releases is sent on the CPU it fires on, and with
 * a software driver (rxe) sending is the work of the NIC itself. A paced
 * poster calls this from its doorbell, so that the work it is paced into
 * runs where it runs, as its own sends would without verbsgate, rather
 * than on the CPU of whoever armed the timer first; latency-class
 * tenants, which are never paced, never pull it to theirs.
 *
 * Context: process context; the shaper lock held.
 */
void vg_shaper_arm_here(struct vg_shaper *sh)
{
	lockdep_assert_held(&sh->lock);

	if (hrtimer_is_queued(&sh->timer))
		hrtimer_start(&sh->timer, hrtimer_get_expires(&sh->timer),
			      HRTIMER_MODE_ABS_PINNED_HARD);
}

/**
 * vg_shaper_goes_home() - whether a QP's turn goes to its home CPU
 * @sh: the shaper
 * @cpu: the QP's home CPU, -1 if it has none yet
 *
 * For a queue kind's ->send_home: rxe does the transmit work of what it
 * is given on the CPU that gives it, so a turn that comes up on another
 * CPU than the QP's home goes to the QP's work there; not if the driver
 * sends on no particular CPU, the home is offline, or the shaper drains.
 *
 * Context: any, interrupts off; the shaper lock held.
 * Return: true if the caller hands the turn to the QP's home work.
 */
bool vg_shaper_goes_home(const struct vg_shaper *sh, int cpu)
{
	lockdep_assert_held(&sh->lock);

	return sh->home_posts && cpu >= 0 && cpu != smp_processor_id() &&
	       cpu_online(cpu) && !sh->draining;
}

/**
 * vg_shaper_wake_idle() - wake destroy and unload if they wait
 * @sh: the shaper
 *
 * The common case, nobody waiting, costs no waitqueue lock.
 *
 * Context: any; the shaper lock held.
 */
void vg_shaper_wake_idle(struct vg_shaper *sh)
{
	lockdep_assert_held(&sh->lock);

	/*
	 * Waiters queue themselves on @idle_wq before they check their
	 * condition under the shaper lock (the caller holds it), so one
	 * this does not see yet will see what the caller changed.
	 */
	if (waitqueue_active(&sh->idle_wq))
		wake_up(&sh->idle_wq);
}

/*
 * Under the shaper lock: a kernel QP whose chunk is in the driver is out
 * of the scheduler (vg_sendq_driver_post()); were one picked anyway,
 * skipping it keeps its chunks in order. A verbsgate bug, never the
 * owner's input.
 */
static bool vg_shaper_picked_posting(const struct vg_slot *slot)
{
#ifdef VG_DEBUG
	WARN_ONCE(slot->posting, "verbsgate: QP %u picked while posting\n",
		  slot->q ? slot->q->qpn : 0);
#endif
	return slot->posting;
}

/*
 * Spare turns. The scheduler shares out the pacer's tokens by turns, and
 * a tenant whose turn it is may not use them as fast as they come: on
 * rxe each of its chunks is sent by the CPU that releases it, its own,
 * and a tenant of small messages that keeps that CPU busy (a message-rate
 * storm; 8 B WRITEs at about 60 us of the guest's CPU each against 21 us
 * of the line) holds its turns while the bucket fills up and overflows.
 * A bulk tenant on another CPU waited meanwhile, and the two together
 * came to 0.73 of the pacer's rate (docs/husky/notes.md).
 *
 * While the bucket is full, what the rate adds is lost to every tenant,
 * so a dispatcher that posts a chunk in a tenant's turn and finds it so
 * offers one chunk's turn to the QP another tenant would send next, on
 * that QP's home CPU (vg_shaper_offer_spare()); its home work takes it
 * if the pacer still lets a chunk go (vg_shaper_take_spare()). The pacer
 * is charged for a spare chunk, the tenant's fair share is not
 * (vg_sched_charge_spare(); its cap is): tenants' shares are of the
 * tokens they contend for, and one that takes spare turns keeps its
 * place in the others. The tenant whose turn it was waits at most for
 * the part of the spare chunk beyond the bucket, once per bucket's
 * refill.
 */

/*
 * Under the shaper lock, as @slot's chunk goes in its tenant's turn: if
 * the pacer's bucket is full, offer a spare turn to the QP another tenant
 * would send next, when its chunks go from another CPU than this one.
 */
static void vg_shaper_offer_spare(struct vg_shaper *sh,
				  struct vg_shaper_port *pp,
				  const struct vg_slot *slot, u64 now)
{
	struct vg_slot *other;
	u32 h;

	if (sh->draining || !vg_pacer_full(&pp->pacer, now) ||
	    vg_sched_pick_spare(&pp->sched, slot->handle, &h))
		return;
	other = h < VG_SHAPER_MAX_QPS ? pp->by_handle[h] : NULL;
	/* One offer at a time; one its home work did not take expires. */
	if (!other || other->posting || !other->ops->send_home ||
	    (other->spare_ns && now - other->spare_ns <= VG_SPARE_NS))
		return;
	other->spare_ns = now;
	if (!other->ops->send_home(sh, other))
		other->spare_ns = 0;
}

/*
 * Under the shaper lock, the pacer letting a chunk go: if @pref, a QP
 * whose turn it is not, was offered a spare turn, post its chunk in it.
 * Return: whether it did (the lock was dropped and retaken meanwhile).
 */
static bool vg_shaper_take_spare(struct vg_shaper *sh,
				 struct vg_shaper_port *pp,
				 struct vg_slot *pref, u64 now,
				 unsigned long *flags)
{
	u64 offered = pref->spare_ns;

	pref->spare_ns = 0;
	if (!offered || now - offered > VG_SPARE_NS || pref->posting ||
	    !vg_sched_qp_active(&pp->sched, pref->handle) ||
	    !pref->ops->ready(pref))
		return false;
	pref->spare = true;
	pref->ops->post_chunk(sh, pref, now, flags);
	pref->spare = false;
	return true;
}

/*
 * Under the shaper lock: post one chunk of port @pp, of the QP its
 * scheduler picks, if its pacer allows; otherwise arm the hrtimer for
 * when it will. With @pref, the poster's own QP on @pp, only a chunk of
 * @pref, in its tenant's turn; a turn of another QP is left to the
 * hrtimer (see vg_shaper_kick()). Return: whether a chunk was posted (the
 * lock was dropped and retaken meanwhile).
 */
static bool vg_shaper_port_post(struct vg_shaper *sh,
				struct vg_shaper_port *pp,
				struct vg_slot *pref, unsigned long *flags)
{
	struct vg_slot *slot;
	u64 now, next;
	u32 h;
	int ret;

	lockdep_assert_held(&sh->lock);

	for (;;) {
		now = ktime_get_ns();
		if (!sh->draining) {
			next = vg_pacer_next(&pp->pacer);
			if (next > now) {
				vg_shaper_arm(sh, next);
				return false;
			}
		}
		ret = vg_sched_pick_near(&pp->sched, now,
					 pref ? pref->handle : VG_SCHED_NONE,
					 &h, &next);
		if (ret == -EAGAIN) {
			vg_shaper_arm(sh, next);
			return false;
		}
		if (ret)
			return false;	/* nothing to send, or all in the driver */
		slot = h < VG_SHAPER_MAX_QPS ? pp->by_handle[h] : NULL;
		if (slot && slot->ops->keeps_place && slot->posting) {
			if (pref && pref != slot &&
			    vg_shaper_take_spare(sh, pp, pref, now, flags))
				return true;
			/*
			 * A user queue keeps its place while its driver sends
			 * (usq.c): its turn waits for that dispatcher.
			 */
			vg_shaper_arm(sh, now + VG_HANDOFF_NS);
			return false;
		}
		if (!slot || vg_shaper_picked_posting(slot) ||
		    !slot->ops->ready(slot)) {
			vg_sched_deactivate(&pp->sched, h);
			continue;
		}
		/*
		 * The hrtimer's CPU may not be where the QP's work belongs:
		 * the turn waits for the QP's home CPU, which takes it (or
		 * arms the hrtimer), so no other QP takes it meanwhile; the
		 * hrtimer comes back in case the QP closes first.
		 */
		if (!pref && slot->ops->send_home &&
		    slot->ops->send_home(sh, slot)) {
			vg_shaper_arm(sh, now + VG_HOME_WAIT_NS);
			return false;
		}
		if (pref && slot != pref) {
			if (vg_shaper_take_spare(sh, pp, pref, now, flags))
				return true;
			/*
			 * Its owner is likely to post it from its own CPU
			 * first; the hrtimer covers an owner that waits.
			 */
			vg_shaper_arm(sh, now + VG_HANDOFF_NS);
			return false;
		}
		vg_shaper_offer_spare(sh, pp, slot, now);
		/* Its own turn: an offer it has not taken yet is moot. */
		slot->spare_ns = 0;
		slot->ops->post_chunk(sh, slot, now, flags);
		return true;
	}
}

/**
 * vg_shaper_kick() - post what the pacers allow now
 * @sh: the shaper
 * @pref: the QP its owner just posted to or polled room for, or NULL
 *	(the hrtimer)
 * @flags: the interrupt state saved when the caller took @sh->lock
 *
 * Posts up to VG_SHAPER_BUDGET chunks, the ports in turn, each port's of
 * the QPs its scheduler picks (other dispatchers may run meanwhile, on
 * other QPs), and arms the hrtimer for the rest: when a pacer or a capped
 * tenant says "later", or when the budget is spent.
 *
 * A poster or poller (@pref) posts only chunks of its own QP, in its
 * tenant's turns, and leaves every other turn to the hrtimer: rxe and other
 * software drivers do the transmit work of a post on the posting CPU, so
 * a poster that posted other QPs' chunks would pull their work onto its
 * CPU and two CPUs posting on two QPs would again share one CPU's work.
 * Tenants are still served in their fair order (vg_sched_pick_near()).
 *
 * Context: any; @sh->lock held (dropped and retaken around each post).
 */
void vg_shaper_kick(struct vg_shaper *sh, struct vg_slot *pref,
		    unsigned long *flags)
{
	u32 budget = VG_SHAPER_BUDGET, idle = 0, i;

	lockdep_assert_held(&sh->lock);

	if (pref) {
		while (budget && vg_shaper_port_post(sh, &sh->ports[pref->port],
						     pref, flags))
			budget--;
		goto out;
	}
	/* Round-robin, so that one busy port leaves the others budget. */
	while (budget && idle < sh->nports) {
		i = sh->next_port;
		sh->next_port = (i + 1) % sh->nports;
		if (vg_shaper_port_post(sh, &sh->ports[i], NULL, flags)) {
			budget--;
			idle = 0;
		} else {
			idle++;
		}
	}
out:
	/* Out of budget: the hrtimer's worker continues. */
	if (!budget)
		vg_shaper_arm(sh, ktime_get_ns());
}

/*
 * Under the shaper lock: post the markers and retries vg_shaper::attn
 * asks for (sendq.c), one QP at a time. A QP whose chunk is in the driver
 * meanwhile waits for the next round. Return: whether any QP waits.
 */
static bool vg_shaper_attend(struct vg_shaper *sh, unsigned long *flags)
{
	struct vg_slot *slot;
	LIST_HEAD(later);
	bool wait;

	lockdep_assert_held(&sh->lock);

	while (!list_empty(&sh->attn)) {
		slot = list_first_entry(&sh->attn, struct vg_slot, attn_node);
		if (slot->posting) {
			list_move_tail(&slot->attn_node, &later);
			continue;
		}
		list_del_init(&slot->attn_node);
		slot->ops->attend(sh, slot, flags);
	}
	wait = !list_empty(&later);
	list_splice(&later, &sh->attn);
	return wait;
}

/*
 * The hrtimer's dispatcher run, on the CPU the hrtimer fired on.
 *
 * Not in the hrtimer's softirq: a CPU that a tenant's own processes keep
 * busy runs its softirqs late, and the dispatcher would be as late for
 * every tenant. Next to a message-rate storm whose processes (and, on
 * the steered wire, whose receive work) filled their vCPU, the kernel
 * deferred that vCPU's softirqs to ksoftirqd, which competes with the
 * storm's processes as an equal; the storm's doorbells had moved the
 * hrtimer there (vg_shaper_arm_here()). Its runs came up to 58 ms apart
 * where a chunk takes 6 ms, and the bulk tenant on the other vCPU got
 * 12 Mbit/s where it got 20 without verbsgate (docs/results.md). A
 * high-priority worker runs ahead of a busy CPU's tasks.
 *
 * Context: process context (vg_sendq_wq); takes the shaper lock.
 */
static void vg_shaper_dispatch(struct work_struct *work)
{
	struct vg_shaper *sh = container_of(work, struct vg_shaper, dispatch);
	unsigned long flags;

	spin_lock_irqsave(&sh->lock, flags);
	vg_shaper_kick(sh, NULL, &flags);
	/* QPs in the driver meanwhile: come back for them. */
	if (vg_shaper_attend(sh, &flags))
		vg_shaper_arm(sh, ktime_get_ns() + VG_ATTN_RETRY_NS);
	/* Markers and retries may have made QPs active again. */
	vg_shaper_kick(sh, NULL, &flags);
	spin_unlock_irqrestore(&sh->lock, flags);
}

/* The hrtimer: hardirq context. Takes no lock. */
static enum hrtimer_restart vg_shaper_timer(struct hrtimer *timer)
{
	struct vg_shaper *sh = container_of(timer, struct vg_shaper, timer);

	queue_work_on(smp_processor_id(), vg_sendq_wq, &sh->dispatch);
	return HRTIMER_NORESTART;
}

/* Free what vg_shaper_port_init() allocated. Process context. */
static void vg_shaper_port_free(struct vg_shaper_port *pp)
{
	kvfree(pp->by_handle);
	kvfree(pp->tmap);
	kvfree(pp->sched_mem);
}

/*
 * Set up one port's scheduler and pacer. Process context; GFP_KERNEL.
 * Return: 0 or -ENOMEM (what was allocated is freed by the caller).
 */
static int vg_shaper_port_init(struct vg_shaper_port *pp)
{
	struct vg_sched_cfg cfg = {
		.max_tenants = VG_MAX_TENANTS,
		.max_qps = VG_SHAPER_MAX_QPS,
	};
	struct vg_pacer_cfg pc = {
		.burst_bytes = VG_SHAPER_BURST,
		.burst_ops = VG_BURST_OPS,
	};
	size_t len = vg_sched_mem_size(&cfg);
	u32 i;

	pp->sched_mem = kvzalloc(len, GFP_KERNEL);
	pp->tmap = kvmalloc_array(VG_MAX_TENANTS, sizeof(*pp->tmap),
				  GFP_KERNEL);
	pp->by_handle = kvcalloc(VG_SHAPER_MAX_QPS, sizeof(*pp->by_handle),
				 GFP_KERNEL);
	if (!pp->sched_mem || !pp->tmap || !pp->by_handle)
		return -ENOMEM;
	for (i = 0; i < VG_MAX_TENANTS; i++)
		pp->tmap[i] = VG_SCHED_NONE;
	if (vg_sched_init(&pp->sched, &cfg, pp->sched_mem, len) ||
	    vg_pacer_init(&pp->pacer, &pc, ktime_get_ns()))
		return -ENOMEM;
	return 0;
}

/**
 * vg_shaper_init() - set up a device's shaper
 * @sh: the shaper, zeroed
 * @dev: its device
 * @ports: the device's physical ports
 * @post_send: the driver's post_send
 *
 * Each port paced apart (up to VG_SHAPER_MAX_PORTS) takes about 2.6 MiB
 * for its scheduler (4096 tenant and 16384 QP slots).
 *
 * Context: process context; allocates with GFP_KERNEL.
 * Return: 0 or -ENOMEM.
 */
int vg_shaper_init(struct vg_shaper *sh, struct vg_device *dev, u32 ports,
		   int (*post_send)(struct ib_qp *qp,
				    const struct ib_send_wr *wr,
				    const struct ib_send_wr **bad))
{
	u32 i;

	spin_lock_init(&sh->lock);
	INIT_LIST_HEAD(&sh->slots);
	INIT_LIST_HEAD(&sh->sqs);
	INIT_LIST_HEAD(&sh->usqs);
	INIT_LIST_HEAD(&sh->closed);
	INIT_LIST_HEAD(&sh->inject);
	INIT_LIST_HEAD(&sh->attn);
	init_waitqueue_head(&sh->idle_wq);
	hrtimer_init(&sh->timer, CLOCK_MONOTONIC, HRTIMER_MODE_ABS_PINNED_HARD);
	sh->timer.function = vg_shaper_timer;
	INIT_WORK(&sh->dispatch, vg_shaper_dispatch);
	sh->dev = dev;
	sh->post_send = post_send;
	vg_cost_model_default(&sh->cost);
	sh->chunk = VG_CTRL_CHUNK_NOLAT;

	sh->nports = clamp_t(u32, ports, 1, VG_SHAPER_MAX_PORTS);
	if (ports > VG_SHAPER_MAX_PORTS)
		pr_warn("%s: %u ports: QPs of ports above %u are paced with port 1\n",
			dev->name, ports, VG_SHAPER_MAX_PORTS);
	sh->ports = kcalloc(sh->nports, sizeof(*sh->ports), GFP_KERNEL);
	if (!sh->ports)
		return -ENOMEM;
	for (i = 0; i < sh->nports; i++)
		if (vg_shaper_port_init(&sh->ports[i]))
			goto nomem;
	/* sysfs reads it without a lock: @nports is set before. */
	smp_store_release(&sh->active, true);
	return 0;

nomem:
	for (i = 0; i < sh->nports; i++)
		vg_shaper_port_free(&sh->ports[i]);
	kfree(sh->ports);
	sh->ports = NULL;
	return -ENOMEM;
}

/**
 * vg_shaper_settings() - follow the device's settings
 * @sh: the shaper
 * @set: the settings; each port's pacer runs at its own rates
 *
 * Context: process or softirq; takes the shaper lock.
 */
void vg_shaper_settings(struct vg_shaper *sh,
			const struct vg_shaper_settings *set)
{
	struct vg_shaper_port *pp;
	unsigned long flags;
	u32 i;

	if (!sh->active)
		return;
	spin_lock_irqsave(&sh->lock, flags);
	for (i = 0; i < sh->nports; i++) {
		pp = &sh->ports[i];
		if (set->burst != pp->pacer.burst_bytes)
			vg_pacer_set_burst(&pp->pacer, set->burst);
		if (set->rate[i] == pp->rate && set->op_rate[i] == pp->op_rate)
			continue;
		if (!vg_pacer_set_rates(&pp->pacer, set->rate[i],
					set->op_rate[i])) {
			WRITE_ONCE(pp->rate, set->rate[i]);
			WRITE_ONCE(pp->op_rate, set->op_rate[i]);
		}
	}
	sh->chunk = set->chunk;
	sh->enforce = set->enforce;
	sh->cost = set->cost;
	/* Faster or unshaped now: let waiting WRs go. */
	if (!list_empty(&sh->slots))
		vg_shaper_arm(sh, ktime_get_ns());
	spin_unlock_irqrestore(&sh->lock, flags);
}

/**
 * vg_shaper_ports_paced() - how many ports a shaper paces apart
 * @sh: the shaper
 *
 * Context: any; takes no lock.
 * Return: @sh->nports, 0 if the shaper is not set up (before
 * vg_shaper_init() succeeded, after vg_shaper_destroy()).
 */
u32 vg_shaper_ports_paced(const struct vg_shaper *sh)
{
	/* Pairs with the release in vg_shaper_init(): @nports is set. */
	return smp_load_acquire(&sh->active) ? sh->nports : 0;
}

/**
 * vg_shaper_port_stats() - what a port's pacer does, for sysfs and netlink
 * @sh: the shaper
 * @idx: the port's index (0: the device's first port), below @sh->nports
 * @st: filled in
 *
 * Context: any; reads without the shaper lock (each value is read once,
 * the set need not be consistent). The caller keeps the shaper set up:
 * it holds vg_devices_lock while the device is in the registry, or reads
 * from a sysfs file removed before the device detaches.
 */
void vg_shaper_port_stats(struct vg_shaper *sh, u32 idx,
			  struct vg_shaper_port_stats *st)
{
	const struct vg_shaper_port *pp = &sh->ports[idx];

	st->rate = READ_ONCE(pp->rate);
	st->op_rate = READ_ONCE(pp->op_rate);
	st->qps = READ_ONCE(pp->nsqs);
	st->paced_bytes = atomic64_read(&pp->paced_bytes);
	st->paced_ops = atomic64_read(&pp->paced_ops);
}

/* Under the shaper lock: the scheduler's policy for @t. */
static void vg_shaper_tenant_cfg(const struct vg_ktenant *t,
				 struct vg_tenant_cfg *cfg)
{
	cfg->weight = READ_ONCE(t->pol.weight);
	cfg->tclass = READ_ONCE(t->pol.class);
	cfg->min_rate = READ_ONCE(t->pol.min_rate);
	cfg->max_rate = READ_ONCE(t->pol.max_rate);
	/* A policy change in between may leave min above max: drop it. */
	if (cfg->max_rate && cfg->min_rate > cfg->max_rate)
		cfg->min_rate = 0;
}

/*
 * Under the shaper lock: give @slot a QP slot under @t in the scheduler
 * of port @port, creating @t's slot there on first use. @slot's old
 * handle, if any, is the caller's to delete. Return: 0 or the
 * scheduler's error (@slot unchanged).
 */
static int vg_shaper_place(struct vg_shaper *sh, struct vg_slot *slot,
			   u32 port, struct vg_ktenant *t)
{
	struct vg_shaper_port *pp = &sh->ports[port];
	struct vg_tenant_cfg cfg;
	u32 tid = pp->tmap[t->id], h;
	int ret;

	lockdep_assert_held(&sh->lock);

	if (tid == VG_SCHED_NONE) {
		vg_shaper_tenant_cfg(t, &cfg);
		ret = vg_sched_tenant_add(&pp->sched, &cfg, &tid);
		if (ret)
			return ret;
		pp->tmap[t->id] = tid;
	}
	ret = vg_sched_qp_add(&pp->sched, tid, VG_QP_WEIGHT_DEFAULT, &h);
	if (ret)
		return ret;
	pp->by_handle[h] = slot;
	WRITE_ONCE(pp->nsqs, pp->nsqs + 1);
	WRITE_ONCE(slot->port, port);
	slot->handle = h;
	if (slot->tenant != t) {
		vg_tenant_put(slot->tenant);
		WRITE_ONCE(slot->tenant, vg_tenant_get(t));
	}
	return 0;
}

/**
 * vg_shaper_slot_add() - give a new shaped QP its scheduler slot
 * @sh: the shaper
 * @slot: the QP's slot, not in a scheduler yet
 * @t: its tenant; @slot takes a reference
 *
 * On the device's first port; vg_shaper_set_port() follows a QP moved
 * to INIT on another.
 *
 * Context: any; the shaper lock held.
 * Return: 0, or -ENOSPC (no QP slot left).
 */
int vg_shaper_slot_add(struct vg_shaper *sh, struct vg_slot *slot,
		       struct vg_ktenant *t)
{
	int ret;

	lockdep_assert_held(&sh->lock);

	ret = vg_shaper_place(sh, slot, 0, t);
	if (!ret)
		list_add_tail(&slot->node, &sh->slots);
	return ret;
}

/*
 * Under the shaper lock: take @slot's handle out of its scheduler. Its
 * place in vg_shaper::slots is the caller's (a slot that moves keeps it).
 */
static void vg_shaper_unplace(struct vg_shaper *sh, struct vg_slot *slot)
{
	struct vg_shaper_port *pp = &sh->ports[slot->port];

	lockdep_assert_held(&sh->lock);

	pp->by_handle[slot->handle] = NULL;
	vg_sched_qp_del(&pp->sched, slot->handle);
	WRITE_ONCE(pp->nsqs, pp->nsqs - 1);
}

/**
 * vg_shaper_slot_del() - take a QP's slot out of its scheduler
 * @sh: the shaper
 * @slot: the slot, placed; its tenant reference stays for the caller to
 *	drop (outside the lock: the last one removes a kobject)
 *
 * Context: any; the shaper lock held.
 */
void vg_shaper_slot_del(struct vg_shaper *sh, struct vg_slot *slot)
{
	lockdep_assert_held(&sh->lock);

	vg_shaper_unplace(sh, slot);
	list_del_init(&slot->node);
}

/**
 * vg_shaper_charge() - charge what a dispatcher posts for a QP it picked
 * @sh: the shaper
 * @slot: the QP's slot, active in its port's scheduler; in a spare turn
 *	(@slot->spare, see "Spare turns") its tenant's share is not charged
 * @tok: the tokens it costs
 * @now: time of the pick, ns
 * @backlogged: the QP stays in the scheduler, with its place, while its
 *	post is in the driver; otherwise it leaves until it returns
 *
 * Context: any; the shaper lock held.
 */
void vg_shaper_charge(struct vg_shaper *sh, struct vg_slot *slot,
		      const struct vg_token *tok, u64 now, bool backlogged)
{
	struct vg_shaper_port *pp = &sh->ports[slot->port];

	lockdep_assert_held(&sh->lock);

	vg_pacer_charge(&pp->pacer, now, tok);
	if (slot->spare)
		vg_sched_charge_spare(&pp->sched, slot->handle, tok->bytes, now,
				      backlogged);
	else
		vg_sched_charge(&pp->sched, slot->handle, tok->bytes, now,
				backlogged);
	slot->spare = false;
}

/**
 * vg_shaper_charge_now() - let an idle QP post at once, if it may
 * @sh: the shaper
 * @slot: the QP's slot; nothing of the QP is queued or being posted
 * @tok: the tokens of each of @n operations
 * @n: how many
 * @bytes: their payload
 * @now: time, ns
 *
 * When the pacer has tokens and the scheduler would pick this QP anyway
 * (nothing backlogged on the port, or the QP's tenant is the one whose
 * turn it is), posting at once is what the dispatcher would do, minus
 * its round trip: the operations are charged as it would charge them,
 * and the caller lets them go. The pacer may run ahead by @n operations,
 * as by one chunk.
 *
 * Context: any; the shaper lock held.
 * Return: whether they were charged.
 */
bool vg_shaper_charge_now(struct vg_shaper *sh, struct vg_slot *slot,
			  const struct vg_token *tok, u32 n, u64 bytes,
			  u64 now)
{
	struct vg_shaper_port *pp = &sh->ports[slot->port];
	u64 charged = 0, next;
	u32 h, i;
	int ret;

	lockdep_assert_held(&sh->lock);

	if (vg_pacer_next(&pp->pacer) > now)
		return false;
	for (i = 0; i < n; i++)
		charged += tok[i].bytes;
	/* Nothing backlogged on the port: the scheduler in O(1). */
	ret = vg_sched_send_idle(&pp->sched, slot->handle, charged, now);
	if (ret == -EBUSY) {
		vg_sched_activate(&pp->sched, slot->handle, now);
		if (vg_sched_pick(&pp->sched, now, &h, &next) ||
		    h != slot->handle)
			return false;
		ret = vg_sched_charge(&pp->sched, slot->handle, charged, now,
				      false);
	}
	if (ret)
		return false;
	for (i = 0; i < n; i++)
		vg_pacer_charge(&pp->pacer, now, &tok[i]);
	vg_shaper_count_paced(pp, bytes, n);
	return true;
}

/*
 * Under the shaper lock: move @slot to @t on port @port, taking its QP's
 * queued WRs along. If the new slot cannot be had, the old one stays.
 * Return: whether it moved.
 */
static bool vg_shaper_move(struct vg_shaper *sh, struct vg_slot *slot,
			   u32 port, struct vg_ktenant *t)
{
	struct vg_slot old = *slot;

	lockdep_assert_held(&sh->lock);

	if (vg_shaper_place(sh, slot, port, t))
		return false;
	vg_shaper_unplace(sh, &old);
	slot->ops->reactivate(sh, slot, ktime_get_ns());
	return true;
}

/**
 * vg_shaper_rebind() - follow a QP's move to another tenant
 * @sh: the shaper
 * @slot: the QP's slot
 *
 * A QP moves between WRs (rule R6 of tenant.h): the caller calls this
 * only while nothing of the QP is queued, so queued WRs are sent and
 * counted in the old tenant.
 *
 * Context: any; the shaper lock held, under rcu_read_lock() (for the
 * QP's current tenant).
 */
void vg_shaper_rebind(struct vg_shaper *sh, struct vg_slot *slot)
{
	struct vg_ktenant *cur;

	lockdep_assert_held(&sh->lock);

	/* A user QP whose tracking failed keeps its tenant (usq.c). */
	if (!slot->q)
		return;
	cur = rcu_dereference(slot->q->tenant);
	if (cur && cur != slot->tenant)
		vg_shaper_move(sh, slot, slot->port, cur);
}

/**
 * vg_shaper_set_port() - follow a QP's move to a port
 * @sh: the shaper
 * @slot: the QP's slot, placed
 * @port_num: the port its owner moved it to (IB_QP_PORT, at INIT)
 *
 * From now on the QP is paced by that port's pacer and shares that port
 * with the other tenants there. A port above VG_SHAPER_MAX_PORTS is paced
 * with the first (the device says it has fewer ports paced apart).
 *
 * Context: any (the modify QP wrapper, after the driver's modify
 * succeeded, through vg_sendq_set_port()); the shaper lock held.
 */
void vg_shaper_set_port(struct vg_shaper *sh, struct vg_slot *slot,
			u32 port_num)
{
	u32 first = rdma_start_port(sh->dev->ibdev), idx = 0;

	lockdep_assert_held(&sh->lock);

	if (port_num >= first && port_num - first < sh->nports)
		idx = port_num - first;
	if (idx != slot->port &&
	    !vg_shaper_move(sh, slot, idx, slot->tenant))
		pr_warn_ratelimited("%s: QP %u: no slot on port %u; paced with port %u\n",
				    sh->dev->name, slot->q->qpn, port_num,
				    first + slot->port);
}

/*
 * Under the shaper lock and rcu_read_lock(): @slot follows its QP from
 * @t, a deleted tenant, to the tenant it was classified into since.
 */
static void vg_shaper_leave(struct vg_shaper *sh, struct vg_slot *slot,
			    struct vg_ktenant *t)
{
	struct vg_ktenant *cur;

	lockdep_assert_held(&sh->lock);

	if (!slot->q)
		return;
	cur = rcu_dereference(slot->q->tenant);
	if (slot->tenant == t && cur && cur != t)
		vg_shaper_move(sh, slot, slot->port, cur);
}

/**
 * vg_shaper_tenant_event() - follow a tenant change
 * @sh: the shaper
 * @ev: enum vg_tenant_event
 * @t: the tenant
 *
 * A changed policy applies at once, on every port. A deleted tenant's
 * QPs have been classified again (qp_tenant.c) before this runs: their
 * slots move to their new tenants with whatever they have queued, and
 * the tenant's slots go.
 *
 * Context: process context (the tenant notifier); takes the shaper lock.
 */
void vg_shaper_tenant_event(struct vg_shaper *sh, unsigned long ev,
			    struct vg_ktenant *t)
{
	struct vg_shaper_port *pp;
	struct vg_tenant_cfg cfg;
	struct vg_slot *slot;
	unsigned long flags;
	u32 i, tid;

	if (!sh->active || (ev != VG_TENANT_CHANGED && ev != VG_TENANT_REMOVED))
		return;
	rcu_read_lock();
	spin_lock_irqsave(&sh->lock, flags);
	if (ev == VG_TENANT_REMOVED)
		list_for_each_entry(slot, &sh->slots, node)
			vg_shaper_leave(sh, slot, t);
	vg_shaper_tenant_cfg(t, &cfg);
	for (i = 0; i < sh->nports; i++) {
		pp = &sh->ports[i];
		tid = pp->tmap[t->id];
		if (tid == VG_SCHED_NONE)
			continue;
		if (ev == VG_TENANT_REMOVED) {
			if (!vg_sched_tenant_del(&pp->sched, tid))
				pp->tmap[t->id] = VG_SCHED_NONE;
		} else if (vg_sched_tenant_set(&pp->sched, tid, &cfg,
					       ktime_get_ns())) {
			pr_warn_ratelimited("%s: tenant %s: policy not applied on port %u\n",
					    sh->dev->name, t->name,
					    rdma_start_port(sh->dev->ibdev) + i);
		}
	}
	if (ev == VG_TENANT_REMOVED)
		vg_shaper_arm(sh, ktime_get_ns());
	spin_unlock_irqrestore(&sh->lock, flags);
	rcu_read_unlock();
}

/**
 * vg_shaper_drain() - stop shaping
 * @sh: the shaper
 *
 * Unload and device removal. From now on WRs go to the driver unpaced;
 * what is queued is posted at once (the hrtimer runs now), and each
 * slot's vg_slot_ops::settle lets what waits for its QP's completions
 * proceed. The caller then waits for each kind of queue to empty
 * (interpose.c).
 *
 * Context: process context; takes the shaper lock.
 */
void vg_shaper_drain(struct vg_shaper *sh)
{
	struct vg_slot *slot;
	unsigned long flags;

	if (!sh->active)
		return;
	spin_lock_irqsave(&sh->lock, flags);
	sh->draining = true;
	/* Chunks with no completion certain to follow get a marker. */
	list_for_each_entry(slot, &sh->slots, node)
		if (slot->ops->settle)
			slot->ops->settle(sh, slot);
	vg_shaper_arm(sh, ktime_get_ns());
	spin_unlock_irqrestore(&sh->lock, flags);
}

/**
 * vg_shaper_destroy() - free a drained shaper
 * @sh: the shaper; its wrappers are gone (interpose.c), and nothing arms
 *	its hrtimer any more (vg_sendq_stop_all())
 *
 * Its queues' state is their kinds' to free (vg_sendq_free_all()).
 *
 * Context: process context.
 */
void vg_shaper_destroy(struct vg_shaper *sh)
{
	u32 i;

	if (!sh->active)
		return;
	/* The dispatcher's last run may arm the hrtimer once more. */
	hrtimer_cancel(&sh->timer);
	cancel_work_sync(&sh->dispatch);
	hrtimer_cancel(&sh->timer);
	for (i = 0; i < sh->nports; i++)
		vg_shaper_port_free(&sh->ports[i]);
	kfree(sh->ports);
	sh->ports = NULL;
	WRITE_ONCE(sh->active, false);
}
