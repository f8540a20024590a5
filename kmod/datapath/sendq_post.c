// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a send queue's posts: the owner's WRs into the queue (or,
 * on the fast path, straight to the driver) and chunks to the driver.
 *
 * Posts. The owner's WRs are copied (with their SGE lists and any inline
 * payload, which the owner may reuse once ib_post_send() returns) into
 * the QP's queue, in arrival order, and the dispatcher (shaper.c) posts
 * them as chunks: RDMA WRITE, WRITE_WITH_IMM, READ and READ_WITH_INV are
 * split by the core splitter, everything else goes whole. Only the last
 * chunk of a WR acts for the owner (its completion, its immediate data,
 * its invalidation of the local MR). A QP of a
 * latency-class tenant, or of a device whose enforcement is off, or while
 * the module unloads, posts straight to the driver whenever nothing of it
 * is queued or in the driver, so its WRs never wait behind the shaper.
 * So does a chain of WRs that need no split, when the pacer has tokens
 * and the scheduler would pick its QP anyway (the fast path): it is
 * charged as the dispatcher would charge it and costs no copy, no ring
 * entry and no translated completion.
 *
 * Memory is bounded: a QP holds at most as many WRs as its owner was
 * told its send queue has (it cannot have more outstanding); beyond
 * that, or when GFP_ATOMIC memory runs out, ib_post_send() fails with
 * -ENOMEM and *bad_wr names the first WR not taken, as a full send queue
 * does. A WR may have as many SGEs as its send queue's max_send_sge; its
 * copy holds them, and the room to build its chunks' SGE lists if they
 * may not fit the shaper's (VG_CHUNK_SGE).
 *
 * Home CPU. A software driver (rxe) does the transmit work of a kernel
 * QP's post on the CPU that posted, as a NIC would do it on the side; a
 * QP's chunks therefore go to the driver from its home CPU, the one its
 * owner queued WRs from: posts and polls of the owner post them there,
 * and a turn of the QP that comes in the hrtimer on another CPU is
 * handed to the QP's work on its home CPU (vg_sendq_send_home()); the
 * turn stays the QP's, so the tenants' shares are what they were. If the
 * hrtimer posted them, every QP's work would move to the CPU it fires
 * on, and two CPUs posting on two QPs would share one.
 *
 * A chunk the driver refuses for lack of room (direct posts took it)
 * waits for a completion of the QP, or VG_RETRY_NS, and is posted again.
 * A post that fails otherwise puts the QP in error (sendq_complete.c).
 *
 * Locking: under the device's shaper lock (kmod/lock_order.h), dropped
 * around the driver's post_send.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>

#include "tenant/tenant.h"

#include "device.h"
#include "fault.h"
#include "sendq.h"

struct workqueue_struct *vg_sendq_wq;

/* When a chunk the driver refused for lack of room is tried again. */
#define VG_RETRY_NS	(100 * NSEC_PER_USEC)
/*
 * The longest chain the fast path passes on whole (ULPs chain a
 * registration or a data transfer with their SEND); longer ones queue.
 */
#define VG_FAST_WRS	8

/*
 * Under the shaper lock: take the next ring entry, for a WR or chunk of
 * the owner's @owner_id (0 for a marker, which @force signals). Chunks
 * are signaled when the owner asked for the WR's completion, and at least
 * every half ring or when the ring fills, so that it keeps draining.
 * Return: the entry; *@signal: whether to request its completion.
 */
static struct vg_ring_ent *vg_sendq_ring_push(struct vg_shaper *sh,
					      struct vg_sendq *sq,
					      u64 owner_id, bool last,
					      bool owner_signaled, bool force,
					      bool *signal)
{
	lockdep_assert_held(&sh->lock);

	struct vg_ring_ent *e = &sq->ring[(sq->head + sq->inflight) %
					  sq->depth];

	if (!last)
		sq->extra_posted++;
	e->owner_id = owner_id;
	e->extra_seq = sq->extra_posted;
	e->last = last;
	e->owner_signaled = owner_signaled;
	*signal = force || (last && owner_signaled) ||
		  sq->unsignaled + 1 >= sq->depth / 2 ||
		  sq->inflight + 1 >= sq->depth;
	sq->inflight++;
	sq->unsignaled = *signal ? 0 : sq->unsignaled + 1;
	sq->tail_untracked = !*signal;
	return e;
}

