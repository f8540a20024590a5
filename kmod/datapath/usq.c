// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the governed send queues of user QPs.
 *
 * A process posts to its QPs past every operation verbsgate interposes
 * on: it writes WQEs into a ring it shares with the driver and rings a
 * doorbell. A driver patched to let a policy govern its user send queues
 * (driver-patches/rdma_rxe; usq_rxe.c registers verbsgate with it) copies
 * each WQE into kernel memory, offers it to verbsgate (vg_usq_post()) and
 * executes it only once verbsgate releases it, whatever the process
 * writes or rings. So a tenant's user QPs are paced like its kernel QPs:
 * each governed queue has a slot in its port's scheduler (struct
 * vg_slot, shaper.c); the dispatcher picks it in its tenant's turn,
 * charges the pacer and the scheduler for the next chunk of its oldest
 * held WQE and releases that chunk. The driver sends a large RDMA WRITE
 * or SEND in parts of the device's chunk size, pausing inside its one
 * message, and anything else whole. Completions stay the driver's: one
 * per WQE, as without verbsgate; verbsgate keeps no copy of a WQE, no
 * ring and no completion of its own.
 *
 * What verbsgate keeps of each held WQE is its cost (struct vg_usq_wqe),
 * in a FIFO as deep as the driver's queue, allocated with the QP. The
 * driver's count of what it holds is the truth: WQEs it released without
 * verbsgate (the QP failed, or was reset) are forgotten, and WQEs it
 * holds that verbsgate does not know of are released at the next post.
 *
 * As for kernel QPs, a WQE goes at once, unpaced, when its tenant is of
 * the latency class, when the device's enforcement is off or verbsgate
 * is unloading; and, paced, when nothing of its queue waits, it needs no
 * split and the scheduler and the pacer would let it go now
 * (vg_shaper_charge_now()). That charge pays in advance for up to 15
 * more such WQEs, which then go without the shaper lock and without
 * reading the clock: a small message's fast path is most of what
 * governing costs it. Otherwise it waits for the dispatcher: the
 * doorbell of its own process (vg_usq_kick()), which releases its own
 * QP's chunks in its tenant's turns, or the hrtimer.
 *
 * Retries. What the driver sends again after an RNR NAK, a sequence
 * error or an ACK timeout is paced too: the driver holds a paced
 * queue's retry for verbsgate (vg_usq_retry()), which lets it go in the
 * queue's turn, charged as a chunk (vg_usq_post_retry()).
 *
 * Home CPU. rxe sends what it is released on the releasing CPU, so the
 * hrtimer, which fires where the last doorbell moved it, would send one
 * tenant's messages from another tenant's CPU: next to a message-rate
 * storm, more than half of a bulk victim's packets went out on the
 * attacker's vCPU. A turn the hrtimer gets for a queue whose owner last
 * rang its doorbell on another CPU goes to the queue's work on that CPU
 * instead (vg_usq_slot_send_home()), as for kernel QPs (sendq_post.c);
 * the turn stays the queue's, so the tenants' shares are what they were.
 *
 * Life. When the driver offers a QP the create wrapper is creating
 * (vg_usq_offer_begin()), vg_usq_attach() classifies it by the creating
 * task's cgroup and takes its scheduler slot; a QP verbsgate cannot pace
 * (no slot left, no memory) is not created. vg_usq_link() ties it to its
 * tracking entry once the driver has created it. vg_usq_close() takes it
 * out of the shaper before the driver destroys the QP, and the driver's
 * detach frees it (vg_usq_detach()). Device removal and unload unbind
 * every queue and let the driver execute what it holds
 * (vg_usq_drain()); an unbound queue's WQEs are released as they are
 * posted, until its QP goes.
 *
 * Locking. The device's shaper lock protects a bound queue
 * (kmod/lock_order.h). The driver calls vg_usq_post() and vg_usq_flush()
 * with its own lock of the queue held and interrupts off, so the shaper
 * lock nests inside it, and a queue's credit is under that lock alone;
 * verbsgate calls the driver's release functions without the shaper
 * lock, marking the queue busy meanwhile, and closing or draining it
 * waits until it is not.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/cgroup.h>
#include <linux/ktime.h>
#include <linux/log2.h>
#include <linux/math64.h>
#include <linux/mm.h>
#include <linux/slab.h>

#include "tenant/tenant.h"

#include "device.h"
#include "qp.h"
#include "shaper.h"
#include "usq.h"

/*
 * How long a WQE the doorbell's owner will release itself (vg_usq_kick())
 * waits before the hrtimer looks: a WQE taken in without a doorbell has
 * nobody else to release it.
 */
#define VG_USQ_HANDOFF_NS	(20 * NSEC_PER_USEC)

/*
 * How many WQEs one charge on the fast path pays for at most (the WQE
 * and the credit of the next ones, vg_usq_fast()). Together they cost at
 * most a chunk, which the pacer may run ahead by anyway.
 */
#define VG_USQ_CREDIT_WQES	16U

/*
 * How many whole WQEs one turn releases at most (vg_usq_turn()): the
 * bound on what a dispatcher walks under the shaper lock.
 */
#define VG_USQ_TURN_WQES	64U

/*
 * The create wrapper's offers, by QP: the driver's ->qp_attach finds the
 * shaper of the device there. A spinlock, a leaf; process context only.
 */
