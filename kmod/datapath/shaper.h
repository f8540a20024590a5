/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the shaper of a device's send queues.
 *
 * One struct vg_shaper per device holds the policy core's scheduler and
 * pacer and the hrtimer that wakes the dispatcher. A send queue it shapes
 * is one of two kinds, each with a struct vg_slot first, which a
 * scheduler handle names: a kernel-owned QP's struct vg_sendq (sendq.h)
 * holds the WRs waiting in arrival order and the ring of what was posted,
 * which completions are translated against; a governed user QP's struct
 * vg_usq (usq.h) keeps what its driver holds, which verbsgate releases.
 * Each kind gives its slots the operations the dispatcher calls (struct
 * vg_slot_ops): the shaper picks, paces and arms, and includes neither
 * kind's header. See shaper.c (device side), sendq*.c and usq.c (QP
 * side) for the rules.
 */
#ifndef _VG_SHAPER_H
#define _VG_SHAPER_H

#include <linux/hrtimer.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "core/pacer.h"
#include "core/sched.h"
#include "core/split.h"
#include "core/token.h"

struct vg_device;
struct vg_ktenant;
struct vg_qp;
struct vg_qp_table;
struct vg_shaper;

/* Shaped QPs per port (the scheduler's QP slots). */
#define VG_SHAPER_MAX_QPS	16384U
/*
 * Ports a shaper paces apart, each with its own scheduler (about 2.6 MiB)
 * and pacer. QPs of a device's higher ports are paced with its first
 * port, and the device says so (vg_shaper::nports < its port count).
 */
#define VG_SHAPER_MAX_PORTS	4U
/*
 * Depth of each port pacer's byte bucket: what an idle port may send back
 * to back (the operator's `dev set DEV burst`). The default suits a port
 * whose transmit buffer holds a few hundred KB; the maximum bounds what
 * one setting can let loose at once.
 */
#define VG_SHAPER_BURST		(256U << 10)
#define VG_SHAPER_BURST_MAX	(64U << 20)
/* Chunks one dispatcher run posts before it yields to the hrtimer. */
#define VG_SHAPER_BUDGET	64U
/*
 * SGEs of a chunk the dispatcher builds in its QP's own buffers
 * (vg_sendq::chunk_sge, ::chunk_vsge, as many as the QP's max_send_sge
 * up to this). A WR with a longer list carries buffers for its chunks in
 * its own copy (vg_pwr::csge, ::cvsge): ULPs' WRs have a few SGEs, so
 * every QP stays small and only the rare long list pays, for as long as
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

struct vg_slot;

/**
 * struct vg_slot_ops - what a kind of send queue does for the dispatcher
 * @ready: whether the QP @slot names has something the dispatcher may
 *	post now; if not, the caller takes it out of the scheduler until
 *	the queue's own code activates it again
 * @reactivate: let the dispatcher pick the QP again if it has something
 *	to post; returns whether it was activated
 * @post_chunk: post the next chunk of the QP the scheduler picked at
 *	@now (ns), @ready said it may; @flags is the interrupt state saved
 *	with the shaper lock, which is dropped and retaken around the
 *	driver's call
 * @send_home: optional: hand a turn of the QP that came in the hrtimer
 *	to the CPU its work belongs on; returns true if the queue's own work
 *	will post it, false if the caller posts it
 * @attend: what the hrtimer does for a slot its queue put on
 *	vg_shaper::attn (markers, retries); the slot was just taken off
 *	it, and nothing of the QP is in the driver. Only a kind that puts
 *	its slots on that list has one.
 * @settle: optional: unload and device removal begin (vg_shaper_drain());
 *	let what waits for the QP's completions proceed
 * @keeps_place: the QP stays active in the scheduler while a dispatcher
 *	posts for it (@posting): a turn it gets meanwhile waits for that
 *	dispatcher; otherwise the QP is out of the scheduler meanwhile
 *
 * Every operation runs in any context, with the shaper lock held.
 */
struct vg_slot_ops {
	bool (*ready)(struct vg_slot *slot);
	bool (*reactivate)(struct vg_shaper *sh, struct vg_slot *slot,
			   u64 now);
	void (*post_chunk)(struct vg_shaper *sh, struct vg_slot *slot, u64 now,
			   unsigned long *flags);
	bool (*send_home)(struct vg_shaper *sh, struct vg_slot *slot);
	void (*attend)(struct vg_shaper *sh, struct vg_slot *slot,
		       unsigned long *flags);
	void (*settle)(struct vg_shaper *sh, struct vg_slot *slot);
	bool keeps_place;
};

