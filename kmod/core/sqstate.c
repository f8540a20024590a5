// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the transitions of a shaped send queue (see sqstate.h).
 */
#include "sqstate.h"

#define VG_SQ_BIT(s)	(1U << (s))

/* The states each state may move to: the arrows of sqstate.h. */
static const u32 vg_sq_next[VG_SQ_NR] = {
	[VG_SQ_READY] = VG_SQ_BIT(VG_SQ_ERROR) | VG_SQ_BIT(VG_SQ_RESETTING) |
			VG_SQ_BIT(VG_SQ_CLOSED),
	[VG_SQ_ERROR] = VG_SQ_BIT(VG_SQ_RESETTING) | VG_SQ_BIT(VG_SQ_CLOSED),
	[VG_SQ_RESETTING] = VG_SQ_BIT(VG_SQ_READY) | VG_SQ_BIT(VG_SQ_ERROR) |
			    VG_SQ_BIT(VG_SQ_CLOSED),
	[VG_SQ_CLOSED] = VG_SQ_BIT(VG_SQ_RELEASED) | VG_SQ_BIT(VG_SQ_BURIED),
	[VG_SQ_RELEASED] = VG_SQ_BIT(VG_SQ_BURIED),
	[VG_SQ_BURIED] = 0,
};

static const char *const vg_sq_names[VG_SQ_NR] = {
	[VG_SQ_READY] = "ready",
	[VG_SQ_ERROR] = "error",
	[VG_SQ_RESETTING] = "resetting",
	[VG_SQ_CLOSED] = "closed",
	[VG_SQ_RELEASED] = "released",
	[VG_SQ_BURIED] = "buried",
};

bool vg_sq_may_move(enum vg_sq_state from, enum vg_sq_state to)
{
	if ((unsigned int)from >= VG_SQ_NR || (unsigned int)to >= VG_SQ_NR)
		return false;
	return vg_sq_next[from] & VG_SQ_BIT(to);
}

const char *vg_sq_state_name(enum vg_sq_state s)
{
	if ((unsigned int)s >= VG_SQ_NR)
		return "invalid";
	return vg_sq_names[s];
}