/*
 * Under the shaper lock: the status the owner sees for a completion: a
 * flush stands in for the first error the owner did not see, once.
 */
enum ib_wc_status vg_sendq_owner_status(struct vg_shaper *sh,
					struct vg_sendq *sq,
					enum ib_wc_status status)
{
	lockdep_assert_held(&sh->lock);

	if (status == IB_WC_WR_FLUSH_ERR && sq->first_err) {
		status = sq->first_err;
		sq->first_err = IB_WC_SUCCESS;
	}
	return status;
}

/* Under the shaper lock: have the hrtimer attend to @sq. */
void vg_sendq_attn(struct vg_shaper *sh, struct vg_sendq *sq, u64 when)
{
	lockdep_assert_held(&sh->lock);

	if (list_empty(&sq->slot.attn_node))
		list_add_tail(&sq->slot.attn_node, &sh->attn);
	vg_shaper_arm(sh, when);
}

/*
 * Under the shaper lock: hand @wr of @sq to the driver's post_send. The
 * lock is dropped around the call: the driver may run its requester
 * inline and must see the interrupt state of whoever took the lock.
 * Meanwhile nothing else of the QP is posted (@slot.posting: the QP is
 * out of the scheduler, so other dispatchers pick other QPs) and destroy
 * waits (@busy). Afterwards the QP is active again if it has WRs to send.
 * Return: what the driver returned.
 */
static int vg_sendq_driver_post(struct vg_shaper *sh, struct vg_sendq *sq,
				const struct ib_send_wr *wr,
				unsigned long *flags)
{
	const struct ib_send_wr *bad;
	int ret;

	lockdep_assert_held(&sh->lock);

	sq->slot.posting = true;
	sq->busy++;
	vg_sched_deactivate(&vg_sendq_port(sh, sq)->sched, sq->slot.handle);
	spin_unlock_irqrestore(&sh->lock, *flags);
	ret = sh->post_send(sq->qp, wr, &bad);
	spin_lock_irqsave(&sh->lock, *flags);
	sq->busy--;
	sq->slot.posting = false;
	vg_sendq_reactivate(sh, sq, ktime_get_ns());
	vg_shaper_wake_idle(sh);
	return ret;
}

/* Under the shaper lock: something waits for all of @sq's completions. */
static bool vg_sendq_waited_for(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	return !vg_sendq_closed(sq) && (!list_empty(&sq->flushq) ||
			     (sh->draining && sq->inflight));
}

/*
 * Under the shaper lock: let the dispatcher pick @sq again if it has WRs
 * to send and may send them (not while a chunk of it is in the driver:
 * vg_sendq_driver_post() reactivates it after). Return: whether it was
 * activated.
 */
bool vg_sendq_reactivate(struct vg_shaper *sh, struct vg_sendq *sq, u64 now)
{
	lockdep_assert_held(&sh->lock);

	if (list_empty(&sq->queue) || sq->blocked || sq->slot.posting ||
	    sq->state != VG_SQ_READY)
		return false;
	vg_sched_activate(&vg_sendq_port(sh, sq)->sched, sq->slot.handle, now);
	return true;
}

/*
 * vg_sendq_settle(), and with @wake false after the driver refused a
 * marker: the flush queue then waits for the owner's next poll.
 */
static void __vg_sendq_settle(struct vg_shaper *sh, struct vg_sendq *sq,
			      bool wake)
{
	lockdep_assert_held(&sh->lock);

	if (!vg_sendq_waited_for(sh, sq))
		return;
	if (sq->tail_untracked) {
		sq->need_marker = true;
		vg_sendq_attn(sh, sq, ktime_get_ns());
		return;
	}
	if (sq->inflight || list_empty(&sq->flushq))
		return;
	if (list_empty(&sq->inject_node))
		list_add_tail(&sq->inject_node, &sh->inject);
	if (wake && sh->poll_cq != sq->qp->send_cq) {
		sq->wake = true;
		vg_sendq_attn(sh, sq, ktime_get_ns());
	}
}

