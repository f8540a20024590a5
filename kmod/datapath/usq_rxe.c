// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the send queue policy of a patched rdma_rxe.
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
 * callbacks of rxe devices (datapath/client.c), on `rdma link add` and
 * `delete`, on rdma_rxe's unload and on verbsgate's. rdma_rxe cannot
 * finish unloading while such a callback runs (its exit unregisters its
 * devices, which waits for the clients' callbacks), so the references
 * symbol_get() takes are dropped at once; rxe's release functions are
 * called only for a QP bound to a device's shaper, which exists only
 * while its rxe device is attached. rxe takes a reference on verbsgate
 * only around ->qp_attach.
 *
 * The loaded rdma_rxe without the interface (the stock module): nothing
 * is registered, nothing changes. Another policy registered: verbsgate
 * says so and governs nothing; it tries again when an rxe device next
 * attaches. User QPs that exist when verbsgate registers are not
 * offered to it (the contract).
 *
 * Every user QP the create wrapper creates on an rxe device is governed
 * (usq.c): the callbacks below translate rxe's view of a WQE into the
 * shaper's and back. Debugfs rxe_policy shows where verbsgate stands
 * (control/debugfs.c).
 *
 * Locking: the state below is under vg_devices_lock, and rxe takes
 * rxe_sq_policy_mutex inside it (kmod/lock_order.h, 2 and 2a); rxe calls
 * ->sq_post and ->sq_flush under a QP's gate lock (6a).
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>
#include <rdma/ib_verbs.h>

#include "core/wr.h"

#include "device.h"
#include "rxe_sq_policy.h"
#include "usq.h"
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
/* Its release functions, set before registering (see the top). */
static struct vg_usq_driver vg_rxe_driver;

/*
 * ->qp_attach: rxe offers a user QP as it is created, its send queue
 * @depth WQEs deep. Process context (the creating task), under
 * rxe_sq_policy_mutex; usq.c takes the shaper lock.
 * Return: 0 to govern it, 1 to leave it to rxe, or an errno to fail it.
 */
static int vg_rxe_qp_attach(struct ib_qp *qp, u32 depth, void **priv)
{
	return vg_usq_attach(qp, depth, &vg_rxe_driver,
			     (struct vg_usq **)priv);
}

/*
 * ->qp_detach: the QP is destroyed, rxe could not set it up, or verbsgate
 * unregisters. Process context, under rxe_sq_policy_mutex.
 */
static void vg_rxe_qp_detach(struct ib_qp *qp, void *priv)
{
	vg_usq_detach(priv);
}

/*
 * The cost class of a WQE's opcode (core/token.h). rxe has checked the
 * opcode against the QP (a WQE that failed completes with an error and
 * costs one operation).
 */
static u8 vg_rxe_vop(u32 opcode)
{
	switch (opcode) {
	case IB_WR_RDMA_READ:
		return VG_OP_READ;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		return VG_OP_ATOMIC_CMP_SWP;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		return VG_OP_ATOMIC_FETCH_ADD;
	case IB_WR_LOCAL_INV:
	case IB_WR_REG_MR:
	case IB_WR_BIND_MW:
		return VG_OP_LOCAL_INV;
	default:
		return VG_OP_SEND;
	}
}

/*
 * ->sq_post: rxe took @wqe, its private copy, in; @held WQEs are held.
 * A QP's gate lock held, interrupts off (the doorbell or the requester
 * tasklet); usq.c takes the shaper lock.
 * Return: how many held WQEs rxe may execute now.
 */
static u32 vg_rxe_sq_post(struct ib_qp *qp, void *priv,
			  const struct rxe_send_wqe *wqe, u32 held)
{
	struct vg_usq_wqe w = {
		.length = wqe->status == IB_WC_SUCCESS ? wqe->dma.length : 0,
		.vop = vg_rxe_vop(wqe->wr.opcode),
		.parts = rxe_sq_wqe_in_parts(qp, wqe),
	};

	return vg_usq_post(priv, &w, held);
}

/* ->sq_flush: the QP failed; rxe releases what it holds. As ->sq_post. */
static void vg_rxe_sq_flush(struct ib_qp *qp, void *priv)
{
	vg_usq_flush(priv);
}

/*
 * ->sq_error: a released WQE completed with @status and failed the QP
 * (rxe reports no flush). As ->sq_post; takes the tenant's verb_lock.
 */
static void vg_rxe_sq_error(struct ib_qp *qp, void *priv,
			    enum ib_wc_status status)
{
	vg_usq_error(priv);
}

/*
 * ->sq_caught_up: the requester sent what it was released, after
 * rxe_sq_unsent() found it behind. As ->sq_post.
 */
static void vg_rxe_sq_caught_up(struct ib_qp *qp, void *priv)
{
	vg_usq_caught_up(priv);
}

/*
 * ->sq_retry: the requester is to send @bytes again. As ->sq_post.
 * Return: whether verbsgate holds the retry for the queue's next turn.
 */
static bool vg_rxe_sq_retry(struct ib_qp *qp, void *priv, u32 bytes)
{
	return vg_usq_retry(priv, bytes);
}

static const struct rxe_sq_policy_ops vg_rxe_ops = {
	.owner = THIS_MODULE,
	.name = KBUILD_MODNAME,
	.qp_attach = vg_rxe_qp_attach,
	.qp_detach = vg_rxe_qp_detach,
	.sq_post = vg_rxe_sq_post,
	.sq_flush = vg_rxe_sq_flush,
	.sq_error = vg_rxe_sq_error,
	.sq_caught_up = vg_rxe_sq_caught_up,
	.sq_retry = vg_rxe_sq_retry,
};

/* Whether @ibdev is an rxe device (patched or not). Any context. */
bool vg_rxe_device(const struct ib_device *ibdev)
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

	lockdep_assert_held(&vg_devices_lock);

	reg = symbol_get(rxe_sq_policy_register);
	unreg = symbol_get(rxe_sq_policy_unregister);
	vg_rxe_driver.release = symbol_get(rxe_sq_release);
	vg_rxe_driver.release_bytes = symbol_get(rxe_sq_release_bytes);
	/* Optional: a series without it sends what it holds at once. */
	vg_rxe_driver.unsent = symbol_get(rxe_sq_unsent);
	/* Optional: a series without it sends retries unpaced. */
	vg_rxe_driver.retry = symbol_get(rxe_sq_retry);
	if (reg && unreg && vg_rxe_driver.release &&
	    vg_rxe_driver.release_bytes) {
		ret = reg(&vg_rxe_ops);
		state = !ret ? VG_RXE_REGISTERED :
			ret == -EBUSY ? VG_RXE_BUSY : VG_RXE_FAILED;
	}
	/* No reference kept: see the top of this file. */
	if (reg)
		symbol_put(rxe_sq_policy_register);
	if (unreg)
		symbol_put(rxe_sq_policy_unregister);
	if (vg_rxe_driver.release)
		symbol_put(rxe_sq_release);
	if (vg_rxe_driver.release_bytes)
		symbol_put(rxe_sq_release_bytes);
	if (vg_rxe_driver.unsent)
		symbol_put(rxe_sq_unsent);
	if (vg_rxe_driver.retry)
		symbol_put(rxe_sq_retry);
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
 * vg_rxe_governs() - whether verbsgate governs a device's user send queues
 * @ibdev: the device
 *
 * Context: any; takes no lock (the answer may be stale at once).
 */
bool vg_rxe_governs(const struct ib_device *ibdev)
{
	return vg_rxe_device(ibdev) &&
	       READ_ONCE(vg_rxe_state) == VG_RXE_REGISTERED;
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
