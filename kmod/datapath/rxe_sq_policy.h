/* SPDX-License-Identifier: GPL-2.0 OR Linux-OpenIB */
/*
 * Send queue policy hook of the soft RoCE driver (rdma_rxe).
 *
 * A send queue policy is a module that decides when the work requests a
 * user process posts to an rxe send queue are executed, for example to
 * share the device between tenants by pacing them. At most one policy is
 * registered at a time. With none registered, rxe behaves exactly as
 * without this interface.
 *
 * Governed queues
 *
 *   When a user QP is created while a policy is registered, rxe offers it
 *   to the policy (->qp_attach), which may accept it, leave it alone or
 *   refuse its creation. QPs that exist when a policy registers are not
 *   offered. If the policy accepts, the QP's send queue is governed from
 *   then on:
 *
 *   - rxe copies each WQE the user writes into the shared ring to a
 *     kernel-private ring before anything looks at it: what rxe reads of
 *     it (wr, iova, dma.length, dma.num_sge and the SGEs or inline bytes
 *     it names; a connected QP's WQE without wr.ud). The policy and the
 *     requester see only that copy, so later writes to the shared ring
 *     change nothing. rxe initialises the copy's execution state (state,
 *     status, dma.resid, dma.cur_sge, dma.sge_offset) itself and checks
 *     the opcode, dma.num_sge and the inline length against the QP; a
 *     WQE that fails is handed to the policy with a status other than
 *     IB_WC_SUCCESS and completes with IB_WC_LOC_QP_OP_ERR once released.
 *   - Copying ("intake") happens on the doorbell (the POST_SEND command
 *     librxe issues after writing the ring) and every time the requester
 *     runs, whatever woke it, so a WQE written without a doorbell is
 *     taken in (and offered to the policy) as soon as the requester runs
 *     for any reason.
 *   - The requester executes copied WQEs only up to the release index,
 *     which only rxe_sq_release() and rxe_sq_release_bytes() advance.
 *     Writing the ring and the producer index, with or without a
 *     doorbell, never makes rxe execute a WQE the policy has not
 *     released.
 *   - Released WQEs execute and complete exactly as in stock rxe: one
 *     completion per signaled (or failed) WQE, in order.
 *   - When the QP enters the error state, rxe releases every held WQE
 *     itself (after ->sq_flush) so that they are flushed in order, as
 *     stock rxe flushes everything the user posted; WQEs taken in while
 *     the QP is in the error state are released at once.
 *
 *   WQEs are released strictly in the order they were posted.
 *
 * Releasing part of a WQE
 *
 *   rxe_sq_release_bytes() releases part of the payload of the oldest
 *   held WQE. rxe sends it as a prefix of the whole packets of the WQE's
 *   one message and pauses inside the message until more is released,
 *   then resumes from where it stopped: a released part that ends inside
 *   a packet waits for the rest of that packet. Whatever the parts, the
 *   WQE completes exactly as if released whole: one completion, if
 *   signaled or failed, with its wr_id, opcode, status and byte count;
 *   a SEND takes one receive WQE at the responder, and immediate data
 *   arrives with its last packet. The last packet before a pause asks
 *   for an acknowledgment, and a pause longer than the QP's timeout
 *   does not count as a transport retry. RDMA WRITE and SEND with a
 *   payload on RC and UC QPs can be sent in parts (rxe_sq_wqe_in_parts());
 *   so can an RDMA READ on an RC QP: rxe asks the responder for each
 *   released part (in whole packets) with a read request of its own, the
 *   next one once every response to the previous one is in, so a READ
 *   never has more than one request outstanding and the responder's
 *   responses come no faster than the policy releases them. Any other
 *   WQE (atomics, local operations, inline data, UD, no payload) is
 *   wholly released by any part. rxe_sq_release() releases a partly
 *   released WQE wholly before any other.
 *
 *   While a WQE is partly released the QP cannot drain (SQD) past it:
 *   the requester finishes a message it started, so the drain waits for
 *   the policy to release the rest.
 *
 * Released but not yet sent
 *
 *   A release runs the requester, which normally sends what was released
 *   before the release returns. It may not: the QP may have as many
 *   packets unacknowledged, or in the network stack's hands, as rxe
 *   allows, or the requester may run on another CPU. It then sends the
 *   rest when it runs again, at the speed of the CPU, and a policy that
 *   meanwhile released more, at the pace it meant the QP to send at,
 *   sees it all leave at once. rxe_sq_unsent() tells whether the
 *   requester is behind what was released, and if it is, rxe calls
 *   ->sq_caught_up once it has sent all of it, so that the policy can
 *   hold the rest of the queue back until then.
 *
 * Retries
 *
 *   A retry sends again, at the speed of the CPU, what the requester sent
 *   beyond the last packet acknowledged: when the responder answered
 *   with an RNR NAK (once its RNR timer fires) or a sequence error NAK,
 *   or when the QP's ACK timer fired. A policy that paces what it
 *   releases can pace that too: rxe offers each retry of a governed QP
 *   to the optional ->sq_retry, with the payload it is to send again,
 *   and a policy that holds it must let it go later with rxe_sq_retry():
 *   the requester sends nothing on the QP meanwhile, and neither the
 *   retransmit timer nor the retry counts end the wait. The retry then
 *   proceeds at the speed of the CPU as before; the policy only chose
 *   when. A held retry proceeds when the policy detaches, and is dropped
 *   when rxe flushes the queue (->sq_flush: the QP failed, is reset or
 *   is destroyed).
 *
 * Contexts and locking
 *
 *   ->qp_attach and ->qp_detach run in process context and may sleep;
 *   ->qp_attach runs in the context of the task creating the QP, so the
 *   policy may classify it by current (its cgroup, for example).
 *   ->sq_post, ->sq_flush, ->sq_error and ->sq_retry are called with
 *   the queue's gate lock held and interrupts disabled, from process
 *   context (the doorbell, or a task run directly) or from softirq
 *   context (the requester and completer tasklets); they must not sleep
 *   and must not call rxe_sq_release(), rxe_sq_release_bytes() or
 *   rxe_sq_retry() (->sq_post returns how many WQEs to release
 *   instead). Those may be called from process or softirq context (a
 *   timer, a soft hrtimer), but not from those callbacks nor with
 *   interrupts disabled: like the doorbell, they run the requester in
 *   the caller's context, unless it runs on another CPU already, which
 *   then sends what was released. They take the gate lock, which
 *   serialises them with each other and with intake.
 *
 * Registration and unloading
 *
 *   rxe_sq_policy_register() fails with -EBUSY when another policy is
 *   registered. rxe_sq_policy_unregister() may be called while traffic
 *   runs: it detaches every governed QP (->qp_detach), and each such QP
 *   keeps using its private ring with every WQE released as it is taken
 *   in, until it is destroyed. When it returns, no callback of the policy
 *   runs or will run, so it is safe to call from module exit. rxe calls a
 *   policy's ->qp_attach only while it holds a reference on ops->owner.
 */

