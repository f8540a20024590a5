/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the send queue of a user QP whose driver lets verbsgate
 * decide when its WQEs execute (usq.c; rdma_rxe with driver-patches/,
 * usq_rxe.c).
 */
#ifndef _VG_USQ_H
#define _VG_USQ_H

#include <linux/list.h>
#include <linux/rcupdate.h>
#include <linux/refcount.h>
#include <linux/workqueue.h>
#include <rdma/ib_verbs.h>

#include "shaper.h"

struct vg_qp;

/**
 * struct vg_usq_wqe - what the shaper keeps of a WQE the driver holds
 * @enqueued_ns: when it was posted (throttled time)
 * @length: payload bytes
 * @vop: enum vg_opcode, for its cost class
 * @parts: the driver can send it in parts (vg_usq_driver::release_bytes)
 */
struct vg_usq_wqe {
	u64 enqueued_ns;
	u32 length;
	u8 vop;
	bool parts;
};

/**
 * struct vg_usq_driver - how the driver releases held WQEs
 * @release: let the driver execute up to @count held WQEs wholly, oldest
 *	first (a partly released one first); returns how many it released.
 *	Any context but the driver's own callbacks into verbsgate.
 * @release_bytes: let it send @bytes more of the oldest held WQE; *@left
 *	is set to what is still held of it, 0 once it is wholly released.
 *	Returns 0, or -ENOENT if the driver holds nothing. Same contexts.
 * @unsent: optional; whether the driver has yet to send what it was
 *	released, in which case it calls vg_usq_caught_up() once it has
 *	sent it. Any context, takes no lock.
 * @retry: optional; let the retry the driver holds for verbsgate
 *	(vg_usq_retry()) go. Returns 0, or -ENOENT if it holds none. As
 *	@release.
 */
struct vg_usq_driver {
	u32 (*release)(struct ib_qp *qp, u32 count);
	int (*release_bytes)(struct ib_qp *qp, u32 bytes, u32 *left);
	bool (*unsent)(struct ib_qp *qp);
	int (*retry)(struct ib_qp *qp);
};

/**
 * struct vg_usq - the shaper's state of one governed user send queue
 * @slot: its place in its port's scheduler (usq.c's vg_slot_ops);
 *	@slot.posting while a dispatcher releases its WQEs without the
 *	shaper lock
 * @node: in vg_shaper::usqs while bound
 * @rcu: frees it after lockless readers (the post wrapper's kick)
 * @ref: the driver's attachment, and the destroy wrapper while it closes
 *	the queue (vg_usq_get())
 * @qp: the QP
 * @drv: how its driver releases WQEs
 * @sh: the shaper it is bound to; NULL while unbound: before the create
 *	wrapper binds it, and once its device, its QP or verbsgate goes.
 *	Unbound, every WQE is released as it is posted. Written under the
 *	shaper lock; read by the driver's callbacks without it (they run
 *	with interrupts off, an RCU read-side section, and the device's
 *	detach waits a grace period before it frees the shaper).
 * @wqes: the WQEs the driver holds, oldest at @head; @size entries
 * @size: a power of two above the most the driver can hold
 * @head: index of the oldest
 * @nheld: entries in use
 * @part_sent: bytes of the oldest released so far (sent in parts)
 * @busy: dispatchers and the drain call the driver for the QP without
 *	the shaper lock; closing it waits for 0
 * @placed: @slot is in its port's scheduler (bound, and not drained)
 * @behind: its driver has yet to send what it was released (@drv's
 *	unsent()): nothing more is released until vg_usq_caught_up()
 * @caught_ups: vg_usq_caught_up() calls, so that a dispatcher can tell
 *	one that came while it asked the driver (vg_usq_post_chunk())
 * @retry: the driver holds a retry of the QP for verbsgate to let go in
 *	the queue's next turn (vg_usq_retry()), @retry_bytes of payload
 * @retry_bytes: see @retry
 * @credit: tokens charged to the pacer and the scheduler ahead of WQEs
 *	not yet posted, which then go without the shaper lock
 * @credit_tenant: the tenant @credit was charged to
 * @home_cpu: the CPU its owner last rang its doorbell on, -1 before
 * @home_work: releases its WQEs on @home_cpu in a turn the hrtimer got
 *	on another CPU (vg_usq_slot_send_home()); holds a reference while
 *	queued
 *
 * Protected by the shaper lock of the device it is bound to; unbound,
 * by its owner (creation, the driver's detach). @credit and
 * @credit_tenant belong to the driver's callbacks, which the driver's
 * lock of the queue serialises (vg_usq_post()).
 */
struct vg_usq {
	struct vg_slot slot;
	struct list_head node;
	struct rcu_head rcu;
	refcount_t ref;
	struct ib_qp *qp;
	const struct vg_usq_driver *drv;
	struct vg_shaper *sh;
	struct vg_usq_wqe *wqes;
	u32 size;
	u32 head;
	u32 nheld;
	u32 part_sent;
	u32 busy;
	bool placed;
	bool behind;
	u32 caught_ups;
	bool retry;
	u32 retry_bytes;
	struct vg_token credit;
	struct vg_ktenant *credit_tenant;
	int home_cpu;
	struct work_struct home_work;
};

/**
 * struct vg_usq_offer - a user QP the create wrapper is creating
 * @node: in the list of offers (usq.c)
 * @sh: the shaper of its device
 * @qp: the QP
 * @usq: set by vg_usq_attach() if the driver offered the QP and
 *	verbsgate governs it
 */
struct vg_usq_offer {
	struct list_head node;
	struct vg_shaper *sh;
	struct ib_qp *qp;
	struct vg_usq *usq;
};

/* The user send queue a scheduler handle names. Under the shaper lock. */
static inline struct vg_usq *vg_slot_usq(struct vg_slot *slot)
{
	return container_of(slot, struct vg_usq, slot);
}

/* The driver's side (usq_rxe.c). */
int vg_usq_attach(struct ib_qp *qp, u32 depth,
		  const struct vg_usq_driver *drv, struct vg_usq **out);
void vg_usq_detach(struct vg_usq *usq);
u32 vg_usq_post(struct vg_usq *usq, const struct vg_usq_wqe *w, u32 held);
void vg_usq_flush(struct vg_usq *usq);
void vg_usq_error(struct vg_usq *usq);
void vg_usq_caught_up(struct vg_usq *usq);
bool vg_usq_retry(struct vg_usq *usq, u32 bytes);

/* The create, destroy and post wrappers' side (interpose.c). */
void vg_usq_offer_begin(struct vg_usq_offer *o, struct vg_shaper *sh,
			struct ib_qp *qp);
void vg_usq_offer_end(struct vg_usq_offer *o);
void vg_usq_link(struct vg_usq *usq, struct vg_qp *q);
struct vg_usq *vg_usq_get(struct vg_usq *usq);
void vg_usq_put(struct vg_usq *usq);
void vg_usq_close(struct vg_usq *usq);
void vg_usq_kick(struct vg_usq *usq);

/* The device's drain (interpose.c). */
void vg_usq_drain(struct vg_shaper *sh);

/* Debugging (control/debugfs.c). */
int vg_usq_objects(void);

#endif /* _VG_USQ_H */
