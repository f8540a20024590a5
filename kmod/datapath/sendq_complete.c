// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a send queue's completions, translated for the owner.
 *
 * Every chunk the shaper posts carries, as its wr_id, the address of its
 * entry in the QP's ring (one entry per slot of its room), which records
 * the owner's wr_id/wr_cqe. The interposed poll_cq translates: a
 * completion of a ring entry retires it and every older entry (send
 * queues complete in order); the owner sees it, with its own wr_id, only
 * for the last chunk of a WR it asked a completion for, or with an
 * error. Chunks are posted unsignaled unless the owner asked, or half the
 * ring would otherwise be unsignaled, so that the ring keeps draining;
 * those extra completions never reach the owner.
 *
 * Errors. When the QP enters the error state (modify to ERR, an error
 * completion, or a failed post) nothing more is posted: the queued WRs,
 * and WRs posted later, are reported as flushed (IB_WC_WR_FLUSH_ERR, the
 * owner's wr_id, once each), after the chunks already in flight have
 * completed, so the owner sees its completions in order. A WR whose chunk
 * failed with another status is reported with that status. The flushed
 * completions are returned by the poll wrapper for the QP's send CQ.
 * verbsgate never calls the CQ's completion handler: where no poll of
 * the CQ is under way, a marker makes the driver signal one, from the
 * context the CQ's owner chose (vg_sendq_settle()).
 *
 * Completions of destroyed QPs are looked up on the shaper's closed list
 * (sendq.c) before the QP table, since their wc->qp may be gone.
 *
 * Locking: the poll wrapper's first look at a completion
 * (vg_sendq_of_wc()) runs under RCU only; the rest under the device's
 * shaper lock (kmod/lock_order.h), taken only when a completion needs it.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>

#include "tenant/tenant.h"

#include "qp.h"
#include "sendq.h"

/* Under the shaper lock: the owner's completion for a flushed WR. */
static void vg_sendq_flushed_wc(struct vg_shaper *sh, struct vg_sendq *sq,
				struct vg_pwr *p, struct ib_wc *wc)
{
	enum ib_wc_opcode wco = IB_WC_SEND;
	u8 vop;

	lockdep_assert_held(&sh->lock);

	vg_opcode_of(p->u.wr.opcode, &vop, &wco);
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = p->u.wr.wr_id;
	wc->status = vg_sendq_owner_status(sh, sq, p->status);
	wc->opcode = wco;
	wc->qp = sq->qp;
}

/* Whether @wc's wr_id is the address of an entry of @sq's ring. */
static bool vg_sendq_ring_wc(const struct vg_sendq *sq, const struct ib_wc *wc)
{
	const struct vg_ring_ent *e = vg_ring_ent_of(wc->wr_id);

	return e >= sq->ring && e < sq->ring + sq->depth;
}

/*
 * Under the shaper lock: ring entry @e of @sq and every older one are
 * complete (send queues complete in order). Return: whether the owner
 * sees @wc, a completion of @e; then its wr_id is the owner's.
 */
static bool vg_sendq_retire(struct vg_shaper *sh, struct vg_sendq *sq,
			    struct vg_ring_ent *e, struct ib_wc *wc)
{
	u32 idx = e - sq->ring;
	u32 n = (idx + sq->depth - sq->head) % sq->depth + 1;
	bool owner;

	lockdep_assert_held(&sh->lock);

	if (n > sq->inflight)
		n = sq->inflight;
	sq->head = (idx + 1) % sq->depth;
	sq->inflight -= n;
	sq->extra_retired = sq->inflight ? e->extra_seq : sq->extra_posted;
	owner = e->last && (e->owner_signaled || wc->status != IB_WC_SUCCESS);
	if (owner)
		wc->wr_id = e->owner_id;
	return owner;
}

/*
 * Under the shaper lock: a completion of ring entry @e of @sq. Return:
 * whether the owner sees it (then @wc is rewritten for the owner).
 */
static bool vg_sendq_complete(struct vg_shaper *sh, struct vg_sendq *sq,
			      struct vg_ring_ent *e, struct ib_wc *wc)
{
	bool owner = vg_sendq_retire(sh, sq, e, wc);

	lockdep_assert_held(&sh->lock);

	if (wc->status != IB_WC_SUCCESS) {
		/* An error the owner does not see goes on its next one. */
		if (!owner && wc->status != IB_WC_WR_FLUSH_ERR &&
		    !sq->first_err)
			sq->first_err = wc->status;
		if (!vg_sendq_failed(sq))
			vg_sendq_fail(sh, sq);
	}
	if (owner)
		wc->status = vg_sendq_owner_status(sh, sq, wc->status);
	return owner;
}

/*
 * Under the shaper lock: a completion @wc of closed @sq (its owner
 * destroyed the QP). Ring entries are retired and translated as while
 * the QP lived, so the owner sees what the driver would have shown it;
 * nothing else changes, since nothing more is posted. Return: whether
 * the owner sees it.
 */
static bool vg_sendq_closed_wc(struct vg_shaper *sh, struct vg_sendq *sq,
			       struct ib_wc *wc)
{
	struct vg_ring_ent *e = vg_ring_ent_of(wc->wr_id);
	bool owner = false;

	lockdep_assert_held(&sh->lock);

	/* Not a ring entry: a WR the owner posted directly. */
	if (!vg_sendq_ring_wc(sq, wc))
		return true;
	/* Of an entry already retired (the ring may be freed then). */
	if (sq->state == VG_SQ_BURIED || vg_ring_stale(sq, wc->wr_id))
		return false;
	if (sq->inflight) {
		owner = vg_sendq_retire(sh, sq, e, wc);
		if (owner)
			wc->status = vg_sendq_owner_status(sh, sq, wc->status);
	}
	if (!sq->inflight && sq->state == VG_SQ_RELEASED)
		vg_sendq_bury(sh, sq);
	return owner;
}

/*
 * Under the shaper lock: the closed QP @wc belongs to, if @wc names one
 * of its ring entries. Compares pointers only: the QP itself may be
 * freed.
 */
static struct vg_sendq *vg_sendq_closed_of_wc(struct vg_shaper *sh,
					      const struct ib_wc *wc)
{
	struct vg_sendq *sq;

	lockdep_assert_held(&sh->lock);

	list_for_each_entry(sq, &sh->closed, node)
		if (sq->qp == wc->qp && vg_sendq_ring_wc(sq, wc))
			return sq;
	return NULL;
}

/**
 * struct vg_poll_room - QPs a poll gave room to
 * @sq: the first, whose waiting chunks the poll posts itself
 * @others: more QPs of the CQ did; the hrtimer posts theirs
 *
 * A QP blocks when its ring is full (a ring entry per chunk, so a few
 * large WRs fill it) or a direct WR took its last slot; the completions
 * its owner polls make room again. The owner's poll posts what waited
 * for it, as its own post would (vg_shaper_kick() with the QP
 * preferred), or hands it to the QP's home CPU (sendq_post.c), rather
 * than leaving it to the hrtimer.
 */
struct vg_poll_room {
	struct vg_sendq *sq;
	bool others;
};

/* Whether @wc may be a send completion, and so of a ring entry. */
static bool vg_sendq_maybe_ring(const struct ib_wc *wc)
{
	return wc->qp &&
	       !(wc->status == IB_WC_SUCCESS && (wc->opcode & IB_WC_RECV));
}

/*
 * Whether a completion the driver returned needs the shaper: one of a
 * shaped QP's ring entries, or a send completion of a QP that waits for
 * room. Everything else (receives, WRs that went to the driver directly,
 * unshaped QPs) reaches the owner as it is, without the shaper lock: the
 * ring's address and size do not change, and a QP's state is freed only
 * after RCU readers. A QP that blocks just now and misses this completion
 * is retried by the hrtimer (VG_RETRY_NS).
 *
 * Context: the poller's; under rcu_read_lock(). Return: the QP or NULL.
 */
static struct vg_sendq *vg_sendq_of_wc(struct vg_qp_table *t,
				       const struct ib_wc *wc)
{
	struct vg_sendq *sq;
	struct vg_qp *q;

	if (!vg_sendq_maybe_ring(wc))
		return NULL;
	q = vg_qp_find(t, wc->qp);
	sq = q ? READ_ONCE(q->sq) : NULL;
	if (!sq || (!vg_sendq_ring_wc(sq, wc) && !READ_ONCE(sq->blocked)))
		return NULL;
	return sq;
}

/*
 * Under the shaper lock: a completion of @sq that vg_sendq_of_wc() picked
 * out. Return: whether the owner sees it.
 */
static bool vg_sendq_filter(struct vg_shaper *sh, struct vg_sendq *sq,
			    struct ib_wc *wc, struct vg_poll_room *room)
{
	struct vg_ring_ent *e = vg_ring_ent_of(wc->wr_id);
	bool owner;

	lockdep_assert_held(&sh->lock);

	if (vg_sendq_closed(sq))
		return vg_sendq_closed_wc(sh, sq, wc);
	/* A completion of the QP frees room a direct post took. */
	if (sq->blocked && !vg_sendq_failed(sq)) {
		sq->blocked = false;
		vg_sendq_reactivate(sh, sq, ktime_get_ns());
		if (!room->sq)
			room->sq = sq;
		else if (room->sq != sq)
			room->others = true;
	}
	/* Not a ring entry: a WR posted directly. */
	if (!vg_sendq_ring_wc(sq, wc))
		return true;
	/*
	 * Of a chunk the driver forgot in a reset, or of an entry already
	 * counted as done (refused marker): nothing of the QP now.
	 */
	if (vg_ring_stale(sq, wc->wr_id) || !sq->inflight)
		return false;
	owner = vg_sendq_complete(sh, sq, e, wc);
	vg_sendq_settle(sh, sq);
	vg_sendq_unpin(sh, sq);
	return owner;
}

/* The poll wrapper takes the shaper lock once, at the first need. */
static void vg_sendq_poll_lock(struct vg_shaper *sh, struct ib_cq *cq,
			       bool *locked, unsigned long *flags)
{
	if (!*locked) {
		spin_lock_irqsave(&sh->lock, *flags);
		sh->poll_cq = cq;
	}
	*locked = true;
}

/*
 * One completion the driver returned, for vg_sendq_poll(): whether the
 * owner sees it (then rewritten for the owner). Takes the shaper lock
 * (vg_sendq_poll_lock()) when the completion needs it.
 */
static bool vg_sendq_poll_one(struct vg_shaper *sh, struct vg_qp_table *t,
			      struct ib_cq *cq, struct ib_wc *wc,
			      struct vg_poll_room *room,
			      bool *locked, unsigned long *flags)
{
	struct vg_sendq *sq;

	/*
	 * Completions of destroyed QPs first: their wc->qp may be freed, and
	 * must not be looked up.
	 */
	if (READ_ONCE(sh->nclosed)) {
		vg_sendq_poll_lock(sh, cq, locked, flags);
		sq = vg_sendq_closed_of_wc(sh, wc);
		if (sq)
			return vg_sendq_closed_wc(sh, sq, wc);
	}
	sq = vg_sendq_of_wc(t, wc);
	if (sq) {
		vg_sendq_poll_lock(sh, cq, locked, flags);
		return vg_sendq_filter(sh, sq, wc, room);
	}
	if (!vg_sendq_maybe_ring(wc))
		return true;
	/*
	 * Its QP may have been closed since the look at the closed list
	 * above: the destroy wrapper puts the state there before the table
	 * forgets it (pairs with its smp_wmb()).
	 */
	smp_rmb();
	if (!READ_ONCE(sh->nclosed))
		return true;
	vg_sendq_poll_lock(sh, cq, locked, flags);
	sq = vg_sendq_closed_of_wc(sh, wc);
	return !sq || vg_sendq_closed_wc(sh, sq, wc);
}

/**
 * vg_sendq_poll() - translate what the driver's poll_cq returned
 * @sh: the shaper of the CQ's device
 * @t: the device's QP table
 * @cq: the CQ
 * @n: room in @wc
 * @wc: the completions; on return the owner's ones, compacted
 * @got: how many the driver returned
 *
 * Removes the shaper's own completions, gives the owner's back their
 * wr_id, and appends flushed WRs of the CQ's QPs while room is left.
 * Chunks of a QP that waited for the room these completions made are
 * posted from here (struct vg_poll_room).
 *
 * Context: the poller's (softirq, workqueue or the ULP's own); under
 * rcu_read_lock() (for the table). Takes the shaper lock if a completion
 * needs it (vg_sendq_of_wc()) or flushed WRs wait to be reported, and
 * drops it around the driver's post_send of each chunk it posts.
 * Return: the number of completions left in @wc.
 */
int vg_sendq_poll(struct vg_shaper *sh, struct vg_qp_table *t,
		  struct ib_cq *cq, int n, struct ib_wc *wc, int got)
{
	struct vg_sendq *sq, *tmp;
	unsigned long flags = 0;
	struct vg_poll_room room = {};
	bool locked = false;
	struct vg_pwr *p;
	int i, out = 0;

	for (i = 0; i < got; i++) {
		if (!vg_sendq_poll_one(sh, t, cq, &wc[i], &room, &locked,
				       &flags))
			continue;
		if (out != i)
			wc[out] = wc[i];
		out++;
	}
	/* One queued just now is reported by the marker's poll (settle). */
	if (!locked && list_empty(&sh->inject))
		return out;
	vg_sendq_poll_lock(sh, cq, &locked, &flags);
	list_for_each_entry_safe(sq, tmp, &sh->inject, inject_node) {
		if (sq->qp->send_cq != cq)
			continue;
		while (out < n && !list_empty(&sq->flushq)) {
			p = list_first_entry(&sq->flushq, struct vg_pwr, node);
			list_del(&p->node);
			sq->nheld--;
			vg_sendq_flushed_wc(sh, sq, p, &wc[out++]);
			vg_pwr_free(p);
		}
		if (list_empty(&sq->flushq)) {
			list_del_init(&sq->inject_node);
			vg_sendq_unpin(sh, sq);
		} else {
			/*
			 * No room left. Pollers poll again after a full batch;
			 * one that only rearms gets an event for the rest.
			 */
			sq->wake = true;
			vg_sendq_attn(sh, sq, ktime_get_ns());
		}
	}
	sh->poll_cq = NULL;
	/* The lock is dropped around each post, as for a poster. */
	if (room.sq && !vg_sendq_send_home(sh, room.sq))
		vg_shaper_kick(sh, &room.sq->slot, &flags);
	if (room.others)
		vg_shaper_arm(sh, ktime_get_ns());
	vg_shaper_wake_idle(sh);
	spin_unlock_irqrestore(&sh->lock, flags);
	return out;
}
