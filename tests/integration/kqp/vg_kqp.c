// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_kqp: a test-only kernel ULP. It connects pairs of RC QPs over one
 * RDMA device's loopback and abuses them the way a careless ULP would,
 * so that the test bed can check verbsgate against a kernel owner it
 * controls. The scenario runs in module init; insmod fails with its
 * error, and the console says why:
 *
 *   insmod vg_kqp.ko dev=rxe0 rounds=200 wrs=16 size=262144
 *
 * destroy (the default): each round posts @wrs signaled RDMA WRITEs of
 * @size bytes and destroys the sending QP without draining it, after a
 * delay that grows with the round (none, then up to 7 ms), so that the
 * QP goes with WRs still queued, chunks in the driver, or both. Even
 * rounds use a CQ polled directly, odd ones a softirq-polled CQ. Every
 * completion the owner sees must be one of its own WRs, at most once
 * each; whatever else reaches it fails the round (directly polled) or
 * crashes the guest (softirq: ib_core calls wr_cqe->done).
 *
 * drain=1: the same, but the round drains the QP (ib_drain_qp()) before
 * it destroys it, and polls nothing itself before: for a CQ polled
 * directly the drain polls, as ib_core's and mlx5's do. Every WR must
 * then have completed exactly once.
 *
 * hold=1: an owner that sits idle. Init only registers an ib_client, as
 * ULPs loaded before verbsgate do (ib_core removes clients in the reverse
 * order, so verbsgate's remove runs first). Writing 1 to the parameter
 * "start" sets up one pair on a CQ polled directly and posts @wrs
 * WRITEs, and returns without polling. Writing 1 to "finish", or the
 * removal of the device (the client's remove callback, as a ULP tears
 * down), polls the CQ until every WR completed (at most 30 s), destroys
 * the pair and checks that each WR completed exactly once, successfully;
 * the write fails with -EIO otherwise, and the console says:
 *
 *   vg_kqp: held WRs: 16 completed once each
 *
 * Never load it outside the test bed.
 */
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/slab.h>
#include <rdma/ib_verbs.h>

#include "vg_kconn.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device");
static uint rounds = 200;
module_param(rounds, uint, 0444);
MODULE_PARM_DESC(rounds, "QP pairs to create and destroy undrained");
static uint wrs = 16;
module_param(wrs, uint, 0444);
MODULE_PARM_DESC(wrs, "RDMA WRITEs posted per round (at most 64)");
static uint size = 256 * 1024;
module_param(size, uint, 0444);
MODULE_PARM_DESC(size, "bytes per RDMA WRITE");
static bool drain;
module_param(drain, bool, 0444);
MODULE_PARM_DESC(drain, "drain each QP before destroying it");
static bool hold;
module_param(hold, bool, 0444);
MODULE_PARM_DESC(hold, "post on start, poll only on finish or device removal");

#define VG_KQP_MAX_WRS	64

/* One round: a PD, a CQ, two connected QPs and the buffers they move. */
struct vg_kqp_round {
	struct vg_kconn_loop loop;
	struct ib_cqe cqe[VG_KQP_MAX_WRS];
	atomic_t seen[VG_KQP_MAX_WRS];
	atomic_t stray;
	atomic_t failed;
};

/* The CQ's poller (softirq) or vg_kqp_poll_direct() (process). */
static void vg_kqp_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vg_kqp_round *r = cq->cq_context;
	long i = wc->wr_cqe - r->cqe;

	if (i < 0 || i >= VG_KQP_MAX_WRS) {
		atomic_inc(&r->stray);
		return;
	}
	atomic_inc(&r->seen[i]);
	/* Undrained destroys flush; a held QP never goes to error. */
	if (hold && wc->status != IB_WC_SUCCESS) {
		pr_err("vg_kqp: WR %ld completed with status %d\n", i,
		       wc->status);
		atomic_inc(&r->failed);
	}
}

/* Process context: a PD, a CQ polled as @poll, two connected QPs. */
static int vg_kqp_setup(struct vg_kqp_round *r, enum ib_poll_context poll)
{
	struct ib_device *ibdev = r->loop.ibdev;
	struct ib_cq *cq;
	int ret;

	ret = vg_kconn_loop_open(&r->loop, ibdev, size);
	if (ret)
		return ret;
	cq = ib_alloc_cq(ibdev, r, 2 * wrs + 4, 0, poll);
	return vg_kconn_loop_connect(&r->loop, cq, false, wrs);
}

