// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: interpose on an RDMA device's QP operations.
 *
 * ib_core calls a device's operations through the struct ib_device_ops
 * copy embedded in struct ib_device. verbsgate replaces the function
 * pointers it needs with wrappers that call the driver's original and
 * record what they learn; on device removal and module unload it puts the
 * originals back. Kernel (ULP) and user (uverbs) QPs alike are created,
 * modified and destroyed through these pointers; kernel ULPs post sends
 * and poll completions through them too. User QPs of most providers post
 * from user space, past every pointer here; a driver patched to let
 * verbsgate govern them offers each new user QP to it while the create
 * wrapper runs (usq.c), and their doorbells, which do come through
 * post_send, let their owners release what their tenants' turns allow.
 *
 * Why no caller can run module code after unload. A caller may have loaded
 * a wrapper's address from the ops just before it was restored. Three
 * phases close every window:
 *
 *  1. Entry. From loading the pointer until the wrapper's read-side
 *     section begins, a caller does not sleep. synchronize_rcu_tasks()
 *     waits for every task to pass a voluntary context switch, so each
 *     such task has since either entered the wrapper's read-side section
 *     or left; synchronize_rcu() does the same for callers in softirq or
 *     on the idle task, which RCU Tasks does not watch.
 *  2. Body. Wrappers hold a read-side section across the driver call:
 *     vg_interpose_srcu where the driver may sleep (create, modify,
 *     destroy, destroy CQ, drain), plain RCU where it must not (post_send and
 *     poll_cq, whose callers may be atomic; SRCU's read side costs two
 *     full barriers on every post). synchronize_rcu() and
 *     synchronize_srcu() wait for them. Only then is the device's state
 *     freed (vg_interpose_detach()).
 *  3. Exit. After its read-side section a wrapper still executes its
 *     epilogue without sleeping; before the module text goes away,
 *     vg_interpose_exit() runs phase 1's pair of grace periods once more.
 *
 * Before the wrappers go, the shaper is drained (vg_interpose_drain()):
 * completions of the chunks it posted carry its own wr_id and must pass
 * the poll wrapper. If they do not come in time (device removal's bound,
 * see datapath/client.c), the wrappers stay and nothing is freed.
 *
 * Context: create/modify/destroy QP and destroy CQ wrappers run in the
 * process context of their caller (they may sleep) and take the QP
 * table's xa_lock, the shaper lock and, to announce a QP,
 * vg_devices_lock; so does the
 * drain_sq wrapper, which sleeps until the shaper has handed the QP's WRs
 * to the driver. post_send and poll_cq wrappers run in whatever context
 * their caller is in (process, softirq, interrupts off) and take the
 * shaper lock (poll_cq only for completions the shaper must translate).
 * Read-side sections as in phase 2 above.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/slab.h>
#include <linux/srcu.h>

#include "tenant/tenant.h"

#include "device.h"
#include "ctrl_verbs.h"
#include "interpose.h"
#include "qp_bounds.h"
#include "qp_tenant.h"
#include "sendq.h"
#include "usq.h"
#include "usq_rxe.h"

DEFINE_STATIC_SRCU(vg_interpose_srcu);

static struct vg_interpose *vg_ipose(struct ib_device *ibdev)
{
	return &vg_device_of(ibdev)->ipose;
}

/* Kernel-owned RC and UC send queues are shaped. */
static bool vg_qp_shaped_type(const struct ib_qp *qp,
			      const struct ib_udata *udata)
{
	return !udata && (qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC);
}

/*
 * Undo what a driver's failed create_qp left in @qp before it is tried
 * again: ib_core hands the driver a zeroed object (its own ib_qp fields
 * set), and the driver's part of it is zeroed again.
 */
static void vg_create_qp_again(struct ib_qp *qp)
{
	size_t size = qp->device->ops.size_ib_qp;

	if (size > sizeof(*qp))
		memset((u8 *)qp + sizeof(*qp), 0, size - sizeof(*qp));
}

/**
 * vg_interpose_user_qps_enforced() - whether a device's user QPs are shaped
 * @ip: the device's interposed operations
 *
 * A process posts to its QPs through a doorbell its driver owns, past
 * every operation verbsgate interposes on: shaping them needs the
 * driver's cooperation, which only a patched rdma_rxe offers
 * (driver-patches/, usq_rxe.c), and a shaper to pace them.
 *
 * Context: any; takes no lock (the answer may be stale at once).
 */
