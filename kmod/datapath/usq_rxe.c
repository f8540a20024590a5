// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: register as the send queue policy of a patched rdma_rxe.
 *
 * driver-patches/rdma_rxe lets one module decide when the WQEs of rxe
 * user send queues are executed; the contract is rxe_sq_policy.h, a copy
 * of the series' header that scripts/checkpatch.sh keeps identical.
 * verbsgate must still load next to the stock rdma_rxe, mlx5 or no RDMA
 * driver at all, so it looks rxe's entry points up by name when it needs
 * them (symbol_get()) instead of linking against them. And it must not
 * keep rdma_rxe loaded: `rmmod rdma_rxe` works with verbsgate loaded, as
 * it does without.
 *
 * So verbsgate registers when the first rxe device attaches and
 * unregisters when the last one goes: from the ib_client add and remove
 * callbacks of rxe devices (datapath/device.c), on `rdma link add` and
 * `delete`, on rdma_rxe's unload and on verbsgate's. rdma_rxe cannot
 * finish unloading while such a callback runs (its exit unregisters its
 * devices, which waits for the clients' callbacks), so the references
 * symbol_get() takes are dropped at once and no call into rxe is made
 * anywhere else. rxe takes a reference on verbsgate only around
 * ->qp_attach.
 *
 * The loaded rdma_rxe without the interface (the stock module): nothing
 * is registered, nothing changes. Another policy registered: verbsgate
 * says so and governs nothing; it tries again when an rxe device next
 * attaches. User QPs that exist when verbsgate registers are not
 * offered to it (the contract).
 *
 * verbsgate leaves every QP rxe offers it alone for now (->qp_attach
 * returns 1), so registering changes nothing for traffic; debugfs
 * rxe_policy shows where it stands (control/debugfs.c).
 *
 * Locking: the state below is under vg_devices_lock, and rxe takes
 * rxe_sq_policy_mutex inside it (kmod/lock_order.h, 2 and 2a).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "device.h"
#include "rxe_sq_policy.h"
#include "usq_rxe.h"

/* Where verbsgate stands with rdma_rxe's send queue policy interface. */
enum vg_rxe_policy {
	VG_RXE_NO_DEVICE,	/* no rxe device attached */
	VG_RXE_UNSUPPORTED,	/* the loaded rdma_rxe has no such interface */
	VG_RXE_BUSY,		/* another policy is registered */
	VG_RXE_FAILED,		/* rxe refused verbsgate otherwise */
	VG_RXE_REGISTERED,
};

static const char * const vg_rxe_policy_names[] = {
	[VG_RXE_NO_DEVICE] = "no-device",
	[VG_RXE_UNSUPPORTED] = "unsupported",
	[VG_RXE_BUSY] = "busy",
	[VG_RXE_FAILED] = "failed",
	[VG_RXE_REGISTERED] = "registered",
};

/* Under vg_devices_lock; @vg_rxe_state is also read with READ_ONCE(). */
static enum vg_rxe_policy vg_rxe_state;
/* rxe devices attached */
static u32 vg_rxe_ndevs;
/* rxe_sq_policy_unregister() of the rdma_rxe registered with, or NULL */
static void (*vg_rxe_unregister)(const struct rxe_sq_policy_ops *ops);

/*
 * ->qp_attach: rxe offers a user QP as it is created. Process context
 * (the creating task), under rxe_sq_policy_mutex; takes no lock.
 * Return: 1, leave the QP to rxe as if no policy were registered.
 */
static int vg_rxe_qp_attach(struct ib_qp *qp, u32 depth, void **priv)
{
	return 1;
}

/*
 * ->qp_detach, ->sq_post, ->sq_flush: rxe calls them only for the QPs
 * ->qp_attach accepted, none so far; rxe_sq_policy_register() insists
 * on all four. Process context under rxe_sq_policy_mutex (detach), a
 * QP's gate lock with interrupts off (post, flush); take no lock.
 */
static void vg_rxe_qp_detach(struct ib_qp *qp, void *priv)
{
}

static u32 vg_rxe_sq_post(struct ib_qp *qp, void *priv,
			  const struct rxe_send_wqe *wqe, u32 held)
{
	return held;
}

static void vg_rxe_sq_flush(struct ib_qp *qp, void *priv)
{
}

static const struct rxe_sq_policy_ops vg_rxe_ops = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.qp_attach = vg_rxe_qp_attach,
	.qp_detach = vg_rxe_qp_detach,
	.sq_post = vg_rxe_sq_post,
	.sq_flush = vg_rxe_sq_flush,
};