/**
 * struct vg_slot - a QP's place in a port's scheduler
 * @ops: what its kind of send queue does for the dispatcher; the
 *	structure this is the first member of holds the queue's own state
 *	(struct vg_sendq, sendq.h; struct vg_usq, usq.h)
 * @node: in vg_shaper::slots while placed (vg_shaper_slot_add() to
 *	vg_shaper_slot_del())
 * @attn_node: in vg_shaper::attn while its queue wants the hrtimer's
 *	@ops->attend; empty otherwise
 * @posting: something of the QP is in the driver, which runs without the
 *	shaper lock; meanwhile no other dispatcher posts for the QP (its
 *	chunks reach the driver one at a time, in order): it is not active
 *	in the scheduler, or, if its kind @keeps_place, its turn waits
 * @spare: the chunk being charged goes in a spare turn (shaper.c): the
 *	pacer is charged for it, its tenant's fair share is not
 * @port: index of its port in vg_shaper::ports (the port it was moved to
 *	INIT with, or the device's first)
 * @handle: its QP handle in that port's scheduler
 * @tenant: the tenant its scheduler slot belongs to, referenced
 * @q: the QP's tracking entry, whose tenant the slot follows
 * @mtu: the QP's path MTU in bytes, 0 until a modify QP sets it: how
 *	many packets, each with its headers, a chunk costs (token.h)
 * @spare_ns: when the QP was offered a spare turn, which its home work
 *	takes (shaper.c); 0 if none is on offer
 *
 * What the shaper's scheduling (shaper.c) needs of a QP, whatever holds
 * its WRs. Protected by the device's vg_shaper::lock; @port, @tenant and
 * @q are written with WRITE_ONCE(), because a governed user queue's
 * credit also reads them without it (usq.c). @mtu is written by the
 * modify wrapper and read without any lock (WRITE_ONCE()/READ_ONCE()):
 * a chunk charged while it changes counts the old MTU's packets.
 */
struct vg_slot {
	const struct vg_slot_ops *ops;
	struct list_head node;
	struct list_head attn_node;
	bool posting;
	bool spare;
	u32 port;
	u32 handle;
	struct vg_ktenant *tenant;
	struct vg_qp *q;
	u32 mtu;
	u64 spare_ns;
};

/**
 * struct vg_shaper_port - the shaper of one port of a device
 * @sched: the policy core's scheduler of the port's QPs, memory in
 *	@sched_mem: each port's link is a bottleneck of its own, so
 *	tenants' shares are kept per port
 * @sched_mem: kvzalloc'ed
 * @tmap: module tenant id -> scheduler tenant handle, VG_SCHED_NONE
 * @by_handle: scheduler QP handle -> its QP's slot
 * @pacer: token buckets at the port's SafeUtil
 * @rate: the byte rate @pacer runs at
 * @op_rate: the op rate @pacer runs at
 * @nsqs: QPs bound to the port
 * @paced_bytes: payload bytes the pacer let through (chunks and fast-path
 *	WRs; not the direct WRs of latency tenants, which it does not pace)
 * @paced_ops: chunks and fast-path WRs likewise
 *
 * All fields but the counters are protected by vg_shaper::lock; the
 * counters are atomic, because a governed user send queue's WQEs paid
 * for in advance go without that lock (usq.c).
 */
struct vg_shaper_port {
	struct vg_sched sched;
	void *sched_mem;
	u32 *tmap;
	struct vg_slot **by_handle;
	struct vg_pacer pacer;
	u64 rate;
	u64 op_rate;
	u32 nsqs;
	atomic64_t paced_bytes;
	atomic64_t paced_ops;
};

/* Count @ops chunks or WRs of @bytes payload the pacer let through. */
static inline void vg_shaper_count_paced(struct vg_shaper_port *pp,
					 u64 bytes, u32 ops)
{
	atomic64_add(bytes, &pp->paced_bytes);
	atomic64_add(ops, &pp->paced_ops);
}

