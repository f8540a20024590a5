// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_rcpair: a test-only module that runs a kernel RC QP pair on an RDMA
 * device's loopback, as a ULP would, once, when it is loaded:
 *
 *  1. creates two RC QPs (send queues of @sq WRs) on one CQ and connects
 *     them to each other over the device's first RoCE v2 GID;
 *  2. RDMA WRITEs @len bytes from QP A into a buffer behind QP B and
 *     checks every byte;
 *  3. @resets times: posts three WRITEs and moves QP A to ERR, then both
 *     QPs to ERR and through RESET->INIT->RTR->RTS, and moves data again
 *     as in 2. Odd rounds poll the three completions before the error (as
 *     ULPs drain); even rounds error and reset the QPs with the WRITEs
 *     still in the driver, the CQ or verbsgate, and poll what completes
 *     of them afterwards, mixed with new completions;
 *  4. @rts_resets times: posts three WRITEs into a third buffer and moves
 *     both QPs straight from RTS to RESET, which discards every WR in
 *     the send queue without a completion; clears that buffer, connects
 *     the QPs again and moves data as in 2. Nothing may write the third
 *     buffer after the reset: a WR discarded by the reset must never
 *     execute (verbsgate must forget the WRs it still held).
 *
 * Every completion must name a WR posted and not yet completed, or one
 * posted before the last reset (completions the driver made before it
 * may be polled after it); the WRITEs of step 2 must succeed. insmod
 * fails (-EIO, or the error of the verb that failed) with the reason in
 * the kernel log otherwise. Unload it with rmmod afterwards. Never load
 * it outside the test bed.
 *
 *   insmod vg_rcpair.ko dev=rxe0 len=262144 resets=2 rts_resets=2
 *
 * Context: process context (insmod); polls its CQ and sleeps between
 * empty polls. Takes no locks of its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");

static uint len = 256 * 1024;
module_param(len, uint, 0444);
MODULE_PARM_DESC(len, "bytes per RDMA WRITE (at most 4 MiB)");

static uint sq = 16;
module_param(sq, uint, 0444);
MODULE_PARM_DESC(sq, "send queue size each QP asks for");

static uint resets = 2;
module_param(resets, uint, 0444);
MODULE_PARM_DESC(resets, "error/reset/reuse rounds");

static uint rts_resets;
module_param(rts_resets, uint, 0444);
MODULE_PARM_DESC(rts_resets, "rounds that reset straight from RTS with WRs posted");

#define VG_RCPAIR_PORT		1
#define VG_RCPAIR_CQE		1024
#define VG_RCPAIR_TIMEOUT	(20 * HZ)
/* WRs a test keeps track of between two checks. */
#define VG_RCPAIR_MAX_OUT	16

/*
 * A WR posted since the last reset: its completion may be polled while
 * waiting for another one, and is kept until its own wait.
 */
struct vg_rcpair_wr {
	u64 id;			/* 0: a free slot */
	bool done;
	enum ib_wc_status status;
};

struct vg_rcpair {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	struct ib_qp *qp[2];
	struct vg_kconn_addr addr;
	/* source, destination, destination of the WRs a reset discards */
	u8 *buf[3];
	u64 dma[3];
	/* WRs posted and not yet waited for */
	struct vg_rcpair_wr out[VG_RCPAIR_MAX_OUT];
	u64 next_id;
	/* wr_ids up to this one were posted before the last reset */
	u64 gone;
};

/* Completions come from polling only. */
static void vg_rcpair_comp(struct ib_cq *cq, void *ctx)
{
}

static int vg_rcpair_modify(struct ib_qp *qp, struct ib_qp_attr *a, int mask,
			    const char *what)
{
	int ret = ib_modify_qp(qp, a, mask);

	if (ret)
		pr_err("QP %u: modify to %s failed: %d\n", qp->qp_num, what,
		       ret);
	return ret;
}

static int vg_rcpair_set_state(struct ib_qp *qp, enum ib_qp_state state,
			       const char *what)
{
	struct ib_qp_attr a = { .qp_state = state };

	return vg_rcpair_modify(qp, &a, IB_QP_STATE, what);
}

/*
 * Record a completion of @wc's WR for its wait. Return: 0, or -EIO if it
 * names no WR posted, or one that has completed already.
 */
