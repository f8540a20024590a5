// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_regretry: a test-only module that checks that a local work request
 * posted behind a SEND the responder RNR NAKs is executed once, when it
 * is loaded. On a loopback pair of RC QPs (A sends to B, rnr_retry 7),
 * @rounds times:
 *
 *  1. posts on A a signaled SEND of 64 bytes, for which B has no receive
 *     yet, and behind it a signaled REG_MR of a fast-registration MR
 *     under a new key: the requester executes the REG_MR at once, the
 *     SEND is RNR NAKed and retried from the oldest WQE every RNR timer;
 *  2. sleeps @wait_ms, then posts B's receive;
 *  3. polls the SEND, the REG_MR and the receive: each must succeed, and
 *     the receive must hold what A sent;
 *  4. posts a signaled LOCAL_INV of the MR's key on A, which must succeed
 *     (the MR is free again for the next round's REG_MR).
 *
 * A requester that executed the REG_MR again at a retry found the MR
 * valid and failed the QP (rxe_reg_fast_mr(): "not free"). insmod fails
 * with -EIO, the reason in the kernel log, otherwise with the error of
 * the verb that failed. Unload it with rmmod afterwards. Never load it
 * outside the test bed.
 *
 *   insmod vg_regretry.ko dev=rxe0 rounds=3 wait_ms=50
 *
 * Context: process context (insmod); polls its CQ and sleeps between
 * empty polls. Takes no locks of its own.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/delay.h>
#include <linux/jiffies.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");

static uint rounds = 3;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "SEND and REG_MR pairs posted, one at a time");

static uint wait_ms = 50;
module_param(wait_ms, uint, 0444);
MODULE_PARM_DESC(wait_ms, "how long the SEND finds no receive");

#define VG_REGRETRY_BYTES	64
#define VG_REGRETRY_TIMEOUT	(5 * HZ)

enum { VG_WR_SEND = 1, VG_WR_REG, VG_WR_RECV, VG_WR_INV };

static const char * const vg_regretry_names[] = {
	[VG_WR_SEND] = "SEND", [VG_WR_REG] = "REG_MR",
	[VG_WR_RECV] = "receive", [VG_WR_INV] = "LOCAL_INV",
};

/**
 * struct vg_regretry - what one run holds
 * @l: the loopback QP pair, its CQ, the SEND's source (buf[0]) and the
 *     receive's destination (buf[1])
 * @mr: the fast-registration MR
 * @page: what @mr maps, one page
 * @sg: @page for the device
 * @done: which of the VG_WR_* of the round have completed
 */
struct vg_regretry {
	struct vg_kconn_loop l;
	struct ib_mr *mr;
	void *page;
	struct scatterlist sg;
	unsigned long done;
};

/*
 * Poll until every WR in @want has completed successfully. Return: 0,
 * -EIO (a failed completion, or one of no WR asked for) or -ETIMEDOUT.
 */
static int vg_regretry_wait(struct vg_regretry *t, unsigned long want)
{
	unsigned long until = jiffies + VG_REGRETRY_TIMEOUT;
	struct ib_wc wc[4];
	int i, n;

	t->done = 0;
	while ((t->done & want) != want) {
		n = ib_poll_cq(t->l.cq, ARRAY_SIZE(wc), wc);
		if (n < 0)
			return n;
		for (i = 0; i < n; i++) {
			u64 id = wc[i].wr_id;

			if (id >= ARRAY_SIZE(vg_regretry_names) ||
			    !(want & BIT(id)) || (t->done & BIT(id))) {
				pr_err("completion of no WR posted: %llu\n", id);
				return -EIO;
			}
			if (wc[i].status != IB_WC_SUCCESS) {
				pr_err("%s failed: %s\n", vg_regretry_names[id],
				       ib_wc_status_msg(wc[i].status));
				return -EIO;
			}
			t->done |= BIT(id);
		}
		if (n)
			continue;
		if (time_after(jiffies, until)) {
			pr_err("completions %#lx of %#lx after %u s\n", t->done,
			       want, VG_REGRETRY_TIMEOUT / HZ);
			return -ETIMEDOUT;
		}
		usleep_range(500, 1000);
	}
	return 0;
}

