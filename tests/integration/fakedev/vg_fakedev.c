// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_fakedev: a test-only software RDMA device with two ports of
 * different speeds, for the test bed, whose only real device (rxe) has
 * one port. It registers "vgfake0" with ib_core, an InfiniBand CA:
 *
 *   port 1: 4X QDR, 40 Gb/s signalling, 32 Gb/s of data (4000000000 B/s)
 *   port 2: 1X SDR, 2.5 Gb/s signalling, 2 Gb/s of data (250000000 B/s)
 *
 * so the rate ib_query_port() reports for port 1 is 16 times port 2's,
 * whether one counts signalling (the sysfs rate) or data (8b/10b on
 * both). Kernel ULPs can use RC (and UC) QPs on either port: PDs, the
 * local DMA lkey, DMA MRs, CQs with completion events, the QP state
 * machine of ib_modify_qp_is_ok(), post_send and post_recv.
 *
 * Nothing moves: a WR's memory is never touched and nothing reaches the
 * responder. Each WR occupies its port for its length at the port's
 * rate, after every WR posted to the port before it (a FIFO serialising
 * clock per port, whatever the QP or the direction of the data), and
 * completes when the port would have finished sending it: the port's
 * hrtimer completes it (softirq), signaled WRs with IB_WC_SUCCESS in
 * order, and calls the comp_handler of a CQ armed for it. A QP moved to
 * the error state flushes its outstanding send and receive WRs, and
 * those posted later, each with IB_WC_WR_FLUSH_ERR (signaled or not,
 * as rxe does); the port's clock then forgets the WRs it never sent. A
 * reset or destroyed QP's WRs go without completions.
 *
 * The ports are InfiniBand without subnet management: no MAD, SMI, CM
 * or SA capability (ib_mad and ib_cm leave the device alone), one P_Key
 * (0xffff), one GID (fe80::node GUID + port), LID = port number. A QP
 * reaches another QP of the same port with an AV without GRH: DLID of
 * the port, SL 0. No DMA device: ib_core maps with kernel virtual
 * addresses (CONFIG_INFINIBAND_VIRT_DMA).
 *
 * Knobs and counters, per port N, in /sys/kernel/debug/vg_fakedev/portN/:
 *
 *   rate     the port's rate in bytes/s, read-write: for the WRs posted
 *            after the write. 0 restores the default above; a TCG guest
 *            saturates a port at a few MB/s.
 *   bytes    bytes of the WRs the port completed successfully
 *   wrs      WRs the port completed successfully (signaled or not)
 *   flushed  WRs completed with IB_WC_WR_FLUSH_ERR (send and receive)
 *
 * and /sys/kernel/debug/vg_fakedev/overruns: completions lost because a
 * CQ was full (the owner sized it too small).
 *
 * Locking: one device-wide spinlock, vgf_dev::lock (irqsave: posts come
 * from any context), guards every QP's state and WR queues and both
 * ports' queues, clocks and counters; a CQ's own vgf_cq::lock (irqsave)
 * guards its ring and arming, and nests inside the device lock. Neither
 * is held when a comp_handler runs, so that it may poll and post.
 *
 *   insmod vg_fakedev.ko
 *   echo 10000000 > /sys/kernel/debug/vg_fakedev/port2/rate
 *
 * Never load it outside the test bed.
 */
#include <linux/debugfs.h>
#include <linux/hrtimer.h>
#include <linux/idr.h>
#include <linux/ktime.h>
#include <linux/math64.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#define VGF_PORTS		2
#define VGF_MAX_QP		1024
#define VGF_MAX_QP_WR		4096
#define VGF_MAX_SGE		32
#define VGF_MAX_INLINE		256
#define VGF_MAX_CQ		1024
#define VGF_MAX_CQE		65536
#define VGF_MAX_RD_ATOMIC	16
#define VGF_MAX_MSG		0x80000000U
/* Above any rate a port could have, so that bytes * NSEC_PER_SEC fits. */
#define VGF_MAX_RATE		(1000ULL * 1000 * 1000 * 1000)
/* "vg", a locally administered GUID. */
#define VGF_NODE_GUID		0x0276670000000000ULL

/* What each port reports, and its default rate in bytes/s (data). */
static const struct {
	u8 width;
	u16 speed;
	u64 rate;
} vgf_port_link[VGF_PORTS] = {
	{ IB_WIDTH_4X, IB_SPEED_QDR, 4ULL * 8000 * 1000 * 1000 / 8 },
	{ IB_WIDTH_1X, IB_SPEED_SDR, 1ULL * 2000 * 1000 * 1000 / 8 },
};

struct vgf_dev;

/* A port: the WRs it sends, its clock, its rate and its counters. */
struct vgf_port {
	struct vgf_dev *dev;
	u32 num;
	struct hrtimer timer;
	/* WRs being sent, in post order: their done times ascend. */
	struct list_head txq;
	/* WRs of QPs in error, to complete with a flush error next. */
	struct list_head flushq;
	/* When the port has sent every WR of txq. */
	ktime_t busy_until;
	/* When the port finished the last WR it completed. */
	ktime_t last_done;
	u64 rate;
	u64 bytes;
	u64 wrs;
	u64 flushed;
	/* Odd while the timer's callback runs: see vgf_sync_fire(). */
	u32 cb_seq;
};

struct vgf_dev {
	struct ib_device ibdev;
	spinlock_t lock;	/* see the top of this file */
	struct vgf_port port[VGF_PORTS];
	struct ida qpn_ida;
	/* Wakes those waiting for a timer callback to finish. */
	wait_queue_head_t fire_wait;
	atomic_t ncq;
	atomic_t nqp;
	atomic_t mr_key;
	u64 overruns;
	struct dentry *dir;
};