/**
 * vg_sendq_settle() - let what waits for the QP's completions proceed
 * @sh: the shaper
 * @sq: the QP
 *
 * Two things wait for every completion of a QP: its flush queue (whose
 * completions must come after those of everything posted) and the unload
 * drain (every ring entry must retire). If the last thing posted may
 * never complete visibly (an unsignaled chunk, a direct WR), a marker is
 * posted first (vg_sendq_attend()); with nothing in flight, the flush
 * queue goes to the next poll of the QP's send CQ.
 *
 * That poll must come from the context the CQ's owner chose (irq_poll,
 * its work, its own handler armed by ib_req_notify_cq(), or its own
 * polling), so verbsgate never calls a completion handler itself. If the
 * flush queue became ready in a poll of that CQ, that poll reports it.
 * Otherwise (@wake) a marker is posted whose completion the driver
 * reports like any other, raising the CQ's event from its own context.
 *
 * Context: any; the shaper lock held.
 */
void vg_sendq_settle(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	__vg_sendq_settle(sh, sq, true);
}

/**
 * vg_sendq_attend() - post a marker or retry a refused chunk
 * @sh: the shaper
 * @slot: the QP's slot, just taken off vg_shaper::attn
 * @flags: the interrupt state saved with the shaper lock
 *
 * The marker is a signaled zero-length RDMA WRITE through the ring, as
 * ib_drain_sq() posts (no memory is accessed: IBA C9-88); its completion,
 * successful or flushed, retires everything posted before it, and brings
 * the poll that reports the flush queue (vg_sendq_settle()). It holds
 * the QP's @slot.posting while the lock is dropped, so nothing of the QP
 * overtakes it.
 *
 * Context: the hrtimer's worker (process context); the shaper lock held,
 * no chunk of the QP in the driver.
 */
static void vg_sendq_attend(struct vg_shaper *sh, struct vg_slot *slot,
			    unsigned long *flags)
{
	struct vg_sendq *sq = vg_slot_sendq(slot);
	struct ib_rdma_wr w = {};
	struct vg_ring_ent *e;
	bool signal, post = false;
	u64 now;
	int ret;

	lockdep_assert_held(&sh->lock);

	if (vg_sendq_closed(sq) || sq->state == VG_SQ_RESETTING)
		return;
	if (sq->retry) {
		sq->retry = false;
		if (sq->blocked && !vg_sendq_failed(sq)) {
			sq->blocked = false;
			now = ktime_get_ns();
			if (vg_sendq_reactivate(sh, sq, now))
				vg_shaper_arm(sh, now);
		}
	}
	/* A full ring ends with a signaled entry: settle again on it. */
	if (sq->inflight >= sq->depth)
		return;
	if (sq->need_marker) {
		sq->need_marker = false;
		/*
		 * Asked for earlier; the need may be gone. A marker nobody
		 * waits for could complete after unload.
		 */
		if (sq->tail_untracked && vg_sendq_waited_for(sh, sq))
			post = true;
		else
			vg_sendq_settle(sh, sq);
	}
	if (sq->wake) {
		sq->wake = false;
		/* Unless a poll has reported the flush queue meanwhile. */
		if (!sq->inflight && !list_empty(&sq->inject_node))
			post = true;
	}
	if (!post)
		return;
	e = vg_sendq_ring_push(sh, sq, 0, false, false, true, &signal);
	w.wr.opcode = IB_WR_RDMA_WRITE;
	w.wr.send_flags = IB_SEND_SIGNALED;
	w.wr.wr_id = vg_ring_wr_id(sq, e);

	ret = vg_sendq_driver_post(sh, sq, &w.wr, flags);
	if (ret) {
		/*
		 * Nothing will complete: count what was in flight as done (a
		 * late completion of it is dropped, vg_sendq_filter()).
		 */
		pr_warn_ratelimited("%s: QP %u: the driver refused a marker (%d)\n",
				    sh->dev->name, sq->qp->qp_num, ret);
		sq->inflight = 0;
		sq->extra_retired = sq->extra_posted;
		/* The flush queue waits for the owner's next poll. */
		__vg_sendq_settle(sh, sq, false);
		vg_sendq_unpin(sh, sq);
	}
}

