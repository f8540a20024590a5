/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the lock order, written once. Every file that takes one of
 * these locks refers here; a function documented as running "under" a
 * lock asserts it with lockdep_assert_held().
 *
 * Outermost first. A lock may be taken while holding only locks above it.
 *
 *  0. ib_core's device locks (devices_rwsem, client_data_rwsem): held by
 *     ib_core when it calls the ib_client (datapath/client.c), so nothing
 *     under the locks below calls back into ib_core's device management.
 *  1. vg_tenants_lock (mutex, tenant/registry.c): tenant registry changes
 *     and walks; the tenant notifier chain runs under it.
 *  2. vg_devices_lock (mutex, datapath/device.c): device registry
 *     membership and names; netlink and sysfs walks over devices, the
 *     tenant notifier's pass over every QP table.
 * 2a. rxe_sq_policy_mutex (a patched rdma_rxe's, driver-patches/rdma_rxe):
 *     verbsgate enters it through rxe_sq_policy_register() and
 *     _unregister(), holding at most 0 and 2 (datapath/usq_rxe.c). rxe
 *     holds it around the policy's ->qp_attach and ->qp_detach, which
 *     therefore take none of 0 to 2; they take the offers' list lock, a
 *     leaf, and 7 (datapath/usq.c).
 *  3. vg_fault_lock (mutex, datapath/fault.c): a leaf; fault settings.
 *     Likewise the xa_lock of vg_orphans (datapath/device.c), the
 *     removed devices whose wrappers stay until their owners tear down.
 * 3b. A device's vg_mr_quota::lock (spinlock, datapath/mr_quota.c): a
 *     leaf, taken in process context by the MR register and deregister
 *     wrappers: the charges of the device's MRs, by MR.
 *  4. A device's vg_device::ctrl_lock (spinlock, _bh: the controller's
 *     timer takes it): its settings and controller state
 *     (control/devcfg.c).
 *  5. vg_cw_lock (spinlock, control/devcfg.c): a leaf; the class weights
 *     snapshot for devices that attach later.
 *  6. A QP table's xa_lock (datapath/qp.c): tracked QPs and their tenant
 *     pointers. Never taken under 7.
 * 6a. A governed rxe QP's gate lock (rdma_rxe's, spinlock, interrupts
 *     off): rxe holds it around the policy's ->sq_post, ->sq_flush,
 *     ->sq_caught_up and ->sq_retry, which take 7 (datapath/usq.c), and
 *     ->sq_error, which takes 8. verbsgate enters it through
 *     rxe_sq_release(), _release_bytes() and rxe_sq_retry() holding
 *     none of the locks here: a dispatcher drops 7 first
 *     (rxe_sq_unsent() takes no lock).
 *  7. A device's vg_shaper::lock (spinlock, _irqsave: posts come from any
 *     context, hardirq included): the scheduler, the pacer, every
 *     vg_sendq and every bound vg_usq of the device (datapath/shaper.c,
 *     datapath/sendq*.c, datapath/usq.c).
 *     Dispatchers (several at once, on different QPs) drop it around the
 *     driver's post_send; WR copies are made without it.
 *  8. A tenant's verb_lock (spinlock, irqsave, tenant/ctrl_pace.c): a
 *     leaf, taken for a few instructions by the interposed control verbs
 *     (process context) and by rxe's report of a failed work request
 *     (softirq, under 6a): the tenant's control verb pace.
 *
 * Read-side sections that order nothing but must not be left while
 * sleeping in between: RCU (classification, the QP tables' readers, the
 * post wrapper's look at a QP), vg_interpose_srcu (every wrapper, so
 * detach waits for them), vg_nl_events_srcu (event senders, so the
 * family outlives them).
 *
 * Driver locks: verbsgate calls the driver's operations (post_send,
 * poll_cq, create/modify/destroy, rxe's release functions) with none of
 * the locks above held but the read-side sections, so no driver lock
 * ever nests inside ours; except rxe_sq_policy_mutex, 2a, and its gate
 * lock, 6a.
 */
#ifndef _VG_LOCK_ORDER_H
#define _VG_LOCK_ORDER_H
#endif /* _VG_LOCK_ORDER_H */