struct vgf_pd {
	struct ib_pd ibpd;
};

struct vgf_mr {
	struct ib_mr ibmr;
};

struct vgf_cq {
	struct ib_cq ibcq;
	spinlock_t lock;	/* the ring and its arming */
	struct ib_wc *ring;
	u32 size;
	u32 head;
	u32 count;
	/* IB_CQ_NEXT_COMP, IB_CQ_SOLICITED or 0: what the owner armed. */
	u8 notify;
	/* On a timer callback's list of CQs whose comp_handler is due. */
	bool fire;
	struct list_head fire_node;
};

struct vgf_qp;

/* A posted WR, on its QP's free list, its posted receives or a port. */
struct vgf_wqe {
	struct list_head node;
	struct vgf_qp *qp;
	u64 wr_id;
	ktime_t posted;
	ktime_t done;
	u64 tx_ns;
	u32 bytes;
	u8 opcode;	/* enum ib_wc_opcode */
	bool signaled;
	bool recv;
};

/* A send or receive queue: its slots, the free ones on a list. */
struct vgf_wq {
	struct vgf_wqe *wqe;
	struct list_head free;
	u32 max;
};

struct vgf_qp {
	struct ib_qp ibqp;
	enum ib_qp_state state;
	/* 1-based; 0 until the QP is given one (RESET to INIT). */
	u32 port;
	bool sig_all;
	struct ib_qp_cap cap;
	struct vgf_wq sq;
	struct vgf_wq rq;
	/* Receive WRs posted and never consumed: nothing arrives. */
	struct list_head posted_recvs;
	/* What modify_qp was told, for query_qp. */
	struct ib_qp_attr attr;
};

static struct vgf_dev *vgf_the_dev;

static struct vgf_dev *to_vdev(struct ib_device *ibdev)
{
	return container_of(ibdev, struct vgf_dev, ibdev);
}

static struct vgf_cq *to_vcq(struct ib_cq *ibcq)
{
	return container_of(ibcq, struct vgf_cq, ibcq);
}

static struct vgf_qp *to_vqp(struct ib_qp *ibqp)
{
	return container_of(ibqp, struct vgf_qp, ibqp);
}

/* The port a QP's WRs go through; port 1 for a QP that has none yet. */
static struct vgf_port *vgf_qp_port(struct vgf_dev *dev, struct vgf_qp *qp)
{
	return &dev->port[qp->port ? qp->port - 1 : 0];
}

/* Process context: attributes of the device. */
static int vgf_query_device(struct ib_device *ibdev,
			    struct ib_device_attr *a, struct ib_udata *udata)
{
	if (udata && (udata->inlen || udata->outlen))
		return -EINVAL;
	memset(a, 0, sizeof(*a));
	a->sys_image_guid = cpu_to_be64(VGF_NODE_GUID);
	a->max_mr_size = U64_MAX;
	a->page_size_cap = PAGE_SIZE;
	a->max_qp = VGF_MAX_QP;
	a->max_qp_wr = VGF_MAX_QP_WR;
	a->kernel_cap_flags = IBK_LOCAL_DMA_LKEY;
	a->max_send_sge = VGF_MAX_SGE;
	a->max_recv_sge = VGF_MAX_SGE;
	a->max_sge_rd = VGF_MAX_SGE;
	a->max_cq = VGF_MAX_CQ;
	a->max_cqe = VGF_MAX_CQE;
	a->max_mr = 1 << 20;
	a->max_pd = 1 << 20;
	a->max_qp_rd_atom = VGF_MAX_RD_ATOMIC;
	a->max_qp_init_rd_atom = VGF_MAX_RD_ATOMIC;
	a->max_res_rd_atom = VGF_MAX_RD_ATOMIC * VGF_MAX_QP;
	a->atomic_cap = IB_ATOMIC_NONE;
	a->masked_atomic_cap = IB_ATOMIC_NONE;
	a->max_pkeys = 1;
	a->local_ca_ack_delay = 15;
	return 0;
}

/* Any context: the link of a port (see the top of this file). */
static int vgf_query_port(struct ib_device *ibdev, u32 port,
			  struct ib_port_attr *a)
{
	if (port < 1 || port > VGF_PORTS)
		return -EINVAL;
	/* ib_query_port() zeroed it. */
	a->state = IB_PORT_ACTIVE;
	a->phys_state = IB_PORT_PHYS_STATE_LINK_UP;
	a->max_mtu = IB_MTU_4096;
	a->active_mtu = IB_MTU_4096;
	a->phys_mtu = 4096;
	a->gid_tbl_len = 1;
	a->pkey_tbl_len = 1;
	a->max_msg_sz = VGF_MAX_MSG;
	a->lid = port;
	a->max_vl_num = 1;
	a->active_width = vgf_port_link[port - 1].width;
	a->active_speed = vgf_port_link[port - 1].speed;
	return 0;
}

/* Process context (registration): IB transport, no MAD of any kind. */
static int vgf_get_port_immutable(struct ib_device *ibdev, u32 port,
				  struct ib_port_immutable *im)
{
	im->pkey_tbl_len = 1;
	im->gid_tbl_len = 1;
	im->core_cap_flags = RDMA_CORE_CAP_PROT_IB;
	im->max_mad_size = 0;
	return 0;
}

