// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_readinv: a test-only module that reads with RDMA READ_WITH_INV on
 * rxe and checks the result.
 *
 * rxe in 6.1 accepts IB_WR_RDMA_READ_WITH_INV at post time but its
 * requester has no wire opcode for it and fails the WR with
 * IB_WC_LOC_QP_OP_ERR (next_opcode_rc()); only iWARP devices implement
 * it. So this module first gives rxe the verb, the way an iWARP device
 * behaves: its post_send turns a READ_WITH_INV into a READ followed by a
 * LOCAL_INV of ex.invalidate_rkey, which rxe executes only once every
 * earlier WR of the send queue has completed (its local invalidate
 * fence). The pair carries the WR's wr_id; only the LOCAL_INV may be
 * signaled, so the owner sees one completion (with opcode LOCAL_INV).
 * Plain READs passing by are counted, so a test can tell how a reader
 * above split its WR. Load it before verbsgate, unload it after.
 *
 * Then, on `echo BYTES > /sys/kernel/debug/vg_readinv/run`, it connects
 * two RC QPs of the device to each other and:
 *  1. registers a fast-registration MR over BYTES of zeroed pages;
 *  2. posts a plain READ of BYTES into a kmalloc'ed buffer and at once a
 *     READ_WITH_INV of BYTES into the MR (two SGEs, halves of the MR),
 *     invalidating the MR, each signaled; under pacing the second finds
 *     the first still queued;
 *  3. checks both completions and that both buffers hold the source;
 *  4. posts a READ of one page into the MR: it must fail, the MR being
 *     invalid.
 * The write returns 0 if all holds, else an error (details in dmesg).
 *
 *   insmod vg_readinv.ko dev=rxe0
 *   echo 262144 > /sys/kernel/debug/vg_readinv/run
 *   cat /sys/module/vg_readinv/parameters/{read_invs,reads}
 *
 * Never load it outside the test bed.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/debugfs.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device (rxe)");

static atomic_t vg_readinv_invs = ATOMIC_INIT(0);
static atomic_t vg_readinv_reads = ATOMIC_INIT(0);

static int vg_readinv_atomic_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(kp->arg));
}

static const struct kernel_param_ops vg_readinv_count_ops = {
	.get = vg_readinv_atomic_get,
};

module_param_cb(read_invs, &vg_readinv_count_ops, &vg_readinv_invs, 0444);
MODULE_PARM_DESC(read_invs, "READ_WITH_INV WRs the device was given");
module_param_cb(reads, &vg_readinv_count_ops, &vg_readinv_reads, 0444);
MODULE_PARM_DESC(reads, "plain READ WRs the device was given");

/* How long a step of a run may take: pacing is slow, TCG slower. */
#define VG_READINV_WAIT		(60 * HZ)
#define VG_READINV_MAX_BYTES	SZ_1M

static struct ib_device *vg_readinv_dev;
static int (*vg_readinv_orig)(struct ib_qp *qp, const struct ib_send_wr *wr,
			      const struct ib_send_wr **bad);
static struct dentry *vg_readinv_dir;
static DEFINE_MUTEX(vg_readinv_lock);	/* one run at a time */

/* -- the device's READ_WITH_INV ---------------------------------------- */

/*
 * Any context the poster is in; no locks. A READ_WITH_INV is accepted
 * alone in a chain (verbsgate posts chunks one by one; the run below
 * posts WRs one by one).
 */
static int vg_readinv_post(struct ib_qp *qp, const struct ib_send_wr *wr,
			   const struct ib_send_wr **bad)
{
	const struct ib_send_wr *w;
	struct ib_rdma_wr rd;
	struct ib_send_wr inv = {};

	for (w = wr; w; w = w->next) {
		if (w->opcode == IB_WR_RDMA_READ)
			atomic_inc(&vg_readinv_reads);
		if (w->opcode == IB_WR_RDMA_READ_WITH_INV &&
		    (w != wr || w->next)) {
			*bad = wr;
			return -EINVAL;
		}
	}
	if (wr->opcode != IB_WR_RDMA_READ_WITH_INV)
		return vg_readinv_orig(qp, wr, bad);

	atomic_inc(&vg_readinv_invs);
	rd = *rdma_wr(wr);
	rd.wr.opcode = IB_WR_RDMA_READ;
	rd.wr.send_flags &= ~IB_SEND_SIGNALED;
	rd.wr.next = &inv;
	inv.wr_id = wr->wr_id;
	inv.opcode = IB_WR_LOCAL_INV;
	inv.send_flags = wr->send_flags & IB_SEND_SIGNALED;
	inv.ex.invalidate_rkey = wr->ex.invalidate_rkey;
	if (vg_readinv_orig(qp, &rd.wr, bad)) {
		*bad = wr;
		return -ENOMEM;
	}
	return 0;
}

