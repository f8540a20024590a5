// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_sqslots: a test-only module that gives the kernel RC and UC send
 * queues of an RDMA device the slot accounting of hardware drivers such
 * as mlx5: a send queue slot is free again only once the completion that
 * retires it has been polled (rxe frees it as soon as the peer
 * acknowledges, which hides a send queue posted past its size). A post
 * that does not fit in the free slots is refused with -ENOMEM, nothing
 * taken, and counted. Load it before verbsgate, unload it after:
 *
 *   insmod vg_sqslots.ko dev=rxe0
 *   cat /sys/kernel/debug/vg_sqslots/refused
 *
 * Only QPs created while it is loaded are accounted. Never load it
 * outside the test bed.
 *
 * Context and locks: the create, modify and destroy wrappers run in
 * process context and take the QP table's xa_lock; the post and poll
 * wrappers run in process or softirq context with hard interrupts on,
 * under rcu_read_lock(), and take the QP's lock with bottom halves off.
 * The post wrapper holds it across the driver's post_send, so that the
 * slots are recorded in the order the driver took the WRs.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/overflow.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device whose send queues are accounted");

/* A posted WR, until a polled completion retires it. */
struct vg_sqslot {
	u64 wr_id;
	bool signaled;
};

/* A send queue's slots: a ring of @size, @used from @head. */
struct vg_sqslots_qp {
	spinlock_t lock;	/* protects everything below */
	u32 size;
	u32 head;
	u32 used;
	bool sig_all;
	struct rcu_head rcu;
	struct vg_sqslot slot[];
};

/* qp_num -> struct vg_sqslots_qp */
static DEFINE_XARRAY(vg_sqslots_qps);
static atomic_t vg_sqslots_refused = ATOMIC_INIT(0);
static atomic_t vg_sqslots_unmatched = ATOMIC_INIT(0);
static atomic_t vg_sqslots_untracked = ATOMIC_INIT(0);
/* The fewest slots a send queue had free after a post. */
static atomic_t vg_sqslots_least_free = ATOMIC_INIT(INT_MAX);
static struct dentry *vg_sqslots_dir;

/* The driver's operations, which the wrappers call. */
static struct {
	int (*create_qp)(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			 struct ib_udata *udata);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int attr_mask, struct ib_udata *udata);
	int (*destroy_qp)(struct ib_qp *qp, struct ib_udata *udata);
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad);
	int (*poll_cq)(struct ib_cq *cq, int n, struct ib_wc *wc);
} vg_sqslots_orig;

static int vg_sqslots_create(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			     struct ib_udata *udata)
{
	u32 size = attr->cap.max_send_wr;
	struct vg_sqslots_qp *s;
	int ret;

	ret = vg_sqslots_orig.create_qp(qp, attr, udata);
	if (ret || udata || !size ||
	    (qp->qp_type != IB_QPT_RC && qp->qp_type != IB_QPT_UC))
		return ret;
	/* What the driver wrote back, before anyone above changes it. */
	size = attr->cap.max_send_wr;
	s = kzalloc(struct_size(s, slot, size), GFP_KERNEL);
	if (s) {
		spin_lock_init(&s->lock);
		s->size = size;
		s->sig_all = attr->sq_sig_type == IB_SIGNAL_ALL_WR;
		if (xa_err(xa_store(&vg_sqslots_qps, qp->qp_num, s,
				    GFP_KERNEL))) {
			kfree(s);
			s = NULL;
		}
	}
	if (!s)
		atomic_inc(&vg_sqslots_untracked);
	return ret;
}

static int vg_sqslots_modify(struct ib_qp *qp, struct ib_qp_attr *attr,
			     int attr_mask, struct ib_udata *udata)
{
	struct vg_sqslots_qp *s;
	int ret;

	ret = vg_sqslots_orig.modify_qp(qp, attr, attr_mask, udata);
	if (ret || !(attr_mask & IB_QP_STATE) || attr->qp_state != IB_QPS_RESET)
		return ret;
	/* The driver forgets every WR of a reset QP. */
	rcu_read_lock();
	s = xa_load(&vg_sqslots_qps, qp->qp_num);
	if (s) {
		spin_lock_bh(&s->lock);
		s->head = 0;
		s->used = 0;
		spin_unlock_bh(&s->lock);
	}
	rcu_read_unlock();
	return ret;
}

static int vg_sqslots_destroy(struct ib_qp *qp, struct ib_udata *udata)
{
	struct vg_sqslots_qp *s = xa_erase(&vg_sqslots_qps, qp->qp_num);
	int ret;

	ret = vg_sqslots_orig.destroy_qp(qp, udata);
	if (s) {
		if (ret)
			xa_store(&vg_sqslots_qps, qp->qp_num, s, GFP_KERNEL);
		else
			kfree_rcu(s, rcu);
	}
	return ret;
}

static void vg_sqslots_note_free(int free)
{
	int least = atomic_read(&vg_sqslots_least_free);

	while (free < least &&
	       !atomic_try_cmpxchg(&vg_sqslots_least_free, &least, free))
		;
}

