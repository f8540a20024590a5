/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: keeping tracked QPs in their tenants as tenants come and go,
 * and announcing each classification on the events group.
 */
#ifndef _VG_QP_TENANT_H
#define _VG_QP_TENANT_H

#include <rdma/ib_verbs.h>

struct vg_device;

int vg_qp_tenants_init(void);
void vg_qp_tenants_exit(void);
void vg_qp_announce(struct vg_device *dev, struct ib_qp *qp);

#endif /* _VG_QP_TENANT_H */
