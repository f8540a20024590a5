/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: a tenant's quota of a resource it holds, such as the bytes
 * of memory its processes have registered as MRs.
 *
 * A registration pins its pages until it is deregistered; a tenant that
 * registers without end takes the host's memory from every other tenant
 * (Husky's "many MRs" attackers, and RLIMIT_MEMLOCK is per process, not
 * per tenant). The rdma cgroup controller counts objects, not bytes, so
 * the bytes are the module's: a grant is checked against the quota
 * before the driver pins anything.
 *
 * Pure; the caller makes the read of @held and the update atomic (a
 * compare-and-exchange loop).
 */
#ifndef _VG_CORE_QUOTA_H
#define _VG_CORE_QUOTA_H

#include "vg_compat.h"

/**
 * vg_quota_grant() - whether a holder of @held units may take @n more
 * @held: units held now
 * @max: the quota; 0: none
 * @n: units asked for
 * @add: set to the units to add to @held when granted: @n, or, with no
 *	quota, less where @held + @n would pass U64_MAX (the count then
 *	saturates; the caller gives back exactly @add)
 *
 * Context: any.
 * Return: true if granted; false if @held + @n would pass @max.
 */
bool vg_quota_grant(u64 held, u64 max, u64 n, u64 *add);

#endif /* _VG_CORE_QUOTA_H */