/**
 * vg_sendq_fail() - the QP is in error: flush instead of posting
 * @sh: the shaper
 * @sq: the QP
 *
 * Context: any; the shaper lock held.
 */
void vg_sendq_fail(struct vg_shaper *sh, struct vg_sendq *sq)
{
	struct vg_pwr *p, *tmp;
	u32 n = 0;

	lockdep_assert_held(&sh->lock);

	if (sq->state == VG_SQ_READY) {
		vg_sendq_move(sh, sq, VG_SQ_ERROR);
		vg_sched_deactivate(&vg_sendq_port(sh, sq)->sched,
				    sq->slot.handle);
	} else if (sq->state == VG_SQ_RESETTING) {
		/* Should the driver refuse the reset. */
		sq->resume = VG_SQ_ERROR;
	}
	list_for_each_entry_safe(p, tmp, &sq->queue, node) {
		p->status = IB_WC_WR_FLUSH_ERR;
		list_move_tail(&p->node, &sq->flushq);
		n++;
	}
	sq->splitting = false;
	if (n)
		vg_tenant_count_queue(sq->slot.tenant, 0, n);
	vg_sendq_settle(sh, sq);
}

/* Under the shaper lock: report @p (removed from the queue) as failed. */
static void vg_sendq_post_failed(struct vg_shaper *sh, struct vg_sendq *sq,
				 struct vg_pwr *p, int err)
{
	lockdep_assert_held(&sh->lock);

	pr_warn_ratelimited("%s: QP %u: posting a chunk failed (%d); the QP's WRs are flushed\n",
			    sh->dev->name, sq->qp->qp_num, err);
	p->status = IB_WC_LOC_QP_OP_ERR;
	list_add(&p->node, &sq->flushq);
	sq->nheld++;
	vg_tenant_count_queue(sq->slot.tenant, 0, 1);
	vg_sendq_fail(sh, sq);
}

/**
 * vg_sendq_send_home() - have a QP's chunks posted from its home CPU
 * @sh: the shaper
 * @sq: the QP, with chunks to post
 *
 * See "Home CPU" above. The work runs on @sq's home CPU unless that CPU
 * went offline meanwhile (the workqueue then runs it elsewhere).
 *
 * Context: any, interrupts off; the shaper lock held.
 * Return: false if the caller posts them: this is the QP's home CPU, it
 * has none, or its driver sends on no particular CPU; true if the QP's
 * work will.
 */
bool vg_sendq_send_home(struct vg_shaper *sh, struct vg_sendq *sq)
{
	int cpu = sq->home_cpu;

	lockdep_assert_held(&sh->lock);

	if (!vg_shaper_goes_home(sh, cpu))
		return false;
	queue_work_on(cpu, vg_sendq_wq, &sq->home_work);
	return true;
}

/**
 * vg_sendq_home_work() - post a QP's chunks on its home CPU
 * @work: the QP's vg_sendq::home_work
 *
 * Posts them as its owner's post would, in its tenant's turns; the
 * hrtimer has the other turns.
 *
 * Context: process context (vg_sendq_wq); takes the shaper lock. The
 * QP's close cancels the work before its state can go.
 */
void vg_sendq_home_work(struct work_struct *work)
{
	struct vg_sendq *sq = container_of(work, struct vg_sendq, home_work);
	struct vg_shaper *sh = sq->sh;
	unsigned long flags;

	spin_lock_irqsave(&sh->lock, flags);
	if (!vg_sendq_closed(sq))
		vg_shaper_kick(sh, &sq->slot, &flags);
	spin_unlock_irqrestore(&sh->lock, flags);
}

/**
 * vg_sendq_post_chunk() - post the next chunk of a QP's head WR
 * @sh: the shaper
 * @slot: the slot of the QP the scheduler picked; its queue is not empty
 *	and its ring has room
 * @now: time of the pick, ns
 * @flags: the interrupt state saved with the shaper lock
 *
 * Charges the chunk to the pacer and the scheduler, builds it in the
 * QP's own buffer, then drops the lock to call the driver's post_send
 * (with the interrupt state of whoever took the lock) and retakes it. A
 * -ENOMEM from the driver (its queue is fuller than the ring knows, after
 * direct posts) puts the chunk back and waits for a completion; any other
 * error fails the QP.
 *
 * Context: any; the shaper lock held, by a dispatcher (shaper.c).
 */