static DEFINE_SPINLOCK(vg_usq_offers_lock);
static LIST_HEAD(vg_usq_offers);
/* Live struct vg_usq, for leak checks (debugfs usq_objects). */
static atomic_t vg_usq_count = ATOMIC_INIT(0);
static const struct vg_slot_ops vg_usq_slot_ops;
static void vg_usq_home_work(struct work_struct *work);

/**
 * vg_usq_offer_begin() - a user QP is about to be created through verbsgate
 * @o: the offer, on the caller's stack until vg_usq_offer_end()
 * @sh: the shaper of the QP's device
 * @qp: the QP ib_core allocated, which the driver is about to create
 *
 * Only a QP verbsgate will track is governed: the driver offers every
 * user QP, including those created on a device before its wrappers were
 * installed, and those it leaves alone.
 *
 * Context: process context (the create wrapper); takes a leaf spinlock.
 */
void vg_usq_offer_begin(struct vg_usq_offer *o, struct vg_shaper *sh,
			struct ib_qp *qp)
{
	o->sh = sh;
	o->qp = qp;
	o->usq = NULL;
	spin_lock(&vg_usq_offers_lock);
	list_add(&o->node, &vg_usq_offers);
	spin_unlock(&vg_usq_offers_lock);
}

/**
 * vg_usq_offer_end() - the driver's create_qp returned
 * @o: the offer
 *
 * Context: process context; takes a leaf spinlock.
 */
void vg_usq_offer_end(struct vg_usq_offer *o)
{
	spin_lock(&vg_usq_offers_lock);
	list_del(&o->node);
	spin_unlock(&vg_usq_offers_lock);
}

/* The offer of @qp, or NULL. Process context; takes a leaf spinlock. */
static struct vg_usq_offer *vg_usq_offer_of(struct ib_qp *qp)
{
	struct vg_usq_offer *o, *found = NULL;

	spin_lock(&vg_usq_offers_lock);
	list_for_each_entry(o, &vg_usq_offers, node)
		if (o->qp == qp) {
			found = o;
			break;
		}
	spin_unlock(&vg_usq_offers_lock);
	return found;
}

/* The oldest held WQE. Under the shaper lock; @usq->nheld > 0. */
static struct vg_usq_wqe *vg_usq_head(struct vg_usq *usq)
{
	return &usq->wqes[usq->head & (usq->size - 1)];
}

/* Forget the oldest held WQE. Under the shaper lock. */
static void vg_usq_pop(struct vg_shaper *sh, struct vg_usq *usq)
{
	lockdep_assert_held(&sh->lock);

	usq->head++;
	if (!--usq->nheld)
		WRITE_ONCE(sh->usqs_holding, sh->usqs_holding - 1);
	usq->part_sent = 0;
}

/*
 * Under the shaper lock: forget every held WQE (the driver released
 * them, or will) and leave the scheduler.
 */
static void vg_usq_forget(struct vg_shaper *sh, struct vg_usq *usq)
{
	lockdep_assert_held(&sh->lock);

	if (usq->nheld) {
		if (usq->slot.tenant)
			vg_tenant_count_queue(usq->slot.tenant, 0, usq->nheld);
		WRITE_ONCE(sh->usqs_holding, sh->usqs_holding - 1);
	}
	usq->head += usq->nheld;
	usq->nheld = 0;
	usq->part_sent = 0;
	usq->behind = false;
	if (usq->placed)
		vg_sched_deactivate(&sh->ports[usq->slot.port].sched,
				    usq->slot.handle);
}

/**
 * vg_usq_ready() - whether a queue has a WQE or a retry to release
 * @usq: the queue
 *
 * A WQE not while its driver is behind what it was released: see
 * vg_usq_caught_up().
 *
 * Context: any; under the shaper lock.
 */
static bool vg_usq_ready(const struct vg_usq *usq)
{
	return usq->placed && (usq->retry || (usq->nheld && !usq->behind));
}

/**
 * vg_usq_reactivate() - let the dispatcher pick a queue if it holds WQEs
 * @sh: the shaper
 * @usq: the queue
 * @now: time, ns
 *
 * Not while a dispatcher releases one of its WQEs: vg_usq_post_chunk()
 * sees to it after.
 *
 * Context: any; under the shaper lock.
 * Return: whether it was activated.
 */
static bool vg_usq_reactivate(struct vg_shaper *sh, struct vg_usq *usq,
			      u64 now)
{
	lockdep_assert_held(&sh->lock);

	if (!vg_usq_ready(usq) || usq->slot.posting)
		return false;
	vg_sched_activate(&sh->ports[usq->slot.port].sched, usq->slot.handle,
			  now);
	return true;
}

/**
 * vg_usq_attach() - the driver offers a new user QP
 * @qp: the QP, being created in the context of its creator
 * @depth: the most WQEs its send queue holds at once
 * @drv: how the driver releases them
 * @out: set to the queue's state
 *
 * A QP the create wrapper offered (vg_usq_offer_begin()) is governed: it
 * is classified by its creator's cgroup, as its tracking entry will be
 * (rule R1 of tenant/tenant.h), and placed in its device's scheduler.
 *
 * Context: process context (the creator's), under the driver's
 * registration mutex; allocates with GFP_KERNEL; takes the shaper lock.
 * Return: 0 to govern the QP; 1 to leave it to the driver (not offered,
 * or its device is going); -ENOMEM or -ENOSPC (no scheduler slot left)
 * to fail its creation, since verbsgate could not pace it.
 */