/* Process context: the default P_Key only. */
static int vgf_query_pkey(struct ib_device *ibdev, u32 port, u16 index,
			  u16 *pkey)
{
	if (index)
		return -EINVAL;
	*pkey = 0xffff;
	return 0;
}

/* Process context: the port's link-local GID. */
static int vgf_query_gid(struct ib_device *ibdev, u32 port, int index,
			 union ib_gid *gid)
{
	if (index)
		return -EINVAL;
	gid->global.subnet_prefix = cpu_to_be64(0xfe80000000000000ULL);
	gid->global.interface_id = cpu_to_be64(VGF_NODE_GUID + port);
	return 0;
}

/* Process context: a PD is nothing but its ib_core object. */
static int vgf_alloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

/* Process context. */
static int vgf_dealloc_pd(struct ib_pd *pd, struct ib_udata *udata)
{
	return 0;
}

/* Process context: an MR over all memory; keys are never checked. */
static struct ib_mr *vgf_get_dma_mr(struct ib_pd *pd, int access)
{
	struct vgf_dev *dev = to_vdev(pd->device);
	struct vgf_mr *mr = kzalloc(sizeof(*mr), GFP_KERNEL);
	u32 key;

	if (!mr)
		return ERR_PTR(-ENOMEM);
	/* Key 0 is the local DMA lkey. */
	key = (u32)atomic_inc_return(&dev->mr_key) << 8;
	mr->ibmr.lkey = key;
	mr->ibmr.rkey = key;
	return &mr->ibmr;
}

/* No user verbs; ib_core wants the op to call the device a kernel one. */
static struct ib_mr *vgf_reg_user_mr(struct ib_pd *pd, u64 start, u64 len,
				     u64 virt, int access,
				     struct ib_udata *udata)
{
	return ERR_PTR(-EOPNOTSUPP);
}

/* Process context. */
static int vgf_dereg_mr(struct ib_mr *ibmr, struct ib_udata *udata)
{
	kfree(container_of(ibmr, struct vgf_mr, ibmr));
	return 0;
}

/* Process context: a CQ of attr->cqe entries. */
static int vgf_create_cq(struct ib_cq *ibcq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata)
{
	struct vgf_dev *dev = to_vdev(ibcq->device);
	struct vgf_cq *cq = to_vcq(ibcq);

	if (udata)
		return -EOPNOTSUPP;
	if (attr->flags)
		return -EOPNOTSUPP;
	if (!attr->cqe || attr->cqe > VGF_MAX_CQE)
		return -EINVAL;
	if (atomic_inc_return(&dev->ncq) > VGF_MAX_CQ) {
		atomic_dec(&dev->ncq);
		return -ENOMEM;
	}
	cq->ring = kvcalloc(attr->cqe, sizeof(*cq->ring), GFP_KERNEL);
	if (!cq->ring) {
		atomic_dec(&dev->ncq);
		return -ENOMEM;
	}
	spin_lock_init(&cq->lock);
	INIT_LIST_HEAD(&cq->fire_node);
	cq->size = attr->cqe;
	ibcq->cqe = attr->cqe;
	return 0;
}

/*
 * Process context; takes the device lock. Returns once no timer
 * callback still holds a CQ to call its comp_handler, of a QP whose WRs
 * the caller has just taken off the ports: such a callback started
 * (cb_seq odd) before they were taken, under the device lock. A
 * callback starting later cannot find them.
 */
static void vgf_sync_fire(struct vgf_dev *dev)
{
	u32 seq[VGF_PORTS];
	int i;

	spin_lock_irq(&dev->lock);
	for (i = 0; i < VGF_PORTS; i++)
		seq[i] = READ_ONCE(dev->port[i].cb_seq);
	spin_unlock_irq(&dev->lock);
	for (i = 0; i < VGF_PORTS; i++)
		if (seq[i] & 1)
			wait_event(dev->fire_wait,
				   READ_ONCE(dev->port[i].cb_seq) != seq[i]);
}

/* Process context; its QPs are gone (ib_core counts them). */
static int vgf_destroy_cq(struct ib_cq *ibcq, struct ib_udata *udata)
{
	struct vgf_dev *dev = to_vdev(ibcq->device);
	struct vgf_cq *cq = to_vcq(ibcq);

	vgf_sync_fire(dev);
	kvfree(cq->ring);
	atomic_dec(&dev->ncq);
	return 0;
}

/* Any context: up to @n completions, oldest first; takes the CQ lock. */
static int vgf_poll_cq(struct ib_cq *ibcq, int n, struct ib_wc *wc)
{
	struct vgf_cq *cq = to_vcq(ibcq);
	unsigned long flags;
	int i;

	spin_lock_irqsave(&cq->lock, flags);
	for (i = 0; i < n && cq->count; i++) {
		wc[i] = cq->ring[cq->head];
		cq->head = (cq->head + 1) % cq->size;
		cq->count--;
	}
	spin_unlock_irqrestore(&cq->lock, flags);
	return i;
}

/* Any context: arm the CQ for its next event; takes the CQ lock. */
static int vgf_req_notify_cq(struct ib_cq *ibcq, enum ib_cq_notify_flags f)
{
	struct vgf_cq *cq = to_vcq(ibcq);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&cq->lock, flags);
	if ((f & IB_CQ_SOLICITED_MASK) == IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_NEXT_COMP;
	else if (cq->notify != IB_CQ_NEXT_COMP)
		cq->notify = IB_CQ_SOLICITED;
	if ((f & IB_CQ_REPORT_MISSED_EVENTS) && cq->count)
		ret = 1;
	spin_unlock_irqrestore(&cq->lock, flags);
	return ret;
}

