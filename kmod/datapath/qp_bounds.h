/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: a modify QP within its tenant's bounds on retry and RDMA
 * READ attributes (the policy is core/qpbounds.h).
 */
#ifndef _VG_QP_BOUNDS_H
#define _VG_QP_BOUNDS_H

#include <rdma/ib_verbs.h>

#include "qp.h"

struct ib_qp_attr *vg_qp_bound_attr(struct vg_qp_table *t, struct ib_qp *qp,
				    const struct ib_qp_attr *attr,
				    int attr_mask);
void vg_qp_bound_count(struct vg_qp_table *t, struct ib_qp *qp);

#endif /* _VG_QP_BOUNDS_H */