bool vg_interpose_user_qps_enforced(const struct vg_interpose *ip)
{
	return READ_ONCE(ip->shaper.active) &&
	       vg_rxe_governs(ip->shaper.dev->ibdev);
}

/*
 * user-qps deny, on a device whose user QPs verbsgate cannot enforce:
 * whether to refuse the creating process's QP. Only a latency-class
 * tenant's QPs are let through, since verbsgate never paces those; the
 * tenant is the one the process's cgroup selects, as at creation (rule 1
 * of tenant/tenant.h). Process context (the creator's); takes no lock.
 */
static bool vg_user_qp_refused(struct ib_qp *qp, struct vg_interpose *ip)
{
	struct vg_device *dev = vg_device_of(qp->device);
	struct vg_qp_facts facts = { .user = true };
	struct vg_ktenant *t;
	bool refuse;

	if (READ_ONCE(dev->user_qps) != VERBSGATE_USER_QPS_DENY ||
	    vg_interpose_user_qps_enforced(ip) ||
	    qp->qp_type == IB_QPT_XRC_TGT)
		return false;
	rcu_read_lock();
	facts.cgrp = task_dfl_cgroup(current);
	t = vg_tenant_classify(&facts);
	rcu_read_unlock();
	refuse = !t || READ_ONCE(t->pol.class) != VERBSGATE_CLASS_LATENCY;
	if (refuse) {
		atomic64_inc(&ip->user_refused);
		pr_info_ratelimited("%s: refused a QP of %s[%d] in tenant %s: its user QPs are not enforced here (user-qps deny)\n",
				    dev_name(&qp->device->dev), current->comm,
				    task_tgid_nr(current), t ? t->name : "-");
	}
	vg_tenant_put(t);
	return refuse;
}

