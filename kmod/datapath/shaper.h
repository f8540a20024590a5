/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the shaper of a device's kernel-owned send queues.
 *
 * One struct vg_shaper per device holds the policy core's scheduler and
 * pacer and the hrtimer that wakes the dispatcher; one struct vg_sendq
 * per shaped QP holds the WRs waiting in arrival order and the ring of
 * what was posted, which completions are translated against. See
 * shaper.c (device side) and sendq.c (QP side) for the rules.
 */
#ifndef _VG_SHAPER_H
#define _VG_SHAPER_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "core/pacer.h"
#include "core/sched.h"
#include "core/split.h"
#include "core/token.h"

struct vg_device;
struct vg_ktenant;
struct vg_qp;
struct vg_qp_table;

/* Shaped QPs per device (the scheduler's QP slots). */
#define VG_SHAPER_MAX_QPS	16384U
/* Chunks one dispatcher run posts before it yields to the hrtimer. */
#define VG_SHAPER_BUDGET	64U
/*
 * SGEs of a chunk the dispatcher builds in the shaper's own buffers
 * (vg_shaper::sge, ::vsge). A WR with a longer list (up to its QP's
 * max_send_sge) carries buffers for its chunks in its own copy
 * (vg_pwr::csge, ::cvsge): ULPs' WRs have a few SGEs, so the shaper and
 * every QP stay small and only the rare long list pays, for as long as
 * it is queued.
 */
#define VG_CHUNK_SGE		32U

/* A send WR in the container its opcode implies. */
union vg_send_wr {
	struct ib_send_wr wr;
	struct ib_rdma_wr rdma;
	struct ib_atomic_wr atomic;
	struct ib_reg_wr reg;
};

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
 * @node: in vg_shaper::sqs
 * @inject_node: in vg_shaper::inject while @flushq waits for the next
 *	poll of its CQ; empty otherwise
 * @attn_node: in vg_shaper::attn while @need_marker or @retry
 * @rcu: frees the vg_sendq after lockless readers (the post wrapper)
 * @qp: the QP
 * @q: its tracking entry (for its tenant)
 * @tenant: the tenant its scheduler slot belongs to, referenced
 * @handle: its scheduler QP handle
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
 * @error: the QP is in error: WRs are flushed, not posted
 * @blocked: the send queue is full; the QP waits for completions
 * @first_err: the first error status of a chunk the owner did not see
 * @wake: @flushq waits for a poll that nothing may cause: post a marker,
 *	whose completion the driver signals from its own context
 * @resetting: a modify to RESET is in the driver: nothing of the QP is
 *	posted (vg_sendq_reset_begin())
 * @gen: the QP's resets, modulo 8, carried in its chunks' wr_ids
 * @busy: users of the QP without the shaper lock (a post in the
 *	driver); destroy waits for 0
 * @posting: a chunk or marker of the QP is in the driver's post_send,
 *	which runs without the shaper lock
 * @tail_untracked: something was posted after the newest signaled ring
 *	entry (an unsignaled chunk, or a WR that went to the driver
 *	directly): no completion is certain to follow it
 * @need_marker: a marker (a signaled zero-length WRITE through the ring)
 *	is to be posted, so that a completion follows everything posted
 * @retry: the driver refused a chunk for lack of room: try again soon
 * @send_cq: the QP's send CQ, kept for when the QP is gone
 * @dead: closed: its owner destroys the QP; nothing more is posted, and
 *	the state sits on vg_shaper::closed until its ring may go
 * @released: the driver's destroy_qp returned: no new completion of the
 *	QP can appear, so the state goes once @inflight is 0
 * @pinned: holds a reference to the module (see vg_sendq_release())
 * @buried: freed from the lists, @ring freed; only RCU readers remain
 *
 * All fields are protected by the device's vg_shaper::lock.
 */
struct vg_sendq {
	struct list_head node;
	struct list_head inject_node;
	struct list_head attn_node;
	struct rcu_head rcu;
	struct ib_qp *qp;
	struct vg_qp *q;
	struct vg_ktenant *tenant;
	u32 handle;
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
	bool error;
	bool blocked;
	enum ib_wc_status first_err;
	bool wake;
	bool resetting;
	u8 gen;
	u32 busy;
	bool posting;
	bool tail_untracked;
	bool need_marker;
	bool retry;
	struct ib_cq *send_cq;
	bool dead;
	bool released;
	bool pinned;
	bool buried;
};

