/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the shaper's state of one kernel-owned RC or UC QP, its send
 * queue. The QP side of the shaper lives in five files, one concept each:
 *
 *   sendq.c           its life: room, create, close, free
 *   sendq_wr.c        WRs: ib_core's opcodes in the core's model, copies
 *   sendq_post.c      posts: the owner's WRs in, chunks to the driver
 *   sendq_complete.c  completions translated for the owner, flushes
 *   sendq_drain.c     ERR, RESET and a driver's own drain
 *
 * Every field of struct vg_sendq is protected by its device's shaper lock
 * (struct vg_shaper, shaper.h; the lock order is in kmod/lock_order.h);
 * the driver reads @chunk_wr without it while the QP is @slot.posting.
 */
#ifndef _VG_SENDQ_H
#define _VG_SENDQ_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "core/split.h"
#include "core/sqstate.h"
#include "core/wr.h"

#include "shaper.h"

/**
 * struct vg_ring_ent - one WR or chunk the shaper posted
 * @owner_id: the owner's wr_id / wr_cqe, for the completion it may see
 * @extra_seq: vg_sendq::extra_posted once this entry was taken
 * @last: the last chunk of the owner's WR: its completion is the WR's
 * @owner_signaled: the owner asked for the WR's completion
 */
struct vg_ring_ent {
	u64 owner_id;
	u32 extra_seq;
	bool last;
	bool owner_signaled;
};

/**
 * struct vg_pwr - a WR waiting in a QP's queue, copied from the owner's
 * @node: in vg_sendq::queue or ::flushq
 * @u: the owner's WR and the container its opcode implies, with @sg_list
 *	pointing at @sge (and inline data copied to @inline_buf)
 * @vwr: the policy core's view, with @vwr.sg_list pointing at @vsge
 * @enqueued_ns: when it was queued (throttled time)
 * @status: for the flush queue: the completion status to report
 * @length: payload bytes
 * @sge: copies of the owner's SGEs
 * @vsge: the same, in the core's format
 * @csge: room to build a chunk's SGEs, if the WR has more than
 *	VG_CHUNK_SGE of them; NULL otherwise (the shaper's are used)
 * @cvsge: the same, for the splitter's output
 * @inline_buf: payload of an inline WR
 * @reserved: the memory came from the reserve (sendq.c)
 */
struct vg_pwr {
	struct list_head node;
	union vg_send_wr u;
	struct vg_wr vwr;
	u64 enqueued_ns;
	enum ib_wc_status status;
	u32 length;
	struct ib_sge *sge;
	struct vg_sge *vsge;
	struct ib_sge *csge;
	struct vg_sge *cvsge;
	u8 *inline_buf;
	bool reserved;
};

/**
 * struct vg_sendq - the shaper's state for one kernel-owned QP
 * @slot: its place in the scheduler (vg_sendq_slot_ops); @slot.posting
 *	while a chunk or marker of the QP is in the driver's post_send;
 *	@slot.attn_node in vg_shaper::attn while @need_marker or @retry
 * @node: in vg_shaper::sqs
 * @inject_node: in vg_shaper::inject while @flushq waits for the next
 *	poll of its CQ; empty otherwise
 * @rcu: frees the vg_sendq after lockless readers (the post wrapper)
 * @qp: the QP
 * @queue: WRs not yet (completely) posted, in arrival order
 * @flushq: WRs whose flush or error completion the shaper must report,
 *	in order, once @inflight is 0
 * @nheld: entries of @queue and @flushq
 * @split: the splitter over @queue's head while @splitting
 * @splitting: the head WR has chunks posted
 * @ring: posted WRs and chunks, @depth entries
 * @depth: ring entries: the most WRs, chunks and markers the shaper has
 *	in the driver at once
 * @owner_max: the send queue's size as its owner was told it; bounds
 *	@nheld
 * @reserved: the send queue has room for @owner_max WRs of the owner
 *	besides the ring's @depth, so a WR that goes to the driver directly
 *	never finds it full (vg_sendq_reserve())
 * @head: oldest ring entry not known complete
 * @inflight: ring entries not known complete
 * @extra_posted: ring entries taken that the owner does not count (the
 *	chunks of a split WR but its last, markers), a running count
 * @extra_retired: the same, of those known complete; while it is below
 *	@extra_posted, the send queue may hold more than the owner believes,
 *	which matters unless @reserved
 * @unsignaled: chunks posted unsignaled since the last signaled one
 * @sig_all: the QP signals every WR (IB_SIGNAL_ALL_WR)
 * @max_sge: the send queue's max_send_sge, as the driver set it; a WR
 *	with more SGEs is refused as the driver refuses it
 * @state: where the queue is in its life (kmod/core/sqstate.h); changed
 *	only by vg_sendq_move()
 * @resume: while @state is VG_SQ_RESETTING, the state to return to if the
 *	driver refuses the reset (READY or ERROR)
 * @blocked: the send queue is full; the QP waits for completions
 * @first_err: the first error status of a chunk the owner did not see
 * @wake: @flushq waits for a poll that nothing may cause: post a marker,
 *	whose completion the driver signals from its own context
 * @gen: the QP's resets, modulo 8, carried in its chunks' wr_ids
 * @busy: users of the QP without the shaper lock (a post in the
 *	driver); destroy waits for 0
 * @tail_untracked: something was posted after the newest signaled ring
 *	entry (an unsignaled chunk, or a WR that went to the driver
 *	directly): no completion is certain to follow it
 * @need_marker: a marker (a signaled zero-length WRITE through the ring)
 *	is to be posted, so that a completion follows everything posted
 * @retry: the driver refused a chunk for lack of room: try again soon
 * @send_cq: the QP's send CQ, kept for when the QP is gone
 * @chunk_wr: the chunk being posted, built by its dispatcher while it
 *	holds @slot.posting (so several dispatchers build chunks of different
 *	QPs at once, see shaper.c)
 * @chunk_sge: SGEs of @chunk_wr, min(@max_sge, VG_CHUNK_SGE) of them
 * @chunk_vsge: the splitter's SGEs of the chunk, as many
 * @pinned: holds a reference to the module: the owner polls the send CQ
 *	itself and the shaper holds something of the QP, or the QP was
 *	destroyed with chunks in flight (see vg_sendq_pin())
 * @sh: the shaper of its device, for @home_work
 * @home_cpu: the CPU its owner last queued WRs from, -1 before
 * @home_work: posts its chunks on @home_cpu when the hrtimer's turn for
 *	them comes on another CPU (vg_sendq_send_home())
 *
 * All fields are protected by the device's vg_shaper::lock.
 */