/* Process context: @wrs signaled WRITEs from buffer 0 to buffer 1. */
static int vg_kqp_post_writes(struct vg_kqp_round *r)
{
	return vg_kconn_post_writes(r->loop.qp[0], r->loop.dma[0],
				    r->loop.dma[1], size, r->cqe, wrs,
				    vg_kqp_done);
}

/* Process context: what a directly polled CQ still holds. */
static void vg_kqp_poll_direct(struct vg_kqp_round *r)
{
	while (ib_process_cq_direct(r->loop.cq, -1) > 0)
		;
}

/* Process context: one round; 0 if the owner saw only its own WRs. */
static int vg_kqp_round(struct vg_kqp_round *r, u32 round)
{
	enum ib_poll_context poll = round % 2 ? IB_POLL_SOFTIRQ :
						IB_POLL_DIRECT;
	u32 i, delay_us = (round / 2 % 8) * 1000;
	int ret;

	for (i = 0; i < VG_KQP_MAX_WRS; i++)
		atomic_set(&r->seen[i], 0);
	atomic_set(&r->stray, 0);
	ret = vg_kqp_setup(r, poll);
	if (!ret)
		ret = vg_kqp_post_writes(r);
	if (ret) {
		pr_err("vg_kqp: round %u: setup or post failed: %d\n",
		       round, ret);
		goto out;
	}
	if (delay_us)
		usleep_range(delay_us, delay_us + 100);
	/* Unless @drain, the careless part: no ib_drain_qp() before. */
	if (drain)
		ib_drain_qp(r->loop.qp[0]);
	ib_destroy_qp(r->loop.qp[0]);
	r->loop.qp[0] = NULL;
	/* Let the driver and the poller finish with what is in the CQ. */
	msleep(20);
	if (poll == IB_POLL_DIRECT)
		vg_kqp_poll_direct(r);
	if (atomic_read(&r->stray)) {
		pr_err("vg_kqp: round %u: %d completions that are not the owner's\n",
		       round, atomic_read(&r->stray));
		ret = -EIO;
	}
	for (i = 0; i < wrs; i++) {
		if (drain && !atomic_read(&r->seen[i])) {
			pr_err("vg_kqp: round %u: WR %u of a drained QP never completed\n",
			       round, i);
			ret = -EIO;
		}
		if (atomic_read(&r->seen[i]) > 1) {
			pr_err("vg_kqp: round %u: WR %u completed %d times\n",
			       round, i, atomic_read(&r->seen[i]));
			ret = -EIO;
		}
	}
out:
	vg_kconn_loop_close(&r->loop);
	return ret;
}

/*
 * hold=1: the round posted by "start", until "finish" or the removal of
 * its device. vg_kqp_lock serializes the two with the client's remove.
 */
static DEFINE_MUTEX(vg_kqp_lock);
static struct vg_kqp_round *vg_kqp_held;

/*
 * Process context: a zeroed round on the device named by @dev, holding a
 * reference to it. Return: the round, or an ERR_PTR.
 */
static struct vg_kqp_round *vg_kqp_round_new(void)
{
	struct vg_kqp_round *r = kzalloc(sizeof(*r), GFP_KERNEL);

	if (!r)
		return ERR_PTR(-ENOMEM);
	r->loop.ibdev = ib_device_get_by_name(dev, RDMA_DRIVER_UNKNOWN);
	if (!r->loop.ibdev) {
		kfree(r);
		return ERR_PTR(-ENODEV);
	}
	return r;
}

/* Process context, under vg_kqp_lock: post and leave the CQ unpolled. */
static int vg_kqp_start(void)
{
	struct vg_kqp_round *r;
	int ret;

	if (vg_kqp_held)
		return -EBUSY;
	r = vg_kqp_round_new();
	if (IS_ERR(r))
		return PTR_ERR(r);
	ret = vg_kqp_setup(r, IB_POLL_DIRECT);
	if (!ret)
		ret = vg_kqp_post_writes(r);
	if (ret) {
		pr_err("vg_kqp: hold: setup or post failed: %d\n", ret);
		vg_kconn_loop_close(&r->loop);
		ib_device_put(r->loop.ibdev);
		kfree(r);
		return ret;
	}
	vg_kqp_held = r;
	pr_info("vg_kqp: holding %u WRs on QP %u\n", wrs,
		r->loop.qp[0]->qp_num);
	return 0;
}

