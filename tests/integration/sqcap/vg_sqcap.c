// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_sqcap: a test-only module that makes an RDMA device refuse kernel
 * RC and UC QPs whose send queue is larger than @max_send_wr, with
 * -EINVAL, the way a driver answers when the send queue it was asked for
 * does not fit (mlx5's real limit depends on the WQE size, and is lower
 * than the max_qp_wr it reports). rxe accepts up to its max_qp_wr. Load
 * it before verbsgate, unload it after:
 *
 *   insmod vg_sqcap.ko dev=rxe0 max_send_wr=16
 *   cat /sys/module/vg_sqcap/parameters/refused
 *
 * Never load it outside the test bed.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <rdma/ib_verbs.h>

#include "vg_opswap.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device whose create_qp refuses");

static uint max_send_wr = 16;
module_param(max_send_wr, uint, 0444);
MODULE_PARM_DESC(max_send_wr, "the largest send queue created");

static atomic_t vg_sqcap_refused = ATOMIC_INIT(0);

static int vg_sqcap_refused_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&vg_sqcap_refused));
}

static const struct kernel_param_ops vg_sqcap_refused_ops = {
	.get = vg_sqcap_refused_get,
};

module_param_cb(refused, &vg_sqcap_refused_ops, NULL, 0444);
MODULE_PARM_DESC(refused, "QPs refused so far");

static int (*vg_sqcap_orig)(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			    struct ib_udata *udata);

/* Process context (the creator's); no locks. */
static int vg_sqcap_create(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			   struct ib_udata *udata)
{
	if (!udata && (qp->qp_type == IB_QPT_RC || qp->qp_type == IB_QPT_UC) &&
	    attr->cap.max_send_wr > max_send_wr) {
		atomic_inc(&vg_sqcap_refused);
		return -EINVAL;
	}
	return vg_sqcap_orig(qp, attr, udata);
}

/* Process context (insmod). */
static int __init vg_sqcap_init(void)
{
	return vg_opswap_set(dev, create_qp, vg_sqcap_create, &vg_sqcap_orig);
}

/*
 * Process context (rmmod), after verbsgate (which calls this wrapper) is
 * gone and no QP of the device is being created: synchronize_rcu_tasks()
 * covers creators still returning from here (they may sleep in the
 * driver, but not once they left it).
 */
static void __exit vg_sqcap_exit(void)
{
	vg_opswap_restore(dev, create_qp, vg_sqcap_create, vg_sqcap_orig);
	synchronize_rcu_tasks();
}

module_init(vg_sqcap_init);
module_exit(vg_sqcap_exit);
MODULE_DESCRIPTION("verbsgate test bed: a create_qp that refuses large send queues");
MODULE_LICENSE("GPL");