static void vg_sendq_post_chunk(struct vg_shaper *sh, struct vg_slot *slot,
				u64 now, unsigned long *flags)
{
	struct vg_sendq *sq = vg_slot_sendq(slot);
	struct vg_pwr *p = list_first_entry(&sq->queue, struct vg_pwr, node);
	struct vg_shaper_port *pp;
	struct vg_ktenant *t;
	struct vg_split saved;
	struct vg_ring_ent *e;
	struct vg_token tok;
	struct vg_chunk c;
	bool signal, split;
	int ret;

	lockdep_assert_held(&sh->lock);

	if (!sq->splitting) {
		ret = vg_split_init(&sq->split, &p->vwr, sh->chunk);
		if (ret) {
			list_del(&p->node);
			sq->nheld--;
			vg_sendq_post_failed(sh, sq, p, ret);
			return;
		}
		sq->splitting = true;
		vg_tenant_count_wait(sq->slot.tenant, now - p->enqueued_ns);
	}
	saved = sq->split;
	/* A long SGE list brought its own room (vg_pwr_copy()). */
	vg_split_next(&sq->split, &c, p->cvsge ?: sq->chunk_vsge);
	split = c.last && vg_split_count(&sq->split) > 1;

	e = vg_sendq_ring_push(sh, sq, p->u.wr.wr_id, c.last,
			       sq->sig_all ||
			       (p->u.wr.send_flags & IB_SEND_SIGNALED),
			       false, &signal);
	vg_sendq_build(sq, p, &c, p->csge ?: sq->chunk_sge, signal);
	sq->chunk_wr.wr.wr_id = vg_ring_wr_id(sq, e);
	if (c.last) {
		list_del(&p->node);
		sq->nheld--;
		sq->splitting = false;
	}

	vg_cost(&sh->cost, c.opcode, c.length, READ_ONCE(sq->slot.mtu), &tok);
	pp = vg_sendq_port(sh, sq);
	/* Out of the scheduler until the chunk is in the driver. */
	vg_shaper_charge(sh, &sq->slot, &tok, now, false);

	/*
	 * A tenant change may drop the QP's reference meanwhile; the tenant
	 * is freed only after RCU readers.
	 */
	rcu_read_lock();
	t = sq->slot.tenant;
	if (vg_should_fail(VG_FAULT_CHUNK_POST))
		ret = -ENOMEM;
	else
		ret = vg_sendq_driver_post(sh, sq, &sq->chunk_wr.wr, flags);
	if (!ret) {
		vg_tenant_count_tx(t, c.length, c.last, 1, split);
		if (c.last)
			vg_tenant_count_queue(t, 0, 1);
	}
	rcu_read_unlock();
	if (!ret) {
		/* The QP's port is set at INIT, never while it posts. */
		vg_shaper_count_paced(pp, c.length, 1);
		if (c.last)
			vg_pwr_free(p);
		return;
	}
	sq->inflight--;
	if (!c.last)
		sq->extra_posted--;
	sq->unsignaled = 0;
	if (ret == -ENOMEM && !vg_sendq_failed(sq)) {
		/* Back as it was; a completion of the QP unblocks it. */
		sq->split = saved;
		sq->splitting = saved.emitted > 0;
		if (c.last) {
			list_add(&p->node, &sq->queue);
			sq->nheld++;
		}
		sq->blocked = true;
		vg_sched_deactivate(&pp->sched, sq->slot.handle);
		/* A completion unblocks it; in case none comes, retry. */
		sq->retry = true;
		vg_sendq_attn(sh, sq, ktime_get_ns() + VG_RETRY_NS);
		return;
	}
	if (!c.last) {
		/* Still queued, unless an error moved it meanwhile. */
		if (vg_sendq_failed(sq))
			return;
		list_del(&p->node);
		sq->nheld--;
	}
	vg_sendq_post_failed(sh, sq, p, ret);
	vg_sendq_settle(sh, sq);
}

