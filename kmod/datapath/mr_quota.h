/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the MR bytes a tenant's processes hold, against its quota.
 */
#ifndef _VG_MR_QUOTA_H
#define _VG_MR_QUOTA_H

#include <linux/hashtable.h>
#include <linux/spinlock.h>
#include <rdma/ib_verbs.h>

/**
 * struct vg_mr_quota - a device's MRs registered by processes, each with
 *	the tenant it was charged to
 * @lock: serializes @mrs; a leaf (kmod/lock_order.h, 3b)
 * @mrs: struct vg_mr_charge by MR
 */
struct vg_mr_quota {
	spinlock_t lock;	/* serializes mrs; a leaf */
	DECLARE_HASHTABLE(mrs, 8);
};

struct vg_mr_charge;

void vg_mr_quota_init(struct vg_mr_quota *q);
int vg_mr_quota_take(struct ib_udata *udata, u64 length,
		     struct vg_mr_charge **out);
void vg_mr_quota_commit(struct vg_mr_quota *q, struct vg_mr_charge *c,
			const struct ib_mr *mr);
struct vg_mr_charge *vg_mr_quota_unhash(struct vg_mr_quota *q,
					const struct ib_mr *mr);
void vg_mr_quota_give_back(struct vg_mr_charge *c);
void vg_mr_quota_destroy(struct vg_mr_quota *q);

#endif /* _VG_MR_QUOTA_H */