/*
 * Under the device lock: add @wc to @cq. If the CQ was armed for it,
 * disarm it and put it on @fire, whose comp_handlers the caller calls
 * once it dropped the lock (vgf_fire()). Takes the CQ lock.
 */
static void vgf_cq_push(struct vgf_dev *dev, struct vgf_cq *cq,
			const struct ib_wc *wc, struct list_head *fire)
{
	lockdep_assert_held(&dev->lock);

	spin_lock(&cq->lock);
	if (cq->count == cq->size) {
		dev->overruns++;
		pr_err_ratelimited("vg_fakedev: CQ of %u entries overrun, completion of WR %llx lost\n",
				   cq->size, wc->wr_id);
	} else {
		cq->ring[(cq->head + cq->count) % cq->size] = *wc;
		cq->count++;
		if (cq->notify == IB_CQ_NEXT_COMP ||
		    (cq->notify == IB_CQ_SOLICITED &&
		     wc->status != IB_WC_SUCCESS)) {
			cq->notify = 0;
			if (!cq->fire) {
				cq->fire = true;
				list_add_tail(&cq->fire_node, fire);
			}
		}
	}
	spin_unlock(&cq->lock);
}

/*
 * Softirq (the timer callback), no lock held: call the comp_handler of
 * each CQ on @fire. Takes each CQ's lock. The CQs stay valid: their QPs
 * cannot be destroyed before the callback ends (vgf_sync_fire()).
 */
static void vgf_fire(struct list_head *fire)
{
	struct vgf_cq *cq;
	unsigned long flags;

	while (!list_empty(fire)) {
		cq = list_first_entry(fire, struct vgf_cq, fire_node);
		spin_lock_irqsave(&cq->lock, flags);
		list_del_init(&cq->fire_node);
		/* Armed again from now on, by another callback too. */
		cq->fire = false;
		spin_unlock_irqrestore(&cq->lock, flags);
		if (cq->ibcq.comp_handler)
			cq->ibcq.comp_handler(&cq->ibcq, cq->ibcq.cq_context);
	}
}

/* Under the device lock: a WR's slot back to its queue's free list. */
static void vgf_wqe_free(struct vgf_wqe *w)
{
	struct vgf_wq *wq = w->recv ? &w->qp->rq : &w->qp->sq;

	lockdep_assert_held(&to_vdev(w->qp->ibqp.device)->lock);

	list_move_tail(&w->node, &wq->free);
}

/*
 * Under the device lock: complete @w, which @port sent (IB_WC_SUCCESS)
 * or flushed; its completion goes to its CQ if the WR was signaled or
 * failed, and the CQ to @fire if armed.
 */
static void vgf_complete(struct vgf_port *port, struct vgf_wqe *w,
			 enum ib_wc_status status, struct list_head *fire)
{
	struct vgf_qp *qp = w->qp;
	struct ib_wc wc = {
		.wr_id = w->wr_id,
		.status = status,
		.opcode = w->opcode,
		.qp = &qp->ibqp,
		.src_qp = qp->ibqp.qp_num,
		.port_num = port->num,
	};

	lockdep_assert_held(&port->dev->lock);

	if (status == IB_WC_SUCCESS) {
		port->last_done = w->done;
		port->bytes += w->bytes;
		port->wrs++;
		if (w->opcode == IB_WC_RDMA_READ)
			wc.byte_len = w->bytes;
	} else {
		port->flushed++;
	}
	if (w->signaled || status != IB_WC_SUCCESS)
		vgf_cq_push(port->dev, to_vcq(w->recv ? qp->ibqp.recv_cq :
						       qp->ibqp.send_cq),
			    &wc, fire);
	vgf_wqe_free(w);
}

/*
 * Under the device lock: have the timer fire when the port has work
 * next: now for flushes, else when the first WR of txq is sent. The
 * callback itself calls this for what remains, so the timer is pending
 * or running whenever a queue is not empty.
 */
static void vgf_port_arm(struct vgf_port *port)
{
	struct vgf_wqe *w;

	lockdep_assert_held(&port->dev->lock);

	if (!list_empty(&port->flushq)) {
		hrtimer_start(&port->timer, ktime_get(), HRTIMER_MODE_ABS_SOFT);
	} else if (!list_empty(&port->txq)) {
		w = list_first_entry(&port->txq, struct vgf_wqe, node);
		hrtimer_start(&port->timer, w->done, HRTIMER_MODE_ABS_SOFT);
	}
}

/* Softirq: complete what the port flushed and what it has sent. */
static enum hrtimer_restart vgf_port_timer(struct hrtimer *timer)
{
	struct vgf_port *port = container_of(timer, struct vgf_port, timer);
	struct vgf_dev *dev = port->dev;
	struct vgf_wqe *w, *tmp;
	unsigned long flags;
	LIST_HEAD(fire);
	ktime_t now;

	spin_lock_irqsave(&dev->lock, flags);
	port->cb_seq++;
	list_for_each_entry_safe(w, tmp, &port->flushq, node)
		vgf_complete(port, w, IB_WC_WR_FLUSH_ERR, &fire);
	now = ktime_get();
	list_for_each_entry_safe(w, tmp, &port->txq, node) {
		if (ktime_after(w->done, now))
			break;
		vgf_complete(port, w, IB_WC_SUCCESS, &fire);
	}
	vgf_port_arm(port);
	spin_unlock_irqrestore(&dev->lock, flags);
	vgf_fire(&fire);
	/* Pairs with the read in vgf_sync_fire()'s wait. */
	smp_store_release(&port->cb_seq, port->cb_seq + 1);
	if (wq_has_sleeper(&dev->fire_wait))
		wake_up(&dev->fire_wait);
	return HRTIMER_NORESTART;
}