/*
 * Under the shaper lock: whether the QP @slot names has something the
 * dispatcher may post now. If not, the caller takes it out of the
 * scheduler until its own code activates it again.
 */
static bool vg_sendq_ready(struct vg_slot *slot)
{
	struct vg_sendq *sq = vg_slot_sendq(slot);

	lockdep_assert_held(&sq->sh->lock);

	if (list_empty(&sq->queue) || vg_sendq_failed(sq))
		return false;
	if (sq->inflight >= sq->depth) {
		/* A completion reactivates it (sendq.c). */
		sq->blocked = true;
		return false;
	}
	return true;
}

/* vg_sendq_reactivate() for the dispatcher. Under the shaper lock. */
static bool vg_sendq_slot_reactivate(struct vg_shaper *sh,
				     struct vg_slot *slot, u64 now)
{
	lockdep_assert_held(&sh->lock);

	return vg_sendq_reactivate(sh, vg_slot_sendq(slot), now);
}

/* vg_sendq_send_home() for the dispatcher. Under the shaper lock. */
static bool vg_sendq_slot_send_home(struct vg_shaper *sh,
				    struct vg_slot *slot)
{
	lockdep_assert_held(&sh->lock);

	return vg_sendq_send_home(sh, vg_slot_sendq(slot));
}

/* vg_sendq_settle() for the shaper's drain. Under the shaper lock. */
static void vg_sendq_slot_settle(struct vg_shaper *sh, struct vg_slot *slot)
{
	lockdep_assert_held(&sh->lock);

	vg_sendq_settle(sh, vg_slot_sendq(slot));
}

/*
 * What a kernel QP's send queue does for the dispatcher (shaper.c): a
 * QP whose chunk is in the driver is out of the scheduler meanwhile
 * (vg_sendq_driver_post()).
 */
const struct vg_slot_ops vg_sendq_slot_ops = {
	.ready = vg_sendq_ready,
	.reactivate = vg_sendq_slot_reactivate,
	.post_chunk = vg_sendq_post_chunk,
	.send_home = vg_sendq_slot_send_home,
	.attend = vg_sendq_attend,
	.settle = vg_sendq_slot_settle,
};

/*
 * Under the shaper lock: nothing of @sq waits or is in the driver's
 * post_send, so a WR that bypasses the queue overtakes nothing of the QP.
 */
static bool vg_sendq_clear(const struct vg_shaper *sh,
			   const struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	return list_empty(&sq->queue) && list_empty(&sq->flushq) && !sq->busy;
}

/*
 * Under the shaper lock: may @sq's WRs bypass the shaper, unpaced?
 * Direct WRs take send queue slots the ring does not count; the room
 * reserved at creation holds them, and without it a chunk the driver
 * then refuses waits and retries. A QP in error goes direct only
 * while unloading (the driver flushes its WRs itself); otherwise the
 * shaper reports them.
 */
static bool vg_sendq_direct(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	if (!vg_sendq_clear(sh, sq))
		return false;
	/*
	 * Unloading: the ring only drains from here on, so that it empties
	 * under any load. A direct WR after ring entries completes after
	 * them, untranslated.
	 */
	if (sh->draining)
		return true;
	if (vg_sendq_failed(sq))
		return false;
	return !sh->enforce ||
	       READ_ONCE(sq->slot.tenant->pol.class) == VERBSGATE_CLASS_LATENCY;
}

/* Counts WRs that went straight to the driver, up to @stop. Any context. */
static void vg_sendq_count_direct(struct vg_ktenant *t,
				  const struct ib_send_wr *wr,
				  const struct ib_send_wr *stop)
{
	u64 bytes = 0;
	u32 n = 0;
	int i;

	for (; wr && wr != stop; wr = wr->next, n++)
		for (i = 0; i < wr->num_sge; i++)
			bytes += wr->sg_list[i].length;
	if (n)
		vg_tenant_count_tx(t, bytes, n, n, 0);
}