#ifndef RDMA_RXE_SQ_POLICY_H
#define RDMA_RXE_SQ_POLICY_H

#include <linux/types.h>
#include <rdma/ib_verbs.h>
#include <rdma/rdma_user_rxe.h>

/**
 * struct rxe_sq_policy_ops - a send queue policy
 * @owner: the module that implements the policy
 * @name: short name, for messages
 * @qp_attach: offer a new user QP to the policy, in the context of the
 *	task creating it; @depth is the most WQEs its send queue can hold
 *	at once, so the policy can size what it keeps per held WQE. Return
 *	0 and set *@priv to govern its send queue, a positive value to
 *	leave it ungoverned, or a negative errno to fail the creation of
 *	the QP. Process context, may sleep; called under rxe's registration
 *	mutex, so it must not (un)register a policy.
 * @qp_detach: the QP is no longer governed (it is being destroyed, the
 *	policy unregisters, or rxe could not set up a QP the policy had
 *	just accepted). Held WQEs are released by rxe; after this returns
 *	the policy must not call rxe_sq_release(), rxe_sq_release_bytes(),
 *	rxe_sq_unsent() or rxe_sq_retry() for @qp again. Process
 *	context, may sleep.
 * @sq_post: @wqe, the kernel's private copy of a newly posted WQE, joins
 *	the queue; @held is the number of WQEs held now, @wqe and a partly
 *	released one included. Return how many of the held WQEs, oldest
 *	first, to release wholly now (0 .. @held). Gate lock held,
 *	interrupts off, must not sleep.
 * @sq_flush: rxe is about to release all held WQEs, a partly released
 *	one included, and to drop a held retry, because the QP failed, is
 *	reset or is destroyed; the policy drops what it accounted for them.
 *	Gate lock held, interrupts off, must not sleep.
 * @sq_error: optional; a released WQE completes with @status, an error,
 *	and moves the QP to the error state (the WQEs flushed after it are
 *	not reported), so that the policy can count or pace the failures
 *	of a queue's owner: remote access errors, RNR or transport retries
 *	exceeded. Gate lock held, interrupts off, must not sleep.
 * @sq_caught_up: optional; the requester has sent every packet released
 *	so far, after rxe_sq_unsent() returned true for the QP: once after
 *	one or more such calls, unless the QP fails first (->sq_flush
 *	then). Called by the requester, softirq context or a process with
 *	bottom halves off; gate lock held, interrupts off, must not sleep
 *	nor release.
 * @sq_retry: optional; the requester is about to retry, sending again
 *	@bytes of RDMA WRITE and SEND payload (a READ's responses come
 *	again from the responder, not counted). Return true to hold the
 *	retry until the policy calls rxe_sq_retry(), false to let it go
 *	now; asked once per retry. Called by the requester, softirq
 *	context or a process with bottom halves off; gate lock held,
 *	interrupts off, must not sleep nor release.
 */