/*
 * Under the device lock: take the QP's WRs off the port's txq, to its
 * flushq (@flush) or their free list. The port spends no more time on
 * them than it already has: until now on one it had started. The WRs
 * behind them move up, each starting no earlier than it was posted;
 * those before them keep their times.
 */
static void vgf_port_take(struct vgf_port *port, struct vgf_qp *qp,
			  bool flush)
{
	ktime_t start, end, t = port->last_done, now = ktime_get();
	struct vgf_wqe *w, *tmp;
	bool moved = false;

	lockdep_assert_held(&port->dev->lock);

	list_for_each_entry_safe(w, tmp, &port->txq, node) {
		if (w->qp != qp) {
			if (moved)
				w->done = ktime_add_ns(max(t, w->posted),
						       w->tx_ns);
			t = w->done;
			continue;
		}
		start = moved ? max(t, w->posted) :
				ktime_sub_ns(w->done, w->tx_ns);
		end = ktime_add_ns(start, w->tx_ns);
		if (ktime_before(start, now))
			t = max(t, min(now, end));
		moved = true;
		if (flush)
			list_move_tail(&w->node, &port->flushq);
		else
			vgf_wqe_free(w);
	}
	if (moved)
		port->busy_until = t;
}

/*
 * Under the device lock: take the QP's WRs off its port. @flush: they
 * complete with a flush error next (the QP goes to error); otherwise
 * they go without a trace (reset, destroy).
 */
static void vgf_qp_take_wrs(struct vgf_dev *dev, struct vgf_qp *qp,
			    bool flush)
{
	struct vgf_port *port = vgf_qp_port(dev, qp);
	struct vgf_wqe *w, *tmp;

	lockdep_assert_held(&dev->lock);

	vgf_port_take(port, qp, flush);
	list_for_each_entry_safe(w, tmp, &qp->posted_recvs, node) {
		if (flush)
			list_move_tail(&w->node, &port->flushq);
		else
			vgf_wqe_free(w);
	}
	if (!flush) {
		list_for_each_entry_safe(w, tmp, &port->flushq, node)
			if (w->qp == qp)
				vgf_wqe_free(w);
	}
	vgf_port_arm(port);
}

/* Process context: @wq with @max slots. Return: 0 or -ENOMEM. */
static int vgf_wq_init(struct vgf_wq *wq, struct vgf_qp *qp, u32 max,
		       bool recv)
{
	u32 i;

	INIT_LIST_HEAD(&wq->free);
	wq->max = max;
	if (!max)
		return 0;
	wq->wqe = kvcalloc(max, sizeof(*wq->wqe), GFP_KERNEL);
	if (!wq->wqe)
		return -ENOMEM;
	for (i = 0; i < max; i++) {
		wq->wqe[i].qp = qp;
		wq->wqe[i].recv = recv;
		list_add_tail(&wq->wqe[i].node, &wq->free);
	}
	return 0;
}

/* Process context: a kernel RC or UC QP in RESET. */
static int vgf_create_qp(struct ib_qp *ibqp, struct ib_qp_init_attr *init,
			 struct ib_udata *udata)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);
	struct ib_qp_cap *cap = &init->cap;
	int ret;

	if (udata)
		return -EOPNOTSUPP;
	if (init->qp_type != IB_QPT_RC && init->qp_type != IB_QPT_UC)
		return -EOPNOTSUPP;
	if (init->srq || init->create_flags || init->rwq_ind_tbl)
		return -EOPNOTSUPP;
	if (cap->max_send_wr > VGF_MAX_QP_WR ||
	    cap->max_recv_wr > VGF_MAX_QP_WR ||
	    cap->max_send_sge > VGF_MAX_SGE ||
	    cap->max_recv_sge > VGF_MAX_SGE ||
	    cap->max_inline_data > VGF_MAX_INLINE)
		return -EINVAL;
	if (atomic_inc_return(&dev->nqp) > VGF_MAX_QP) {
		ret = -ENOMEM;
		goto err_count;
	}
	ret = ida_alloc_range(&dev->qpn_ida, 2, VGF_MAX_QP + 1, GFP_KERNEL);
	if (ret < 0)
		goto err_count;
	ibqp->qp_num = ret;
	INIT_LIST_HEAD(&qp->posted_recvs);
	ret = vgf_wq_init(&qp->sq, qp, cap->max_send_wr, false);
	if (!ret)
		ret = vgf_wq_init(&qp->rq, qp, cap->max_recv_wr, true);
	if (ret)
		goto err_wq;
	qp->state = IB_QPS_RESET;
	qp->sig_all = init->sq_sig_type == IB_SIGNAL_ALL_WR;
	qp->cap = *cap;
	return 0;

err_wq:
	kvfree(qp->sq.wqe);
	kvfree(qp->rq.wqe);
	ida_free(&dev->qpn_ida, ibqp->qp_num);
err_count:
	atomic_dec(&dev->nqp);
	return ret;
}

