// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a tenant's quota of a resource it holds (quota.h).
 */
#include "quota.h"

bool vg_quota_grant(u64 held, u64 max, u64 n, u64 *add)
{
	if (max && (n > max || held > max - n))
		return false;
	*add = n > U64_MAX - held ? U64_MAX - held : n;
	return true;
}