/* -- a run ---------------------------------------------------------------- */

struct vg_readinv_wait {
	struct ib_cqe cqe;
	struct completion done;
	enum ib_wc_status status;
};

/* The CQ's poller (softirq). */
static void vg_readinv_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vg_readinv_wait *w =
		container_of(wc->wr_cqe, struct vg_readinv_wait, cqe);

	w->status = wc->status;
	complete(&w->done);
}

static void vg_readinv_wait_init(struct vg_readinv_wait *w)
{
	w->cqe.done = vg_readinv_done;
	init_completion(&w->done);
	w->status = IB_WC_GENERAL_ERR;
}

/* Process context; sleeps. Return: the completion's status, or -ETIME. */
static int vg_readinv_wait(struct vg_readinv_wait *w, const char *what)
{
	if (wait_for_completion_killable_timeout(&w->done, VG_READINV_WAIT) <= 0) {
		pr_err("vg_readinv: no completion for %s\n", what);
		return -ETIME;
	}
	if (w->status != IB_WC_SUCCESS)
		pr_info("vg_readinv: %s completed with %s\n", what,
			ib_wc_status_msg(w->status));
	return w->status;
}

struct vg_readinv_run {
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct ib_mr *mr;
	struct sg_table sgt;
	int nmapped;
	u8 *src;
	u8 *plain;
	u32 bytes;
};

/* Process context. Frees what vg_readinv_setup() got. */
static void vg_readinv_teardown(struct vg_readinv_run *r)
{
	struct scatterlist *sg;
	int i;

	for (i = 0; i < 2; i++)
		if (r->qp[i])
			ib_destroy_qp(r->qp[i]);
	if (r->mr)
		ib_dereg_mr(r->mr);
	if (r->nmapped)
		ib_dma_unmap_sg(vg_readinv_dev, r->sgt.sgl, r->sgt.orig_nents,
				DMA_FROM_DEVICE);
	if (r->sgt.sgl) {
		for_each_sgtable_sg(&r->sgt, sg, i)
			if (sg_page(sg))
				__free_page(sg_page(sg));
		sg_free_table(&r->sgt);
	}
	if (r->cq)
		ib_free_cq(r->cq);
	if (r->pd)
		ib_dealloc_pd(r->pd);
	kfree(r->src);
	kfree(r->plain);
}

/* Process context; GFP_KERNEL. */
static int vg_readinv_setup(struct vg_readinv_run *r)
{
	u32 pages = r->bytes >> PAGE_SHIFT;
	struct ib_qp_init_attr qa = {};
	struct scatterlist *sg;
	struct vg_kconn_addr where;
	int i, ret;

	r->src = kmalloc(r->bytes, GFP_KERNEL);
	r->plain = kzalloc(r->bytes, GFP_KERNEL);
	if (!r->src || !r->plain)
		return -ENOMEM;
	for (i = 0; i < r->bytes; i++)
		r->src[i] = (u8)(i * 7 + i / 4093);
	r->pd = ib_alloc_pd(vg_readinv_dev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(r->pd)) {
		ret = PTR_ERR(r->pd);
		r->pd = NULL;
		return ret;
	}
	r->cq = ib_alloc_cq(vg_readinv_dev, NULL, 256, 0, IB_POLL_SOFTIRQ);
	if (IS_ERR(r->cq)) {
		ret = PTR_ERR(r->cq);
		r->cq = NULL;
		return ret;
	}
	qa.send_cq = r->cq;
	qa.recv_cq = r->cq;
	qa.qp_type = IB_QPT_RC;
	qa.sq_sig_type = IB_SIGNAL_REQ_WR;
	qa.cap.max_send_wr = 64;
	qa.cap.max_recv_wr = 4;
	qa.cap.max_send_sge = 2;
	qa.cap.max_recv_sge = 1;
	ret = vg_kconn_qps(r->pd, &qa, r->qp);
	if (ret)
		return ret;
	ret = vg_kconn_addr(vg_readinv_dev, 1, &where);
	if (ret)
		return ret;
	for (i = 0; i < 2; i++) {
		/* Up to 8 READs each way: the READ and the READ_WITH_INV. */
		ret = vg_kconn_connect(r->qp[i], r->qp[!i]->qp_num, &where, 8);
		if (ret)
			return ret;
	}

	/* The sink: zeroed pages behind a fast-registration MR. */
	ret = sg_alloc_table(&r->sgt, pages, GFP_KERNEL);
	if (ret)
		return ret;
	for_each_sgtable_sg(&r->sgt, sg, i) {
		struct page *pg = alloc_page(GFP_KERNEL | __GFP_ZERO);

		if (!pg)
			return -ENOMEM;
		sg_set_page(sg, pg, PAGE_SIZE, 0);
	}
	r->nmapped = ib_dma_map_sg(vg_readinv_dev, r->sgt.sgl, pages,
				   DMA_FROM_DEVICE);
	if (!r->nmapped)
		return -EIO;
	r->mr = ib_alloc_mr(r->pd, IB_MR_TYPE_MEM_REG, pages);
	if (IS_ERR(r->mr)) {
		ret = PTR_ERR(r->mr);
		r->mr = NULL;
		return ret;
	}
	ret = ib_map_mr_sg(r->mr, r->sgt.sgl, r->nmapped, NULL, PAGE_SIZE);
	return ret == r->nmapped ? 0 : -EIO;
}