int vg_usq_attach(struct ib_qp *qp, u32 depth,
		  const struct vg_usq_driver *drv, struct vg_usq **out)
{
	struct vg_qp_facts facts = { .user = true };
	struct vg_usq_offer *o = vg_usq_offer_of(qp);
	struct vg_shaper *sh = o ? o->sh : NULL;
	struct vg_ktenant *t;
	struct vg_usq *usq;
	unsigned long flags;
	int ret = 1;

	if (!sh || !READ_ONCE(sh->active))
		return 1;
	usq = kzalloc(sizeof(*usq), GFP_KERNEL);
	if (!usq)
		return -ENOMEM;
	usq->size = roundup_pow_of_two(max(depth, 1U));
	usq->wqes = kvcalloc(usq->size, sizeof(*usq->wqes), GFP_KERNEL);
	if (!usq->wqes) {
		kfree(usq);
		return -ENOMEM;
	}
	atomic_inc(&vg_usq_count);
	INIT_LIST_HEAD(&usq->node);
	INIT_LIST_HEAD(&usq->slot.attn_node);
	refcount_set(&usq->ref, 1);
	usq->home_cpu = -1;
	INIT_WORK(&usq->home_work, vg_usq_home_work);
	usq->slot.ops = &vg_usq_slot_ops;
	usq->qp = qp;
	usq->drv = drv;

	rcu_read_lock();
	facts.cgrp = task_dfl_cgroup(current);
	t = vg_tenant_classify(&facts);
	rcu_read_unlock();

	spin_lock_irqsave(&sh->lock, flags);
	if (t && !sh->draining) {
		ret = vg_shaper_slot_add(sh, &usq->slot, t);
		if (!ret) {
			usq->placed = true;
			list_add_tail(&usq->node, &sh->usqs);
			WRITE_ONCE(usq->sh, sh);
		}
	}
	spin_unlock_irqrestore(&sh->lock, flags);
	vg_tenant_put(t);

	if (ret) {
		if (ret < 0)
			pr_info_ratelimited("%s: refused a QP of %s[%d]: no scheduler slot left to pace it\n",
					    sh->dev->name, current->comm,
					    task_tgid_nr(current));
		vg_usq_put(usq);
		return ret < 0 ? -ENOSPC : 1;
	}
	o->usq = usq;
	*out = usq;
	return 0;
}

/**
 * vg_usq_link() - tie a governed queue to its QP's tracking entry
 * @usq: the queue, as the driver's create_qp left it
 * @q: the entry, classified
 *
 * From now on the queue's slot follows the entry's tenant (between WQEs,
 * rule R6) and the entry says its QP is enforced.
 *
 * Context: process context (the create wrapper); takes the shaper lock.
 */
void vg_usq_link(struct vg_usq *usq, struct vg_qp *q)
{
	struct vg_shaper *sh = READ_ONCE(usq->sh);
	unsigned long flags;

	if (!sh)
		return;
	spin_lock_irqsave(&sh->lock, flags);
	if (usq->sh == sh) {
		WRITE_ONCE(usq->slot.q, q);
		rcu_assign_pointer(q->usq, usq);
	}
	spin_unlock_irqrestore(&sh->lock, flags);
}

/*
 * Under the shaper lock, with nothing of @usq being released: take it
 * out of the shaper. Its WQEs are the driver's to execute from now on; a
 * retry verbsgate held, the caller's to let go (vg_usq_close()).
 * Return: its tenant reference, for the caller to drop without the lock.
 */
static struct vg_ktenant *vg_usq_unbind(struct vg_shaper *sh,
					struct vg_usq *usq)
{
	struct vg_ktenant *t = usq->slot.tenant;

	lockdep_assert_held(&sh->lock);

	usq->retry = false;
	vg_usq_forget(sh, usq);
	if (usq->placed)
		vg_shaper_slot_del(sh, &usq->slot);
	usq->placed = false;
	list_del_init(&usq->node);
	if (usq->slot.q)
		RCU_INIT_POINTER(usq->slot.q->usq, NULL);
	WRITE_ONCE(usq->slot.q, NULL);
	WRITE_ONCE(usq->slot.tenant, NULL);
	WRITE_ONCE(usq->sh, NULL);
	vg_shaper_wake_idle(sh);
	return t;
}

/**
 * vg_usq_close() - stop governing a queue
 * @usq: the queue
 *
 * Its QP is being destroyed (the destroy wrapper, before the driver's
 * destroy_qp), or the driver detaches it. What it holds is the driver's
 * to flush or discard, and a retry verbsgate held goes.
 *
 * Context: process context; sleeps until no dispatcher releases its
 * WQEs and its home work is neither queued nor running; takes the
 * shaper lock. The caller keeps the shaper alive: a wrapper's read-side
 * section, or the driver's registration mutex (unregistration comes
 * before the device's detach).
 */
void vg_usq_close(struct vg_usq *usq)
{
	struct vg_shaper *sh = READ_ONCE(usq->sh);
	struct vg_ktenant *t = NULL;
	bool retry = false;

	if (sh) {
		spin_lock_irq(&sh->lock);
		wait_event_lock_irq(sh->idle_wq, !usq->busy, sh->lock);
		if (usq->sh == sh) {
			retry = usq->retry;
			t = vg_usq_unbind(sh, usq);
		}
		spin_unlock_irq(&sh->lock);
		/* Outside the lock: the last reference removes its kobject. */
		vg_tenant_put(t);
		/* A retry verbsgate held is the driver's again. */
		if (retry)
			usq->drv->retry(usq->qp);
	}
	/*
	 * A turn handed to its home CPU before it left the shaper: unbound,
	 * the work would release nothing, but it holds a reference.
	 */
	if (cancel_work_sync(&usq->home_work))
		vg_usq_put(usq);
}

