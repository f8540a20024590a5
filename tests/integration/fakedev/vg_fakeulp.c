// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_fakeulp: a test-only kernel ULP that drives both ports of the
 * two-port test device (vg_fakedev, "vgfake0") at once, so that a test
 * can see each port's throughput follow its own rate.
 *
 * On `echo MS > /sys/kernel/debug/vg_fakeulp/run` it connects, on each
 * port in @ports, two RC QPs of the port to each other (the device
 * delivers nothing; the responder only has to exist), keeps @window
 * signaled RDMA WRITEs of @size bytes posted on each port for MS
 * milliseconds (each completion posts the next, from the CQ's softirq
 * poller), then stops posting and waits for what is outstanding. With
 * @flush it instead moves the senders to the error state at once
 * (ib_drain_qp()), so that what is outstanding is flushed. Then it
 * drains and destroys everything. The write fails with -EIO if a WR
 * completed out of order, failed, or did not complete exactly once;
 * the results stay in /sys/kernel/debug/vg_fakeulp/result, a line per
 * port:
 *
 *   port 1: bytes B wrs W bytes_total BT wrs_total WT posted P
 *           flushed F errors E disorder D ns N       (on one line)
 *
 * bytes and wrs: WRITEs completed successfully within the MS; _total:
 * all those completed successfully, outstanding ones included (the
 * device's own counters must grow by as much); posted: WRITEs posted;
 * ns: the run's duration, from the first post to the stop.
 *
 *   insmod vg_fakeulp.ko size=65536 window=16
 *   echo 2000 > /sys/kernel/debug/vg_fakeulp/run
 *   cat /sys/kernel/debug/vg_fakeulp/result
 *
 * Never load it outside the test bed.
 */
#include <linux/debugfs.h>
#include <linux/delay.h>
#include <linux/ktime.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/wait.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

#define VGFU_PORTS		2
#define VGFU_MAX_WINDOW		256
#define VGFU_MAX_SIZE		(16U << 20)
#define VGFU_MAX_MS		60000

static char *dev = "vgfake0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the two-port RDMA device");
static uint size = 65536;
module_param(size, uint, 0644);
MODULE_PARM_DESC(size, "bytes per RDMA WRITE");
static uint window = 16;
module_param(window, uint, 0644);
MODULE_PARM_DESC(window, "RDMA WRITEs outstanding per port (at most 256)");
static uint ports = 3;
module_param(ports, uint, 0644);
MODULE_PARM_DESC(ports, "bit N-1 set: drive port N (default both)");
static bool flush;
module_param(flush, bool, 0644);
MODULE_PARM_DESC(flush, "at the stop, fail the senders with WRs outstanding");

struct vgfu_port;

/* One WRITE of the window: the completion it expects. */
struct vgfu_slot {
	struct ib_cqe cqe;
	struct vgfu_port *port;
	u64 seq;
};

struct vgfu_run;

/* What runs on one port, and what it counted. */
struct vgfu_port {
	struct vgfu_run *run;
	u32 num;
	spinlock_t lock;	/* counters and posts: poller and starter */
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	void *buf[2];
	u64 addr[2];
	struct vgfu_slot slot[VGFU_MAX_WINDOW];
	u64 posted;
	u64 next_seq;
	u32 outstanding;
	u64 bytes;
	u64 wrs;
	u64 bytes_total;
	u64 wrs_total;
	u64 flushed;
	u64 errors;
	u64 disorder;
};

struct vgfu_run {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	u32 size;
	u32 window;
	bool stop;
	wait_queue_head_t wq;
	struct vgfu_port port[VGFU_PORTS];
};

/* Serialises runs; guards vgfu_result. */
static DEFINE_MUTEX(vgfu_lock);
static char vgfu_result[512];
static struct dentry *vgfu_dir;

/* Under the port's lock: post @s as the port's next WRITE. */
static int vgfu_post(struct vgfu_port *p, struct vgfu_slot *s)
{
	struct vgfu_run *r = p->run;
	struct ib_sge sge = {
		.addr = p->addr[0],
		.length = r->size,
		.lkey = r->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &s->cqe,
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = p->addr[1],
		.rkey = r->pd->unsafe_global_rkey,
	};

	lockdep_assert_held(&p->lock);

	s->seq = p->posted;
	p->posted++;
	return ib_post_send(p->qp[0], &wr.wr, NULL);
}

