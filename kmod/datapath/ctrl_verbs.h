/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: control verbs of processes, paced per tenant.
 */
#ifndef _VG_CTRL_VERBS_H
#define _VG_CTRL_VERBS_H

#include <rdma/ib_verbs.h>

struct vg_interpose;

int vg_ctrl_verb(struct vg_interpose *ip, struct ib_udata *udata,
		 bool may_wait);
void vg_ctrl_verbs_stop(struct vg_interpose *ip);

#endif /* _VG_CTRL_VERBS_H */
