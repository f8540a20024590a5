/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: a tenant's pace of control verbs.
 *
 * Creating, modifying and destroying QPs, CQs and PDs and registering
 * and deregistering MRs enter the kernel and the driver one call at a
 * time: a tenant that loops over them (Husky's control-verb storms)
 * takes CPU time, driver locks and, on a real NIC, firmware commands
 * from every other tenant, while moving no payload that the data path's
 * pacing would see. So each tenant may have a pace: @rate verbs per
 * second, of which @burst may go back to back after a quiet time.
 *
 * Earliest departure time: the state is the time the next verb may
 * start. A verb that may wait (create, register, allocate, modify) takes
 * the next slot and waits for it; a verb that must not wait (destroy,
 * deregister: a process's exit cleans up through them) is charged but
 * never pushes the next slot more than a burst past now, so a process
 * that exits with many objects does not lock its tenant out for long.
 *
 * Pure; the caller serializes calls on one state (the tenant's lock).
 */
#ifndef _VG_CORE_VERBPACE_H
#define _VG_CORE_VERBPACE_H

#include "vg_compat.h"

#define VG_VERB_RATE_MAX	1000000
#define VG_VERB_BURST_MAX	1000000
#define VG_VERB_BURST_DEFAULT	64

/**
 * struct vg_verb_pace - one tenant's control verb pace
 * @next_ns: when the next verb may start (ktime ns)
 */
struct vg_verb_pace {
	u64 next_ns;
};

/**
 * vg_verb_pace_take() - charge one control verb
 * @p: the tenant's state
 * @now: ktime ns
 * @rate: verbs per second, 1..VG_VERB_RATE_MAX; 0: no pace
 * @burst: verbs that may go back to back, 1..VG_VERB_BURST_MAX
 * @may_wait: the verb waits for its slot (create), or is only charged
 *	(destroy)
 *
 * Context: any; the caller holds the state's lock.
 * Return: nanoseconds the verb waits before it goes, 0 to go now (always
 *	0 for @may_wait false or @rate 0).
 */
u64 vg_verb_pace_take(struct vg_verb_pace *p, u64 now, u32 rate, u32 burst,
		      bool may_wait);

#endif /* _VG_CORE_VERBPACE_H */
