// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a send queue's life: its room, created with the QP, closed
 * when the QP is destroyed, freed once no completion can name its ring.
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
 * has more chunks in flight than fit, and signals one in every half ring
 * (every chunk on a ring of one or two, stop and wait).
 *
 * Teardown. Destroy closes the send queue before the driver's destroy_qp:
 * it leaves the scheduler and its queued WRs are dropped. The state then
 * waits on the shaper's closed list, where the poll wrapper finds the
 * completions of its chunks still in flight, until its last chunk
 * completes, its send CQ is destroyed, or the device goes; meanwhile it
 * holds a module reference.
 *
 * Unload. A QP whose owner polls its send CQ directly (IB_POLL_DIRECT)
 * also holds a module reference while the shaper holds anything of it:
 * WRs queued, chunks in flight, flushes to report. Only the owner's poll
 * gives those back, and the owner may sit idle for as long as it likes,
 * so `rmmod` fails at once ("in use") rather than wait for it. Other CQs
 * are polled by ib_core itself, so unload drains them in bounded time.
 *
 * Locking: vg_sendq_create() runs without locks (the driver's create_qp
 * is called around it); the rest under the device's shaper lock
 * (kmod/lock_order.h) unless documented otherwise.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/slab.h>

#include "tenant/tenant.h"

#include "device.h"
#include "fault.h"
#include "qp.h"
#include "sendq.h"

/*
 * The most send queue entries added to a QP for the ring: enough chunks
 * in flight to keep any link busy, at bounded memory on large queues.
 */
#define VG_SQ_HEADROOM	256
/* Less room than this (or than the owner's queue) is not worth adding. */
#define VG_SQ_HEADROOM_MIN	16

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

static void vg_sendq_free(struct vg_sendq *sq);

/**
 * vg_sendq_bind() - give a new shaped QP its scheduler slot
 * @sh: the shaper
 * @sq: the QP's state, not yet visible to the post path
 * @t: its tenant
 *
 * The QP starts on the device's first port; vg_sendq_set_port() follows
 * it when it is moved to INIT on another.
 *
 * Context: process context; takes the shaper lock.
 * Return: 0, or -ENOSPC (no QP slot left: the QP stays unshaped).
 */
static int vg_sendq_bind(struct vg_shaper *sh, struct vg_sendq *sq,
			 struct vg_ktenant *t)
{
	unsigned long flags;
	int ret;

	spin_lock_irqsave(&sh->lock, flags);
	ret = vg_shaper_slot_add(sh, &sq->slot, t);
	if (!ret) {
		list_add_tail(&sq->node, &sh->sqs);
		WRITE_ONCE(sh->nsqs, sh->nsqs + 1);
	}
	spin_unlock_irqrestore(&sh->lock, flags);
	return ret;
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
	u32 nsge;
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
	if (sq) {
		sq->ring = kcalloc(depth, sizeof(*sq->ring), GFP_KERNEL);
		nsge = clamp_t(u32, attr->cap.max_send_sge, 1, VG_CHUNK_SGE);
		sq->chunk_sge = kcalloc(nsge, sizeof(*sq->chunk_sge) +
					sizeof(*sq->chunk_vsge), GFP_KERNEL);
	}
	if (!sq || !sq->ring || !sq->chunk_sge) {
		if (sq) {
			kfree(sq->ring);
			kfree(sq->chunk_sge);
		}
		kfree(sq);
		WRITE_ONCE(q->unshaped, VERBSGATE_QP_REASON_NO_MEMORY);
		return NULL;
	}
	sq->chunk_vsge = (struct vg_sge *)(sq->chunk_sge + nsge);
	INIT_LIST_HEAD(&sq->node);
	INIT_LIST_HEAD(&sq->inject_node);
	INIT_LIST_HEAD(&sq->slot.attn_node);
	INIT_LIST_HEAD(&sq->queue);
	INIT_LIST_HEAD(&sq->flushq);
	sq->slot.ops = &vg_sendq_slot_ops;
	sq->slot.q = q;
	sq->qp = qp;
	sq->depth = depth;
	sq->owner_max = owner_max;
	sq->reserved = extra > 0;
	sq->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
	sq->send_cq = qp->send_cq;
	sq->max_sge = attr->cap.max_send_sge;
	sq->sh = sh;
	sq->home_cpu = -1;
	INIT_WORK(&sq->home_work, vg_sendq_home_work);