/* Post @wr alone on the reader's QP. Process context. */
static int vg_readinv_post1(struct vg_readinv_run *r, struct ib_send_wr *wr,
			    const char *what)
{
	const struct ib_send_wr *bad;
	int ret = ib_post_send(r->qp[0], wr, &bad);

	if (ret)
		pr_err("vg_readinv: posting %s failed (%d)\n", what, ret);
	return ret;
}

/* Whether the MR's pages hold the source. Process context. */
static bool vg_readinv_sink_ok(struct vg_readinv_run *r)
{
	struct scatterlist *sg;
	int i;

	for_each_sgtable_sg(&r->sgt, sg, i)
		if (memcmp(page_address(sg_page(sg)),
			   r->src + (size_t)i * PAGE_SIZE, PAGE_SIZE)) {
			pr_err("vg_readinv: page %d of the MR differs\n", i);
			return false;
		}
	return true;
}

/* Process context; sleeps. Return: 0 if every check held. */
static int vg_readinv_run(u32 bytes)
{
	struct vg_readinv_wait wreg, wplain, wread, wlate;
	struct vg_readinv_run r = { .bytes = bytes };
	struct ib_rdma_wr plain = {}, rinv = {}, late = {};
	struct ib_reg_wr reg = {};
	struct ib_sge sge[2], psge, lsge;
	int ret;

	ret = vg_readinv_setup(&r);
	if (ret) {
		pr_err("vg_readinv: setup failed (%d)\n", ret);
		goto out;
	}

	/* 1. Register the MR, readable locally only. */
	vg_readinv_wait_init(&wreg);
	ib_update_fast_reg_key(r.mr, ib_inc_rkey(r.mr->rkey));
	reg.wr.opcode = IB_WR_REG_MR;
	reg.wr.wr_cqe = &wreg.cqe;
	reg.wr.send_flags = IB_SEND_SIGNALED;
	reg.mr = r.mr;
	reg.key = r.mr->rkey;
	reg.access = IB_ACCESS_LOCAL_WRITE;
	ret = vg_readinv_post1(&r, &reg.wr, "REG_MR");
	if (!ret)
		ret = vg_readinv_wait(&wreg, "REG_MR");
	if (ret)
		goto out;

	/* 2. A plain READ, and behind it the READ_WITH_INV. */
	vg_readinv_wait_init(&wplain);
	psge.addr = ib_dma_map_single(vg_readinv_dev, r.plain, bytes,
				      DMA_FROM_DEVICE);
	psge.length = bytes;
	psge.lkey = r.pd->local_dma_lkey;
	plain.wr.opcode = IB_WR_RDMA_READ;
	plain.wr.wr_cqe = &wplain.cqe;
	plain.wr.send_flags = IB_SEND_SIGNALED;
	plain.wr.sg_list = &psge;
	plain.wr.num_sge = 1;
	plain.remote_addr = (uintptr_t)r.src;
	plain.rkey = r.pd->unsafe_global_rkey;

	vg_readinv_wait_init(&wread);
	sge[0].addr = r.mr->iova;
	sge[0].length = bytes / 2;
	sge[0].lkey = r.mr->lkey;
	sge[1].addr = r.mr->iova + bytes / 2;
	sge[1].length = bytes - bytes / 2;
	sge[1].lkey = r.mr->lkey;
	rinv.wr.opcode = IB_WR_RDMA_READ_WITH_INV;
	rinv.wr.wr_cqe = &wread.cqe;
	rinv.wr.send_flags = IB_SEND_SIGNALED;
	rinv.wr.sg_list = sge;
	rinv.wr.num_sge = 2;
	rinv.wr.ex.invalidate_rkey = r.mr->rkey;
	rinv.remote_addr = (uintptr_t)r.src;
	rinv.rkey = r.pd->unsafe_global_rkey;

	ret = vg_readinv_post1(&r, &plain.wr, "READ");
	if (ret) {
		ib_dma_unmap_single(vg_readinv_dev, psge.addr, bytes,
				    DMA_FROM_DEVICE);
		goto out;
	}
	ret = vg_readinv_post1(&r, &rinv.wr, "READ_WITH_INV");
	/* The READ is in flight either way. */
	if (vg_readinv_wait(&wplain, "READ"))
		ret = ret ?: -EIO;
	ib_dma_unmap_single(vg_readinv_dev, psge.addr, bytes, DMA_FROM_DEVICE);
	if (ret)
		goto out;

	/* 3. Both complete, both buffers hold the source. */
	ret = vg_readinv_wait(&wread, "READ_WITH_INV");
	if (ret)
		goto out;
	if (memcmp(r.plain, r.src, bytes)) {
		pr_err("vg_readinv: the plain READ's data differs\n");
		ret = -EIO;
		goto out;
	}
	if (!vg_readinv_sink_ok(&r)) {
		ret = -EIO;
		goto out;
	}

	/* 4. The MR is invalid now: a READ into it fails. */
	vg_readinv_wait_init(&wlate);
	lsge.addr = r.mr->iova;
	lsge.length = PAGE_SIZE;
	lsge.lkey = r.mr->lkey;
	late.wr.opcode = IB_WR_RDMA_READ;
	late.wr.wr_cqe = &wlate.cqe;
	late.wr.send_flags = IB_SEND_SIGNALED;
	late.wr.sg_list = &lsge;
	late.wr.num_sge = 1;
	late.remote_addr = (uintptr_t)r.src;
	late.rkey = r.pd->unsafe_global_rkey;
	ret = vg_readinv_post1(&r, &late.wr, "READ into the invalidated MR");
	if (ret)
		goto out;
	ret = vg_readinv_wait(&wlate, "READ into the invalidated MR");
	if (ret == -ETIME)
		goto out;
	if (ret == IB_WC_SUCCESS) {
		pr_err("vg_readinv: the MR is still valid after READ_WITH_INV\n");
		ret = -EIO;
		goto out;
	}
	ret = 0;
	pr_info("vg_readinv: %u bytes read and the MR invalidated\n", bytes);
out:
	/* The QPs are in error now, or idle: nothing completes late. */
	vg_readinv_teardown(&r);
	return ret > 0 ? -EIO : ret;
}