struct rxe_sq_policy_ops {
	struct module *owner;
	const char *name;
	int (*qp_attach)(struct ib_qp *qp, u32 depth, void **priv);
	void (*qp_detach)(struct ib_qp *qp, void *priv);
	u32 (*sq_post)(struct ib_qp *qp, void *priv,
		       const struct rxe_send_wqe *wqe, u32 held);
	void (*sq_flush)(struct ib_qp *qp, void *priv);
	void (*sq_error)(struct ib_qp *qp, void *priv,
			 enum ib_wc_status status);
	void (*sq_caught_up)(struct ib_qp *qp, void *priv);
	bool (*sq_retry)(struct ib_qp *qp, void *priv, u32 bytes);
};

int rxe_sq_policy_register(const struct rxe_sq_policy_ops *ops);
void rxe_sq_policy_unregister(const struct rxe_sq_policy_ops *ops);

/**
 * rxe_sq_release - let the requester execute held WQEs
 * @qp: a QP governed by the caller
 * @count: how many held WQEs to release, oldest first
 *
 * Process or softirq context, interrupts enabled, but not from ->sq_post
 * or ->sq_flush; runs the requester.
 *
 * Return: the number of WQEs released, at most @count (fewer when fewer
 * are held). A partly released WQE counts as held until it is wholly
 * released.
 */
u32 rxe_sq_release(struct ib_qp *qp, u32 count);

/**
 * rxe_sq_unsent - whether the requester is behind what was released
 * @qp: a QP governed by the caller
 *
 * True while the requester has yet to send packets of released WQEs:
 * a released WQE it has not finished, other than an RDMA READ (it asks
 * for a READ's released parts as the responses to the previous one come
 * in) or, of a partly released WQE, more than its released packets.
 * When true, rxe calls ->sq_caught_up once the requester has sent them.
 *
 * Any context; takes no lock.
 */
bool rxe_sq_unsent(struct ib_qp *qp);

/**
 * rxe_sq_retry - let a retry the policy holds go
 * @qp: a QP governed by the caller
 *
 * As rxe_sq_release(); the requester starts the retry.
 *
 * Return: 0, or -ENOENT when no retry of @qp is held (the QP failed, was
 * reset or the policy detached meanwhile).
 */
int rxe_sq_retry(struct ib_qp *qp);

/**
 * rxe_sq_wqe_in_parts - whether rxe can send a WQE in parts
 * @qp: the QP
 * @wqe: the kernel's copy of the WQE, as ->sq_post() sees it
 *
 * RDMA WRITE and SEND of any kind, with a payload and not inline, on RC
 * and UC QPs, and RDMA READ on RC QPs; rxe_sq_release_bytes() releases
 * any other WQE wholly.
 */
static inline bool rxe_sq_wqe_in_parts(const struct ib_qp *qp,
				       const struct rxe_send_wqe *wqe)
{
	if ((qp->qp_type != IB_QPT_RC && qp->qp_type != IB_QPT_UC) ||
	    wqe->status != IB_WC_SUCCESS || !wqe->dma.length ||
	    (wqe->wr.send_flags & IB_SEND_INLINE))
		return false;
	switch (wqe->wr.opcode) {
	case IB_WR_RDMA_WRITE:
	case IB_WR_RDMA_WRITE_WITH_IMM:
	case IB_WR_SEND:
	case IB_WR_SEND_WITH_IMM:
	case IB_WR_SEND_WITH_INV:
		return true;
	case IB_WR_RDMA_READ:
		return qp->qp_type == IB_QPT_RC;
	default:
		return false;
	}
}

/**
 * rxe_sq_release_bytes - let the requester send part of a held WQE
 * @qp: a QP governed by the caller
 * @bytes: how many more bytes of the payload of the oldest held WQE
 *	(a partly released one, if any) to release; not 0
 * @left: set to how many bytes of that WQE are still held; 0 once it is
 *	wholly released, always 0 for a WQE rxe cannot send in parts
 *
 * As rxe_sq_release().
 *
 * Return: 0, -ENOENT when no WQE is held, or -EINVAL when @bytes is 0.
 */
int rxe_sq_release_bytes(struct ib_qp *qp, u32 bytes, u32 *left);

#endif /* RDMA_RXE_SQ_POLICY_H */