	rcu_read_lock();
	t = rcu_dereference(q->tenant);
	t = t ? vg_tenant_get(t) : NULL;
	rcu_read_unlock();
	if (!t || vg_sendq_bind(sh, sq, t)) {
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
void vg_sendq_drop_wrs(struct vg_sendq *sq)
{
	struct vg_pwr *p, *tmp;
	u32 n = 0;

	list_for_each_entry_safe(p, tmp, &sq->queue, node) {
		list_del(&p->node);
		vg_pwr_free(p);
		n++;
	}
	if (n && sq->slot.tenant)
		vg_tenant_count_queue(sq->slot.tenant, 0, n);
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
static void vg_sendq_free(struct vg_sendq *sq)
{
	vg_sendq_drop_wrs(sq);
	vg_tenant_put(sq->slot.tenant);
	kfree(sq->ring);
	kfree(sq->chunk_sge);
	if (sq->pinned)
		module_put(THIS_MODULE);
	kfree_rcu(sq, rcu);
}

/**
 * vg_sendq_pin() - hold the module while the shaper holds a QP's WRs
 * @sh: the shaper
 * @sq: the QP's state, about to take WRs its owner must poll for
 *
 * For a send CQ its owner polls directly, takes a module reference that
 * vg_sendq_unpin() drops once nothing of the QP is queued, in flight or
 * to be reported (see "Unload" above).
 *
 * Context: any; under the shaper lock.
 * Return: false if the module is going: the WRs must go to the driver
 * directly (nothing of the QP is held then, or it would be pinned).
 */
bool vg_sendq_pin(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);
	if (!sq->pinned && sq->send_cq->poll_ctx == IB_POLL_DIRECT)
		sq->pinned = try_module_get(THIS_MODULE);
	return sq->pinned || sq->send_cq->poll_ctx != IB_POLL_DIRECT;
}

/**
 * vg_sendq_unpin() - drop vg_sendq_pin()'s reference if nothing is held
 * @sh: the shaper
 * @sq: the QP's state, live (a closed QP keeps its reference until
 *	vg_sendq_bury())
 *
 * Context: any; under the shaper lock.
 */
void vg_sendq_unpin(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);
	if (!sq->pinned || vg_sendq_closed(sq) || sq->inflight ||
	    !list_empty(&sq->queue) || !list_empty(&sq->flushq))
		return;
	sq->pinned = false;
	module_put(THIS_MODULE);
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
	vg_sendq_move(sh, sq, VG_SQ_CLOSED);
	wait_event_lock_irq(sh->idle_wq, !sq->busy, sh->lock);
	list_del_init(&sq->inject_node);
	list_del_init(&sq->slot.attn_node);
	vg_shaper_slot_del(sh, &sq->slot);
	vg_sendq_drop_wrs(sq);
	list_move_tail(&sq->node, &sh->closed);
	WRITE_ONCE(sh->nsqs, sh->nsqs - 1);
	WRITE_ONCE(sh->nclosed, sh->nclosed + 1);
	t = sq->slot.tenant;
	sq->slot.tenant = NULL;
	vg_shaper_wake_idle(sh);
	spin_unlock_irq(&sh->lock);
	/* Out of the scheduler, nothing queues it again; it posts nothing. */
	cancel_work_sync(&sq->home_work);
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
	vg_sendq_move(sh, sq, VG_SQ_RELEASED);
	if (!sq->inflight) {
		vg_sendq_bury(sh, sq);
	} else {
		if (!sq->pinned)
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
		if (sq->state == VG_SQ_RELEASED && sq->send_cq == cq)
			vg_sendq_bury(sh, sq);
	spin_unlock_irq(&sh->lock);
}

/**
 * vg_sendq_bury() - free a closed QP's state
 * @sh: the shaper
 * @sq: the state, closed; readers that found it under RCU see it
 *	VG_SQ_BURIED
 *
 * Context: any; under the shaper lock.
 */
void vg_sendq_bury(struct vg_shaper *sh, struct vg_sendq *sq)
{
	lockdep_assert_held(&sh->lock);
	if (sq->state == VG_SQ_BURIED)
		return;
	vg_sendq_move(sh, sq, VG_SQ_BURIED);
	list_del(&sq->node);
	WRITE_ONCE(sh->nclosed, sh->nclosed - 1);
	/* Its address still tells a stale completion from the owner's. */
	kfree(sq->ring);
	kfree(sq->chunk_sge);
	if (sq->pinned)
		module_put(THIS_MODULE);
	/* Device removal may wait for the closed list to empty. */
	vg_shaper_wake_idle(sh);
	kfree_rcu(sq, rcu);
}

/**
 * vg_sendq_stop_all() - stop the works of a device's send queues
 * @sh: the shaper, drained (vg_sendq_wait_idle()); its wrappers are gone
 *
 * Draining, the hrtimer queues no QP's work; a work may arm the hrtimer,
 * so the works go before it (vg_shaper_destroy()).
 *
 * Context: process context; sleeps.
 */
void vg_sendq_stop_all(struct vg_shaper *sh)
{
	struct vg_sendq *sq;

	list_for_each_entry(sq, &sh->sqs, node)
		cancel_work_sync(&sq->home_work);
}

/**
 * vg_sendq_free_all() - free the state of a device's send queues
 * @sh: the shaper, whose hrtimer is cancelled (vg_shaper_destroy())
 *
 * Context: process context; takes the shaper lock.
 */
void vg_sendq_free_all(struct vg_shaper *sh)
{
	struct vg_sendq *sq, *tmp;

	list_for_each_entry_safe(sq, tmp, &sh->sqs, node) {
		list_del(&sq->node);
		vg_sendq_free(sq);
	}
	/*
	 * Device removal waited for these; unload cannot get here while
	 * they pin the module, unless the QP was destroyed during unload.
	 */
	spin_lock_irq(&sh->lock);
	list_for_each_entry_safe(sq, tmp, &sh->closed, node)
		vg_sendq_bury(sh, sq);
	spin_unlock_irq(&sh->lock);
}

/**
 * vg_sendq_init() - create what every send queue shares: the reserve of
 *	WR copies and the workqueue that posts chunks on a QP's home CPU
 *
 * The workqueue has a rescuer: a kernel ULP's chunks may be what memory
 * reclaim waits for (NVMe over RDMA writing back pages), so posting them
 * must not wait for a new worker to be allocated.
 *
 * Context: process context (module init).
 * Return: 0 or -ENOMEM.
 */
int vg_sendq_init(void)
{
	int ret = vg_pwr_reserve_init();

	if (ret)
		return ret;
	vg_sendq_wq = alloc_workqueue("verbsgate_home",
				      WQ_HIGHPRI | WQ_MEM_RECLAIM, 0);
	if (!vg_sendq_wq) {
		vg_pwr_reserve_exit();
		return -ENOMEM;
	}
	return 0;
}

/**
 * vg_sendq_exit() - free what vg_sendq_init() created
 *
 * Context: process context (module exit), once every device is detached
 * and no QP's state remains.
 */
void vg_sendq_exit(void)
{
	destroy_workqueue(vg_sendq_wq);
	vg_pwr_reserve_exit();
}