/* debugfs write: process context; sleeps. */
static ssize_t vg_readinv_run_write(struct file *f, const char __user *ubuf,
				    size_t len, loff_t *ppos)
{
	u32 bytes;
	int ret;

	ret = kstrtou32_from_user(ubuf, len, 0, &bytes);
	if (ret)
		return ret;
	if (!bytes || bytes > VG_READINV_MAX_BYTES || !PAGE_ALIGNED(bytes))
		return -EINVAL;
	mutex_lock(&vg_readinv_lock);
	ret = vg_readinv_run(bytes);
	mutex_unlock(&vg_readinv_lock);
	return ret ?: len;
}

static const struct file_operations vg_readinv_run_fops = {
	.owner = THIS_MODULE,
	.write = vg_readinv_run_write,
};

/* Process context (insmod). */
static int __init vg_readinv_init(void)
{
	vg_readinv_dev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!vg_readinv_dev)
		return -ENODEV;
	vg_readinv_orig = vg_readinv_dev->ops.post_send;
	WRITE_ONCE(vg_readinv_dev->ops.post_send, vg_readinv_post);
	vg_readinv_dir = debugfs_create_dir("vg_readinv", NULL);
	debugfs_create_file("run", 0200, vg_readinv_dir, NULL,
			    &vg_readinv_run_fops);
	return 0;
}

/* Process context (rmmod); verbsgate is unloaded, no run is going on. */
static void __exit vg_readinv_exit(void)
{
	debugfs_remove_recursive(vg_readinv_dir);
	if (vg_readinv_dev->ops.post_send == vg_readinv_post)
		WRITE_ONCE(vg_readinv_dev->ops.post_send, vg_readinv_orig);
	synchronize_rcu();
	ib_device_put(vg_readinv_dev);
}

module_init(vg_readinv_init);
module_exit(vg_readinv_exit);
MODULE_DESCRIPTION("verbsgate test bed: RDMA READ_WITH_INV on rxe");
MODULE_LICENSE("GPL");