/* Process context: may @attr with @mask take @qp from @cur to @next? */
static int vgf_modify_check(struct vgf_qp *qp, struct ib_qp_attr *attr,
			    int mask, enum ib_qp_state cur,
			    enum ib_qp_state next)
{
	if (!ib_modify_qp_is_ok(cur, next, qp->ibqp.qp_type, mask))
		return -EINVAL;
	if ((mask & IB_QP_PORT) &&
	    (attr->port_num < 1 || attr->port_num > VGF_PORTS))
		return -EINVAL;
	if ((mask & IB_QP_PKEY_INDEX) && attr->pkey_index)
		return -EINVAL;
	if ((mask & IB_QP_PATH_MTU) &&
	    (attr->path_mtu < IB_MTU_256 || attr->path_mtu > IB_MTU_4096))
		return -EINVAL;
	if ((mask & IB_QP_AV) &&
	    (attr->ah_attr.type != RDMA_AH_ATTR_TYPE_IB ||
	     rdma_ah_get_ah_flags(&attr->ah_attr) & IB_AH_GRH))
		return -EINVAL;
	if ((mask & IB_QP_MAX_QP_RD_ATOMIC) &&
	    attr->max_rd_atomic > VGF_MAX_RD_ATOMIC)
		return -EINVAL;
	if ((mask & IB_QP_MAX_DEST_RD_ATOMIC) &&
	    attr->max_dest_rd_atomic > VGF_MAX_RD_ATOMIC)
		return -EINVAL;
	return 0;
}

/* Under the device lock: remember what query_qp reports. */
static void vgf_modify_keep(struct vgf_qp *qp, const struct ib_qp_attr *attr,
			    int mask)
{
	struct ib_qp_attr *k = &qp->attr;

	lockdep_assert_held(&to_vdev(qp->ibqp.device)->lock);

	if (mask & IB_QP_PORT)
		qp->port = attr->port_num;
	if (mask & IB_QP_ACCESS_FLAGS)
		k->qp_access_flags = attr->qp_access_flags;
	if (mask & IB_QP_PKEY_INDEX)
		k->pkey_index = attr->pkey_index;
	if (mask & IB_QP_QKEY)
		k->qkey = attr->qkey;
	if (mask & IB_QP_AV) {
		k->ah_attr = attr->ah_attr;
		k->ah_attr.grh.sgid_attr = NULL;
	}
	if (mask & IB_QP_PATH_MTU)
		k->path_mtu = attr->path_mtu;
	if (mask & IB_QP_TIMEOUT)
		k->timeout = attr->timeout;
	if (mask & IB_QP_RETRY_CNT)
		k->retry_cnt = attr->retry_cnt;
	if (mask & IB_QP_RNR_RETRY)
		k->rnr_retry = attr->rnr_retry;
	if (mask & IB_QP_RQ_PSN)
		k->rq_psn = attr->rq_psn;
	if (mask & IB_QP_SQ_PSN)
		k->sq_psn = attr->sq_psn;
	if (mask & IB_QP_MAX_QP_RD_ATOMIC)
		k->max_rd_atomic = attr->max_rd_atomic;
	if (mask & IB_QP_MAX_DEST_RD_ATOMIC)
		k->max_dest_rd_atomic = attr->max_dest_rd_atomic;
	if (mask & IB_QP_MIN_RNR_TIMER)
		k->min_rnr_timer = attr->min_rnr_timer;
	if (mask & IB_QP_DEST_QPN)
		k->dest_qp_num = attr->dest_qp_num;
}

/*
 * Process context; takes the device lock. The state machine is
 * ib_modify_qp_is_ok()'s; a QP's port is set at RESET to INIT (or INIT to
 * INIT, when no WR of it is on a port). To RESET: the QP's WRs go. To
 * ERR: they are flushed.
 */
static int vgf_modify_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			 int mask, struct ib_udata *udata)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);
	enum ib_qp_state cur, next;
	int ret;

	if (udata && udata->inlen)
		return -EOPNOTSUPP;
	if (mask & ~IB_QP_ATTR_STANDARD_BITS)
		return -EOPNOTSUPP;
	spin_lock_irq(&dev->lock);
	cur = mask & IB_QP_CUR_STATE ? attr->cur_qp_state : qp->state;
	next = mask & IB_QP_STATE ? attr->qp_state : cur;
	ret = vgf_modify_check(qp, attr, mask, cur, next);
	if (ret)
		goto out;
	if (next == IB_QPS_RESET)
		vgf_qp_take_wrs(dev, qp, false);
	else if (next == IB_QPS_ERR && qp->state != IB_QPS_ERR)
		vgf_qp_take_wrs(dev, qp, true);
	/* Only now: the WRs were on the old port (to RESET: none left). */
	vgf_modify_keep(qp, attr, mask);
	if (next == IB_QPS_RESET)
		qp->port = 0;
	qp->state = next;
out:
	spin_unlock_irq(&dev->lock);
	return ret;
}

/* Process context; takes the device lock. */
static int vgf_query_qp(struct ib_qp *ibqp, struct ib_qp_attr *attr,
			int mask, struct ib_qp_init_attr *init)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);

	memset(init, 0, sizeof(*init));
	spin_lock_irq(&dev->lock);
	*attr = qp->attr;
	attr->qp_state = qp->state;
	attr->cur_qp_state = qp->state;
	attr->port_num = qp->port;
	spin_unlock_irq(&dev->lock);
	attr->cap = qp->cap;
	attr->path_mig_state = IB_MIG_MIGRATED;
	init->cap = qp->cap;
	init->qp_type = ibqp->qp_type;
	init->sq_sig_type = qp->sig_all ? IB_SIGNAL_ALL_WR : IB_SIGNAL_REQ_WR;
	init->send_cq = ibqp->send_cq;
	init->recv_cq = ibqp->recv_cq;
	init->qp_context = ibqp->qp_context;
	return 0;
}