/*
 * The CQ's poller (softirq): count the completion, check its order,
 * and post the next WRITE unless the run stopped. Takes the port's lock.
 */
static void vgfu_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vgfu_slot *s = container_of(wc->wr_cqe, struct vgfu_slot, cqe);
	struct vgfu_port *p = s->port;
	struct vgfu_run *r = p->run;
	bool more = false, idle;

	spin_lock(&p->lock);
	if (s->seq != p->next_seq)
		p->disorder++;
	p->next_seq = s->seq + 1;
	if (wc->status == IB_WC_SUCCESS) {
		p->wrs_total++;
		p->bytes_total += r->size;
		if (!READ_ONCE(r->stop)) {
			p->wrs++;
			p->bytes += r->size;
			more = true;
		}
	} else if (wc->status == IB_WC_WR_FLUSH_ERR) {
		p->flushed++;
	} else {
		if (!p->errors)
			pr_err("vg_fakeulp: port %u: WRITE %llu failed: %s\n",
			       p->num, s->seq, ib_wc_status_msg(wc->status));
		p->errors++;
	}
	if (more && vgfu_post(p, s)) {
		p->errors++;
		more = false;
	}
	if (!more)
		p->outstanding--;
	idle = !p->outstanding;
	spin_unlock(&p->lock);
	/* The run outlives its CQ's poller (ib_free_cq() waits for it). */
	if (idle)
		wake_up(&r->wq);
}

/* Process context: one modify, logged if the device refuses it. */
static int vgfu_modify(struct ib_qp *qp, struct ib_qp_attr *a, int mask)
{
	int ret = ib_modify_qp(qp, a, mask);

	if (ret)
		pr_err("vg_fakeulp: QP %u: modify to state %d failed: %d\n",
		       qp->qp_num, a->qp_state, ret);
	return ret;
}

/*
 * Process context: @qp from RESET to RTS on @port, connected to QP
 * @peer on the same port (LID @lid): an InfiniBand AV, no GRH.
 */
