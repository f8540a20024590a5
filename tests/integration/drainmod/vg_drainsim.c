// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_drainsim: a test-only module that gives an RDMA device a drain_sq of
 * its own, built the way mlx5's is: move the QP to the error state, post
 * the drain WR with the driver's post_send as it was when this module was
 * loaded (so past anything interposed later), and wait for its
 * completion, polling the CQ itself if its owner polls it directly, as
 * mlx5's does. Load it before verbsgate and unload it after:
 *
 *   insmod vg_drainsim.ko dev=rxe0
 *   cat /sys/module/vg_drainsim/parameters/drains
 *
 * Never load it outside the test bed.
 */
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/ib_verbs.h>

#include "vg_opswap.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device to give a drain_sq");

static atomic_t vg_drainsim_count = ATOMIC_INIT(0);

static int vg_drainsim_count_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&vg_drainsim_count));
}

static const struct kernel_param_ops vg_drainsim_count_ops = {
	.get = vg_drainsim_count_get,
};

module_param_cb(drains, &vg_drainsim_count_ops, NULL, 0444);
MODULE_PARM_DESC(drains, "drains that completed");

static int (*vg_drainsim_post)(struct ib_qp *qp, const struct ib_send_wr *wr,
			       const struct ib_send_wr **bad);

struct vg_drainsim_wait {
	struct ib_cqe cqe;
	struct completion done;
};

/* The CQ's poller: softirq, workqueue, or the drain itself. */
static void vg_drainsim_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct vg_drainsim_wait *w =
		container_of(wc->wr_cqe, struct vg_drainsim_wait, cqe);

	complete(&w->done);
}

/* Process context (ib_drain_sq()); sleeps. */
static void vg_drainsim_drain_sq(struct ib_qp *qp)
{
	struct ib_qp_attr attr = { .qp_state = IB_QPS_ERR };
	struct vg_drainsim_wait w = { .cqe.done = vg_drainsim_done };
	struct ib_rdma_wr wr = {
		.wr = {
			.wr_cqe = &w.cqe,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
	};
	const struct ib_send_wr *bad;

	init_completion(&w.done);
	if (ib_modify_qp(qp, &attr, IB_QP_STATE) ||
	    vg_drainsim_post(qp, &wr.wr, &bad)) {
		pr_warn("vg_drainsim: QP %u not drained\n", qp->qp_num);
		return;
	}
	if (qp->send_cq->poll_ctx == IB_POLL_DIRECT)
		while (wait_for_completion_timeout(&w.done, HZ / 10) <= 0)
			ib_process_cq_direct(qp->send_cq, -1);
	else
		wait_for_completion(&w.done);
	atomic_inc(&vg_drainsim_count);
}

/* Process context (insmod). */
static int __init vg_drainsim_init(void)
{
	struct ib_device *ibdev = ib_device_get_by_name(dev,
							RDMA_DRIVER_UNKNOWN);
	int ret = 0;

	if (!ibdev)
		return -ENODEV;
	if (ibdev->ops.drain_sq) {
		ret = -EEXIST;
	} else {
		vg_drainsim_post = ibdev->ops.post_send;
		WRITE_ONCE(ibdev->ops.drain_sq, vg_drainsim_drain_sq);
	}
	ib_device_put(ibdev);
	return ret;
}

/* Process context (rmmod); the test drains nothing meanwhile. */
static void __exit vg_drainsim_exit(void)
{
	vg_opswap_restore(dev, drain_sq, vg_drainsim_drain_sq, NULL);
	synchronize_rcu();
}

module_init(vg_drainsim_init);
module_exit(vg_drainsim_exit);
MODULE_DESCRIPTION("verbsgate test bed: a driver-owned drain_sq on rxe");
MODULE_LICENSE("GPL");