/*
 * Process context: the QP's WRs go without completions; once no timer
 * callback can still call a comp_handler of its CQs, it goes. Takes the
 * device lock.
 */
static int vgf_destroy_qp(struct ib_qp *ibqp, struct ib_udata *udata)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);

	spin_lock_irq(&dev->lock);
	vgf_qp_take_wrs(dev, qp, false);
	qp->state = IB_QPS_RESET;
	spin_unlock_irq(&dev->lock);
	vgf_sync_fire(dev);
	kvfree(qp->sq.wqe);
	kvfree(qp->rq.wqe);
	ida_free(&dev->qpn_ida, ibqp->qp_num);
	atomic_dec(&dev->nqp);
	return 0;
}

/* Any context: the completion opcode of a send opcode, or -EINVAL. */
static int vgf_wc_opcode(enum ib_wr_opcode op)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
		return IB_WC_RDMA_WRITE;
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
		return IB_WC_SEND;
	case IB_WR_RDMA_READ:
		return IB_WC_RDMA_READ;
	default:
		return -EINVAL;
	}
}

/*
 * Under the device lock: queue one send WR of @qp on its port (or, in
 * error, to be flushed). Return: 0 or -errno.
 */
static int vgf_post_one(struct vgf_dev *dev, struct vgf_qp *qp,
			const struct ib_send_wr *wr)
{
	struct vgf_port *port = vgf_qp_port(dev, qp);
	struct vgf_wqe *w;
	u64 bytes = 0;
	ktime_t now;
	int i, op;

	lockdep_assert_held(&dev->lock);

	if (qp->state != IB_QPS_RTS && qp->state != IB_QPS_ERR)
		return -EINVAL;
	op = vgf_wc_opcode(wr->opcode);
	if (op < 0)
		return op;
	if (wr->num_sge < 0 || (!(wr->send_flags & IB_SEND_INLINE) &&
				wr->num_sge > qp->cap.max_send_sge))
		return -EINVAL;
	for (i = 0; i < wr->num_sge; i++)
		bytes += wr->sg_list[i].length;
	if (bytes > VGF_MAX_MSG)
		return -EINVAL;
	if ((wr->send_flags & IB_SEND_INLINE) && bytes > qp->cap.max_inline_data)
		return -EINVAL;
	if (list_empty(&qp->sq.free))
		return -ENOMEM;
	w = list_first_entry(&qp->sq.free, struct vgf_wqe, node);
	w->wr_id = wr->wr_id;
	w->bytes = bytes;
	w->opcode = op;
	w->signaled = qp->sig_all || (wr->send_flags & IB_SEND_SIGNALED);
	if (qp->state == IB_QPS_ERR) {
		list_move_tail(&w->node, &port->flushq);
		vgf_port_arm(port);
		return 0;
	}
	now = ktime_get();
	w->posted = now;
	w->tx_ns = div64_u64(bytes * NSEC_PER_SEC, port->rate);
	w->done = ktime_add_ns(max(now, port->busy_until), w->tx_ns);
	port->busy_until = w->done;
	list_move_tail(&w->node, &port->txq);
	if (list_is_first(&w->node, &port->txq))
		vgf_port_arm(port);
	return 0;
}

/* Any context: the chain goes on the QP's port; takes the device lock. */
static int vgf_post_send(struct ib_qp *ibqp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);
	unsigned long flags;
	int ret = 0;

	spin_lock_irqsave(&dev->lock, flags);
	for (; wr; wr = wr->next) {
		ret = vgf_post_one(dev, qp, wr);
		if (ret)
			break;
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (ret && bad)
		*bad = wr;
	return ret;
}

/*
 * Any context; takes the device lock. Receive WRs wait forever, as
 * nothing arrives, until the QP fails or is reset.
 */
static int vgf_post_recv(struct ib_qp *ibqp, const struct ib_recv_wr *wr,
			 const struct ib_recv_wr **bad)
{
	struct vgf_dev *dev = to_vdev(ibqp->device);
	struct vgf_qp *qp = to_vqp(ibqp);
	struct vgf_port *port = vgf_qp_port(dev, qp);
	unsigned long flags;
	struct vgf_wqe *w;
	int ret = 0;

	spin_lock_irqsave(&dev->lock, flags);
	for (; wr; wr = wr->next) {
		if (qp->state == IB_QPS_RESET) {
			ret = -EINVAL;
			break;
		}
		if (wr->num_sge < 0 || wr->num_sge > qp->cap.max_recv_sge) {
			ret = -EINVAL;
			break;
		}
		if (list_empty(&qp->rq.free)) {
			ret = -ENOMEM;
			break;
		}
		w = list_first_entry(&qp->rq.free, struct vgf_wqe, node);
		w->wr_id = wr->wr_id;
		w->bytes = 0;
		w->opcode = IB_WC_RECV;
		w->signaled = true;
		if (qp->state == IB_QPS_ERR) {
			list_move_tail(&w->node, &port->flushq);
			vgf_port_arm(port);
		} else {
			list_move_tail(&w->node, &qp->posted_recvs);
		}
	}
	spin_unlock_irqrestore(&dev->lock, flags);
	if (ret && bad)
		*bad = wr;
	return ret;
}