/* Process context, under vg_kqp_lock: poll, tear down, check. */
static int vg_kqp_finish(void)
{
	struct vg_kqp_round *r = vg_kqp_held;
	unsigned long deadline = jiffies + 30 * HZ;
	u32 i, done;
	int ret = 0;

	if (!r)
		return -ENOENT;
	vg_kqp_held = NULL;
	for (;;) {
		for (done = 0, i = 0; i < wrs; i++)
			done += !!atomic_read(&r->seen[i]);
		if (done == wrs || time_after(jiffies, deadline))
			break;
		if (ib_process_cq_direct(r->loop.cq, -1) <= 0)
			msleep(20);
	}
	vg_kconn_loop_close(&r->loop);
	if (atomic_read(&r->stray) || atomic_read(&r->failed))
		ret = -EIO;
	for (i = 0; i < wrs; i++) {
		if (atomic_read(&r->seen[i]) != 1) {
			pr_err("vg_kqp: held WR %u completed %d times\n", i,
			       atomic_read(&r->seen[i]));
			ret = -EIO;
		}
	}
	if (!ret)
		pr_info("vg_kqp: held WRs: %u completed once each\n", wrs);
	else
		pr_err("vg_kqp: held WRs: %u stray, %u failed completions\n",
		       atomic_read(&r->stray), atomic_read(&r->failed));
	ib_device_put(r->loop.ibdev);
	kfree(r);
	return ret;
}

/* Writing 1 to "start" or "finish" runs @fn. Process context. */
static int vg_kqp_command(const char *val, int (*fn)(void))
{
	bool go;
	int ret = kstrtobool(val, &go);

	if (ret || !go)
		return ret;
	mutex_lock(&vg_kqp_lock);
	ret = fn();
	mutex_unlock(&vg_kqp_lock);
	return ret;
}

static int vg_kqp_set_start(const char *val, const struct kernel_param *kp)
{
	return vg_kqp_command(val, vg_kqp_start);
}

static int vg_kqp_set_finish(const char *val, const struct kernel_param *kp)
{
	return vg_kqp_command(val, vg_kqp_finish);
}

static const struct kernel_param_ops vg_kqp_start_ops = {
	.set = vg_kqp_set_start,
};

static const struct kernel_param_ops vg_kqp_finish_ops = {
	.set = vg_kqp_set_finish,
};

module_param_cb(start, &vg_kqp_start_ops, NULL, 0200);
MODULE_PARM_DESC(start, "hold=1: write 1 to post and hold");
module_param_cb(finish, &vg_kqp_finish_ops, NULL, 0200);
MODULE_PARM_DESC(finish, "hold=1: write 1 to poll, destroy and check");

static int vg_kqp_add(struct ib_device *ibdev)
{
	return 0;
}

/* The device goes: a ULP polls what it still wants, then tears down. */
static void vg_kqp_remove(struct ib_device *ibdev, void *client_data)
{
	mutex_lock(&vg_kqp_lock);
	if (vg_kqp_held && vg_kqp_held->loop.ibdev == ibdev)
		vg_kqp_finish();
	mutex_unlock(&vg_kqp_lock);
}

static struct ib_client vg_kqp_client = {
	.name = "vg_kqp",
	.add = vg_kqp_add,
	.remove = vg_kqp_remove,
};

static int __init vg_kqp_init(void)
{
	struct vg_kqp_round *r;
	int ret = 0;
	u32 round;

	if (!wrs || wrs > VG_KQP_MAX_WRS || !size)
		return -EINVAL;
	if (hold)
		return ib_register_client(&vg_kqp_client);
	r = vg_kqp_round_new();
	if (IS_ERR(r))
		return PTR_ERR(r);
	for (round = 0; round < rounds && !ret; round++)
		ret = vg_kqp_round(r, round);
	if (!ret)
		pr_info("vg_kqp: %u rounds of %s destroys passed\n", rounds,
			drain ? "drained" : "undrained");
	ib_device_put(r->loop.ibdev);
	kfree(r);
	return ret;
}

static void __exit vg_kqp_exit(void)
{
	if (hold)
		ib_unregister_client(&vg_kqp_client);
	mutex_lock(&vg_kqp_lock);
	if (vg_kqp_held)
		vg_kqp_finish();
	mutex_unlock(&vg_kqp_lock);
}

module_init(vg_kqp_init);
module_exit(vg_kqp_exit);

MODULE_DESCRIPTION("verbsgate test bed: a careless kernel RDMA ULP");
MODULE_LICENSE("GPL");