static int vg_rcpair_retire(struct vg_rcpair *t, const struct ib_wc *wc)
{
	int i;

	if (wc->wr_id && wc->wr_id <= t->gone)
		return 0;
	for (i = 0; i < VG_RCPAIR_MAX_OUT; i++) {
		if (wc->wr_id && t->out[i].id == wc->wr_id && !t->out[i].done) {
			t->out[i].done = true;
			t->out[i].status = wc->status;
			return 0;
		}
	}
	pr_err("completion of no WR outstanding: wr_id %llx status %d\n",
	       wc->wr_id, wc->status);
	return -EIO;
}

/*
 * If @id has completed, free its slot and return true with *@status its
 * status.
 */
static bool vg_rcpair_take(struct vg_rcpair *t, u64 id,
			   enum ib_wc_status *status)
{
	int i;

	for (i = 0; i < VG_RCPAIR_MAX_OUT; i++) {
		if (t->out[i].id == id && t->out[i].done) {
			*status = t->out[i].status;
			t->out[i].id = 0;
			return true;
		}
	}
	return false;
}

/*
 * Poll until @id has completed, recording every completion: one polled
 * in the same batch as an earlier WR's waits for its own call. Return: 0
 * with *@status its status, or -EIO (a completion of no WR), -ETIMEDOUT.
 */
static int vg_rcpair_wait(struct vg_rcpair *t, u64 id,
			  enum ib_wc_status *status)
{
	unsigned long until = jiffies + VG_RCPAIR_TIMEOUT;
	struct ib_wc wc[8];
	int i, n, ret;

	while (!vg_rcpair_take(t, id, status)) {
		n = ib_poll_cq(t->cq, ARRAY_SIZE(wc), wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			ret = vg_rcpair_retire(t, &wc[i]);
			if (ret)
				return ret;
		}
		if (n)
			continue;
		if (time_after(jiffies, until)) {
			pr_err("no completion of wr_id %llx\n", id);
			return -ETIMEDOUT;
		}
		usleep_range(500, 1000);
	}
	return 0;
}

/*
 * Post a signaled RDMA WRITE of buf[0] into buf[@to] on QP A; 0 or
 * -errno.
 */
static int vg_rcpair_write_to(struct vg_rcpair *t, u32 rkey, int to, u64 *id)
{
	struct ib_sge *sge = kzalloc(sizeof(*sge), GFP_KERNEL);
	struct ib_rdma_wr *w = kzalloc(sizeof(*w), GFP_KERNEL);
	const struct ib_send_wr *bad;
	int i, ret;

	if (!sge || !w) {
		ret = -ENOMEM;
		goto out;
	}
	for (i = 0; i < VG_RCPAIR_MAX_OUT && t->out[i].id; i++)
		;
	if (i == VG_RCPAIR_MAX_OUT) {
		ret = -EOVERFLOW;
		goto out;
	}
	*id = ++t->next_id;
	sge->addr = t->dma[0];
	sge->length = len;
	sge->lkey = t->pd->local_dma_lkey;
	w->wr.wr_id = *id;
	w->wr.opcode = IB_WR_RDMA_WRITE;
	w->wr.send_flags = IB_SEND_SIGNALED;
	w->wr.sg_list = sge;
	w->wr.num_sge = 1;
	w->remote_addr = t->dma[to];
	w->rkey = rkey;
	/* The posted WR is copied (by the driver or verbsgate). */
	ret = ib_post_send(t->qp[0], &w->wr, &bad);
	if (ret)
		pr_err("post_send failed: %d\n", ret);
	else
		t->out[i] = (struct vg_rcpair_wr){ .id = *id };
out:
	kfree(w);
	kfree(sge);
	return ret;
}

static void vg_rcpair_fill(struct vg_rcpair *t, u32 round)
{
	u32 i;

	for (i = 0; i < len; i++)
		t->buf[0][i] = (u8)(i * 31 + (i >> 12) + round * 7 + 1);
	memset(t->buf[1], 0, len);
}

/* Step 2: one WRITE, checked byte by byte. */
static int vg_rcpair_move(struct vg_rcpair *t, u32 round)
{
	enum ib_wc_status status;
	u64 id;
	int ret;
	u32 i;

	vg_rcpair_fill(t, round);
	ib_dma_sync_single_for_device(t->ibdev, t->dma[0], len, DMA_BIDIRECTIONAL);
	ret = vg_rcpair_write_to(t, t->pd->unsafe_global_rkey, 1, &id);
	if (ret)
		return ret;
	ret = vg_rcpair_wait(t, id, &status);
	if (ret)
		return ret;
	if (status != IB_WC_SUCCESS) {
		pr_err("round %u: WRITE completed with status %d\n", round,
		       status);
		return -EIO;
	}
	ib_dma_sync_single_for_cpu(t->ibdev, t->dma[1], len, DMA_BIDIRECTIONAL);
	for (i = 0; i < len; i++) {
		if (t->buf[1][i] != t->buf[0][i]) {
			pr_err("round %u: byte %u is %#x, written %#x\n", round,
			       i, t->buf[1][i], t->buf[0][i]);
			return -EIO;
		}
	}
	return 0;
}