/**
 * vg_usq_get() - hold a queue found under RCU across a sleep
 * @usq: the queue, or NULL
 *
 * Context: any; under rcu_read_lock().
 * Return: @usq, or NULL if it is being freed.
 */
struct vg_usq *vg_usq_get(struct vg_usq *usq)
{
	return usq && refcount_inc_not_zero(&usq->ref) ? usq : NULL;
}

/**
 * vg_usq_put() - drop a reference; the last one frees the queue's state
 * @usq: the queue, or NULL
 *
 * Context: any.
 */
void vg_usq_put(struct vg_usq *usq)
{
	if (!usq || !refcount_dec_and_test(&usq->ref))
		return;
	kvfree(usq->wqes);
	atomic_dec(&vg_usq_count);
	/* The post wrapper may still look at it (vg_usq_kick()). */
	kfree_rcu(usq, rcu);
}

/**
 * vg_usq_objects() - governed send queues verbsgate holds state for
 *
 * Context: any.
 */
int vg_usq_objects(void)
{
	return atomic_read(&vg_usq_count);
}

/**
 * vg_usq_detach() - the driver no longer governs a QP
 * @usq: the queue
 *
 * The QP is being destroyed, verbsgate unregisters, or the driver could
 * not set up a QP just attached. The driver calls nothing of verbsgate's
 * for it any more; its state goes with the last reference.
 *
 * Context: process context, under the driver's registration mutex;
 * takes the shaper lock.
 */
void vg_usq_detach(struct vg_usq *usq)
{
	vg_usq_close(usq);
	vg_usq_put(usq);
}

/*
 * Under the shaper lock: may @usq's WQEs go unpaced? A latency-class
 * tenant's, or any while enforcement is off or verbsgate unloads, as
 * for kernel QPs (sendq_post.c).
 */
static bool vg_usq_direct(struct vg_shaper *sh, struct vg_usq *usq)
{
	lockdep_assert_held(&sh->lock);

	return sh->draining || !sh->enforce ||
	       READ_ONCE(usq->slot.tenant->pol.class) ==
			VERBSGATE_CLASS_LATENCY;
}

/*
 * Under the shaper lock: may @w, with nothing of @usq waiting, go now,
 * paced? If the dispatcher would release it whole at once, it is charged
 * as the dispatcher would charge it, together with the credit of up to
 * VG_USQ_CREDIT_WQES - 1 more like it, which then go without the shaper
 * lock (vg_usq_on_credit()).
 */
static bool vg_usq_fast(struct vg_shaper *sh, struct vg_usq *usq,
			const struct vg_usq_wqe *w, u64 now)
{
	struct vg_token tok, batch;
	u64 n = VG_USQ_CREDIT_WQES;

	lockdep_assert_held(&sh->lock);

	if (w->parts && w->length > sh->chunk)
		return false;
	vg_cost(&sh->cost, w->vop, w->length, READ_ONCE(usq->slot.mtu), &tok);
	if (tok.bytes)
		n = clamp_t(u64, div64_u64(sh->chunk, tok.bytes), 1, n);
	batch.bytes = tok.bytes * n;
	batch.ops = tok.ops * n;
	if (!vg_shaper_charge_now(sh, &usq->slot, &batch, 1, w->length, now))
		return false;
	usq->credit.bytes = batch.bytes - tok.bytes;
	usq->credit.ops = batch.ops - tok.ops;
	usq->credit_tenant = usq->slot.tenant;
	return true;
}

/*
 * The driver's lock of @usq held, interrupts off, under rcu_read_lock();
 * no shaper lock: may @w go now on @usq's credit? Only if it is all the
 * driver holds of the queue, so that nothing verbsgate holds comes
 * before it, if the QP still belongs to the tenant the credit was
 * charged to, and if the credit covers its cost. The counters are
 * per-CPU or atomic; a tenant deleted right after the check (its memory
 * outlives the read-side section) may count a last WQE.
 */
static bool vg_usq_on_credit(struct vg_shaper *sh, struct vg_usq *usq,
			     const struct vg_usq_wqe *w, u32 held)
{
	struct vg_ktenant *t = usq->credit_tenant;
	struct vg_qp *q = READ_ONCE(usq->slot.q);
	struct vg_token tok;

	if (held != 1 || !t || !q || READ_ONCE(usq->slot.tenant) != t ||
	    rcu_dereference(q->tenant) != t)
		return false;
	/* Anything longer than a chunk costs more than the credit. */
	vg_cost(&sh->cost, w->vop, w->length, READ_ONCE(usq->slot.mtu), &tok);
	if (tok.bytes > usq->credit.bytes || tok.ops > usq->credit.ops)
		return false;
	usq->credit.bytes -= tok.bytes;
	usq->credit.ops -= tok.ops;
	vg_tenant_count_tx(t, w->length, 1, 1, 0);
	vg_shaper_count_paced(&sh->ports[READ_ONCE(usq->slot.port)],
			      w->length, 1);
	return true;
}

