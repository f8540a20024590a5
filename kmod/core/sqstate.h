/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the life of a shaped send queue, as a state machine.
 *
 * The moves (anything else is a verbsgate bug):
 *
 *   READY     -> ERROR      a chunk failed, or the owner moved the QP to ERR
 *   READY     -> RESETTING  the owner moves the QP to RESET
 *   ERROR     -> RESETTING  likewise, to reuse it
 *   RESETTING -> READY      the driver reset the QP, or refused from READY
 *   RESETTING -> ERROR      the driver refused from ERROR (or the QP
 *                           failed meanwhile)
 *   READY, ERROR, RESETTING -> CLOSED   its owner destroys the QP
 *   CLOSED    -> RELEASED   the driver's destroy_qp returned
 *   CLOSED, RELEASED -> BURIED  its last chunk is accounted for, its CQ
 *                           was destroyed, or the device went
 *
 * READY      the shaper queues, splits and posts the owner's WRs
 * ERROR      the QP is in error: WRs are flushed, nothing is posted
 * RESETTING  a modify to RESET is in the driver: nothing of the QP is
 *            posted; it ends in READY (the reset happened) or in the
 *            state it left (the driver refused), which may have become
 *            ERROR meanwhile
 * CLOSED     its owner destroys the QP: nothing more is posted; chunks in
 *            flight may still complete
 * RELEASED   the driver's destroy_qp returned: no new completion can
 *            appear, so the state goes once its chunks are accounted for
 * BURIED     off every list; only RCU readers may still look at it
 *
 * Pure: the kernel keeps the state under the device's shaper lock and
 * makes every change through vg_sendq_move() (kmod/datapath/sendq.h),
 * which checks it against vg_sq_may_move() in VG_DEBUG builds.
 */
#ifndef _VG_CORE_SQSTATE_H
#define _VG_CORE_SQSTATE_H

#include "vg_compat.h"

/* From VG_SQ_CLOSED on, the end of the queue's life, in order. */
enum vg_sq_state {
	VG_SQ_READY,
	VG_SQ_ERROR,
	VG_SQ_RESETTING,
	VG_SQ_CLOSED,
	VG_SQ_RELEASED,
	VG_SQ_BURIED,
	VG_SQ_NR
};

/**
 * vg_sq_may_move() - whether a send queue may go from @from to @to
 * @from: its state
 * @to: the state asked for
 *
 * A state never moves to itself; out-of-range values never move.
 *
 * Context: any, pure.
 */
bool vg_sq_may_move(enum vg_sq_state from, enum vg_sq_state to);

/**
 * vg_sq_state_name() - a state's name, for messages
 * @s: the state
 *
 * Context: any, pure. Return: "ready", "error", ...; "invalid" out of range.
 */
const char *vg_sq_state_name(enum vg_sq_state s);

#endif /* _VG_CORE_SQSTATE_H */