/*
 * Under the shaper lock: may chain @wr go to the driver now, as it is,
 * paced? When nothing of the QP waits or is being posted, no WR of the
 * chain needs a split and vg_shaper_charge_now() lets it, sending the
 * chain at once is what the dispatcher would do, minus the copies and the
 * ring. If the send queue has no room reserved for the ring, not while
 * ring entries the owner does not count are in flight (chunks of a split
 * WR, markers): the owner counts its WRs, not the chunks they became, so
 * the send queue may then be full while the owner believes it has room,
 * and the chain would fail for the owner. The caller posts a charged
 * chain directly; tokens of WRs the driver then refuses stay spent.
 * Other QPs' posts and the dispatcher may run meanwhile: the order that
 * matters is the QP's own.
 * Return: whether the chain was charged.
 */
static bool vg_sendq_fast(struct vg_shaper *sh, struct vg_sendq *sq,
			  const struct ib_send_wr *wr, u64 now)
{
	struct vg_token tok[VG_FAST_WRS];
	const struct ib_send_wr *w;
	enum ib_wc_opcode wco;
	u64 bytes = 0;
	u32 k, len;
	int i;
	u8 vop;

	lockdep_assert_held(&sh->lock);

	if (!vg_sendq_clear(sh, sq) ||
	    (!sq->reserved && sq->extra_retired != sq->extra_posted) ||
	    sh->draining || vg_sendq_failed(sq) || sq->blocked)
		return false;
	for (k = 0, w = wr; w; w = w->next, k++) {
		if (k == VG_FAST_WRS || !vg_opcode_of(w->opcode, &vop, &wco) ||
		    w->num_sge < 0 || w->num_sge > sq->max_sge)
			return false;
		for (len = 0, i = 0; i < w->num_sge; i++) {
			if (w->sg_list[i].length > VG_MAX_MSG - len)
				return false;
			len += w->sg_list[i].length;
		}
		if (len > sh->chunk && vg_opcode_splittable(vop) &&
		    !(w->send_flags & IB_SEND_INLINE))
			return false;
		vg_cost(&sh->cost, vop, len, READ_ONCE(sq->slot.mtu), &tok[k]);
		bytes += len;
	}
	return vg_shaper_charge_now(sh, &sq->slot, tok, k, bytes, now);
}

/*
 * Copy up to @room WRs of chain @wr onto @copies, stamped @now. Runs
 * without the shaper lock: the work grows with the chain, its SGEs and
 * its inline payload. Any context (GFP_ATOMIC).
 * Return: 0 if the whole chain was copied; otherwise the error of *@stop,
 * the first WR not copied (-ENOMEM when @room ran out).
 */
static int vg_sendq_copy_chain(const struct vg_sendq *sq,
			       const struct ib_send_wr *wr, u32 room, u64 now,
			       struct list_head *copies,
			       const struct ib_send_wr **stop)
{
	struct vg_pwr *p;
	int err = 0;

	for (; wr; wr = wr->next) {
		if (!room) {
			err = -ENOMEM;
			break;
		}
		/* max_sge is set at creation and never changes. */
		p = vg_pwr_copy(wr, sq->max_sge, &err);
		if (!p)
			break;
		p->enqueued_ns = now;
		list_add_tail(&p->node, copies);
		room--;
	}
	*stop = wr;
	return err;
}

/* Free the copies vg_sendq_post() did not take. Any context. */
static void vg_sendq_free_copies(struct list_head *copies)
{
	struct vg_pwr *p, *tmp;

	list_for_each_entry_safe(p, tmp, copies, node) {
		list_del(&p->node);
		vg_pwr_free(p);
	}
}

/**
 * vg_sendq_post() - the post path of a shaped QP
 * @sh: the shaper
 * @sq: the QP's state
 * @wr: the owner's chain
 * @bad: on error, the first WR not taken
 *
 * The shaper lock is taken twice when WRs queue: once to decide (direct,
 * fast path or queue, and how much room the queue has), then, after the
 * chain is copied without it, to queue the copies, which the state may
 * have changed meanwhile (the QP failed, closed, or the module began to
 * unload) and so is looked at again.
 *
 * Context: any the owner posts from; under rcu_read_lock() (the caller
 * found @sq that way). Takes the shaper lock; may run the dispatcher,
 * which calls the driver.
 * Return: 0, or -ENOMEM (no room or memory) or -EOPNOTSUPP (an opcode the
 * shaper does not model, while the QP has WRs queued), or what the driver
 * returned for a direct post.
 */