static bool vg_rxe_device(const struct ib_device *ibdev)
{
	return ibdev->ops.driver_id == RDMA_DRIVER_RXE;
}

/*
 * Register with the loaded rdma_rxe, if it has the interface; @name, the
 * attaching device's, for messages. Process context, in an rxe device's
 * ib_client add callback; under vg_devices_lock; rxe takes
 * rxe_sq_policy_mutex.
 */
static void vg_rxe_register(const char *name)
{
	int (*reg)(const struct rxe_sq_policy_ops *ops);
	void (*unreg)(const struct rxe_sq_policy_ops *ops);
	enum vg_rxe_policy state = VG_RXE_UNSUPPORTED;
	int ret = 0;

	reg = symbol_get(rxe_sq_policy_register);
	unreg = symbol_get(rxe_sq_policy_unregister);
	if (reg && unreg) {
		ret = reg(&vg_rxe_ops);
		state = !ret ? VG_RXE_REGISTERED :
			ret == -EBUSY ? VG_RXE_BUSY : VG_RXE_FAILED;
	}
	/* No reference kept: see the top of this file. */
	if (reg)
		symbol_put(rxe_sq_policy_register);
	if (unreg)
		symbol_put(rxe_sq_policy_unregister);
	if (state == VG_RXE_REGISTERED)
		vg_rxe_unregister = unreg;
	WRITE_ONCE(vg_rxe_state, state);
	if (ret == -EBUSY)
		pr_warn("%s: rdma_rxe has another send queue policy; verbsgate does not govern rxe user QPs (it tries again when an rxe device attaches)\n",
			name);
	else if (ret)
		pr_warn("%s: rdma_rxe refused verbsgate as its send queue policy: %d\n",
			name, ret);
}

/**
 * vg_rxe_attach() - a device attaches: register with rdma_rxe if need be
 * @dev: the device, not yet interposed
 *
 * Called for every device; only rxe devices count. Registers unless
 * registered already, so a policy that held rxe at the first attach is
 * tried again at the next.
 *
 * Context: process context (ib_client add); under vg_devices_lock.
 */
void vg_rxe_attach(struct vg_device *dev)
{
	lockdep_assert_held(&vg_devices_lock);

	if (!vg_rxe_device(dev->ibdev))
		return;
	vg_rxe_ndevs++;
	if (!vg_rxe_unregister)
		vg_rxe_register(dev->name);
}

/**
 * vg_rxe_detach() - a device goes: unregister with its last rxe device
 * @dev: the device
 *
 * rdma_rxe may be unloading; it finishes only after this returns.
 *
 * Context: process context (ib_client remove); under vg_devices_lock;
 * rxe takes rxe_sq_policy_mutex.
 */
void vg_rxe_detach(struct vg_device *dev)
{
	lockdep_assert_held(&vg_devices_lock);

	if (!vg_rxe_device(dev->ibdev) || --vg_rxe_ndevs)
		return;
	if (vg_rxe_unregister)
		vg_rxe_unregister(&vg_rxe_ops);
	vg_rxe_unregister = NULL;
	WRITE_ONCE(vg_rxe_state, VG_RXE_NO_DEVICE);
}

/**
 * vg_rxe_policy_state() - where verbsgate stands with rdma_rxe, for debugfs
 *
 * Context: any; takes no lock (the answer may be stale at once).
 * Return: "no-device", "unsupported", "busy", "failed" or "registered".
 */
const char *vg_rxe_policy_state(void)
{
	return vg_rxe_policy_names[READ_ONCE(vg_rxe_state)];
}