/*
 * Step 3's error: three WRITEs and QP A moved to ERR. Drained, they
 * complete first (rxe 6.1 may leave a WR that is in its requester when
 * the QP enters ERR without a flush completion); otherwise QP A goes to
 * ERR at once, while they are in flight in the driver or in verbsgate,
 * and their completions come, if ever, after the reset.
 */
static int vg_rcpair_fail(struct vg_rcpair *t, bool drain)
{
	u32 rkey = t->pd->unsafe_global_rkey;
	enum ib_wc_status status;
	u64 id[3];
	int i, ret;

	for (i = 0; i < 3; i++) {
		ret = vg_rcpair_write_to(t, rkey, 1, &id[i]);
		if (ret)
			return ret;
	}
	for (i = 0; drain && i < 3; i++) {
		ret = vg_rcpair_wait(t, id[i], &status);
		if (ret)
			return ret;
		if (status != IB_WC_SUCCESS) {
			pr_err("WR %d completed with status %d\n", i, status);
			return -EIO;
		}
	}
	return vg_rcpair_set_state(t->qp[0], IB_QPS_ERR, "ERR");
}

/*
 * Both QPs to RESET (through ERR if @via_err) and back to RTS; what was
 * outstanding is forgotten, as a reset forgets it.
 */
static int vg_rcpair_reset(struct vg_rcpair *t, bool via_err)
{
	int i, ret;

	for (i = 0; via_err && i < 2; i++) {
		ret = vg_rcpair_set_state(t->qp[i], IB_QPS_ERR, "ERR");
		if (ret)
			return ret;
	}
	for (i = 0; i < 2; i++) {
		ret = vg_rcpair_set_state(t->qp[i], IB_QPS_RESET, "RESET");
		if (ret)
			return ret;
	}
	t->gone = t->next_id;
	memset(t->out, 0, sizeof(t->out));
	/* A WR the driver had started has finished writing by now. */
	msleep(20);
	memset(t->buf[2], 0, len);
	ib_dma_sync_single_for_device(t->ibdev, t->dma[2], len,
				      DMA_BIDIRECTIONAL);
	for (i = 0; i < 2; i++) {
		ret = vg_kconn_connect(t->qp[i], t->qp[1 - i]->qp_num,
				       &t->addr, 1);
		if (ret)
			return ret;
	}
	return 0;
}

/* Step 4's check: nothing wrote buf[2] since the reset. */
static int vg_rcpair_check_discarded(struct vg_rcpair *t, u32 round)
{
	u32 i;

	ib_dma_sync_single_for_cpu(t->ibdev, t->dma[2], len, DMA_BIDIRECTIONAL);
	for (i = 0; i < len; i++) {
		if (t->buf[2][i]) {
			pr_err("round %u: a WRITE discarded by the reset wrote byte %u after it\n",
			       round, i);
			return -EIO;
		}
	}
	return 0;
}

/* Step 4: three WRITEs into buf[2], then RESET straight from RTS. */
static int vg_rcpair_rts_round(struct vg_rcpair *t, u32 round)
{
	u64 id;
	int i, ret;

	for (i = 0; i < 3; i++) {
		ret = vg_rcpair_write_to(t, t->pd->unsafe_global_rkey, 2, &id);
		if (ret)
			return ret;
	}
	ret = vg_rcpair_reset(t, false);
	if (!ret)
		ret = vg_rcpair_move(t, round);
	if (ret) {
		pr_err("round %u: no data moved after the reset from RTS\n",
		       round);
		return ret;
	}
	/* What verbsgate would still have posted has gone by now. */
	msleep(200);
	return vg_rcpair_check_discarded(t, round);
}

