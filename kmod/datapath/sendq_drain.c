// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a send queue's state changes that wait for the shaper: the
 * move to ERR, the move to RESET, a driver's own drain, and the device's
 * drain at unload and removal; and its move to another port.
 *
 * Drains. ib_core's generic drain posts its drain WR through post_send,
 * behind the QP's queue. A driver's own drain_sq posts it past post_send:
 * the wrapper first waits until the shaper has handed every WR of the QP
 * to the driver (vg_sendq_quiesce()), polling a directly polled send CQ
 * itself meanwhile, since its owner polls only after the drain returns.
 *
 * RESET. Before the driver's modify to RESET, nothing of the QP is posted
 * and the wrapper waits until none of its posts is in the driver; after
 * it, everything the shaper held is dropped, and the ring restarts under
 * a new generation, so a completion of a chunk from before the reset,
 * still in the CQ, never touches the new ring (vg_ring_stale()).
 *
 * Locking: process context; takes the device's shaper lock
 * (kmod/lock_order.h).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>

#include "device.h"
#include "sendq.h"

/**
 * vg_sendq_modified() - follow a successful modify of a shaped QP
 * @sh: the shaper
 * @sq: the QP's state
 * @attr: the attributes
 * @attr_mask: which were set
 *
 * To ERR: flush. To RESET: see vg_sendq_reset_begin().
 *
 * Context: process context; takes the shaper lock.
 */
void vg_sendq_modified(struct vg_shaper *sh, struct vg_sendq *sq,
		       const struct ib_qp_attr *attr, int attr_mask)
{
	unsigned long flags;

	if (!(attr_mask & IB_QP_STATE))
		return;
	spin_lock_irqsave(&sh->lock, flags);
	/* Not if racing its destruction: the owner's bug. */
	if (!vg_sendq_closed(sq) && attr->qp_state == IB_QPS_ERR)
		vg_sendq_fail(sh, sq);
	vg_shaper_wake_idle(sh);
	spin_unlock_irqrestore(&sh->lock, flags);
}

/**
 * vg_sendq_set_port() - follow a QP's move to a port
 * @sh: the shaper
 * @sq: the QP's state
 * @port_num: the port its owner moved it to (IB_QP_PORT, at INIT)
 *
 * See vg_shaper_set_port().
 *
 * Context: process context (the modify QP wrapper, after the driver's
 * modify succeeded); takes the shaper lock.
 */
void vg_sendq_set_port(struct vg_shaper *sh, struct vg_sendq *sq,
		       u32 port_num)
{
	unsigned long flags;

	spin_lock_irqsave(&sh->lock, flags);
	/* Not if racing its destruction: the owner's bug. */
	if (!vg_sendq_closed(sq))
		vg_shaper_set_port(sh, &sq->slot, port_num);
	spin_unlock_irqrestore(&sh->lock, flags);
}

/**
 * vg_sendq_reset_begin() - a modify to RESET is about to reach the driver
 * @sh: the shaper
 * @sq: the QP's state
 *
 * RESET discards every WR of the send queue without a completion (IBA
 * 10.3.1), and ULPs reuse a QP through RESET after an error (rdma_cm
 * does). The shaper must forget the same: what it still holds of the QP
 * and what it has posted, while nothing of the QP is in the driver's
 * post_send, and so that none of it is posted into the QP after the
 * reset. From here until vg_sendq_reset_end() the dispatcher and the
 * timer leave the QP alone.
 *
 * Context: process context (the modify QP wrapper); sleeps until no post
 * of the QP is in the driver; takes the shaper lock.
 */
void vg_sendq_reset_begin(struct vg_shaper *sh, struct vg_sendq *sq)
{
	spin_lock_irq(&sh->lock);
	/* Not if racing its destruction, or another reset: the owner's bug. */
	if (sq->state == VG_SQ_READY || sq->state == VG_SQ_ERROR) {
		sq->resume = sq->state;
		vg_sendq_move(sh, sq, VG_SQ_RESETTING);
	}
	vg_sched_deactivate(&vg_sendq_port(sh, sq)->sched, sq->slot.handle);
	wait_event_lock_irq(sh->idle_wq, !sq->busy, sh->lock);
	spin_unlock_irq(&sh->lock);
}

/**
 * vg_sendq_reset_end() - the driver's modify to RESET returned
 * @sh: the shaper
 * @sq: the QP's state
 * @reset: the driver reset the QP (its modify succeeded)
 *
 * After a reset the QP starts afresh: no WR queued or to report, no chunk
 * in flight, no error; the ring restarts under a new generation, so that
 * completions of chunks from before, still in the CQ, are recognised and
 * dropped (vg_sendq_filter()) rather than retire what is posted after.
 *
 * Context: process context; takes the shaper lock.
 */