/**
 * struct vg_shaper - a device's shaper
 * @lock: protects everything here and every vg_sendq of the device; a
 *	spinlock taken with interrupts saved (posts come from any context)
 * @dev: the device
 * @sched: the policy core's scheduler, memory in @sched_mem
 * @sched_mem: kvzalloc'ed
 * @tmap: module tenant id -> scheduler tenant handle, VG_SCHED_NONE
 * @by_handle: scheduler QP handle -> its vg_sendq
 * @pacer: token buckets at SafeUtil
 * @rate: the byte rate @pacer runs at
 * @op_rate: the op rate @pacer runs at
 * @timer: wakes the dispatcher at the next departure (softirq)
 * @sqs: every vg_sendq of the device
 * @closed: vg_sendqs of destroyed QPs whose ring may still be named by
 *	a completion in their CQ
 * @nclosed: entries of @closed (read locklessly by the poll wrapper)
 * @inject: vg_sendqs whose @flushq is ready to be reported (read
 *	locklessly by the poll wrapper)
 * @poll_cq: the CQ whose poll wrapper holds @lock, NULL if none: what
 *	becomes ready for it is reported by that poll
 * @post_send: the driver's post_send
 * @nsqs: entries of @sqs (read locklessly by the poll wrapper)
 * @cost: the device's token cost model (a copy, see vg_shaper_settings())
 * @chunk: the device's chunk size
 * @enforce: pace and split; otherwise WRs go to the driver directly
 * @running: a dispatcher runs (it posts without @lock)
 * @rerun: work arrived while it ran
 * @attn: vg_sendqs the hrtimer must attend to (markers, retries)
 * @idle_wq: destroy waits here until its QP is not busy, a driver's
 *	drain_sq until the QP's WRs are handed over, unload until every
 *	queue is empty
 * @draining: unload: post everything at once, shape nothing new
 * @wr: the dispatcher's chunk, built here (one dispatcher at a time)
 * @sge: SGEs of @wr, for chunks of up to VG_CHUNK_SGE SGEs
 * @vsge: the splitter's SGEs of the chunk, likewise
 * @active: the shaper was set up (the device can post)
 */
struct vg_shaper {
	spinlock_t lock;	/* see above */
	struct vg_device *dev;
	struct vg_sched sched;
	void *sched_mem;
	u32 *tmap;
	struct vg_sendq **by_handle;
	struct vg_pacer pacer;
	u64 rate;
	u64 op_rate;
	struct hrtimer timer;
	struct list_head sqs;
	struct list_head closed;
	u32 nclosed;
	struct list_head inject;
	struct ib_cq *poll_cq;
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad);
	u32 nsqs;
	struct vg_cost_model cost;
	u32 chunk;
	bool enforce;
	bool running;
	bool rerun;
	struct list_head attn;
	wait_queue_head_t idle_wq;
	bool draining;
	union vg_send_wr wr;
	struct ib_sge sge[VG_CHUNK_SGE];
	struct vg_sge vsge[VG_CHUNK_SGE];
	bool active;
};

/* The settings the shaper follows (devcfg.c publishes them). */
struct vg_shaper_settings {
	u64 rate;
	u64 op_rate;
	u32 chunk;
	bool enforce;
	struct vg_cost_model cost;
};

/* shaper.c: the device side */
int vg_shaper_init(struct vg_shaper *sh, struct vg_device *dev,
		   int (*post_send)(struct ib_qp *qp,
				    const struct ib_send_wr *wr,
				    const struct ib_send_wr **bad));
void vg_shaper_settings(struct vg_shaper *sh,
			const struct vg_shaper_settings *set);
void vg_shaper_drain(struct vg_shaper *sh);
void vg_shaper_destroy(struct vg_shaper *sh);
void vg_shaper_kick(struct vg_shaper *sh, unsigned long *flags);
void vg_shaper_wake_idle(struct vg_shaper *sh);
void vg_shaper_arm(struct vg_shaper *sh, u64 when);
int vg_shaper_bind(struct vg_shaper *sh, struct vg_sendq *sq,
		   struct vg_ktenant *t);
void vg_shaper_rebind(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_shaper_tenant_event(struct vg_shaper *sh, unsigned long ev,
			    struct vg_ktenant *t);

/* sendq.c: the QP side */
u32 vg_sendq_reserve(const struct vg_shaper *sh, struct ib_qp_init_attr *attr,
		     int max_qp_wr);
struct vg_sendq *vg_sendq_create(struct vg_shaper *sh, struct ib_qp *qp,
				 struct vg_qp *q, struct ib_qp_init_attr *attr,
				 u32 asked, u32 extra);
void vg_sendq_close(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_release(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_cq_destroyed(struct vg_shaper *sh, struct ib_cq *cq);
void vg_sendq_bury(struct vg_shaper *sh, struct vg_sendq *sq);
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
void vg_sendq_settle(struct vg_shaper *sh, struct vg_sendq *sq);
void vg_sendq_attend(struct vg_shaper *sh, struct vg_sendq *sq,
		     unsigned long *flags);
void vg_sendq_post_chunk(struct vg_shaper *sh, struct vg_sendq *sq, u64 now,
			 unsigned long *flags);
bool vg_sendq_idle(const struct vg_sendq *sq);
void vg_sendq_free(struct vg_sendq *sq);
int vg_sendq_init(void);
void vg_sendq_exit(void);

#endif /* _VG_SHAPER_H */
