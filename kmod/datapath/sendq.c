// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a device's shaper, the QP side: the send queue of one
 * kernel-owned RC or UC QP.
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
 * Completions. Every chunk the shaper posts carries, as its wr_id, the
 * address of its entry in the QP's ring (one entry per slot of its room),
 * which records the owner's wr_id/wr_cqe. The interposed poll_cq
 * translates: a completion of a ring entry retires it and every older
 * entry (send queues complete in order); the owner sees it, with its own
 * wr_id, only for the last chunk of a WR it asked a completion for, or
 * with an error. Chunks are posted unsignaled unless the owner asked, or
 * half the ring would otherwise be unsignaled, so that the ring keeps
 * draining; those extra completions never reach the owner.
 *
 * Room. The ring bounds what the shaper has in flight. Since the owner's
 * WRs may also go to the driver directly, past the ring, the send queue
 * is created with the ring's entries on top of what the owner asked for
 * (vg_sendq_reserve()), so neither crowds the other out and the send
 * queue never overflows. Where the device's max_qp_wr leaves no room, or
 * the driver refuses the larger send queue (its real limit may be lower,
 * mlx5's depends on the WQE size), the QP is created with the owner's own
 * sizes (the create QP wrapper tries again) and the ring has as many
 * entries as the send queue the driver granted: the shaper then never
 * has more chunks in flight than fit, signals one in every half ring
 * (every chunk on a ring of one or two, stop and wait), and a chunk the
 * driver refuses for lack of room, after direct posts took it, waits for
 * a completion of the QP (or VG_RETRY_NS) and is posted again.
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
 * Drains. ib_core's generic drain posts its drain WR through post_send,
 * behind the QP's queue. A driver's own drain_sq posts it past post_send:
 * the wrapper first waits until the shaper has handed every WR of the QP
 * to the driver (vg_sendq_quiesce()).
 *
 * Locking: everything here runs under the device's shaper lock, except
 * vg_sendq_create(), the driver calls, and the poll wrapper's first look
 * at a completion (vg_sendq_of_wc()), documented where they are.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/ktime.h>
#include <linux/mempool.h>
#include <linux/slab.h>

#include "tenant/tenant.h"

#include "device.h"
#include "fault.h"
#include "qp.h"
#include "shaper.h"

/* When a chunk the driver refused for lack of room is tried again. */
#define VG_RETRY_NS	(100 * NSEC_PER_USEC)
/*
 * The longest chain the fast path passes on whole (ULPs chain a
 * registration or a data transfer with their SEND); longer ones queue.
 */
#define VG_FAST_WRS	8
/*
 * The most send queue entries added to a QP for the ring: enough chunks
 * in flight to keep any link busy, at bounded memory on large queues.
 */
#define VG_SQ_HEADROOM	256
/* Less room than this (or than the owner's queue) is not worth adding. */
#define VG_SQ_HEADROOM_MIN	16

/* ib_core's opcodes the shaper models, and the completion each gives. */
static bool vg_opcode_of(enum ib_wr_opcode op, u8 *vop, enum ib_wc_opcode *wc)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		*vop = VG_OP_WRITE;
		*wc = IB_WC_RDMA_WRITE;
		return true;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*vop = VG_OP_WRITE_IMM;
		*wc = IB_WC_RDMA_WRITE;
		return true;
	case IB_WR_SEND:
		*vop = VG_OP_SEND;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_SEND_WITH_IMM:
		*vop = VG_OP_SEND_IMM;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_SEND_WITH_INV:
		*vop = VG_OP_SEND_INV;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_RDMA_READ:
		*vop = VG_OP_READ;
		*wc = IB_WC_RDMA_READ;
		return true;
	case IB_WR_RDMA_READ_WITH_INV:	/* an ib_rdma_wr, split (split.h) */
		*vop = VG_OP_READ_INV;
		*wc = IB_WC_RDMA_READ;
		return true;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*vop = VG_OP_ATOMIC_CMP_SWP;
		*wc = IB_WC_COMP_SWAP;
		return true;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*vop = VG_OP_ATOMIC_FETCH_ADD;
		*wc = IB_WC_FETCH_ADD;
		return true;
	case IB_WR_LOCAL_INV:
		*vop = VG_OP_LOCAL_INV;
		*wc = IB_WC_LOCAL_INV;
		return true;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:	/* an ib_reg_wr too, never split */
		*vop = VG_OP_REG_MR;
		*wc = IB_WC_REG_MR;
		return true;
	default:
		return false;
	}
}

static bool vg_opcode_rdma(u8 vop)
{
	return vop == VG_OP_WRITE || vop == VG_OP_WRITE_IMM ||
	       vop == VG_OP_READ || vop == VG_OP_READ_INV;
}

static bool vg_opcode_atomic(u8 vop)
{
	return vop == VG_OP_ATOMIC_CMP_SWP || vop == VG_OP_ATOMIC_FETCH_ADD;
}

/* IB_SEND_* to VG_WR_*, for the flags the splitter handles. */
static u32 vg_flags_of(int send_flags)
{
	return (send_flags & IB_SEND_SIGNALED ? VG_WR_SIGNALED : 0) |
	       (send_flags & IB_SEND_SOLICITED ? VG_WR_SOLICITED : 0) |
	       (send_flags & IB_SEND_INLINE ? VG_WR_INLINE : 0) |
	       (send_flags & IB_SEND_FENCE ? VG_WR_FENCE : 0);
}

/* Copy @wr in the container its opcode @vop implies, unchained. */
static void vg_wr_copy(union vg_send_wr *dst, const struct ib_send_wr *wr,
		       u8 vop)
{
	if (vg_opcode_rdma(vop))
		dst->rdma = *rdma_wr(wr);
	else if (vg_opcode_atomic(vop))
		dst->atomic = *atomic_wr(wr);
	else if (vop == VG_OP_REG_MR)
		dst->reg = *reg_wr(wr);
	else
		dst->wr = *wr;
	dst->wr.next = NULL;
}

