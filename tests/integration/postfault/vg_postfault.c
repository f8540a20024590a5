// SPDX-License-Identifier: GPL-2.0-only
/*
 * vg_postfault: a test-only module that makes an RDMA device's post_send
 * refuse some chains of WRs with -ENOMEM, naming the first WR as not
 * taken, the way a driver answers when its send queue is full. Only the
 * QPs of one kernel ULP are refused (by the name ib_core records for the
 * PD), and only chains of at least two WRs, which verbsgate's fast path
 * posts in one call. Load it before verbsgate, unload it after:
 *
 *   insmod vg_postfault.ko dev=rxe0 ulp=nvme_rdma every=20
 *   cat /sys/module/vg_postfault/parameters/refused
 *
 * Never load it outside the test bed.
 */
#include <linux/atomic.h>
#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/string.h>
#include <rdma/ib_verbs.h>

#include "vg_opswap.h"

static char *dev = "rxe0";
module_param(dev, charp, 0444);
MODULE_PARM_DESC(dev, "the RDMA device whose post_send refuses");

static char *ulp = "nvme_rdma";
module_param(ulp, charp, 0444);
MODULE_PARM_DESC(ulp, "the kernel ULP whose chains are refused");

static int every = 20;
module_param(every, int, 0444);
MODULE_PARM_DESC(every, "refuse one in this many chains (0: none)");

static atomic_t vg_postfault_chains = ATOMIC_INIT(0);
static atomic_t vg_postfault_refused = ATOMIC_INIT(0);

static int vg_postfault_refused_get(char *buf, const struct kernel_param *kp)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&vg_postfault_refused));
}

static const struct kernel_param_ops vg_postfault_refused_ops = {
	.get = vg_postfault_refused_get,
};

module_param_cb(refused, &vg_postfault_refused_ops, NULL, 0444);
MODULE_PARM_DESC(refused, "chains refused so far");

static int (*vg_postfault_orig)(struct ib_qp *qp, const struct ib_send_wr *wr,
				const struct ib_send_wr **bad);

/* Any context the poster is in; no locks. */
static int vg_postfault_post(struct ib_qp *qp, const struct ib_send_wr *wr,
			     const struct ib_send_wr **bad)
{
	const char *owner = qp->pd ? qp->pd->res.kern_name : NULL;

	if (every > 0 && wr && wr->next && owner && !strcmp(owner, ulp) &&
	    atomic_inc_return(&vg_postfault_chains) % every == 0) {
		atomic_inc(&vg_postfault_refused);
		*bad = wr;
		return -ENOMEM;
	}
	return vg_postfault_orig(qp, wr, bad);
}

/* Process context (insmod). */
static int __init vg_postfault_init(void)
{
	return vg_opswap_set(dev, post_send, vg_postfault_post,
			     &vg_postfault_orig);
}

/*
 * Process context (rmmod), after verbsgate (which calls this wrapper) is
 * gone and no post of the device is running: the test stops its I/O
 * first; synchronize_rcu() covers posters still returning from here.
 */
static void __exit vg_postfault_exit(void)
{
	vg_opswap_restore(dev, post_send, vg_postfault_post,
			  vg_postfault_orig);
	synchronize_rcu();
}

module_init(vg_postfault_init);
module_exit(vg_postfault_exit);
MODULE_DESCRIPTION("verbsgate test bed: a post_send that refuses chains");
MODULE_LICENSE("GPL");