/**
 * struct vg_shaper - a device's shaper
 * @lock: protects everything here and every queue bound to the device
 *	(its struct vg_slot and the queue's state around it); a spinlock
 *	taken with interrupts saved (posts come from any context)
 * @dev: the device
 * @ports: per port (index 0 is the device's first port), @nports of them
 * @nports: ports paced apart: the device's, up to VG_SHAPER_MAX_PORTS
 * @next_port: the port the dispatcher serves first in its next round
 * @timer: wakes the dispatcher at the next departure (hardirq): it
 *	queues @dispatch on the CPU it fires on
 * @dispatch: the dispatcher's run for @timer, in vg_sendq_wq (process
 *	context, a high-priority worker)
 * @slots: every placed struct vg_slot, whatever its kind
 * @sqs: every vg_sendq of the device (sendq*.c)
 * @usqs: every vg_usq bound to the device (usq.c)
 * @usqs_holding: entries of @usqs that hold WQEs (read locklessly by the
 *	post wrapper)
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
 * @attn: slots the hrtimer must attend to (vg_slot_ops::attend)
 * @idle_wq: destroy waits here until its QP is not busy, a driver's
 *	drain_sq until the QP's WRs are handed over, unload until every
 *	queue is empty
 * @home_posts: the driver does a kernel QP's transmit work on the CPU
 *	that posts (rxe): chunks go from their QP's home CPU (sendq_post.c)
 * @draining: unload: post everything at once, shape nothing new
 * @active: the shaper was set up (the device can post); read without
 *	the lock by vg_shaper_ports_paced()
 *
 * The lists and counters of one kind of queue (@sqs, @closed, @inject,
 * @nsqs, @nclosed, @poll_cq, @post_send and @home_posts of vg_sendq;
 * @usqs and @usqs_holding of vg_usq) are that kind's own: the shaper
 * only initialises them.
 */
struct vg_shaper {
	spinlock_t lock;	/* see above */
	struct vg_device *dev;
	struct vg_shaper_port *ports;
	u32 nports;
	u32 next_port;
	struct hrtimer timer;
	struct work_struct dispatch;
	struct list_head slots;
	struct list_head sqs;
	struct list_head usqs;
	u32 usqs_holding;
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
	struct list_head attn;
	wait_queue_head_t idle_wq;
	bool home_posts;
	bool draining;
	bool active;
};

/*
 * The settings the shaper follows (devcfg.c publishes them); @rate and
 * @op_rate per port, index 0 the device's first port; @burst each port
 * pacer's byte bucket depth.
 */
struct vg_shaper_settings {
	u64 rate[VG_SHAPER_MAX_PORTS];
	u64 op_rate[VG_SHAPER_MAX_PORTS];
	u32 burst;
	u32 chunk;
	bool enforce;
	struct vg_cost_model cost;
};

/* What sysfs and netlink show of a port (vg_shaper_port_stats()). */
struct vg_shaper_port_stats {
	u64 rate;
	u64 op_rate;
	u32 qps;
	u64 paced_bytes;
	u64 paced_ops;
};

/* shaper.c: the device side */
int vg_shaper_init(struct vg_shaper *sh, struct vg_device *dev, u32 ports,
		   int (*post_send)(struct ib_qp *qp,
				    const struct ib_send_wr *wr,
				    const struct ib_send_wr **bad));
void vg_shaper_settings(struct vg_shaper *sh,
			const struct vg_shaper_settings *set);
void vg_shaper_drain(struct vg_shaper *sh);
void vg_shaper_destroy(struct vg_shaper *sh);
void vg_shaper_kick(struct vg_shaper *sh, struct vg_slot *pref,
		    unsigned long *flags);
void vg_shaper_wake_idle(struct vg_shaper *sh);
void vg_shaper_arm(struct vg_shaper *sh, u64 when);
void vg_shaper_arm_here(struct vg_shaper *sh);
bool vg_shaper_goes_home(const struct vg_shaper *sh, int cpu);
void vg_shaper_rebind(struct vg_shaper *sh, struct vg_slot *slot);
void vg_shaper_set_port(struct vg_shaper *sh, struct vg_slot *slot,
			u32 port_num);
u32 vg_shaper_ports_paced(const struct vg_shaper *sh);
void vg_shaper_port_stats(struct vg_shaper *sh, u32 idx,
			  struct vg_shaper_port_stats *st);
int vg_shaper_slot_add(struct vg_shaper *sh, struct vg_slot *slot,
		       struct vg_ktenant *t);
void vg_shaper_slot_del(struct vg_shaper *sh, struct vg_slot *slot);
bool vg_shaper_charge_now(struct vg_shaper *sh, struct vg_slot *slot,
			  const struct vg_token *tok, u32 n, u64 bytes,
			  u64 now);
void vg_shaper_charge(struct vg_shaper *sh, struct vg_slot *slot,
		      const struct vg_token *tok, u64 now, bool backlogged);
void vg_shaper_tenant_event(struct vg_shaper *sh, unsigned long ev,
			    struct vg_ktenant *t);

/*
 * Where both kinds of queue run a QP's turns on its home CPU (their
 * ->send_home); sendq.c creates it at module init.
 */
extern struct workqueue_struct *vg_sendq_wq;

#endif /* _VG_SHAPER_H */