/**
 * vg_usq_post() - the driver took a newly posted WQE in
 * @usq: its queue
 * @w: what it costs
 * @held: WQEs the driver holds now, this one included
 *
 * Context: the driver's: its lock of the queue held, interrupts off,
 * from the doorbell (process context) or its requester (softirq). Takes
 * the shaper lock; calls nothing of the driver's.
 * Return: how many held WQEs, oldest first, the driver may execute now.
 */
u32 vg_usq_post(struct vg_usq *usq, const struct vg_usq_wqe *w, u32 held)
{
	struct vg_shaper *sh;
	struct vg_ktenant *t;
	u32 ret = 0;
	u64 now;

	rcu_read_lock();
	sh = READ_ONCE(usq->sh);
	if (!sh || vg_usq_on_credit(sh, usq, w, held))
		goto release;
	/* What is left of the credit is forfeit: it was charged already. */
	usq->credit_tenant = NULL;
	now = ktime_get_ns();
	spin_lock(&sh->lock);
	if (usq->sh != sh || !usq->placed) {
		spin_unlock(&sh->lock);
		goto release;
	}
	/*
	 * The driver's count is the truth (see the top of this file), but
	 * not while a dispatcher's release of the oldest is under way.
	 */
	while (!usq->slot.posting && usq->nheld && usq->nheld >= held) {
		vg_usq_pop(sh, usq);
		vg_tenant_count_queue(usq->slot.tenant, 0, 1);
	}
	if (!usq->slot.posting && usq->nheld < held - 1) {
		/*
		 * WQEs verbsgate never saw: a verbsgate bug, which holding
		 * them would turn into a hang. Let the driver have them all.
		 */
		pr_warn_ratelimited("%s: QP %u: the driver holds %u WQEs, verbsgate knew of %u\n",
				    sh->dev->name, usq->qp->qp_num, held - 1,
				    usq->nheld);
		vg_usq_forget(sh, usq);
		/* A retry it holds for verbsgate still waits for its turn. */
		if (vg_usq_reactivate(sh, usq, now))
			vg_shaper_arm(sh, now);
		ret = held;
		goto out;
	}
	/* Nothing waits: not even a retry, which goes before any WQE. */
	if (!usq->nheld && !usq->slot.posting && !usq->retry) {
		/* A QP moves between WQEs (rule R6 of tenant.h). */
		vg_shaper_rebind(sh, &usq->slot);
		t = usq->slot.tenant;
		if (vg_usq_direct(sh, usq) ||
		    (!usq->behind && vg_usq_fast(sh, usq, w, now))) {
			vg_tenant_count_tx(t, w->length, 1, 1, 0);
			ret = held;
			goto out;
		}
	}
	usq->wqes[(usq->head + usq->nheld) & (usq->size - 1)] = *w;
	usq->wqes[(usq->head + usq->nheld) & (usq->size - 1)].enqueued_ns =
		now;
	if (!usq->nheld++)
		WRITE_ONCE(sh->usqs_holding, sh->usqs_holding + 1);
	vg_tenant_count_queue(usq->slot.tenant, 1, 0);
	if (vg_usq_reactivate(sh, usq, now))
		vg_shaper_arm(sh, now + VG_USQ_HANDOFF_NS);
out:
	spin_unlock(&sh->lock);
	rcu_read_unlock();
	return ret;

release:
	rcu_read_unlock();
	return held;
}

/**
 * vg_usq_flush() - the driver releases everything it holds of a queue
 * @usq: the queue, whose QP failed
 *
 * A retry it held for verbsgate is dropped with them.
 *
 * Context: as vg_usq_post(). Takes the shaper lock.
 */
void vg_usq_flush(struct vg_usq *usq)
{
	struct vg_shaper *sh;

	rcu_read_lock();
	sh = READ_ONCE(usq->sh);
	if (sh) {
		spin_lock(&sh->lock);
		if (usq->sh == sh) {
			usq->retry = false;
			vg_usq_forget(sh, usq);
		}
		spin_unlock(&sh->lock);
	}
	rcu_read_unlock();
}

/**
 * vg_usq_error() - a released WQE failed the QP
 * @usq: its queue
 *
 * Charged to the tenant the QP is in (vg_tenant_qp_error()); a QP not
 * yet linked to its tracking (vg_usq_link()) has none to charge.
 *
 * Context: as vg_usq_post(): the driver's lock of @usq held, interrupts
 * off; takes the tenant's verb_lock.
 */
void vg_usq_error(struct vg_usq *usq)
{
	struct vg_ktenant *t;
	struct vg_qp *q;

	rcu_read_lock();
	q = READ_ONCE(usq->slot.q);
	t = q ? rcu_dereference(q->tenant) : NULL;
	if (t)
		vg_tenant_qp_error(t);
	rcu_read_unlock();
}

/**
 * vg_usq_caught_up() - the driver sent everything it was released
 * @usq: its queue, found behind by vg_usq_post_chunk()
 *
 * A software driver sends what it is released on a CPU, and may fall
 * behind: rxe stops a QP's requester while its packets wait for ACKs or
 * for the far end to take them, and later sends what it holds at the
 * speed of the CPU. Had verbsgate released on at its pace meanwhile, all
 * of it would reach the port at once, ahead of every other tenant's
 * packets there: a tenant that kept its own CPU busy sent bursts of
 * hundreds of kilobytes through a paced device (docs/husky/notes.md).
 * So a queue whose driver is behind is out of the scheduler until the
 * driver has sent what it had, and gets its turns again from here.
 *
 * Context: as vg_usq_post(): the driver's lock of @usq held, interrupts
 * off (its requester, softirq or a process with bottom halves off).
 * Takes the shaper lock; calls nothing of the driver's.
 */