/* One round, steps 1 to 4 above. Return: 0 or -errno. */
static int vg_regretry_round(struct vg_regretry *t, u32 round)
{
	struct ib_sge sge = {
		.addr = t->l.dma[0],
		.length = VG_REGRETRY_BYTES,
		.lkey = t->l.pd->local_dma_lkey,
	};
	struct ib_sge rsge = {
		.addr = t->l.dma[1],
		.length = VG_REGRETRY_BYTES,
		.lkey = t->l.pd->local_dma_lkey,
	};
	struct ib_reg_wr reg = {
		.wr = {
			.wr_id = VG_WR_REG,
			.opcode = IB_WR_REG_MR,
			.send_flags = IB_SEND_SIGNALED,
		},
		.mr = t->mr,
		.access = IB_ACCESS_LOCAL_WRITE | IB_ACCESS_REMOTE_WRITE,
	};
	struct ib_send_wr send = {
		.wr_id = VG_WR_SEND,
		.opcode = IB_WR_SEND,
		.send_flags = IB_SEND_SIGNALED,
		.sg_list = &sge,
		.num_sge = 1,
		.next = &reg.wr,
	};
	struct ib_recv_wr recv = {
		.wr_id = VG_WR_RECV,
		.sg_list = &rsge,
		.num_sge = 1,
	};
	struct ib_send_wr inv = {
		.wr_id = VG_WR_INV,
		.opcode = IB_WR_LOCAL_INV,
		.send_flags = IB_SEND_SIGNALED,
	};
	int ret;

	memset(t->l.buf[0], 0x40 + round, VG_REGRETRY_BYTES);
	memset(t->l.buf[1], 0, VG_REGRETRY_BYTES);
	ib_update_fast_reg_key(t->mr, ib_inc_rkey(t->mr->rkey));
	reg.key = t->mr->rkey;
	ret = ib_post_send(t->l.qp[0], &send, NULL);
	if (ret)
		return ret;
	msleep(wait_ms);
	ret = ib_post_recv(t->l.qp[1], &recv, NULL);
	if (!ret)
		ret = vg_regretry_wait(t, BIT(VG_WR_SEND) | BIT(VG_WR_REG) |
				       BIT(VG_WR_RECV));
	if (ret)
		return ret;
	if (memcmp(t->l.buf[0], t->l.buf[1], VG_REGRETRY_BYTES)) {
		pr_err("round %u: the receive does not hold what was sent\n",
		       round);
		return -EIO;
	}
	inv.ex.invalidate_rkey = t->mr->rkey;
	ret = ib_post_send(t->l.qp[0], &inv, NULL);
	return ret ? ret : vg_regretry_wait(t, BIT(VG_WR_INV));
}

static int vg_regretry_run(struct vg_regretry *t, struct ib_device *ibdev)
{
	struct ib_cq *cq;
	u32 i;
	int ret;

	ret = vg_kconn_loop_open(&t->l, ibdev, PAGE_SIZE);
	if (ret)
		return ret;
	cq = ib_alloc_cq(ibdev, NULL, 16, 0, IB_POLL_DIRECT);
	ret = vg_kconn_loop_connect(&t->l, cq, false, 8);
	if (ret)
		return ret;
	t->mr = ib_alloc_mr(t->l.pd, IB_MR_TYPE_MEM_REG, 1);
	if (IS_ERR(t->mr)) {
		ret = PTR_ERR(t->mr);
		t->mr = NULL;
		return ret;
	}
	t->page = kzalloc(PAGE_SIZE, GFP_KERNEL);
	if (!t->page)
		return -ENOMEM;
	sg_init_one(&t->sg, t->page, PAGE_SIZE);
	if (!ib_dma_map_sg(ibdev, &t->sg, 1, DMA_BIDIRECTIONAL)) {
		kfree(t->page);
		t->page = NULL;
		return -ENOMEM;
	}
	ret = ib_map_mr_sg(t->mr, &t->sg, 1, NULL, PAGE_SIZE);
	if (ret != 1)
		return ret < 0 ? ret : -EIO;
	for (i = 0; i < rounds; i++) {
		ret = vg_regretry_round(t, i);
		if (ret) {
			pr_err("round %u failed: %d\n", i, ret);
			return ret;
		}
	}
	pr_info("%u REG_MRs behind RNR NAKed SENDs executed once\n", rounds);
	return 0;
}

/* Free what vg_regretry_run() made (nothing is in flight), the MR first:
 * vg_kconn_loop_close() frees its PD.
 */
static void vg_regretry_free(struct vg_regretry *t)
{
	if (t->mr)
		ib_dereg_mr(t->mr);
	if (t->page) {
		ib_dma_unmap_sg(t->l.ibdev, &t->sg, 1, DMA_BIDIRECTIONAL);
		kfree(t->page);
	}
	vg_kconn_loop_close(&t->l);
}

static int __init vg_regretry_init(void)
{
	struct ib_device *ibdev;
	struct vg_regretry *t;
	int ret;

	if (!rounds || wait_ms > 10000)
		return -EINVAL;
	ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!ibdev) {
		pr_err("no RDMA device %s\n", dev);
		return -ENODEV;
	}
	t = kzalloc(sizeof(*t), GFP_KERNEL);
	ret = t ? vg_regretry_run(t, ibdev) : -ENOMEM;
	if (t) {
		vg_regretry_free(t);
		kfree(t);
	}
	ib_device_put(ibdev);
	return ret;
}

static void __exit vg_regretry_exit(void)
{
}

module_init(vg_regretry_init);
module_exit(vg_regretry_exit);
MODULE_DESCRIPTION("verbsgate test bed: a REG_MR behind a retried SEND runs once");
MODULE_LICENSE("GPL");