struct vg_sendq {
	struct vg_slot slot;
	struct list_head node;
	struct list_head inject_node;
	struct rcu_head rcu;
	struct ib_qp *qp;
	struct list_head queue;
	struct list_head flushq;
	u32 nheld;
	struct vg_split split;
	bool splitting;
	struct vg_ring_ent *ring;
	u32 depth;
	u32 owner_max;
	bool reserved;
	u32 head;
	u32 inflight;
	u32 extra_posted;
	u32 extra_retired;
	u32 unsignaled;
	bool sig_all;
	u32 max_sge;
	enum vg_sq_state state;
	enum vg_sq_state resume;
	bool blocked;
	enum ib_wc_status first_err;
	bool wake;
	u8 gen;
	u32 busy;
	bool tail_untracked;
	bool need_marker;
	bool retry;
	struct ib_cq *send_cq;
	union vg_send_wr chunk_wr;
	struct ib_sge *chunk_sge;
	struct vg_sge *chunk_vsge;
	bool pinned;
	struct vg_shaper *sh;
	int home_cpu;
	struct work_struct home_work;
};

/**
 * vg_sendq_move() - change a send queue's state
 * @sh: the shaper
 * @sq: the queue
 * @to: its new state, one vg_sq_may_move() allows from the current one
 *
 * Every change of @sq->state goes through here, so the machine of
 * kmod/core/sqstate.h is the whole truth; a build with VG_DEBUG warns on
 * a move it does not allow (a verbsgate bug, never the owner's input).
 *
 * Context: any; under the shaper lock.
 */
static inline void vg_sendq_move(struct vg_shaper *sh, struct vg_sendq *sq,
				 enum vg_sq_state to)
{
	lockdep_assert_held(&sh->lock);
#ifdef VG_DEBUG
	WARN_ONCE(!vg_sq_may_move(sq->state, to),
		  "verbsgate: send queue of QP %u: %s -> %s\n", sq->qp->qp_num,
		  vg_sq_state_name(sq->state), vg_sq_state_name(to));
#endif
	sq->state = to;
}

/* The shaper of @sq's port. Any context; under the shaper lock. */
static inline struct vg_shaper_port *vg_sendq_port(struct vg_shaper *sh,
						   const struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);

	return &sh->ports[sq->slot.port];
}

/*
 * The send queue a slot of vg_sendq_slot_ops names. Any context; under
 * the shaper lock.
 */
static inline struct vg_sendq *vg_slot_sendq(struct vg_slot *slot)
{
	return container_of(slot, struct vg_sendq, slot);
}

/* Its owner destroys the QP: nothing more is posted. Any context. */
static inline bool vg_sendq_closed(const struct vg_sendq *sq)
{
	return sq->state >= VG_SQ_CLOSED;
}