void vg_usq_caught_up(struct vg_usq *usq)
{
	struct vg_shaper *sh;
	u64 now;

	rcu_read_lock();
	sh = READ_ONCE(usq->sh);
	if (sh) {
		spin_lock(&sh->lock);
		if (usq->sh == sh) {
			usq->caught_ups++;
			now = ktime_get_ns();
			if (usq->behind) {
				usq->behind = false;
				if (vg_usq_reactivate(sh, usq, now))
					vg_shaper_arm(sh, now);
			}
		}
		spin_unlock(&sh->lock);
	}
	rcu_read_unlock();
}

/**
 * vg_usq_retry() - the driver is about to send again what it sent
 * @usq: its queue
 * @bytes: the payload it is to send again
 *
 * rxe resends what was not acknowledged after an RNR NAK, a sequence
 * error or an ACK timeout, at the speed of the CPU. Next to a tenant
 * whose QPs meet RNR NAKs on purpose, every chunk verbsgate released
 * went twice, the second time unpaced: the port held back hundreds of
 * packets a run, a latency tenant's among them (docs/husky/notes.md).
 * So a paced queue's retry waits for the queue's turn, and is charged
 * to the pacer and the scheduler as a chunk of @bytes
 * (vg_usq_post_retry()). A queue that goes unpaced (vg_usq_direct())
 * retries at once, as do unbound ones.
 *
 * Context: as vg_usq_post(): the driver's lock of @usq held, interrupts
 * off (its requester, softirq or a process with bottom halves off).
 * Takes the shaper lock; calls nothing of the driver's.
 * Return: true if verbsgate holds the retry, to let it go with the
 * driver's retry().
 */
bool vg_usq_retry(struct vg_usq *usq, u32 bytes)
{
	struct vg_shaper *sh;
	bool hold = false;
	u64 now;

	/*
	 * A retry of READs and atomics alone resends requests, not
	 * payload: the responder sends its responses again, which the
	 * first release paid for.
	 */
	if (!usq->drv->retry || !bytes)
		return false;
	rcu_read_lock();
	sh = READ_ONCE(usq->sh);
	if (sh) {
		spin_lock(&sh->lock);
		if (usq->sh == sh && usq->placed && !vg_usq_direct(sh, usq)) {
			usq->retry = true;
			usq->retry_bytes = bytes;
			hold = true;
			now = ktime_get_ns();
			if (vg_usq_reactivate(sh, usq, now))
				vg_shaper_arm(sh, now);
		}
		spin_unlock(&sh->lock);
	}
	rcu_read_unlock();
	return hold;
}

/**
 * vg_usq_kick() - the owner rang its doorbell: release what its turns allow
 * @usq: its queue, found under rcu_read_lock()
 *
 * Runs the dispatcher for the QP in the poster's context (as a kernel
 * QP's post does, vg_shaper_kick()), so that its chunks go from its own
 * CPU in its tenant's turns; that CPU becomes the queue's home.
 *
 * Context: process context (the post wrapper, after the driver's
 * post_send; or the queue's home work); under rcu_read_lock(); takes the
 * shaper lock, calls the driver without it.
 */
void vg_usq_kick(struct vg_usq *usq)
{
	struct vg_shaper *sh = READ_ONCE(usq->sh);
	unsigned long flags;

	if (!sh || (!READ_ONCE(usq->nheld) && !READ_ONCE(usq->retry)))
		return;
	spin_lock_irqsave(&sh->lock, flags);
	if (usq->sh == sh && usq->placed && (usq->nheld || usq->retry)) {
		usq->home_cpu = smp_processor_id();
		vg_shaper_kick(sh, &usq->slot, &flags);
		vg_shaper_arm_here(sh);
	}
	spin_unlock_irqrestore(&sh->lock, flags);
}

/*
 * The queue's work on its home CPU: release what its tenant's turns
 * allow, as its owner's doorbell would. If that CPU went offline, the
 * workqueue runs it on another, which becomes the queue's home.
 *
 * Context: process context (vg_sendq_wq); takes the shaper lock, calls
 * the driver without it; drops the reference vg_usq_slot_send_home()
 * took (the queue is freed after an RCU grace period, never here).
 */
static void vg_usq_home_work(struct work_struct *work)
{
	struct vg_usq *usq = container_of(work, struct vg_usq, home_work);

	rcu_read_lock();
	vg_usq_kick(usq);
	rcu_read_unlock();
	vg_usq_put(usq);
}

/*
 * vg_usq_post_retry() - let the retry the driver holds go, in the queue's
 * turn: vg_usq_post_chunk() for a retry (vg_usq_retry()). Charged as a
 * chunk of the retry's payload; the queue keeps its place if it holds
 * WQEs.
 *
 * Context: as vg_usq_post_chunk().
 */
