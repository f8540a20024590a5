/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: between the tenant registry (registry.c) and classification
 * (classify.c) only: the selectors the registry builds and compares, and
 * the registry's tenants, which classification walks under RCU.
 */
#ifndef _VG_CLASSIFY_H
#define _VG_CLASSIFY_H

#include <linux/xarray.h>

#include "tenant.h"

/* Tenants by id; changed under vg_tenants_lock, read under RCU. */
extern struct xarray vg_tenants;

int vg_selector_init(struct vg_selector *sel,
		     const struct vg_tenant_spec *spec,
		     struct netlink_ext_ack *extack);
bool vg_selector_equal(const struct vg_selector *a,
		       const struct vg_selector *b);

#endif /* _VG_CLASSIFY_H */