static const struct ib_device_ops vgf_ops = {
	.owner = THIS_MODULE,
	.driver_id = RDMA_DRIVER_UNKNOWN,

	.alloc_pd = vgf_alloc_pd,
	.create_cq = vgf_create_cq,
	.create_qp = vgf_create_qp,
	.dealloc_pd = vgf_dealloc_pd,
	.dereg_mr = vgf_dereg_mr,
	.destroy_cq = vgf_destroy_cq,
	.destroy_qp = vgf_destroy_qp,
	.get_dma_mr = vgf_get_dma_mr,
	.get_port_immutable = vgf_get_port_immutable,
	.modify_qp = vgf_modify_qp,
	.poll_cq = vgf_poll_cq,
	.post_recv = vgf_post_recv,
	.post_send = vgf_post_send,
	.query_device = vgf_query_device,
	.query_gid = vgf_query_gid,
	.query_pkey = vgf_query_pkey,
	.query_port = vgf_query_port,
	.query_qp = vgf_query_qp,
	.reg_user_mr = vgf_reg_user_mr,
	.req_notify_cq = vgf_req_notify_cq,

	INIT_RDMA_OBJ_SIZE(ib_cq, vgf_cq, ibcq),
	INIT_RDMA_OBJ_SIZE(ib_pd, vgf_pd, ibpd),
	INIT_RDMA_OBJ_SIZE(ib_qp, vgf_qp, ibqp),
};

/* debugfs: process context; takes the device lock. */
static int vgf_rate_get(void *data, u64 *val)
{
	struct vgf_port *port = data;

	spin_lock_irq(&port->dev->lock);
	*val = port->rate;
	spin_unlock_irq(&port->dev->lock);
	return 0;
}

/* debugfs: process context; takes the device lock. 0: the default. */
static int vgf_rate_set(void *data, u64 val)
{
	struct vgf_port *port = data;

	if (val > VGF_MAX_RATE)
		return -EINVAL;
	spin_lock_irq(&port->dev->lock);
	port->rate = val ?: vgf_port_link[port->num - 1].rate;
	spin_unlock_irq(&port->dev->lock);
	return 0;
}

DEFINE_DEBUGFS_ATTRIBUTE(vgf_rate_fops, vgf_rate_get, vgf_rate_set, "%llu\n");

/* Process context (init): the knobs and counters of the top comment. */
static void vgf_debugfs_init(struct vgf_dev *dev)
{
	struct dentry *d;
	char name[8];
	int i;

	dev->dir = debugfs_create_dir("vg_fakedev", NULL);
	debugfs_create_u64("overruns", 0444, dev->dir, &dev->overruns);
	for (i = 0; i < VGF_PORTS; i++) {
		snprintf(name, sizeof(name), "port%d", i + 1);
		d = debugfs_create_dir(name, dev->dir);
		debugfs_create_file_unsafe("rate", 0644, d, &dev->port[i],
					   &vgf_rate_fops);
		debugfs_create_u64("bytes", 0444, d, &dev->port[i].bytes);
		debugfs_create_u64("wrs", 0444, d, &dev->port[i].wrs);
		debugfs_create_u64("flushed", 0444, d, &dev->port[i].flushed);
	}
}

/* Process context (insmod). */
static int __init vgf_init(void)
{
	struct vgf_dev *dev;
	struct vgf_port *port;
	int i, ret;

	dev = ib_alloc_device(vgf_dev, ibdev);
	if (!dev)
		return -ENOMEM;
	spin_lock_init(&dev->lock);
	ida_init(&dev->qpn_ida);
	init_waitqueue_head(&dev->fire_wait);
	for (i = 0; i < VGF_PORTS; i++) {
		port = &dev->port[i];
		port->dev = dev;
		port->num = i + 1;
		port->rate = vgf_port_link[i].rate;
		INIT_LIST_HEAD(&port->txq);
		INIT_LIST_HEAD(&port->flushq);
		hrtimer_init(&port->timer, CLOCK_MONOTONIC,
			     HRTIMER_MODE_ABS_SOFT);
		port->timer.function = vgf_port_timer;
	}
	dev->ibdev.node_type = RDMA_NODE_IB_CA;
	dev->ibdev.node_guid = cpu_to_be64(VGF_NODE_GUID);
	dev->ibdev.phys_port_cnt = VGF_PORTS;
	dev->ibdev.num_comp_vectors = 1;
	dev->ibdev.local_dma_lkey = 0;
	strscpy(dev->ibdev.node_desc, "verbsgate test device",
		sizeof(dev->ibdev.node_desc));
	ib_set_device_ops(&dev->ibdev, &vgf_ops);
	/* No DMA device: kernel virtual addresses are the DMA addresses. */
	ret = ib_register_device(&dev->ibdev, "vgfake%d", NULL);
	if (ret) {
		ib_dealloc_device(&dev->ibdev);
		return ret;
	}
	vgf_debugfs_init(dev);
	vgf_the_dev = dev;
	pr_info("vg_fakedev: %s: port 1 4X QDR (%llu B/s), port 2 1X SDR (%llu B/s)\n",
		dev_name(&dev->ibdev.dev), dev->port[0].rate,
		dev->port[1].rate);
	return 0;
}

/* Process context (rmmod): the clients tear their QPs down first. */
static void __exit vgf_exit(void)
{
	struct vgf_dev *dev = vgf_the_dev;
	int i;

	debugfs_remove_recursive(dev->dir);
	ib_unregister_device(&dev->ibdev);
	for (i = 0; i < VGF_PORTS; i++)
		hrtimer_cancel(&dev->port[i].timer);
	ida_destroy(&dev->qpn_ida);
	ib_dealloc_device(&dev->ibdev);
}

module_init(vgf_init);
module_exit(vgf_exit);

MODULE_DESCRIPTION("verbsgate test bed: a two-port software RDMA device");
MODULE_LICENSE("GPL");