/*
 * WR copies come from kmalloc(GFP_ATOMIC). When that finds no memory, a
 * copy of up to VG_PWR_RESERVE_SIZE bytes (any WR of up to VG_CHUNK_SGE
 * SGEs without inline data) comes from a reserve that only its own
 * elements refill, so that a QP keeps moving under memory pressure
 * instead of failing posts that would not fail without verbsgate (ULPs
 * treat -ENOMEM from ib_post_send() as a full send queue, a state they
 * size their queues never to reach: nvmet_rdma drops the response).
 */
#define VG_PWR_RESERVE_NR	64
#define VG_PWR_RESERVE_SIZE	(sizeof(struct vg_pwr) + VG_CHUNK_SGE * \
				 (sizeof(struct ib_sge) + sizeof(struct vg_sge)))

static mempool_t *vg_pwr_reserve;

/*
 * The reserve's allocator: fills it at creation (process context); an
 * atomic caller, whose own kmalloc() just failed, takes an element.
 */
static void *vg_pwr_reserve_alloc(gfp_t gfp, void *unused)
{
	if (!gfpflags_allow_blocking(gfp))
		return NULL;
	return kmalloc(VG_PWR_RESERVE_SIZE, gfp);
}

/* Any context. */
static void vg_pwr_free(struct vg_pwr *p)
{
	if (p->reserved)
		mempool_free(p, vg_pwr_reserve);
	else
		kfree(p);
}

/* Any context: memory for a copy of @size bytes, or NULL. */
static struct vg_pwr *vg_pwr_alloc(size_t size)
{
	struct vg_pwr *p = NULL;

	if (!vg_should_fail(VG_FAULT_WR_COPY))
		p = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	if (p) {
		p->reserved = false;
	} else if (size <= VG_PWR_RESERVE_SIZE) {
		p = mempool_alloc(vg_pwr_reserve, GFP_ATOMIC);
		if (p)
			p->reserved = true;
	}
	return p;
}

/**
 * vg_sendq_init() - create the reserve of WR copies
 *
 * Context: process context (module init).
 * Return: 0 or -ENOMEM.
 */
int vg_sendq_init(void)
{
	vg_pwr_reserve = mempool_create(VG_PWR_RESERVE_NR,
					vg_pwr_reserve_alloc, mempool_kfree,
					NULL);
	return vg_pwr_reserve ? 0 : -ENOMEM;
}

/**
 * vg_sendq_exit() - free the reserve
 *
 * Context: process context (module exit), once every device is detached
 * and no QP's state remains.
 */
void vg_sendq_exit(void)
{
	mempool_destroy(vg_pwr_reserve);
}

/*
 * Copy @wr, its container, SGEs and inline payload, for a send queue of
 * @max_sge SGEs per WR. A WR with more than VG_CHUNK_SGE SGEs gets room
 * for its chunks' SGEs too (vg_pwr::csge). Any context (GFP_ATOMIC).
 * Return: the copy, or NULL with *@err set: -EOPNOTSUPP an opcode the
 * shaper does not model, -EINVAL more SGEs than @max_sge or a payload
 * above 2^31 bytes, -ENOMEM.
 */
