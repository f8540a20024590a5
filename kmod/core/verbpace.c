// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a tenant's pace of control verbs. See verbpace.h.
 */
#include "verbpace.h"

u64 vg_verb_pace_take(struct vg_verb_pace *p, u64 now, u32 rate, u32 burst,
		      bool may_wait)
{
	u64 gap, depth, start;

	if (!rate)
		return 0;
	gap = div_u64(NSEC_PER_SEC, min_t(u32, rate, VG_VERB_RATE_MAX));
	depth = (u64)clamp_t(u32, burst, 1, VG_VERB_BURST_MAX) * gap;
	/* A quiet tenant has saved up a burst, no more. */
	if (now > depth && p->next_ns < now - depth)
		p->next_ns = now - depth;
	else if (now <= depth && p->next_ns < now)
		p->next_ns = 0;
	if (!may_wait) {
		if (p->next_ns < now + depth)
			p->next_ns = min(p->next_ns + gap, now + depth);
		return 0;
	}
	start = p->next_ns;
	p->next_ns += gap;
	return start > now ? start - now : 0;
}