int vg_sendq_post(struct vg_shaper *sh, struct vg_sendq *sq,
		  const struct ib_send_wr *wr, const struct ib_send_wr **bad)
{
	const struct ib_send_wr *first = wr, *stop;
	struct vg_ktenant *t;
	unsigned long flags;
	LIST_HEAD(copies);
	struct vg_pwr *p;
	int ret, err;
	u32 n = 0, room;
	u64 now;

	/*
	 * The clock is read once per call, outside the lock (some
	 * clocksources are slow to read), and only if WRs may be shaped.
	 */
	now = READ_ONCE(sh->enforce) ? ktime_get_ns() : 0;
	spin_lock_irqsave(&sh->lock, flags);
	if (vg_sendq_closed(sq))
		goto dead;
	/* A QP moves between WRs (rule R6 of tenant.h). */
	if (list_empty(&sq->queue))
		vg_shaper_rebind(sh, &sq->slot);
	if (vg_sendq_direct(sh, sq))
		goto direct;
	if (!now)
		now = ktime_get_ns();
	if (vg_sendq_fast(sh, sq, wr, now))
		goto direct;
	room = sq->owner_max - min(sq->nheld, sq->owner_max);
	spin_unlock_irqrestore(&sh->lock, flags);

	err = vg_sendq_copy_chain(sq, first, room, now, &copies, &stop);

	spin_lock_irqsave(&sh->lock, flags);
	if (vg_sendq_closed(sq)) {
		vg_sendq_free_copies(&copies);
		goto dead;
	}
	/* Unmodelled opcodes go direct when nothing waits. */
	if (list_empty(&copies) && err == -EOPNOTSUPP &&
	    !vg_sendq_failed(sq) && vg_sendq_clear(sh, sq))
		goto direct;
	/*
	 * Unloading began meanwhile: the queue only drains from now on; and
	 * hold nothing an idle owner must poll for once the module is going.
	 */
	if (vg_sendq_direct(sh, sq) || !vg_sendq_pin(sh, sq)) {
		vg_sendq_free_copies(&copies);
		goto direct;
	}

	for (wr = first; wr != stop; wr = wr->next) {
		/* Another post of the QP may have taken the room meanwhile. */
		if (sq->nheld >= sq->owner_max)
			break;
		p = list_first_entry(&copies, struct vg_pwr, node);
		list_del(&p->node);
		sq->nheld++;
		if (vg_sendq_failed(sq)) {
			p->status = IB_WC_WR_FLUSH_ERR;
			list_add_tail(&p->node, &sq->flushq);
			continue;
		}
		list_add_tail(&p->node, &sq->queue);
		n++;
	}
	ret = wr == stop ? err : -ENOMEM;
	if (ret)
		*bad = wr;
	if (n) {
		vg_tenant_count_queue(sq->slot.tenant, n, 0);
		sq->home_cpu = smp_processor_id();
		vg_sendq_reactivate(sh, sq, now);
		vg_shaper_kick(sh, &sq->slot, &flags);
	}
	if (vg_sendq_failed(sq) && !vg_sendq_closed(sq))
		vg_sendq_settle(sh, sq);
	/* If nothing was taken after all. */
	vg_sendq_unpin(sh, sq);
	spin_unlock_irqrestore(&sh->lock, flags);
	vg_sendq_free_copies(&copies);
	return ret;

dead:
	/* Racing its destruction: the owner's bug; stay out of it. */
	spin_unlock_irqrestore(&sh->lock, flags);
	return sh->post_send(sq->qp, wr, bad);

direct:
	/*
	 * The owner's chain, as it is: its completions carry the owner's
	 * wr_id and pass the poll wrapper untranslated. The tenant is freed
	 * only after RCU readers, which the caller is.
	 */
	t = sq->slot.tenant;
	sq->tail_untracked = true;
	vg_sendq_unpin(sh, sq);
	spin_unlock_irqrestore(&sh->lock, flags);
	ret = sh->post_send(sq->qp, wr, bad);
	vg_sendq_count_direct(t, wr, ret ? *bad : NULL);
	return ret;
}