static void vg_usq_post_retry(struct vg_shaper *sh, struct vg_usq *usq,
			      u64 now, unsigned long *flags)
{
	struct vg_shaper_port *pp = &sh->ports[usq->slot.port];
	u32 bytes = usq->retry_bytes;
	struct vg_token tok;
	int ret;

	lockdep_assert_held(&sh->lock);

	vg_cost(&sh->cost, VG_OP_SEND, bytes, READ_ONCE(usq->slot.mtu), &tok);
	vg_shaper_charge(sh, &usq->slot, &tok, now, usq->nheld > 0);
	usq->retry = false;
	usq->slot.posting = true;
	usq->busy++;
	spin_unlock_irqrestore(&sh->lock, *flags);
	ret = usq->drv->retry(usq->qp);
	spin_lock_irqsave(&sh->lock, *flags);
	usq->busy--;
	usq->slot.posting = false;
	if (!ret) {
		vg_tenant_count_retry(usq->slot.tenant, bytes);
		vg_shaper_count_paced(pp, bytes, 1);
	}
	if (!vg_usq_reactivate(sh, usq, ktime_get_ns()) && usq->placed)
		vg_sched_deactivate(&pp->sched, usq->slot.handle);
	vg_shaper_wake_idle(sh);
}

/*
 * Under the shaper lock: what the turn of @usq, holding WQEs, releases.
 * The rest of its oldest WQE, up to the device's chunk size if it can go
 * in parts; otherwise whole WQEs from the oldest, as many as cost no
 * more than a chunk together (at least one, at most VG_USQ_TURN_WQES).
 * A turn is a chunk's worth whatever the tenant's messages: one WQE per
 * turn cost a tenant of small messages a dispatcher's round per WQE,
 * which on rxe is a hop to its home CPU (see "Home CPU"), and next to a
 * bulk tenant a message-rate victim's WQEs waited 1.6 ms each for their
 * turns and it got 0.10 of the pacer at equal weights
 * (docs/husky/notes.md).
 *
 * Sets *@n to the WQEs (1 if a part), *@bytes to their payload and *@tok
 * to what they cost; counts the time each whole one waited from now.
 * Return: whether the turn releases them whole.
 */
static bool vg_usq_turn(struct vg_shaper *sh, struct vg_usq *usq, u64 now,
			u32 *n, u32 *bytes, struct vg_token *tok)
{
	struct vg_usq_wqe *w = vg_usq_head(usq);
	u32 mtu = READ_ONCE(usq->slot.mtu);
	u32 rest = w->length - usq->part_sent;
	bool whole = !w->parts || rest <= sh->chunk;
	struct vg_token one;

	lockdep_assert_held(&sh->lock);

	*n = 1;
	*bytes = whole ? rest : sh->chunk;
	if (!usq->part_sent)
		vg_tenant_count_wait(usq->slot.tenant, now - w->enqueued_ns);
	vg_cost(&sh->cost, w->vop, *bytes, mtu, tok);
	while (whole && *n < min(usq->nheld, VG_USQ_TURN_WQES)) {
		w = &usq->wqes[(usq->head + *n) & (usq->size - 1)];
		vg_cost(&sh->cost, w->vop, w->length, mtu, &one);
		if (tok->bytes + one.bytes > sh->chunk)
			break;
		vg_tenant_count_wait(usq->slot.tenant, now - w->enqueued_ns);
		tok->bytes += one.bytes;
		tok->ops += one.ops;
		*bytes += w->length;
		(*n)++;
	}
	return whole;
}

/**
 * vg_usq_post_chunk() - release a queue's turn
 * @sh: the shaper
 * @slot: the slot of the queue the scheduler picked, holding WQEs
 * @now: time of the pick, ns
 * @flags: the interrupt state saved with the shaper lock
 *
 * Charges the turn (vg_usq_turn()) to the pacer and the scheduler, then
 * drops the lock to let the driver send it.
 *
 * Context: any; the shaper lock held by a dispatcher (shaper.c), dropped
 * and retaken around the driver's release.
 */
static void vg_usq_post_chunk(struct vg_shaper *sh, struct vg_slot *slot,
			      u64 now, unsigned long *flags)
{
	struct vg_usq *usq = vg_slot_usq(slot);
	struct vg_shaper_port *pp = &sh->ports[usq->slot.port];
	struct vg_ktenant *t = usq->slot.tenant;
	u32 caught_ups = usq->caught_ups;
	u32 n, i, done = 0, bytes, left = 0;
	struct vg_token tok;
	bool behind, whole;
	int ret;

	lockdep_assert_held(&sh->lock);

	whole = vg_usq_turn(sh, usq, now, &n, &bytes, &tok);
	/*
	 * rxe sends what it is released before it returns, as a rule (see
	 * vg_usq_caught_up() for the exception), which takes as
	 * long as sending the chunk: were the queue out of the scheduler
	 * meanwhile, other tenants' turns would move virtual time past its
	 * place and it would lose its share to them, chunk after chunk. It
	 * keeps its place instead, and its turn waits for this dispatcher
	 * (shaper.c).
	 */
	vg_shaper_charge(sh, &usq->slot, &tok, now,
			 !whole || usq->nheld > n);
	usq->slot.posting = true;
	usq->busy++;
	/* A tenant change may drop the slot's reference meanwhile (RCU). */
	rcu_read_lock();
	spin_unlock_irqrestore(&sh->lock, *flags);
	if (whole) {
		done = usq->drv->release(usq->qp, n);
		ret = done ? 0 : -ENOENT;
	} else {
		ret = usq->drv->release_bytes(usq->qp, bytes, &left);
	}
	behind = !ret && usq->drv->unsent && usq->drv->unsent(usq->qp);
	spin_lock_irqsave(&sh->lock, *flags);
	usq->busy--;
	usq->slot.posting = false;
	/* Unless the driver caught up while it was asked. */
	usq->behind = behind && usq->caught_ups == caught_ups;
	/*
	 * What went to the driver is the tenant's, even when the QP failed
	 * during the release and flushed the rest (rxe may do that before
	 * it returns): the port counts it below too. The driver holds
	 * nothing once it released fewer WQEs than asked.
	 */
	if (!ret)
		vg_tenant_count_tx(t, bytes, whole ? n : !left, n,
				   !left && usq->part_sent > 0);
	if (ret || usq->nheld < n || (whole && done < n)) {
		vg_usq_forget(sh, usq);
	} else if (left) {
		usq->part_sent = vg_usq_head(usq)->length - left;
	} else {
		/* Whole WQEs, or the last part of one (@n is 1 then). */
		vg_tenant_count_queue(t, 0, n);
		for (i = 0; i < n; i++)
			vg_usq_pop(sh, usq);
	}
	rcu_read_unlock();
	if (!ret)
		vg_shaper_count_paced(pp, bytes, n);
	if (!vg_usq_reactivate(sh, usq, ktime_get_ns()) && usq->placed)
		vg_sched_deactivate(&pp->sched, usq->slot.handle);
	vg_shaper_wake_idle(sh);
}