static int vg_sqslots_post(struct ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad)
{
	const struct ib_send_wr *w, *stop;
	struct vg_sqslots_qp *s;
	struct vg_sqslot *slot;
	u32 n = 0;
	int ret;

	rcu_read_lock();
	s = xa_load(&vg_sqslots_qps, qp->qp_num);
	if (!s) {
		rcu_read_unlock();
		return vg_sqslots_orig.post_send(qp, wr, bad);
	}
	for (w = wr; w; w = w->next)
		n++;
	spin_lock_bh(&s->lock);
	if (n > s->size - s->used) {
		atomic_inc(&vg_sqslots_refused);
		*bad = wr;
		ret = -ENOMEM;
		goto out;
	}
	ret = vg_sqslots_orig.post_send(qp, wr, bad);
	stop = ret ? *bad : NULL;
	for (w = wr; w && w != stop; w = w->next) {
		slot = &s->slot[(s->head + s->used) % s->size];
		slot->wr_id = w->wr_id;
		slot->signaled = s->sig_all || (w->send_flags & IB_SEND_SIGNALED);
		s->used++;
	}
	vg_sqslots_note_free(s->size - s->used);
out:
	spin_unlock_bh(&s->lock);
	rcu_read_unlock();
	return ret;
}

/*
 * A polled send completion retires its WR and every older one (send
 * queues complete in order). Successful completions come only for
 * signaled WRs; error completions for every WR.
 */
static void vg_sqslots_retire(const struct ib_wc *wc)
{
	bool ok = wc->status == IB_WC_SUCCESS;
	struct vg_sqslots_qp *s;
	struct vg_sqslot *slot;
	u32 k;

	if (ok && (wc->opcode & IB_WC_RECV))
		return;
	s = xa_load(&vg_sqslots_qps, wc->qp->qp_num);
	if (!s)
		return;
	spin_lock_bh(&s->lock);
	for (k = 0; k < s->used; k++) {
		slot = &s->slot[(s->head + k) % s->size];
		if (slot->wr_id == wc->wr_id && (slot->signaled || !ok))
			break;
	}
	if (k < s->used) {
		s->head = (s->head + k + 1) % s->size;
		s->used -= k + 1;
	} else if (ok) {
		/* An error completion may be a receive's. */
		atomic_inc(&vg_sqslots_unmatched);
	}
	spin_unlock_bh(&s->lock);
}

static int vg_sqslots_poll(struct ib_cq *cq, int n, struct ib_wc *wc)
{
	int got = vg_sqslots_orig.poll_cq(cq, n, wc);
	int i;

	rcu_read_lock();
	for (i = 0; i < got; i++)
		vg_sqslots_retire(&wc[i]);
	rcu_read_unlock();
	return got;
}

/* Process context (insmod). */
static int __init vg_sqslots_init(void)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev,
							RDMA_DRIVER_UNKNOWN);

	if (!ibdev)
		return -ENODEV;
	vg_sqslots_dir = debugfs_create_dir("vg_sqslots", NULL);
	debugfs_create_atomic_t("refused", 0444, vg_sqslots_dir,
				&vg_sqslots_refused);
	debugfs_create_atomic_t("unmatched", 0444, vg_sqslots_dir,
				&vg_sqslots_unmatched);
	debugfs_create_atomic_t("untracked", 0444, vg_sqslots_dir,
				&vg_sqslots_untracked);
	debugfs_create_atomic_t("least_free", 0444, vg_sqslots_dir,
				&vg_sqslots_least_free);
	vg_sqslots_orig.create_qp = ibdev->ops.create_qp;
	vg_sqslots_orig.modify_qp = ibdev->ops.modify_qp;
	vg_sqslots_orig.destroy_qp = ibdev->ops.destroy_qp;
	vg_sqslots_orig.post_send = ibdev->ops.post_send;
	vg_sqslots_orig.poll_cq = ibdev->ops.poll_cq;
	WRITE_ONCE(ibdev->ops.create_qp, vg_sqslots_create);
	WRITE_ONCE(ibdev->ops.modify_qp, vg_sqslots_modify);
	WRITE_ONCE(ibdev->ops.destroy_qp, vg_sqslots_destroy);
	WRITE_ONCE(ibdev->ops.post_send, vg_sqslots_post);
	WRITE_ONCE(ibdev->ops.poll_cq, vg_sqslots_poll);
	ib_device_put(ibdev);
	return 0;
}

/*
 * Process context (rmmod), after verbsgate (which calls these wrappers)
 * is gone: the test stops its I/O first; synchronize_rcu() covers
 * callers still returning from here.
 */
static void __exit vg_sqslots_exit(void)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev,
							RDMA_DRIVER_UNKNOWN);
	struct vg_sqslots_qp *s;
	unsigned long num;

	if (ibdev) {
		WRITE_ONCE(ibdev->ops.create_qp, vg_sqslots_orig.create_qp);
		WRITE_ONCE(ibdev->ops.modify_qp, vg_sqslots_orig.modify_qp);
		WRITE_ONCE(ibdev->ops.destroy_qp, vg_sqslots_orig.destroy_qp);
		WRITE_ONCE(ibdev->ops.post_send, vg_sqslots_orig.post_send);
		WRITE_ONCE(ibdev->ops.poll_cq, vg_sqslots_orig.poll_cq);
		ib_device_put(ibdev);
	}
	synchronize_rcu();
	xa_for_each(&vg_sqslots_qps, num, s)
		kfree(s);
	xa_destroy(&vg_sqslots_qps);
	debugfs_remove_recursive(vg_sqslots_dir);
}

module_init(vg_sqslots_init);
module_exit(vg_sqslots_exit);
MODULE_DESCRIPTION("verbsgate test bed: send queue slots freed on poll, as mlx5 does");
MODULE_LICENSE("GPL");