static int vgfu_connect(struct ib_qp *qp, u32 port, u32 lid, u32 peer)
{
	struct ib_qp_attr a = {
		.qp_state = IB_QPS_INIT,
		.port_num = port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE,
	};
	int ret;

	ret = vgfu_modify(qp, &a, IB_QP_STATE | IB_QP_PKEY_INDEX |
			  IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTR;
	a.path_mtu = IB_MTU_4096;
	a.dest_qp_num = peer;
	a.max_dest_rd_atomic = 1;
	a.min_rnr_timer = 12;
	a.ah_attr.type = rdma_ah_find_type(qp->device, port);
	rdma_ah_set_port_num(&a.ah_attr, port);
	rdma_ah_set_dlid(&a.ah_attr, lid);
	ret = vgfu_modify(qp, &a, IB_QP_STATE | IB_QP_AV | IB_QP_PATH_MTU |
			  IB_QP_DEST_QPN | IB_QP_RQ_PSN |
			  IB_QP_MAX_DEST_RD_ATOMIC | IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&a, 0, sizeof(a));
	a.qp_state = IB_QPS_RTS;
	a.timeout = 14;
	a.retry_cnt = 7;
	a.rnr_retry = 7;
	a.max_rd_atomic = 1;
	return vgfu_modify(qp, &a, IB_QP_STATE | IB_QP_TIMEOUT |
			   IB_QP_RETRY_CNT | IB_QP_RNR_RETRY | IB_QP_SQ_PSN |
			   IB_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Process context: a CQ, two buffers and a connected QP pair on port
 * p->num. On failure the caller tears down what was made.
 */
static int vgfu_port_setup(struct vgfu_run *r, struct vgfu_port *p)
{
	struct ib_qp_init_attr init = {
		.cap = {
			/* One more for ib_drain_qp()'s WR. */
			.max_send_wr = r->window + 1,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	struct ib_port_attr pattr;
	int i, ret;

	ret = ib_query_port(r->ibdev, p->num, &pattr);
	if (ret)
		return ret;
	p->cq = ib_alloc_cq(r->ibdev, p, r->window + 4, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(p->cq)) {
		ret = PTR_ERR(p->cq);
		p->cq = NULL;
		return ret;
	}
	ret = vg_kconn_bufs_alloc(r->ibdev, p->buf, p->addr, 2, r->size);
	if (ret)
		return ret;
	init.send_cq = p->cq;
	init.recv_cq = p->cq;
	ret = vg_kconn_qps(r->pd, &init, p->qp);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		ret = vgfu_connect(p->qp[i], p->num, pattr.lid,
				   p->qp[1 - i]->qp_num);
		if (ret)
			return ret;
	}
	return 0;
}

/* Process context: drain and free what vgfu_port_setup() made. */
static void vgfu_port_teardown(struct vgfu_run *r, struct vgfu_port *p)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (!p->qp[i])
			continue;
		ib_drain_qp(p->qp[i]);
		ib_destroy_qp(p->qp[i]);
		p->qp[i] = NULL;
	}
	if (p->cq)
		ib_free_cq(p->cq);
	p->cq = NULL;
	vg_kconn_bufs_free(r->ibdev, p->buf, p->addr, 2, r->size);
}

/* Process context: the port's window posted; takes its lock. */
static int vgfu_port_start(struct vgfu_port *p)
{
	int ret = 0;
	u32 i;

	spin_lock_bh(&p->lock);
	for (i = 0; i < p->run->window; i++) {
		ret = vgfu_post(p, &p->slot[i]);
		if (ret)
			break;
		p->outstanding++;
	}
	spin_unlock_bh(&p->lock);
	if (ret)
		pr_err("vg_fakeulp: port %u: post failed: %d\n", p->num, ret);
	return ret;
}

/* Process context: nothing of the run is outstanding; takes the locks. */
static bool vgfu_idle(struct vgfu_run *r)
{
	u32 n = 0;
	int i;

	for (i = 0; i < VGFU_PORTS; i++) {
		spin_lock_bh(&r->port[i].lock);
		n += r->port[i].outstanding;
		spin_unlock_bh(&r->port[i].lock);
	}
	return !n;
}

/*
 * Process context, under vgfu_lock: the results in vgfu_result and on
 * the console. Return: 0 if every WR completed once, in order, and
 * without error (with @flush, flushed ones count), else -EIO.
 */
static int vgfu_report(struct vgfu_run *r, u64 ns)
{
	size_t len = 0, n;
	int i, ret = 0;

	vgfu_result[0] = '\0';
	for (i = 0; i < VGFU_PORTS; i++) {
		struct vgfu_port *p = &r->port[i];

		if (!(ports & BIT(i)))
			continue;
		n = scnprintf(vgfu_result + len, sizeof(vgfu_result) - len,
			      "port %u: bytes %llu wrs %llu bytes_total %llu wrs_total %llu posted %llu flushed %llu errors %llu disorder %llu ns %llu\n",
			      p->num, p->bytes, p->wrs, p->bytes_total,
			      p->wrs_total, p->posted, p->flushed, p->errors,
			      p->disorder, ns);
		pr_info("vg_fakeulp: %s", vgfu_result + len);
		len += n;
		if (p->errors || p->disorder ||
		    p->wrs_total + p->flushed != p->posted ||
		    (!flush && p->flushed)) {
			pr_err("vg_fakeulp: port %u: WRs lost, failed or out of order\n",
			       p->num);
			ret = -EIO;
		}
	}
	return ret;
}

/* Process context, under vgfu_lock: one run of @ms milliseconds. */
static int vgfu_run(u32 ms)
{
	struct vgfu_run *r;
	int i, j, ret = 0;
	ktime_t start;
	u64 ns = 0;

	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->size = READ_ONCE(size);
	r->window = READ_ONCE(window);
	init_waitqueue_head(&r->wq);
	for (i = 0; i < VGFU_PORTS; i++) {
		r->port[i].run = r;
		r->port[i].num = i + 1;
		spin_lock_init(&r->port[i].lock);
		for (j = 0; j < VGFU_MAX_WINDOW; j++) {
			r->port[i].slot[j].cqe.done = vgfu_done;
			r->port[i].slot[j].port = &r->port[i];
		}
	}
	r->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!r->ibdev) {
		kfree(r);
		return -ENODEV;
	}
	r->pd = ib_alloc_pd(r->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(r->pd)) {
		ret = PTR_ERR(r->pd);
		goto out_dev;
	}
	for (i = 0; i < VGFU_PORTS && !ret; i++)
		if (ports & BIT(i))
			ret = vgfu_port_setup(r, &r->port[i]);
	if (ret) {
		pr_err("vg_fakeulp: setup failed: %d\n", ret);
		goto out;
	}
	start = ktime_get();
	for (i = 0; i < VGFU_PORTS && !ret; i++)
		if (ports & BIT(i))
			ret = vgfu_port_start(&r->port[i]);
	if (!ret)
		msleep(ms);
	WRITE_ONCE(r->stop, true);
	ns = ktime_to_ns(ktime_sub(ktime_get(), start));
	/* Fail the senders: what they have outstanding is flushed. */
	for (i = 0; i < VGFU_PORTS && flush; i++)
		if (r->port[i].qp[0])
			ib_drain_qp(r->port[i].qp[0]);
	if (!wait_event_timeout(r->wq, vgfu_idle(r), 30 * HZ)) {
		pr_err("vg_fakeulp: WRITEs still outstanding after 30 s\n");
		ret = -ETIMEDOUT;
	}
out:
	for (i = 0; i < VGFU_PORTS; i++)
		vgfu_port_teardown(r, &r->port[i]);
	ib_dealloc_pd(r->pd);
	if (!ret)
		ret = vgfu_report(r, ns);
out_dev:
	ib_device_put(r->ibdev);
	kfree(r);
	return ret;
}

/* debugfs write: process context; sleeps for the run. */
static ssize_t vgfu_run_write(struct file *f, const char __user *ubuf,
			      size_t len, loff_t *ppos)
{
	u32 ms;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 0, &ms);
	if (ret)
		return ret;
	if (!ms || ms > VGFU_MAX_MS)
		return -EINVAL;
	if (!size || size > VGFU_MAX_SIZE || !window ||
	    window > VGFU_MAX_WINDOW || !(ports & GENMASK(VGFU_PORTS - 1, 0)))
		return -EINVAL;
	mutex_lock(&vgfu_lock);
	ret = vgfu_run(ms);
	mutex_unlock(&vgfu_lock);
	return ret ?: len;
}