static int vg_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			struct ib_udata *udata)
{
	struct ib_qp_cap cap = attr->cap;
	struct vg_sendq *sq = NULL;
	struct vg_usq_offer offer;
	struct vg_interpose *ip;
	struct vg_qp *q;
	int idx, ret;
	u32 extra = 0;
	bool shaped;

	/* ib_core set the type and real_qp before calling the driver. */
	shaped = qp->real_qp == qp && vg_qp_shaped_type(qp, udata);
	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	if (udata && vg_user_qp_refused(qp, ip)) {
		srcu_read_unlock(&vg_interpose_srcu, idx);
		return -EPERM;
	}
	/* A process's verbs keep to its tenant's pace (ctrl_verbs.c). */
	ret = vg_ctrl_verb(ip, udata, true);
	if (ret) {
		srcu_read_unlock(&vg_interpose_srcu, idx);
		return ret;
	}
	if (shaped)
		extra = vg_sendq_reserve(&ip->shaper, attr,
					 qp->device->attrs.max_qp_wr);
	/* A patched driver offers a user QP to verbsgate as it creates it. */
	if (udata)
		vg_usq_offer_begin(&offer, &ip->shaper, qp);
	ret = ip->create_qp(qp, attr, udata);
	if (udata)
		vg_usq_offer_end(&offer);
	if (ret && extra) {
		/*
		 * The driver's real limit may be below its max_qp_wr (the
		 * WQE size counts): never fail what the owner's own sizes
		 * create. The ring then shares the send queue (sendq.c).
		 */
		vg_create_qp_again(qp);
		attr->cap = cap;
		extra = 0;
		ret = ip->create_qp(qp, attr, udata);
	}
	if (ret)
		attr->cap = cap;
	if (!ret && vg_qp_tracked_type(qp->qp_type) && qp->real_qp == qp) {
		if (vg_qp_add(&ip->qps, qp, udata, &q)) {
			pr_warn_ratelimited("%s: QP %u is not tracked\n",
					    dev_name(&qp->device->dev),
					    qp->qp_num);
		} else {
			if (shaped)
				sq = vg_sendq_create(&ip->shaper, qp, q, attr,
						     cap.max_send_wr, extra);
			/* A failed create detached it (offer.usq is stale). */
			if (udata && offer.usq)
				vg_usq_link(offer.usq, q);
			/* Pairs with the post and modify wrappers' acquire. */
			smp_store_release(&q->sq, sq);
			vg_qp_announce(vg_device_of(qp->device), qp);
		}
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

/*
 * The shaper's state of the QP @q tracks (NULL for both: not shaped).
 * Under rcu_read_lock(); valid until the caller leaves it.
 */
static struct vg_sendq *vg_qp_sendq(struct vg_qp *q)
{
	/* Pairs with the release in vg_create_qp(). */
	return q ? smp_load_acquire(&q->sq) : NULL;
}

/* The shaper's state of @qp, or NULL; as vg_qp_sendq(). */
static struct vg_sendq *vg_sendq_of(struct vg_interpose *ip,
				    struct ib_qp *qp)
{
	return vg_qp_sendq(vg_qp_find(&ip->qps, qp));
}

/*
 * The path MTU a modify QP set, on the slot of a shaped or governed QP,
 * so that each chunk is charged its packets' headers (token.h).
 * Process context (the modify wrapper); under RCU.
 */
static void vg_slot_set_mtu(struct vg_interpose *ip, struct ib_qp *qp,
			    int mtu)
{
	struct vg_sendq *sq;
	struct vg_usq *usq;
	struct vg_qp *q;

	if (mtu <= 0)
		return;
	rcu_read_lock();
	q = vg_qp_find(&ip->qps, qp);
	sq = vg_qp_sendq(q);
	usq = q ? rcu_dereference(q->usq) : NULL;
	if (sq)
		WRITE_ONCE(sq->slot.mtu, mtu);
	if (usq)
		WRITE_ONCE(usq->slot.mtu, mtu);
	rcu_read_unlock();
}

static int vg_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			int attr_mask, struct ib_udata *udata)
{
	struct vg_sendq *sq, *reset = NULL;
	struct ib_qp_attr *bounded;
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	ret = vg_ctrl_verb(ip, udata, true);
	if (ret) {
		srcu_read_unlock(&vg_interpose_srcu, idx);
		return ret;
	}
	/* Retries and READ depth within the tenant's bounds (qp_bounds.c). */
	bounded = vg_qp_bound_attr(&ip->qps, qp, attr, attr_mask);
	if (IS_ERR(bounded)) {
		srcu_read_unlock(&vg_interpose_srcu, idx);
		return PTR_ERR(bounded);
	}
	if (bounded)
		attr = bounded;
	/*
	 * A reset: the shaper forgets the QP's WRs as the driver does. The
	 * owner does not destroy a QP while it modifies it, so its state
	 * lives across the sleep.
	 */
	if ((attr_mask & IB_QP_STATE) && attr->qp_state == IB_QPS_RESET) {
		rcu_read_lock();
		reset = vg_sendq_of(ip, qp);
		rcu_read_unlock();
	}
	if (reset)
		vg_sendq_reset_begin(&ip->shaper, reset);
	ret = ip->modify_qp(qp, attr, attr_mask, udata);
	if (reset)
		vg_sendq_reset_end(&ip->shaper, reset, !ret);
	if (!ret && bounded)
		vg_qp_bound_count(&ip->qps, qp);
	if (!ret && vg_qp_set_av(&ip->qps, qp, attr, attr_mask))
		vg_qp_announce(vg_device_of(qp->device), qp);
	if (!ret && (attr_mask & IB_QP_PATH_MTU))
		vg_slot_set_mtu(ip, qp, ib_mtu_enum_to_int(attr->path_mtu));
	if (!ret && (attr_mask & (IB_QP_STATE | IB_QP_PORT))) {
		rcu_read_lock();
		sq = vg_sendq_of(ip, qp);
		/* Each port is paced apart: follow the QP to its port. */
		if (sq && (attr_mask & IB_QP_PORT))
			vg_sendq_set_port(&ip->shaper, sq, attr->port_num);
		if (sq)
			vg_sendq_modified(&ip->shaper, sq, attr, attr_mask);
		rcu_read_unlock();
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	kfree(bounded);
	return ret;
}

static int vg_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	struct vg_sendq *sq;
	struct vg_usq *usq;
	struct vg_qp *q;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	vg_ctrl_verb(ip, udata, false);
	/*
	 * Stop shaping it first. Its ring outlives the driver's QP: chunks
	 * of an owner that did not drain complete with ring entries as
	 * wr_id, before or after the destroy (vg_sendq_release()). Only the
	 * destroy takes the entry out of the table, so it stays valid here.
	 * A governed user queue leaves the shaper, and the driver flushes
	 * what it holds as it would without verbsgate.
	 */
	rcu_read_lock();
	q = vg_qp_find(&ip->qps, qp);
	sq = q ? q->sq : NULL;
	usq = q ? vg_usq_get(rcu_dereference(q->usq)) : NULL;
	rcu_read_unlock();
	if (usq) {
		vg_usq_close(usq);
		vg_usq_put(usq);
	}
	if (sq) {
		vg_sendq_close(&ip->shaper, sq);
		/*
		 * The state is on the closed list before the table forgets
		 * it: a poller that finds neither the entry nor its state
		 * sees the list (pairs with the smp_rmb() in
		 * vg_sendq_poll_one()).
		 */
		smp_wmb();
		WRITE_ONCE(q->sq, NULL);
	}
	/*
	 * Untrack before the driver frees the QP number, which a concurrent
	 * create may reuse at once; put the entry back if the driver refuses.
	 */
	q = vg_qp_take(&ip->qps, qp);
	ret = ip->destroy_qp(qp, udata);
	if (sq)
		vg_sendq_release(&ip->shaper, sq);
	if (q) {
		if (ret)
			vg_qp_put_back(&ip->qps, q);
		else
			vg_qp_free(q);
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

/* The rings of QPs destroyed undrained live as long as their send CQ. */
static int vg_destroy_cq(struct ib_cq *cq, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(cq->device);
	vg_ctrl_verb(ip, udata, false);
	ret = ip->destroy_cq(cq, udata);
	if (!ret && READ_ONCE(ip->shaper.nclosed))
		vg_sendq_cq_destroyed(&ip->shaper, cq);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

/*
 * Control verbs that only pace (ctrl_verbs.c): CQ create, PD allocate
 * and free; MR register and deregister also hold the tenant's MR bytes
 * (mr_quota.c). Process context; may sleep.
 */
static int vg_create_cq(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(cq->device);
	ret = vg_ctrl_verb(ip, udata, true);
	if (!ret)
		ret = ip->create_cq(cq, attr, udata);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static int vg_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(pd->device);
	ret = vg_ctrl_verb(ip, udata, true);
	if (!ret)
		ret = ip->alloc_pd(pd, udata);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static int vg_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(pd->device);
	vg_ctrl_verb(ip, udata, false);
	ret = ip->dealloc_pd(pd, udata);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static struct ib_mr *vg_reg_user_mr(struct ib_pd *pd, u64 start, u64 length,
				    u64 virt_addr, int access,
				    struct ib_udata *udata)
{
	struct vg_mr_charge *charge = NULL;
	struct vg_interpose *ip;
	struct ib_mr *mr;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(pd->device);
	ret = vg_ctrl_verb(ip, udata, true);
	if (!ret)
		ret = vg_mr_quota_take(udata, length, &charge);
	mr = ret ? ERR_PTR(ret) :
		   ip->reg_user_mr(pd, start, length, virt_addr, access,
				   udata);
	if (charge) {
		if (IS_ERR(mr))
			vg_mr_quota_give_back(charge);
		else
			vg_mr_quota_commit(&ip->mr_quota, charge, mr);
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return mr;
}

static int vg_dereg_mr(struct ib_mr *mr, struct ib_udata *udata)
{
	struct vg_mr_charge *charge;
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(mr->device);
	vg_ctrl_verb(ip, udata, false);
	charge = vg_mr_quota_unhash(&ip->mr_quota, mr);
	ret = ip->dereg_mr(mr, udata);
	if (ret && charge)
		vg_mr_quota_commit(&ip->mr_quota, charge, mr);
	else
		vg_mr_quota_give_back(charge);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static int vg_post_send(struct ib_qp *qp, const struct ib_send_wr *wr,
			const struct ib_send_wr **bad)
{
	struct vg_interpose *ip;
	struct vg_sendq *sq;
	struct vg_usq *usq;
	struct vg_qp *q;
	int ret;

	rcu_read_lock();
	ip = vg_ipose(qp->device);
	if (qp->uobject) {
		/*
		 * A user QP's doorbell: its driver takes its WQEs in, and
		 * if verbsgate holds some of a governed one's (usq.c), they
		 * go from here. Most often the device's governed queues
		 * hold nothing, and then the QP need not be looked up; a
		 * WQE held meanwhile by another doorbell is that one's to
		 * dispatch, one taken in without a doorbell the hrtimer's.
		 */
		ret = ip->post_send(qp, wr, bad);
		if (READ_ONCE(ip->shaper.usqs_holding)) {
			q = vg_qp_find(&ip->qps, qp);
			usq = q ? rcu_dereference(q->usq) : NULL;
			if (usq)
				vg_usq_kick(usq);
		}
	} else {
		/* Only kernel QPs are shaped here (vg_qp_shaped_type()). */
		sq = vg_qp_sendq(vg_qp_find(&ip->qps, qp));
		if (sq)
			ret = vg_sendq_post(&ip->shaper, sq, wr, bad);
		else
			ret = ip->post_send(qp, wr, bad);
	}
	rcu_read_unlock();
	return ret;
}

/*
 * A driver's own drain_sq (mlx5, mlx4) posts its drain WR past post_send.
 * Everything the shaper holds of the QP goes to the driver first, so that
 * the drain's completion still comes last. The owner neither posts to nor
 * destroys the QP while it drains it (ib_drain_sq()'s rules), so @sq stays
 * valid outside the RCU read-side section.
 */
static void vg_drain_sq(struct ib_qp *qp)
{
	struct vg_interpose *ip;
	struct vg_sendq *sq;
	int idx;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	rcu_read_lock();
	sq = vg_sendq_of(ip, qp);
	rcu_read_unlock();
	if (sq)
		vg_sendq_quiesce(&ip->shaper, sq);
	ip->drain_sq(qp);
	srcu_read_unlock(&vg_interpose_srcu, idx);
}

static int vg_poll_cq(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	struct vg_interpose *ip;
	int want, got, kept, total = 0;

	rcu_read_lock();
	ip = vg_ipose(cq->device);
	if (!READ_ONCE(ip->shaper.nsqs) && !READ_ONCE(ip->shaper.nclosed)) {
		total = ip->poll_cq(cq, n, wc);
		goto out;
	}
	/*
	 * The shaper keeps its own completions from the owner: poll again
	 * while the driver filled the array, so that the owner does not take
	 * a short batch for an empty CQ.
	 */
	do {
		want = n - total;
		got = ip->poll_cq(cq, want, wc + total);
		if (got < 0) {
			if (!total)
				total = got;
			break;
		}
		kept = vg_sendq_poll(&ip->shaper, &ip->qps, cq, want,
				     wc + total, got);
		total += kept;
	} while (got == want && kept < want);
out:
	rcu_read_unlock();
	return total;
}

/**
 * vg_interpose_attach() - install the wrappers on a device
 * @dev: a device being attached; its registry entry is not yet visible
 *
 * Context: process context (ib_client add).
 */
void vg_interpose_attach(struct vg_device *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	struct vg_interpose *ip = &dev->ipose;

	vg_qp_table_init(&ip->qps);
	vg_mr_quota_init(&ip->mr_quota);
	ip->create_qp = ibdev->ops.create_qp;
	ip->modify_qp = ibdev->ops.modify_qp;
	ip->destroy_qp = ibdev->ops.destroy_qp;
	ip->post_send = ibdev->ops.post_send;
	ip->poll_cq = ibdev->ops.poll_cq;
	ip->drain_sq = ibdev->ops.drain_sq;
	ip->destroy_cq = ibdev->ops.destroy_cq;
	ip->create_cq = ibdev->ops.create_cq;
	ip->alloc_pd = ibdev->ops.alloc_pd;
	ip->dealloc_pd = ibdev->ops.dealloc_pd;
	ip->reg_user_mr = ibdev->ops.reg_user_mr;
	ip->dereg_mr = ibdev->ops.dereg_mr;
	/* A device without QPs has nothing to shape. */
	if (!ip->create_qp || !ip->modify_qp || !ip->destroy_qp ||
	    !ip->post_send || !ip->poll_cq || !ip->destroy_cq)
		return;
	/* Without memory for the shaper, QPs are tracked but not shaped. */
	if (vg_shaper_init(&ip->shaper, dev, dev->ports,
			   ip->post_send))
		pr_warn("%s: no memory to shape send queues\n", dev->name);
	/* Its kernel QPs' chunks go from their home CPUs (sendq_post.c). */
	ip->shaper.home_posts = vg_rxe_device(ibdev);
	WRITE_ONCE(ibdev->ops.create_qp, vg_create_qp);
	WRITE_ONCE(ibdev->ops.modify_qp, vg_modify_qp);
	WRITE_ONCE(ibdev->ops.destroy_qp, vg_destroy_qp);
	WRITE_ONCE(ibdev->ops.post_send, vg_post_send);
	WRITE_ONCE(ibdev->ops.poll_cq, vg_poll_cq);
	WRITE_ONCE(ibdev->ops.destroy_cq, vg_destroy_cq);
	if (ip->drain_sq)
		WRITE_ONCE(ibdev->ops.drain_sq, vg_drain_sq);
	/* Paced control verbs, where the driver has them in pairs. */
	ip->ctrl_verbs = ip->create_cq && ip->alloc_pd && ip->dealloc_pd &&
			 ip->reg_user_mr && ip->dereg_mr;
	if (ip->ctrl_verbs) {
		WRITE_ONCE(ibdev->ops.create_cq, vg_create_cq);
		WRITE_ONCE(ibdev->ops.alloc_pd, vg_alloc_pd);
		WRITE_ONCE(ibdev->ops.dealloc_pd, vg_dealloc_pd);
		WRITE_ONCE(ibdev->ops.reg_user_mr, vg_reg_user_mr);
		WRITE_ONCE(ibdev->ops.dereg_mr, vg_dereg_mr);
	}
	ip->attached = true;
}

/*
 * Unload and device removal: stop shaping (vg_shaper_drain()) and wait
 * until nothing is left of any kind of queue. Process context; sleeps;
 * takes the shaper lock. Return: whether the shaper drained within
 * @bound (true if it was never set up).
 */
static bool vg_interpose_drain(struct vg_shaper *sh, bool rings,
			       unsigned long bound)
{
	if (!sh->active)
		return true;
	vg_shaper_drain(sh);
	/* User send queues' drivers execute what they hold themselves. */
	vg_usq_drain(sh);
	return vg_sendq_wait_idle(sh, rings, bound);
}

/*
 * Free a drained device's shaper and its queues' state; the wrappers are
 * gone. Process context; sleeps.
 */
static void vg_interpose_destroy(struct vg_shaper *sh)
{
	if (!sh->active)
		return;
	/* What may arm the shaper's hrtimer stops before it. */
	vg_sendq_stop_all(sh);
	vg_shaper_destroy(sh);
	vg_sendq_free_all(sh);
}

/**
 * vg_interpose_detach() - restore a device's operations, free its QP state
 * @dev: the device; its wrappers may be running
 * @rings: wait for the rings of QPs destroyed undrained, too
 * @bound: the longest wait for the shaper to drain, in jiffies; 0 for as
 *	long as it takes (vg_sendq_wait_idle())
 *
 * Once the shaper drained, returns when no wrapper uses @dev any more
 * (phases 1 and 2 above).
 *
 * Context: process context (ib_client remove, or client.c's work);
 * sleeps for grace periods.
 * Return: true; false if the shaper did not drain within @bound: then
 * the wrappers stay installed and nothing is freed, and the caller
 * calls again later.
 */
bool vg_interpose_detach(struct vg_device *dev, bool rings,
			 unsigned long bound)
{
	struct ib_device *ibdev = dev->ibdev;
	struct vg_interpose *ip = &dev->ipose;

	if (ip->attached) {
		/* Nothing waits for a tenant's pace from here on. */
		vg_ctrl_verbs_stop(ip);
		if (!vg_interpose_drain(&ip->shaper, rings, bound))
			return false;
		WRITE_ONCE(ibdev->ops.create_qp, ip->create_qp);
		WRITE_ONCE(ibdev->ops.modify_qp, ip->modify_qp);
		WRITE_ONCE(ibdev->ops.destroy_qp, ip->destroy_qp);
		WRITE_ONCE(ibdev->ops.post_send, ip->post_send);
		WRITE_ONCE(ibdev->ops.poll_cq, ip->poll_cq);
		WRITE_ONCE(ibdev->ops.destroy_cq, ip->destroy_cq);
		if (ip->drain_sq)
			WRITE_ONCE(ibdev->ops.drain_sq, ip->drain_sq);
		if (ip->ctrl_verbs) {
			WRITE_ONCE(ibdev->ops.create_cq, ip->create_cq);
			WRITE_ONCE(ibdev->ops.alloc_pd, ip->alloc_pd);
			WRITE_ONCE(ibdev->ops.dealloc_pd, ip->dealloc_pd);
			WRITE_ONCE(ibdev->ops.reg_user_mr, ip->reg_user_mr);
			WRITE_ONCE(ibdev->ops.dereg_mr, ip->dereg_mr);
		}
		ip->attached = false;
		synchronize_rcu_tasks();
		synchronize_rcu();
		synchronize_srcu(&vg_interpose_srcu);
		vg_interpose_destroy(&ip->shaper);
	}
	vg_mr_quota_destroy(&ip->mr_quota);
	vg_qp_table_destroy(&ip->qps);
	return true;
}

/*
 * Process context (module exit), after every device was detached: wait
 * until wrappers that already released SRCU have also returned (phase 3).
 */
void vg_interpose_exit(void)
{
	synchronize_rcu_tasks();
	synchronize_rcu();
}