void vg_sendq_reset_end(struct vg_shaper *sh, struct vg_sendq *sq, bool reset)
{
	u64 now = ktime_get_ns();

	spin_lock_irq(&sh->lock);
	if (sq->state != VG_SQ_RESETTING) {
		/* Closed meanwhile (or another reset ended): nothing to do. */
	} else if (reset) {
		vg_sendq_move(sh, sq, VG_SQ_READY);
		vg_sendq_drop_wrs(sq);
		list_del_init(&sq->inject_node);
		list_del_init(&sq->slot.attn_node);
		sq->splitting = false;
		sq->gen = (sq->gen + 1) & VG_RING_GEN_MASK;
		sq->head = 0;
		sq->inflight = 0;
		sq->extra_retired = sq->extra_posted;
		sq->tail_untracked = false;
		sq->need_marker = false;
		sq->wake = false;
		sq->retry = false;
		sq->unsignaled = 0;
		sq->blocked = false;
		sq->first_err = IB_WC_SUCCESS;
		vg_sendq_unpin(sh, sq);
	} else {
		/* Nothing changed: take up what waited. */
		vg_sendq_move(sh, sq, sq->resume);
		if (sq->blocked) {
			sq->retry = true;
			vg_sendq_attn(sh, sq, now);
		}
		if (vg_sendq_reactivate(sh, sq, now))
			vg_shaper_arm(sh, now);
		vg_sendq_settle(sh, sq);
	}
	vg_shaper_wake_idle(sh);
	spin_unlock_irq(&sh->lock);
}

/* Under the shaper lock: the driver has everything of @sq the shaper held. */
static bool vg_sendq_handed_over(const struct vg_shaper *sh,
				 const struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	return vg_sendq_closed(sq) ||
	       (list_empty(&sq->queue) && list_empty(&sq->flushq) &&
		!sq->slot.posting);
}

/* Takes the shaper lock: vg_sendq_handed_over() for a wait_event(). */
static bool vg_sendq_handed_over_locked(struct vg_shaper *sh,
					struct vg_sendq *sq)
{
	bool done;

	spin_lock_irq(&sh->lock);
	done = vg_sendq_handed_over(sh, sq);
	spin_unlock_irq(&sh->lock);
	return done;
}

/**
 * vg_sendq_quiesce() - wait until the driver has all the QP's WRs
 * @sh: the shaper
 * @sq: the QP, which its owner is draining: nothing new is posted
 *
 * Returns when every WR the shaper held of the QP has been posted (at
 * the pacer's pace) or, if the QP is in error, reported as flushed. A
 * drain WR the driver posts after this completes after all of them.
 *
 * The pacer posts only into room that completions free, and flushes are
 * reported by polls: for a CQ its owner polls directly, nobody polls
 * while the owner drains, so the wait polls it every 100 ms, as
 * ib_core's and mlx5's drains poll such a CQ for their drain WR (the
 * owner's completions reach it from here, as they would from those).
 *
 * Context: process context; sleeps; takes the shaper lock.
 */
void vg_sendq_quiesce(struct vg_shaper *sh, struct vg_sendq *sq)
{
	struct ib_cq *cq = sq->send_cq;
	long slice = cq->poll_ctx == IB_POLL_DIRECT ? HZ / 10 :
						      MAX_SCHEDULE_TIMEOUT;

	while (!wait_event_timeout(sh->idle_wq,
				   vg_sendq_handed_over_locked(sh, sq), slice))
		ib_process_cq_direct(cq, -1);
}

/**
 * vg_sendq_idle() - nothing of the QP is queued, in flight or unreported
 * @sh: the shaper
 * @sq: the QP's state
 *
 * Context: any; the shaper lock held.
 */
static bool vg_sendq_idle(const struct vg_shaper *sh,
			  const struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	return list_empty(&sq->queue) && list_empty(&sq->flushq) &&
	       !sq->inflight && !sq->busy;
}

/*
 * Under the shaper lock: nothing is queued, in flight or to be reported;
 * with @rings, no destroyed QP's ring waits for completions either.
 */
static bool vg_sendq_all_idle(struct vg_shaper *sh, bool rings)
{
	struct vg_sendq *sq;

	lockdep_assert_held(&sh->lock);

	if (rings && !list_empty(&sh->closed))
		return false;
	list_for_each_entry(sq, &sh->sqs, node)
		if (!vg_sendq_idle(sh, sq))
			return false;
	return true;
}

static bool vg_sendq_all_idle_locked(struct vg_shaper *sh, bool rings)
{
	unsigned long flags;
	bool idle;

	spin_lock_irqsave(&sh->lock, flags);
	idle = vg_sendq_all_idle(sh, rings);
	spin_unlock_irqrestore(&sh->lock, flags);
	return idle;
}

/**
 * vg_sendq_wait_idle() - wait until a draining device's send queues are
 *	empty
 * @sh: the shaper, draining (vg_shaper_drain())
 * @rings: wait for destroyed QPs' rings too (vg_sendq_release())
 * @bound: the longest wait, in jiffies; 0 for as long as it takes
 *
 * Unload and device removal. Returns when every WR the shaper took
 * has been posted and every chunk it posted has completed and been
 * translated for its owner: only then may the poll wrapper go, since a
 * completion of a chunk carries the shaper's ring address as its wr_id.
 * An owner that polls its CQ directly and sits idle holds that up
 * indefinitely: unbounded, the wait says so every 10 seconds; bounded,
 * it gives up (the caller then leaves the wrappers in place). A wait of
 * its own is the timer: nothing polls the condition meanwhile, every
 * change of it wakes @sh->idle_wq.
 *
 * Context: process context; sleeps; takes the shaper lock.
 * Return: whether the send queues drained.
 */
bool vg_sendq_wait_idle(struct vg_shaper *sh, bool rings, unsigned long bound)
{
	if (bound)
		return wait_event_timeout(sh->idle_wq,
					  vg_sendq_all_idle_locked(sh, rings),
					  bound);
	while (!wait_event_timeout(sh->idle_wq,
				   vg_sendq_all_idle_locked(sh, rings),
				   10 * HZ))
		pr_info("%s: waiting for shaped QPs' completions to be polled\n",
			sh->dev->name);
	return true;
}