/* debugfs read: process context; the last run's results. */
static ssize_t vgfu_result_read(struct file *f, char __user *ubuf,
				size_t len, loff_t *ppos)
{
	ssize_t ret;

	mutex_lock(&vgfu_lock);
	ret = simple_read_from_buffer(ubuf, len, ppos, vgfu_result,
				      strlen(vgfu_result));
	mutex_unlock(&vgfu_lock);
	return ret;
}

static const struct file_operations vgfu_run_fops = {
	.owner = THIS_MODULE,
	.write = vgfu_run_write,
};

static const struct file_operations vgfu_result_fops = {
	.owner = THIS_MODULE,
	.read = vgfu_result_read,
};

/* Process context (insmod). */
static int __init vgfu_init(void)
{
	vgfu_dir = debugfs_create_dir("vg_fakeulp", NULL);
	debugfs_create_file("run", 0200, vgfu_dir, NULL, &vgfu_run_fops);
	debugfs_create_file("result", 0444, vgfu_dir, NULL, &vgfu_result_fops);
	return 0;
}

/* Process context (rmmod): debugfs waits for a run to end. */
static void __exit vgfu_exit(void)
{
	debugfs_remove_recursive(vgfu_dir);
}

module_init(vgfu_init);
module_exit(vgfu_exit);

MODULE_DESCRIPTION("verbsgate test bed: a ULP that drives both ports of vgfake0");
MODULE_LICENSE("GPL");