static int vg_rcpair_create(struct vg_rcpair *t)
{
	struct ib_qp_init_attr init = {};
	struct ib_cq_init_attr cqa = { .cqe = VG_RCPAIR_CQE };
	int i, ret;

	t->pd = ib_alloc_pd(t->ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(t->pd)) {
		ret = PTR_ERR(t->pd);
		t->pd = NULL;
		return ret;
	}
	t->cq = ib_create_cq(t->ibdev, vg_rcpair_comp, NULL, t, &cqa);
	if (IS_ERR(t->cq)) {
		ret = PTR_ERR(t->cq);
		t->cq = NULL;
		return ret;
	}
	init.send_cq = t->cq;
	init.recv_cq = t->cq;
	init.cap.max_send_wr = sq;
	init.cap.max_recv_wr = 1;
	init.cap.max_send_sge = 1;
	init.cap.max_recv_sge = 1;
	init.sq_sig_type = IB_SIGNAL_REQ_WR;
	init.qp_type = IB_QPT_RC;
	for (i = 0; i < 2; i++) {
		t->qp[i] = ib_create_qp(t->pd, &init);
		if (IS_ERR(t->qp[i])) {
			ret = PTR_ERR(t->qp[i]);
			t->qp[i] = NULL;
			pr_err("create QP with %u send WRs failed: %d\n", sq,
			       ret);
			return ret;
		}
		if (init.cap.max_send_wr < sq) {
			pr_err("asked for %u send WRs, got %u\n", sq,
			       init.cap.max_send_wr);
			return -EIO;
		}
		init.cap.max_send_wr = sq;
	}
	for (i = 0; i < 3; i++) {
		t->buf[i] = kzalloc(len, GFP_KERNEL);
		if (!t->buf[i])
			return -ENOMEM;
		t->dma[i] = ib_dma_map_single(t->ibdev, t->buf[i], len,
					      DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(t->ibdev, t->dma[i])) {
			kfree(t->buf[i]);
			t->buf[i] = NULL;
			return -ENOMEM;
		}
	}
	for (i = 0; i < 2; i++) {
		ret = vg_kconn_connect(t->qp[i], t->qp[1 - i]->qp_num,
				       &t->addr, 1);
		if (ret)
			return ret;
	}
	return 0;
}

static void vg_rcpair_destroy(struct vg_rcpair *t)
{
	int i;

	/* Nothing is in flight: the QPs go to ERR and drop the rest. */
	for (i = 0; i < 2; i++)
		if (t->qp[i])
			ib_destroy_qp(t->qp[i]);
	for (i = 0; i < 3; i++) {
		if (!t->buf[i])
			continue;
		ib_dma_unmap_single(t->ibdev, t->dma[i], len,
				    DMA_BIDIRECTIONAL);
		kfree(t->buf[i]);
	}
	if (t->cq)
		ib_destroy_cq(t->cq);
	if (t->pd)
		ib_dealloc_pd(t->pd);
}

/* The whole run; see the top of the file. */
static int vg_rcpair_run(struct vg_rcpair *t)
{
	u32 round;
	int ret;

	ret = vg_kconn_addr(t->ibdev, VG_RCPAIR_PORT, &t->addr);
	if (ret)
		return ret;
	ret = vg_rcpair_create(t);
	if (ret)
		return ret;
	ret = vg_rcpair_move(t, 0);
	if (ret)
		return ret;
	for (round = 1; round <= resets; round++) {
		ret = vg_rcpair_fail(t, round % 2);
		if (ret)
			return ret;
		ret = vg_rcpair_reset(t, true);
		if (ret)
			return ret;
		ret = vg_rcpair_move(t, round);
		if (ret) {
			pr_err("round %u: no data moved after the reset\n",
			       round);
			return ret;
		}
	}
	for (round = resets + 1; round <= resets + rts_resets; round++) {
		ret = vg_rcpair_rts_round(t, round);
		if (ret)
			return ret;
	}
	pr_info("%u bytes moved and checked, %u resets, %u from RTS\n", len,
		resets, rts_resets);
	return 0;
}

/* Process context (insmod). */
static int __init vg_rcpair_init(void)
{
	struct vg_rcpair *t;
	int ret;

	if (!len || len > SZ_4M || !sq)
		return -EINVAL;
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	if (!t)
		return -ENOMEM;
	t->ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!t->ibdev) {
		kfree(t);
		return -ENODEV;
	}
	ret = vg_rcpair_run(t);
	vg_rcpair_destroy(t);
	ib_device_put(t->ibdev);
	kfree(t);
	return ret;
}

/* Process context (rmmod); everything went at insmod. */
static void __exit vg_rcpair_exit(void)
{
}

module_init(vg_rcpair_init);
module_exit(vg_rcpair_exit);
MODULE_DESCRIPTION("verbsgate test bed: a kernel RC QP pair errored, reset and reused");
MODULE_LICENSE("GPL");