static struct vg_pwr *vg_pwr_copy(const struct ib_send_wr *wr, u32 max_sge,
				  int *err)
{
	size_t inl = 0, size, per_sge;
	enum ib_wc_opcode wco;
	struct vg_pwr *p;
	u32 i, n, off = 0;
	u8 vop;

	if (!vg_opcode_of(wr->opcode, &vop, &wco)) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	if (wr->num_sge < 0 || wr->num_sge > max_sge) {
		*err = -EINVAL;
		return NULL;
	}
	n = wr->num_sge;
	if (wr->send_flags & IB_SEND_INLINE)
		for (i = 0; i < n; i++)
			inl += wr->sg_list[i].length;
	if (inl > SZ_64K) {
		*err = -EINVAL;
		return NULL;
	}
	/* n <= VG_MAX_SGE (vg_sendq_create()): no overflow. */
	per_sge = sizeof(struct ib_sge) + sizeof(struct vg_sge);
	size = sizeof(*p) + n * per_sge * (n > VG_CHUNK_SGE ? 2 : 1) + inl;
	p = vg_pwr_alloc(size);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	vg_wr_copy(&p->u, wr, vop);
	p->sge = (struct ib_sge *)(p + 1);
	p->vsge = (struct vg_sge *)(p->sge + n);
	p->csge = NULL;
	p->cvsge = NULL;
	p->inline_buf = (u8 *)(p->vsge + n);
	if (n > VG_CHUNK_SGE) {
		p->csge = (struct ib_sge *)p->inline_buf;
		p->cvsge = (struct vg_sge *)(p->csge + n);
		p->inline_buf = (u8 *)(p->cvsge + n);
	}
	p->length = 0;
	p->status = IB_WC_SUCCESS;
	for (i = 0; i < wr->num_sge; i++) {
		p->sge[i] = wr->sg_list[i];
		if (inl) {
			memcpy(p->inline_buf + off,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p->sge[i].addr = (uintptr_t)(p->inline_buf + off);
			off += wr->sg_list[i].length;
		}
		p->vsge[i].addr = p->sge[i].addr;
		p->vsge[i].length = p->sge[i].length;
		p->vsge[i].lkey = p->sge[i].lkey;
	}
	p->u.wr.sg_list = p->sge;

	memset(&p->vwr, 0, sizeof(p->vwr));
	p->vwr.wr_id = wr->wr_id;
	p->vwr.sg_list = p->vsge;
	p->vwr.num_sge = wr->num_sge;
	p->vwr.flags = vg_flags_of(wr->send_flags);
	p->vwr.opcode = vop;
	if (vg_opcode_rdma(vop)) {
		p->vwr.remote_addr = p->u.rdma.remote_addr;
		p->vwr.rkey = p->u.rdma.rkey;
	} else if (vg_opcode_atomic(vop)) {
		p->vwr.remote_addr = p->u.atomic.remote_addr;
		p->vwr.rkey = p->u.atomic.rkey;
	}
	if (vop == VG_OP_WRITE_IMM || vop == VG_OP_SEND_IMM)
		p->vwr.imm = (__force u32)wr->ex.imm_data;
	else if (vop == VG_OP_SEND_INV || vop == VG_OP_READ_INV)
		p->vwr.imm = wr->ex.invalidate_rkey;
	if (vg_wr_length(&p->vwr, &p->length)) {
		vg_pwr_free(p);
		*err = -EINVAL;
		return NULL;
	}
	return p;
}

/*
 * Under the shaper lock: fill the dispatcher's WR for chunk @c of @p,
 * with its SGEs in @sge (room for @c->num_sge).
 */
static void vg_sendq_build(struct vg_shaper *sh, const struct vg_pwr *p,
			   const struct vg_chunk *c, struct ib_sge *sge,
			   bool signal)
{
	struct ib_send_wr *w = &sh->wr.wr;
	int keep = IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_FENCE;
	u32 i;

	sh->wr = p->u;
	w->next = NULL;
	for (i = 0; i < c->num_sge; i++) {
		sge[i].addr = c->sg_list[i].addr;
		sge[i].length = c->sg_list[i].length;
		sge[i].lkey = c->sg_list[i].lkey;
	}
	w->sg_list = sge;
	w->num_sge = c->num_sge;
	/*
	 * Earlier chunks of a WRITE_WITH_IMM are plain WRITEs, of a
	 * READ_WITH_INV plain READs: the last chunk alone invalidates.
	 */
	if (p->vwr.opcode == VG_OP_WRITE_IMM && c->opcode == VG_OP_WRITE)
		w->opcode = IB_WR_RDMA_WRITE;
	else if (p->vwr.opcode == VG_OP_READ_INV && c->opcode == VG_OP_READ)
		w->opcode = IB_WR_RDMA_READ;
	if (vg_opcode_rdma(p->vwr.opcode)) {
		sh->wr.rdma.remote_addr = c->remote_addr;
		sh->wr.rdma.rkey = c->rkey;
	}
	w->send_flags = (p->u.wr.send_flags & ~keep) |
			(c->flags & VG_WR_SOLICITED ? IB_SEND_SOLICITED : 0) |
			(c->flags & VG_WR_FENCE ? IB_SEND_FENCE : 0) |
			(signal ? IB_SEND_SIGNALED : 0);
}

/*
 * A chunk's wr_id: the address of its ring entry, with the QP's reset
 * generation in the low bits the entry's alignment leaves clear, so that
 * a completion of a chunk posted before the QP was last reset (the
 * driver may have put it in the CQ before the reset; the CQ keeps it) is
 * told apart from one of the entry's reuse after it.
 */
#define VG_RING_GEN_MASK	7UL

static_assert(__alignof__(struct vg_ring_ent) > VG_RING_GEN_MASK);

static u64 vg_ring_wr_id(const struct vg_sendq *sq,
			 const struct vg_ring_ent *e)
{
	return (uintptr_t)e | sq->gen;
}

static struct vg_ring_ent *vg_ring_ent_of(u64 wr_id)
{
	return (struct vg_ring_ent *)(uintptr_t)(wr_id & ~VG_RING_GEN_MASK);
}

/* Whether a ring entry's completion is of a chunk posted before a reset. */
static bool vg_ring_stale(const struct vg_sendq *sq, u64 wr_id)
{
	return (wr_id & VG_RING_GEN_MASK) != sq->gen;
}

/*
 * Under the shaper lock: take the next ring entry, for a WR or chunk of
 * the owner's @owner_id (0 for a marker, which @force signals). Chunks
 * are signaled when the owner asked for the WR's completion, and at least
 * every half ring or when the ring fills, so that it keeps draining.
 * Return: the entry; *@signal: whether to request its completion.
 */
static struct vg_ring_ent *vg_sendq_ring_push(struct vg_sendq *sq,
					      u64 owner_id, bool last,
					      bool owner_signaled, bool force,
					      bool *signal)
{
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
static enum ib_wc_status vg_sendq_owner_status(struct vg_sendq *sq,
					       enum ib_wc_status status)
{
	if (status == IB_WC_WR_FLUSH_ERR && sq->first_err) {
		status = sq->first_err;
		sq->first_err = IB_WC_SUCCESS;
	}
	return status;
}

/* Under the shaper lock: have the hrtimer attend to @sq. */
static void vg_sendq_attn(struct vg_shaper *sh, struct vg_sendq *sq, u64 when)
{
	if (list_empty(&sq->attn_node))
		list_add_tail(&sq->attn_node, &sh->attn);
	vg_shaper_arm(sh, when);
}

/*
 * Under the shaper lock: hand @wr of @sq to the driver's post_send. The
 * lock is dropped around the call: the driver may run its requester
 * inline and must see the interrupt state of whoever took the lock.
 * Meanwhile nothing else of the QP is posted (@posting) and destroy waits
 * (@busy). Return: what the driver returned.
 */
static int vg_sendq_driver_post(struct vg_shaper *sh, struct vg_sendq *sq,
				const struct ib_send_wr *wr,
				unsigned long *flags)
{
	const struct ib_send_wr *bad;
	int ret;

	sq->posting = true;
	sq->busy++;
	spin_unlock_irqrestore(&sh->lock, *flags);
	ret = sh->post_send(sq->qp, wr, &bad);
	spin_lock_irqsave(&sh->lock, *flags);
	sq->busy--;
	sq->posting = false;
	vg_shaper_wake_idle(sh);
	return ret;
}

/* Under the shaper lock: something waits for all of @sq's completions. */
static bool vg_sendq_waited_for(struct vg_shaper *sh, struct vg_sendq *sq)
{
	return !sq->dead && (!list_empty(&sq->flushq) ||
			     (sh->draining && sq->inflight));
}

/*
 * Under the shaper lock: let the dispatcher pick @sq again if it has WRs
 * to send and may send them. Return: whether it was activated.
 */
static bool vg_sendq_reactivate(struct vg_shaper *sh, struct vg_sendq *sq,
				u64 now)
{
	if (list_empty(&sq->queue) || sq->blocked || sq->error || sq->dead ||
	    sq->resetting)
		return false;
	vg_sched_activate(&sh->sched, sq->handle, now);
	return true;
}

/*
 * vg_sendq_settle(), and with @wake false after the driver refused a
 * marker: the flush queue then waits for the owner's next poll.
 */
static void __vg_sendq_settle(struct vg_shaper *sh, struct vg_sendq *sq,
			      bool wake)
{
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
	__vg_sendq_settle(sh, sq, true);
}

/**
 * vg_sendq_attend() - post a marker or retry a refused chunk
 * @sh: the shaper
 * @sq: the QP, just taken off vg_shaper::attn
 * @flags: the interrupt state saved with the shaper lock
 *
 * The marker is a signaled zero-length RDMA WRITE through the ring, as
 * ib_drain_sq() posts (no memory is accessed: IBA C9-88); its completion,
 * successful or flushed, retires everything posted before it, and brings
 * the poll that reports the flush queue (vg_sendq_settle()). It holds
 * the dispatcher's role and the QP's @posting while the lock is dropped,
 * so nothing of the QP overtakes it.
 *
 * Context: the hrtimer (softirq); the shaper lock held, no dispatcher
 * running.
 */
void vg_sendq_attend(struct vg_shaper *sh, struct vg_sendq *sq,
		     unsigned long *flags)
{
	struct ib_rdma_wr w = {};
	struct vg_ring_ent *e;
	bool signal, post = false;
	u64 now;
	int ret;

	if (sq->dead || sq->resetting)
		return;
	if (sq->retry) {
		sq->retry = false;
		if (sq->blocked && !sq->error) {
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
	e = vg_sendq_ring_push(sq, 0, false, false, true, &signal);
	w.wr.opcode = IB_WR_RDMA_WRITE;
	w.wr.send_flags = IB_SEND_SIGNALED;
	w.wr.wr_id = vg_ring_wr_id(sq, e);

	sh->running = true;
	ret = vg_sendq_driver_post(sh, sq, &w.wr, flags);
	sh->running = false;
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
	}
	if (sh->rerun)
		vg_shaper_kick(sh, flags);
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

	if (!sq->error) {
		sq->error = true;
		vg_sched_deactivate(&sh->sched, sq->handle);
	}
	list_for_each_entry_safe(p, tmp, &sq->queue, node) {
		p->status = IB_WC_WR_FLUSH_ERR;
		list_move_tail(&p->node, &sq->flushq);
		n++;
	}
	sq->splitting = false;
	if (n)
		vg_tenant_count_queue(sq->tenant, 0, n);
	vg_sendq_settle(sh, sq);
}

/* Under the shaper lock: report @p (removed from the queue) as failed. */
static void vg_sendq_post_failed(struct vg_shaper *sh, struct vg_sendq *sq,
				 struct vg_pwr *p, int err)
{
	pr_warn_ratelimited("%s: QP %u: posting a chunk failed (%d); the QP's WRs are flushed\n",
			    sh->dev->name, sq->qp->qp_num, err);
	p->status = IB_WC_LOC_QP_OP_ERR;
	list_add(&p->node, &sq->flushq);
	sq->nheld++;
	vg_tenant_count_queue(sq->tenant, 0, 1);
	vg_sendq_fail(sh, sq);
}

/**
 * vg_sendq_post_chunk() - post the next chunk of a QP's head WR
 * @sh: the shaper
 * @sq: the QP the scheduler picked; its queue is not empty and its ring
 *	has room
 * @now: time of the pick, ns
 * @flags: the interrupt state saved with the shaper lock
 *
 * Charges the chunk to the pacer and the scheduler, then drops the lock
 * to call the driver's post_send (with the interrupt state of whoever
 * took the lock) and retakes it. A -ENOMEM from the driver (its queue is
 * fuller than the ring knows, after direct posts) puts the chunk back and
 * waits for a completion; any other error fails the QP.
 *
 * Context: any; the shaper lock held, the dispatcher running.
 */
void vg_sendq_post_chunk(struct vg_shaper *sh, struct vg_sendq *sq, u64 now,
			 unsigned long *flags)
{
	struct vg_pwr *p = list_first_entry(&sq->queue, struct vg_pwr, node);
	struct vg_ktenant *t;
	struct vg_split saved;
	struct vg_ring_ent *e;
	struct vg_token tok;
	struct vg_chunk c;
	bool signal, split;
	int ret;

	if (!sq->splitting) {
		ret = vg_split_init(&sq->split, &p->vwr, sh->chunk);
		if (ret) {
			list_del(&p->node);
			sq->nheld--;
			vg_sendq_post_failed(sh, sq, p, ret);
			return;
		}
		sq->splitting = true;
		vg_tenant_count_wait(sq->tenant, now - p->enqueued_ns);
	}
	saved = sq->split;
	/* A long SGE list brought its own room (vg_pwr_copy()). */
	vg_split_next(&sq->split, &c, p->cvsge ?: sh->vsge);
	split = c.last && vg_split_count(&sq->split) > 1;

	e = vg_sendq_ring_push(sq, p->u.wr.wr_id, c.last,
			       sq->sig_all ||
			       (p->u.wr.send_flags & IB_SEND_SIGNALED),
			       false, &signal);
	vg_sendq_build(sh, p, &c, p->csge ?: sh->sge, signal);
	sh->wr.wr.wr_id = vg_ring_wr_id(sq, e);
	if (c.last) {
		list_del(&p->node);
		sq->nheld--;
		sq->splitting = false;
	}

	vg_cost(&sh->cost, c.opcode, c.length, &tok);
	vg_pacer_charge(&sh->pacer, now, &tok);
	vg_sched_charge(&sh->sched, sq->handle, tok.bytes, now,
			!list_empty(&sq->queue));

	/*
	 * A tenant change may drop the QP's reference meanwhile; the tenant
	 * is freed only after RCU readers.
	 */
	rcu_read_lock();
	t = sq->tenant;
	if (vg_should_fail(VG_FAULT_CHUNK_POST))
		ret = -ENOMEM;
	else
		ret = vg_sendq_driver_post(sh, sq, &sh->wr.wr, flags);
	if (!ret) {
		vg_tenant_count_tx(t, c.length, c.last, 1, split);
		if (c.last)
			vg_tenant_count_queue(t, 0, 1);
	}
	rcu_read_unlock();
	if (!ret) {
		if (c.last)
			vg_pwr_free(p);
		return;
	}
	sq->inflight--;
	if (!c.last)
		sq->extra_posted--;
	sq->unsignaled = 0;
	if (ret == -ENOMEM && !sq->error) {
		/* Back as it was; a completion of the QP unblocks it. */
		sq->split = saved;
		sq->splitting = saved.emitted > 0;
		if (c.last) {
			list_add(&p->node, &sq->queue);
			sq->nheld++;
		}
		sq->blocked = true;
		vg_sched_deactivate(&sh->sched, sq->handle);
		/* A completion unblocks it; in case none comes, retry. */
		sq->retry = true;
		vg_sendq_attn(sh, sq, ktime_get_ns() + VG_RETRY_NS);
		return;
	}
	if (!c.last) {
		/* Still queued, unless an error moved it meanwhile. */
		if (sq->error)
			return;
		list_del(&p->node);
		sq->nheld--;
	}
	vg_sendq_post_failed(sh, sq, p, ret);
	vg_sendq_settle(sh, sq);
}

/*
 * Under the shaper lock: nothing of @sq waits or is in the driver's
 * post_send, so a WR that bypasses the queue overtakes nothing of the QP.
 */
static bool vg_sendq_clear(const struct vg_sendq *sq)
{
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
	if (!vg_sendq_clear(sq))
		return false;
	/*
	 * Unloading: the ring only drains from here on, so that it empties
	 * under any load. A direct WR after ring entries completes after
	 * them, untranslated.
	 */
	if (sh->draining)
		return true;
	if (sq->error)
		return false;
	return !sh->enforce ||
	       READ_ONCE(sq->tenant->pol.class) == VERBSGATE_CLASS_LATENCY;
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
 * paced? When nothing of the QP waits or is being posted, the pacer has
 * tokens, no WR of the chain needs a split and the scheduler would pick
 * this QP anyway, sending the chain at once is what the dispatcher would
 * do, minus the copies and the ring. If the send queue has no room
 * reserved for the ring, not while ring entries the owner does not count
 * are in flight (chunks of a split WR, markers): the owner counts its
 * WRs, not the chunks they became, so the send queue may then be full
 * while the owner believes it has room, and the chain would fail for the
 * owner. The chain is charged to the pacer and the scheduler as the
 * dispatcher would charge it, and the caller posts it directly. The
 * pacer may run ahead by up to VG_FAST_WRS WRs, as by one chunk; tokens
 * of WRs the driver then refuses stay spent. Other QPs' posts and the
 * dispatcher may run meanwhile: the order that matters is the QP's own.
 * Return: whether the chain was charged.
 */
static bool vg_sendq_fast(struct vg_shaper *sh, struct vg_sendq *sq,
			  const struct ib_send_wr *wr, u64 now)
{
	struct vg_token tok[VG_FAST_WRS];
	const struct ib_send_wr *w;
	enum ib_wc_opcode wco;
	u64 next, charged = 0;
	u32 h, k, len;
	int i, ret;
	u8 vop;

	if (!vg_sendq_clear(sq) ||
	    (!sq->reserved && sq->extra_retired != sq->extra_posted) ||
	    sh->draining || sq->error || sq->blocked ||
	    vg_pacer_next(&sh->pacer) > now)
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
		vg_cost(&sh->cost, vop, len, &tok[k]);
		charged += tok[k].bytes;
	}
	/* Nothing backlogged on the device: the scheduler in O(1). */
	ret = vg_sched_send_idle(&sh->sched, sq->handle, charged, now);
	if (ret == -EBUSY) {
		vg_sched_activate(&sh->sched, sq->handle, now);
		if (vg_sched_pick(&sh->sched, now, &h, &next) ||
		    h != sq->handle)
			return false;
		ret = vg_sched_charge(&sh->sched, sq->handle, charged, now,
				      false);
	}
	if (ret)
		return false;
	for (i = 0; i < k; i++)
		vg_pacer_charge(&sh->pacer, now, &tok[i]);
	return true;
}

/**
 * vg_sendq_post() - the post path of a shaped QP
 * @sh: the shaper
 * @sq: the QP's state
 * @wr: the owner's chain
 * @bad: on error, the first WR not taken
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
	const struct ib_send_wr *first = wr;
	struct vg_ktenant *t;
	unsigned long flags;
	struct vg_pwr *p;
	int ret = 0;
	u32 n = 0;
	u64 now;

	/*
	 * The clock is read once per call, outside the lock (some
	 * clocksources are slow to read), and only if WRs may be shaped.
	 */
	now = READ_ONCE(sh->enforce) ? ktime_get_ns() : 0;
	spin_lock_irqsave(&sh->lock, flags);
	if (sq->dead)
		goto dead;
	vg_shaper_rebind(sh, sq);
	if (vg_sendq_direct(sh, sq))
		goto direct;
	if (!now)
		now = ktime_get_ns();
	if (vg_sendq_fast(sh, sq, wr, now))
		goto direct;

	for (; wr; wr = wr->next) {
		if (sq->nheld >= sq->owner_max) {
			ret = -ENOMEM;
			break;
		}
		p = vg_pwr_copy(wr, sq->max_sge, &ret);
		if (!p) {
			/* Unmodelled opcodes go direct when nothing waits. */
			if (ret == -EOPNOTSUPP && wr == first && !sq->error &&
			    vg_sendq_clear(sq))
				goto direct;
			break;
		}
		p->enqueued_ns = now;
		sq->nheld++;
		if (sq->error) {
			p->status = IB_WC_WR_FLUSH_ERR;
			list_add_tail(&p->node, &sq->flushq);
			continue;
		}
		list_add_tail(&p->node, &sq->queue);
		n++;
	}
	if (ret)
		*bad = wr;
	if (n) {
		vg_tenant_count_queue(sq->tenant, n, 0);
		if (!sq->blocked && !sq->resetting)
			vg_sched_activate(&sh->sched, sq->handle, now);
		vg_shaper_kick(sh, &flags);
	}
	if (sq->error && !sq->dead)
		vg_sendq_settle(sh, sq);
	spin_unlock_irqrestore(&sh->lock, flags);
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
	t = sq->tenant;
	sq->tail_untracked = true;
	spin_unlock_irqrestore(&sh->lock, flags);
	ret = sh->post_send(sq->qp, wr, bad);
	vg_sendq_count_direct(t, wr, ret ? *bad : NULL);
	return ret;
}

/* Under the shaper lock: the owner's completion for a flushed WR. */
static void vg_sendq_flushed_wc(struct vg_sendq *sq, struct vg_pwr *p,
				struct ib_wc *wc)
{
	enum ib_wc_opcode wco = IB_WC_SEND;
	u8 vop;

	vg_opcode_of(p->u.wr.opcode, &vop, &wco);
	memset(wc, 0, sizeof(*wc));
	wc->wr_id = p->u.wr.wr_id;
	wc->status = vg_sendq_owner_status(sq, p->status);
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
static bool vg_sendq_retire(struct vg_sendq *sq, struct vg_ring_ent *e,
			    struct ib_wc *wc)
{
	u32 idx = e - sq->ring;
	u32 n = (idx + sq->depth - sq->head) % sq->depth + 1;
	bool owner;

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
	bool owner = vg_sendq_retire(sq, e, wc);

	if (wc->status != IB_WC_SUCCESS) {
		/* An error the owner does not see goes on its next one. */
		if (!owner && wc->status != IB_WC_WR_FLUSH_ERR &&
		    !sq->first_err)
			sq->first_err = wc->status;
		if (!sq->error)
			vg_sendq_fail(sh, sq);
	}
	if (owner)
		wc->status = vg_sendq_owner_status(sq, wc->status);
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

	/* Not a ring entry: a WR the owner posted directly. */
	if (!vg_sendq_ring_wc(sq, wc))
		return true;
	/* Of an entry already retired (the ring may be freed then). */
	if (sq->buried || vg_ring_stale(sq, wc->wr_id))
		return false;
	if (sq->inflight) {
		owner = vg_sendq_retire(sq, e, wc);
		if (owner)
			wc->status = vg_sendq_owner_status(sq, wc->status);
	}
	if (!sq->inflight && sq->released)
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

	list_for_each_entry(sq, &sh->closed, node)
		if (sq->qp == wc->qp && vg_sendq_ring_wc(sq, wc))
			return sq;
	return NULL;
}

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
			    struct ib_wc *wc, bool *kick)
{
	struct vg_ring_ent *e = vg_ring_ent_of(wc->wr_id);
	bool owner;

	if (sq->dead)
		return vg_sendq_closed_wc(sh, sq, wc);
	/* A completion of the QP frees room a direct post took. */
	if (sq->blocked && !sq->error) {
		sq->blocked = false;
		vg_sendq_reactivate(sh, sq, ktime_get_ns());
		*kick = true;
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
			      struct ib_cq *cq, struct ib_wc *wc, bool *kick,
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
		return vg_sendq_filter(sh, sq, wc, kick);
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
 *
 * Context: the poller's (softirq, workqueue or the ULP's own); under
 * rcu_read_lock() (for the table). Takes the shaper lock if a completion
 * needs it (vg_sendq_of_wc()) or flushed WRs wait to be reported.
 * Return: the number of completions left in @wc.
 */
int vg_sendq_poll(struct vg_shaper *sh, struct vg_qp_table *t,
		  struct ib_cq *cq, int n, struct ib_wc *wc, int got)
{
	struct vg_sendq *sq, *tmp;
	unsigned long flags = 0;
	bool kick = false, locked = false;
	struct vg_pwr *p;
	int i, out = 0;

	for (i = 0; i < got; i++) {
		if (!vg_sendq_poll_one(sh, t, cq, &wc[i], &kick, &locked,
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
			vg_sendq_flushed_wc(sq, p, &wc[out++]);
			vg_pwr_free(p);
		}
		if (list_empty(&sq->flushq)) {
			list_del_init(&sq->inject_node);
		} else {
			/*
			 * No room left. Pollers poll again after a full batch;
			 * one that only rearms gets an event for the rest.
			 */
			sq->wake = true;
			vg_sendq_attn(sh, sq, ktime_get_ns());
		}
	}
	if (kick)
		vg_shaper_arm(sh, ktime_get_ns());
	vg_shaper_wake_idle(sh);
	sh->poll_cq = NULL;
	spin_unlock_irqrestore(&sh->lock, flags);
	return out;
}

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
	if (!sq->dead && attr->qp_state == IB_QPS_ERR)
		vg_sendq_fail(sh, sq);
	vg_shaper_wake_idle(sh);
	spin_unlock_irqrestore(&sh->lock, flags);
}

static void vg_sendq_drop_wrs(struct vg_sendq *sq);

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
	sq->resetting = true;
	vg_sched_deactivate(&sh->sched, sq->handle);
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
	sq->resetting = false;
	if (reset && !sq->dead) {
		vg_sendq_drop_wrs(sq);
		list_del_init(&sq->inject_node);
		list_del_init(&sq->attn_node);
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
		sq->error = false;
		sq->blocked = false;
		sq->first_err = IB_WC_SUCCESS;
	} else if (!sq->dead) {
		/* Nothing changed: take up what waited. */
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
static bool vg_sendq_handed_over(const struct vg_sendq *sq)
{
	return sq->dead || (list_empty(&sq->queue) &&
			    list_empty(&sq->flushq) && !sq->posting);
}

/* Takes the shaper lock: vg_sendq_handed_over() for a wait_event(). */
static bool vg_sendq_handed_over_locked(struct vg_shaper *sh,
					struct vg_sendq *sq)
{
	bool done;

	spin_lock_irq(&sh->lock);
	done = vg_sendq_handed_over(sq);
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
 * @sq: the QP's state
 *
 * Context: any; the shaper lock held.
 */
bool vg_sendq_idle(const struct vg_sendq *sq)
{
	return list_empty(&sq->queue) && list_empty(&sq->flushq) &&
	       !sq->inflight && !sq->busy;
}

/**
 * vg_sendq_reserve() - ask for room for the shaper in a new send queue
 * @sh: the device's shaper
 * @attr: the owner's attributes, about to go to the driver's create_qp
 * @max_qp_wr: the device's limit on a send queue's size
 *
 * The owner counts its own WRs; the ring holds, besides them, chunks the
 * owner does not know of, while the owner's WRs may also go to the
 * driver directly (the fast path, latency-class tenants, enforce 0).
 * The send queue is therefore created larger than the owner asked, by
 * up to VG_SQ_HEADROOM entries, for the ring. vg_sendq_create() tells the
 * owner the size it asked for (or more, if the driver rounded up).
 *
 * Context: process context (the create QP wrapper); no locks.
 * Return: the entries added to @attr->cap.max_send_wr; 0 if none.
 */
u32 vg_sendq_reserve(const struct vg_shaper *sh, struct ib_qp_init_attr *attr,
		     int max_qp_wr)
{
	u32 asked = attr->cap.max_send_wr, extra;

	if (!sh->active || !asked || max_qp_wr <= 0 || asked >= max_qp_wr)
		return 0;
	extra = min3(asked, (u32)max_qp_wr - asked, (u32)VG_SQ_HEADROOM);
	/* A ring of a few entries would post one chunk per round trip. */
	if (extra < min_t(u32, asked, VG_SQ_HEADROOM_MIN))
		return 0;
	attr->cap.max_send_wr += extra;
	return extra;
}

/**
 * vg_sendq_create() - shape a new kernel-owned QP
 * @sh: its device's shaper
 * @qp: the QP, just created by the driver
 * @q: its tracking entry, classified
 * @attr: what it was created with; the driver wrote back the real sizes,
 *	and the send queue's is set to what the owner may use
 * @asked: the send queue's size the owner asked for
 * @extra: the entries vg_sendq_reserve() added to it for the ring
 *
 * Context: process context (the create QP wrapper); GFP_KERNEL; takes
 * the shaper lock.
 * Return: the state, or NULL if the QP stays unshaped (no memory, no
 * scheduler slot, no send queue).
 */
struct vg_sendq *vg_sendq_create(struct vg_shaper *sh, struct ib_qp *qp,
				 struct vg_qp *q, struct ib_qp_init_attr *attr,
				 u32 asked, u32 extra)
{
	u32 size = attr->cap.max_send_wr, depth = size, owner_max = size;
	struct vg_ktenant *t;
	struct vg_sendq *sq;

	if (!sh->active || !size) {
		WRITE_ONCE(q->unshaped, !size ? VERBSGATE_QP_REASON_NO_SEND_QUEUE :
						VERBSGATE_QP_REASON_NO_SHAPER);
		return NULL;
	}
	/* The glue sizes each WR's copy by its own list (vg_pwr_copy()). */
	if (attr->cap.max_send_sge > VG_MAX_SGE) {
		WRITE_ONCE(q->unshaped, VERBSGATE_QP_REASON_SGE_LIMIT);
		pr_warn_ratelimited("%s: QP %u is not shaped: %u SGEs per WR, verbsgate handles %u\n",
				    sh->dev->name, qp->qp_num,
				    attr->cap.max_send_sge, VG_MAX_SGE);
		return NULL;
	}
	/* Without the room asked for, direct WRs may crowd out chunks. */
	if (extra && size >= asked + extra) {
		depth = extra;
		owner_max = size - extra;
	} else {
		extra = 0;
	}
	sq = vg_should_fail(VG_FAULT_QP_STATE) ? NULL :
		kzalloc(sizeof(*sq), GFP_KERNEL);
	if (sq)
		sq->ring = kcalloc(depth, sizeof(*sq->ring), GFP_KERNEL);
	if (!sq || !sq->ring) {
		kfree(sq);
		WRITE_ONCE(q->unshaped, VERBSGATE_QP_REASON_NO_MEMORY);
		return NULL;
	}
	INIT_LIST_HEAD(&sq->node);
	INIT_LIST_HEAD(&sq->inject_node);
	INIT_LIST_HEAD(&sq->attn_node);
	INIT_LIST_HEAD(&sq->queue);
	INIT_LIST_HEAD(&sq->flushq);
	sq->qp = qp;
	sq->q = q;
	sq->depth = depth;
	sq->owner_max = owner_max;
	sq->reserved = extra > 0;
	sq->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	sq->send_cq = qp->send_cq;
	sq->max_sge = attr->cap.max_send_sge;

	rcu_read_lock();
	t = rcu_dereference(q->tenant);
	t = t ? vg_tenant_get(t) : NULL;
	rcu_read_unlock();
	if (!t || vg_shaper_bind(sh, sq, t)) {
		WRITE_ONCE(q->unshaped, t ? VERBSGATE_QP_REASON_QP_LIMIT :
					    VERBSGATE_QP_REASON_NO_TENANT);
		pr_warn_ratelimited("%s: QP %u is not shaped\n",
				    sh->dev->name, qp->qp_num);
		vg_tenant_put(t);
		vg_sendq_free(sq);
		return NULL;
	}
	vg_tenant_put(t);
	attr->cap.max_send_wr = owner_max;
	return sq;
}

/*
 * The WRs @sq holds that the driver never saw, dropped. Context: any;
 * under the shaper lock, or with @sq out of everyone's reach.
 */
static void vg_sendq_drop_wrs(struct vg_sendq *sq)
{
	struct vg_pwr *p, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(p, tmp, &sq->queue, node) {
		list_del(&p->node);
		vg_pwr_free(p);
		n++;
	}
	if (n && sq->tenant)
		vg_tenant_count_queue(sq->tenant, 0, n);
	list_for_each_entry_safe(p, tmp, &sq->flushq, node) {
		list_del(&p->node);
		vg_pwr_free(p);
	}
	sq->nheld = 0;
}

/**
 * vg_sendq_free() - free a QP's state nobody can reach any more
 * @sq: the state
 *
 * Context: process context.
 */
void vg_sendq_free(struct vg_sendq *sq)
{
	vg_sendq_drop_wrs(sq);
	vg_tenant_put(sq->tenant);
	kfree(sq->ring);
	kfree_rcu(sq, rcu);
}

/**
 * vg_sendq_close() - stop shaping a QP its owner is destroying
 * @sh: the shaper
 * @sq: the QP's state
 *
 * Called before the driver's destroy_qp. The QP leaves the scheduler and
 * the dispatcher; the WRs still queued are dropped (the driver never saw
 * them, and would not complete them once the QP is gone). Chunks already
 * in the driver may still complete, before or after the QP is destroyed,
 * with a ring entry as their wr_id: the state moves to @sh->closed, where
 * the poll wrapper finds it by the QP's address (without touching the
 * QP) and translates those completions, until vg_sendq_release() and
 * the last of them let it go.
 *
 * Context: process context; sleeps until no one posts for the QP
 * without the shaper lock; takes the shaper lock.
 */
void vg_sendq_close(struct vg_shaper *sh, struct vg_sendq *sq)
{
	struct vg_ktenant *t;

	spin_lock_irq(&sh->lock);
	sq->dead = true;
	wait_event_lock_irq(sh->idle_wq, !sq->busy, sh->lock);
	list_del_init(&sq->inject_node);
	list_del_init(&sq->attn_node);
	sh->by_handle[sq->handle] = NULL;
	vg_sched_qp_del(&sh->sched, sq->handle);
	vg_sendq_drop_wrs(sq);
	list_move_tail(&sq->node, &sh->closed);
	WRITE_ONCE(sh->nsqs, sh->nsqs - 1);
	WRITE_ONCE(sh->nclosed, sh->nclosed + 1);
	t = sq->tenant;
	sq->tenant = NULL;
	vg_shaper_wake_idle(sh);
	spin_unlock_irq(&sh->lock);
	/* Outside the lock: the last reference removes the tenant's kobject. */
	vg_tenant_put(t);
}

/**
 * vg_sendq_release() - the driver's destroy_qp of a closed QP returned
 * @sh: the shaper
 * @sq: the QP's state, closed
 *
 * With no chunk in flight the state goes now. Otherwise an owner
 * destroyed the QP without draining it, and completions naming its ring
 * may wait in its CQ for as long as the CQ lives: the state stays until
 * they are polled or the CQ is destroyed (vg_sendq_cq_destroyed()), and
 * holds a reference to the module meanwhile, because once the poll
 * wrapper is gone they would reach the owner as a wr_cqe it never
 * posted.
 *
 * Context: process context; takes the shaper lock.
 */
void vg_sendq_release(struct vg_shaper *sh, struct vg_sendq *sq)
{
	spin_lock_irq(&sh->lock);
	sq->released = true;
	if (!sq->inflight) {
		vg_sendq_bury(sh, sq);
	} else {
		sq->pinned = try_module_get(THIS_MODULE);
		pr_warn_ratelimited("%s: QP %u destroyed with %u chunks in flight; its CQ keeps %s loaded until they are polled or the CQ is destroyed\n",
				    sh->dev->name, sq->qp->qp_num,
				    sq->inflight, KBUILD_MODNAME);
	}
	spin_unlock_irq(&sh->lock);
}

/**
 * vg_sendq_cq_destroyed() - a CQ is gone: so are its closed QPs' rings
 * @sh: the shaper of its device
 * @cq: the CQ, destroyed by the driver (only its address is used)
 *
 * Context: process context (the destroy CQ wrapper); takes the shaper
 * lock.
 */
void vg_sendq_cq_destroyed(struct vg_shaper *sh, struct ib_cq *cq)
{
	struct vg_sendq *sq, *tmp;

	spin_lock_irq(&sh->lock);
	list_for_each_entry_safe(sq, tmp, &sh->closed, node)
		if (sq->released && sq->send_cq == cq)
			vg_sendq_bury(sh, sq);
	spin_unlock_irq(&sh->lock);
}

/**
 * vg_sendq_bury() - free a closed QP's state
 * @sh: the shaper
 * @sq: the state, closed; readers that found it under RCU see @buried
 *
 * Context: any; under the shaper lock.
 */
void vg_sendq_bury(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);
	if (sq->buried)
		return;
	sq->buried = true;
	list_del(&sq->node);
	WRITE_ONCE(sh->nclosed, sh->nclosed - 1);
	/* Its address still tells a stale completion from the owner's. */
	kfree(sq->ring);
	if (sq->pinned)
		module_put(THIS_MODULE);
	kfree_rcu(sq, rcu);
}