/*
 * The QP is in error: WRs are flushed, not posted; also while a reset
 * the driver may refuse is in progress from the error state. Any context.
 */
static inline bool vg_sendq_failed(const struct vg_sendq *sq)
{
	return sq->state == VG_SQ_ERROR ||
	       (sq->state == VG_SQ_RESETTING && sq->resume == VG_SQ_ERROR);
}

/* The device side's calls (interpose.c, main.c), some also between files. */
u32 vg_sendq_reserve(const struct vg_shaper *sh, struct ib_qp_init_attr *attr,
		     int max_qp_wr);
struct vg_sendq *vg_sendq_create(struct vg_shaper *sh, struct ib_qp *qp,
				 struct vg_qp *q, struct ib_qp_init_attr *attr,
				 u32 asked, u32 extra);
void vg_sendq_close(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_release(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_cq_destroyed(struct vg_shaper *sh, struct ib_cq *cq);
void vg_sendq_bury(struct vg_shaper *sh, struct vg_sendq *sq);
bool vg_sendq_pin(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_unpin(struct vg_shaper *sh, struct vg_sendq *sq);
int vg_sendq_post(struct vg_shaper *sh, struct vg_sendq *sq,
		  const struct ib_send_wr *wr, const struct ib_send_wr **bad);
int vg_sendq_poll(struct vg_shaper *sh, struct vg_qp_table *t,
		  struct ib_cq *cq, int n, struct ib_wc *wc, int got);
void vg_sendq_reset_begin(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_reset_end(struct vg_shaper *sh, struct vg_sendq *sq, bool reset);
void vg_sendq_modified(struct vg_shaper *sh, struct vg_sendq *sq,
		       const struct ib_qp_attr *attr, int attr_mask);
void vg_sendq_fail(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_quiesce(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_set_port(struct vg_shaper *sh, struct vg_sendq *sq,
		       u32 port_num);
bool vg_sendq_wait_idle(struct vg_shaper *sh, bool rings,
			unsigned long bound);
void vg_sendq_stop_all(struct vg_shaper *sh);
void vg_sendq_free_all(struct vg_shaper *sh);
int vg_sendq_init(void);
void vg_sendq_exit(void);

/* Between the sendq files only. */
extern const struct vg_slot_ops vg_sendq_slot_ops;
void vg_sendq_settle(struct vg_shaper *sh, struct vg_sendq *sq);
bool vg_sendq_send_home(struct vg_shaper *sh, struct vg_sendq *sq);
int vg_pwr_reserve_init(void);
void vg_pwr_reserve_exit(void);
void vg_sendq_home_work(struct work_struct *work);
bool vg_opcode_of(enum ib_wr_opcode op, u8 *vop, enum ib_wc_opcode *wc);
struct vg_pwr *vg_pwr_copy(const struct ib_send_wr *wr, u32 max_sge,
			   int *err);
void vg_pwr_free(struct vg_pwr *p);
void vg_sendq_build(struct vg_sendq *sq, const struct vg_pwr *p,
		    const struct vg_chunk *c, struct ib_sge *sge, bool signal);
enum ib_wc_status vg_sendq_owner_status(struct vg_shaper *sh,
					struct vg_sendq *sq,
					enum ib_wc_status status);
void vg_sendq_attn(struct vg_shaper *sh, struct vg_sendq *sq, u64 when);
bool vg_sendq_reactivate(struct vg_shaper *sh, struct vg_sendq *sq, u64 now);
void vg_sendq_drop_wrs(struct vg_sendq *sq);

/*
 * A chunk's wr_id: the address of its ring entry, with the QP's reset
 * generation in the low bits the entry's alignment leaves clear, so that
 * a completion of a chunk posted before the QP was last reset (the
 * driver may have put it in the CQ before the reset; the CQ keeps it) is
 * told apart from one of the entry's reuse after it.
 */
#define VG_RING_GEN_MASK	7UL

static_assert(__alignof__(struct vg_ring_ent) > VG_RING_GEN_MASK);

static inline u64 vg_ring_wr_id(const struct vg_sendq *sq,
				const struct vg_ring_ent *e)
{
	return (uintptr_t)e | sq->gen;
}

static inline struct vg_ring_ent *vg_ring_ent_of(u64 wr_id)
{
	return (struct vg_ring_ent *)(uintptr_t)(wr_id & ~VG_RING_GEN_MASK);
}

/* Whether a ring entry's completion is of a chunk posted before a reset. */
static inline bool vg_ring_stale(const struct vg_sendq *sq, u64 wr_id)
{
	return (wr_id & VG_RING_GEN_MASK) != sq->gen;
}

#endif /* _VG_SENDQ_H */
