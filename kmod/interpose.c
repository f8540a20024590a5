// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: interpose on an RDMA device's QP operations.
 *
 * ib_core calls a device's operations through the struct ib_device_ops
 * copy embedded in struct ib_device. verbsgate replaces the function
 * pointers it needs with wrappers that call the driver's original and
 * record what they learn; on device removal and module unload it puts the
 * originals back. Kernel (ULP) and user (uverbs) QPs alike are created,
 * modified and destroyed through these pointers.
 *
 * Why no caller can run module code after unload. A caller may have loaded
 * a wrapper's address from the ops just before it was restored. Three
 * phases close every window:
 *
 *  1. Entry. From loading the pointer until srcu_read_lock() in the
 *     wrapper, a caller does not sleep. synchronize_rcu_tasks() waits for
 *     every task to pass a voluntary context switch, so each such task has
 *     since either entered the wrapper's read-side section or left;
 *     synchronize_rcu() does the same for callers in softirq or on the idle
 *     task, which RCU Tasks does not watch.
 *  2. Body. Wrappers hold vg_interpose_srcu across the driver call (which
 *     may sleep); synchronize_srcu() waits for them. Only then is the
 *     device's state freed (vg_interpose_detach()).
 *  3. Exit. After srcu_read_unlock() a wrapper still executes its epilogue
 *     without sleeping; before the module text goes away,
 *     vg_interpose_exit() runs phase 1's pair of grace periods once more.
 *
 * Context: wrappers run in the process context of the caller of the
 * operation (create/modify/destroy QP may sleep), holding the SRCU read
 * lock; they take the QP table's xa_lock and, to announce a QP,
 * vg_devices_lock.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/rcupdate.h>
#include <linux/rcupdate_wait.h>
#include <linux/srcu.h>

#include "device.h"
#include "interpose.h"
#include "qp_tenant.h"

DEFINE_STATIC_SRCU(vg_interpose_srcu);

static struct vg_interpose *vg_ipose(struct ib_device *ibdev)
{
	return &vg_device_of(ibdev)->ipose;
}

static int vg_create_qp(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	ret = ip->create_qp(qp, attr, udata);
	if (!ret && vg_qp_tracked_type(qp->qp_type) && qp->real_qp == qp) {
		if (vg_qp_add(&ip->qps, qp, udata))
			pr_warn_ratelimited("%s: QP %u is not tracked\n",
					    dev_name(&qp->device->dev),
					    qp->qp_num);
		else
			vg_qp_announce(vg_device_of(qp->device), qp);
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static int vg_modify_qp(struct ib_qp *qp, struct ib_qp_attr *attr,
			int attr_mask, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	ret = ip->modify_qp(qp, attr, attr_mask, udata);
	if (!ret && vg_qp_set_av(&ip->qps, qp, attr, attr_mask))
		vg_qp_announce(vg_device_of(qp->device), qp);
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

static int vg_destroy_qp(struct ib_qp *qp, struct ib_udata *udata)
{
	struct vg_interpose *ip;
	struct vg_qp *q;
	int idx, ret;

	idx = srcu_read_lock(&vg_interpose_srcu);
	ip = vg_ipose(qp->device);
	/*
	 * Untrack before the driver frees the QP number, which a concurrent
	 * create may reuse at once; put the entry back if the driver refuses.
	 */
	q = vg_qp_take(&ip->qps, qp);
	ret = ip->destroy_qp(qp, udata);
	if (q) {
		if (ret)
			vg_qp_put_back(&ip->qps, q);
		else
			vg_qp_free(q);
	}
	srcu_read_unlock(&vg_interpose_srcu, idx);
	return ret;
}

/**
 * vg_interpose_attach() - install the wrappers on a device
 * @dev: a device being attached; its registry entry is not yet visible
 *
 * Context: process context (ib_client add).
 */
void vg_interpose_attach(struct vg_device *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	struct vg_interpose *ip = &dev->ipose;

	vg_qp_table_init(&ip->qps);
	ip->create_qp = ibdev->ops.create_qp;
	ip->modify_qp = ibdev->ops.modify_qp;
	ip->destroy_qp = ibdev->ops.destroy_qp;
	/* A device without QPs has nothing to shape. */
	if (!ip->create_qp || !ip->modify_qp || !ip->destroy_qp)
		return;
	WRITE_ONCE(ibdev->ops.create_qp, vg_create_qp);
	WRITE_ONCE(ibdev->ops.modify_qp, vg_modify_qp);
	WRITE_ONCE(ibdev->ops.destroy_qp, vg_destroy_qp);
	ip->attached = true;
}

/**
 * vg_interpose_detach() - restore a device's operations, free its QP state
 * @dev: the device; its wrappers may be running
 *
 * Returns once no wrapper uses @dev any more (phases 1 and 2 above).
 *
 * Context: process context (ib_client remove); sleeps for grace periods.
 */
void vg_interpose_detach(struct vg_device *dev)
{
	struct ib_device *ibdev = dev->ibdev;
	struct vg_interpose *ip = &dev->ipose;

	if (ip->attached) {
		WRITE_ONCE(ibdev->ops.create_qp, ip->create_qp);
		WRITE_ONCE(ibdev->ops.modify_qp, ip->modify_qp);
		WRITE_ONCE(ibdev->ops.destroy_qp, ip->destroy_qp);
		ip->attached = false;
		synchronize_rcu_tasks();
		synchronize_rcu();
		synchronize_srcu(&vg_interpose_srcu);
	}
	vg_qp_table_destroy(&ip->qps);
}

/*
 * Process context (module exit), after every device was detached: wait
 * until wrappers that already released SRCU have also returned (phase 3).
 */
void vg_interpose_exit(void)
{
	synchronize_rcu_tasks();
	synchronize_rcu();
}