/*
 * ->post_chunk for the dispatcher: a retry the driver holds goes first,
 * since the driver sends nothing else of the QP until it has gone.
 */
static void vg_usq_slot_post(struct vg_shaper *sh, struct vg_slot *slot,
			     u64 now, unsigned long *flags)
{
	struct vg_usq *usq = vg_slot_usq(slot);

	if (usq->retry)
		vg_usq_post_retry(sh, usq, now, flags);
	else
		vg_usq_post_chunk(sh, slot, now, flags);
}

/* vg_usq_ready() for the dispatcher. Under the shaper lock. */
static bool vg_usq_slot_ready(struct vg_slot *slot)
{
	return vg_usq_ready(vg_slot_usq(slot));
}

/* vg_usq_reactivate() for the dispatcher. Under the shaper lock. */
static bool vg_usq_slot_reactivate(struct vg_shaper *sh, struct vg_slot *slot,
				   u64 now)
{
	lockdep_assert_held(&sh->lock);

	return vg_usq_reactivate(sh, vg_slot_usq(slot), now);
}

/*
 * ->send_home for the dispatcher: see "Home CPU" above. The queue is
 * bound, so its driver's reference keeps it until vg_usq_close(), which
 * cancels the work; the work holds a reference of its own meanwhile.
 *
 * Context: any, interrupts off; the shaper lock held (the hrtimer).
 * Return: false if the caller releases the turn's chunk: this is the
 * home CPU, the queue has none yet, or its driver sends on no
 * particular CPU; true if the queue's work will.
 */
static bool vg_usq_slot_send_home(struct vg_shaper *sh, struct vg_slot *slot)
{
	struct vg_usq *usq = vg_slot_usq(slot);
	int cpu = usq->home_cpu;

	lockdep_assert_held(&sh->lock);

	if (!vg_shaper_goes_home(sh, cpu))
		return false;
	refcount_inc(&usq->ref);
	if (!queue_work_on(cpu, vg_sendq_wq, &usq->home_work))
		refcount_dec(&usq->ref);	/* queued already */
	return true;
}

/*
 * What a governed user send queue does for the dispatcher (shaper.c):
 * it keeps its place while its driver sends (vg_usq_post_chunk()), and
 * its chunks go from its owner's CPU.
 */
static const struct vg_slot_ops vg_usq_slot_ops = {
	.ready = vg_usq_slot_ready,
	.reactivate = vg_usq_slot_reactivate,
	.send_home = vg_usq_slot_send_home,
	.post_chunk = vg_usq_slot_post,
	.keeps_place = true,
};

/**
 * vg_usq_drain() - unbind every queue of a device going away
 * @sh: its shaper, draining: no queue binds any more
 *
 * Each queue leaves the shaper and its driver executes what it holds;
 * later WQEs are released as they are posted.
 *
 * Context: process context (device removal, unload); sleeps until no
 * dispatcher releases a queue's WQEs; takes the shaper lock, calls the
 * driver without it.
 */
void vg_usq_drain(struct vg_shaper *sh)
{
	struct vg_ktenant *t;
	struct vg_usq *usq;
	bool retry;

	spin_lock_irq(&sh->lock);
	while (!list_empty(&sh->usqs)) {
		usq = list_first_entry(&sh->usqs, struct vg_usq, node);
		wait_event_lock_irq(sh->idle_wq, !usq->busy, sh->lock);
		if (usq->sh != sh)
			continue;	/* closed meanwhile */
		/* Out of the scheduler; bound until the driver released. */
		vg_usq_forget(sh, usq);
		if (usq->placed)
			vg_shaper_slot_del(sh, &usq->slot);
		usq->placed = false;
		usq->busy++;
		retry = usq->retry;
		spin_unlock_irq(&sh->lock);
		usq->drv->release(usq->qp, U32_MAX);
		if (retry)
			usq->drv->retry(usq->qp);
		spin_lock_irq(&sh->lock);
		usq->busy--;
		t = vg_usq_unbind(sh, usq);
		spin_unlock_irq(&sh->lock);
		vg_tenant_put(t);
		spin_lock_irq(&sh->lock);
	}
	spin_unlock_irq(&sh->lock);
}
