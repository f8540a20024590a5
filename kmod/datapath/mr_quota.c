// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the MR bytes a tenant's processes hold, against its quota
 * (core/quota.h, TENANT_MR_BYTES_MAX in uapi/linux/verbsgate.h).
 *
 * The register wrapper (interpose.c) takes the MR's length from the
 * caller's tenant before the driver pins anything, and refuses with
 * -EDQUOT what does not fit; once the driver registered the MR, the
 * charge is kept by MR, so that the deregistration gives it back to the
 * tenant it was taken from, whatever cgroup the process is in by then.
 * An MR registered while verbsgate was not attached to its device has no
 * charge and gives nothing back. Detach gives every charge back: the
 * counts start from nothing when the device is attached again.
 *
 * Kernel ULPs' MRs (no udata) are not charged.
 */
#include <linux/slab.h>

#include "core/quota.h"
#include "tenant/tenant.h"

#include "mr_quota.h"

/**
 * struct vg_mr_charge - the bytes one MR holds of its tenant's quota
 * @node: in vg_mr_quota::mrs, once committed
 * @mr: the MR, a key only (never dereferenced)
 * @t: the tenant charged, referenced
 * @bytes: what was added to @t->mr_bytes
 */
struct vg_mr_charge {
	struct hlist_node node;
	const struct ib_mr *mr;
	struct vg_ktenant *t;
	u64 bytes;
};

/* Context: any. */
void vg_mr_quota_init(struct vg_mr_quota *q)
{
	spin_lock_init(&q->lock);
	hash_init(q->mrs);
}

/**
 * vg_mr_quota_take() - charge a registration to the caller's tenant
 * @udata: the verb's user data; NULL (a kernel ULP's MR): not charged
 * @length: the MR's length in bytes
 * @out: the charge, to commit or give back; NULL if nothing was charged
 *
 * Context: process (the registering caller); may sleep (allocates).
 * Return: 0; -EDQUOT if @length does not fit in the tenant's quota
 * (counted in its mr_refused); -ENOMEM.
 */
int vg_mr_quota_take(struct ib_udata *udata, u64 length,
		     struct vg_mr_charge **out)
{
	struct vg_mr_charge *c;
	struct vg_ktenant *t;
	s64 held;
	u64 add;

	*out = NULL;
	if (!udata)
		return 0;
	t = vg_tenant_of_current();
	if (!t)
		return 0;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c) {
		vg_tenant_put(t);
		return -ENOMEM;
	}
	held = atomic64_read(&t->mr_bytes);
	do {
		if (!vg_quota_grant((u64)held, READ_ONCE(t->pol.mr_bytes_max),
				    length, &add)) {
			atomic64_inc(&t->mr_refused);
			vg_tenant_put(t);
			kfree(c);
			return -EDQUOT;
		}
	} while (!atomic64_try_cmpxchg(&t->mr_bytes, &held,
				       (s64)((u64)held + add)));
	c->t = t;
	c->bytes = add;
	*out = c;
	return 0;
}

/**
 * vg_mr_quota_commit() - keep a charge as the registered MR's
 * @q: the MR's device's table
 * @c: from vg_mr_quota_take()
 * @mr: the MR the driver registered
 *
 * Context: process; takes @q->lock.
 */
void vg_mr_quota_commit(struct vg_mr_quota *q, struct vg_mr_charge *c,
			const struct ib_mr *mr)
{
	c->mr = mr;
	spin_lock(&q->lock);
	hash_add(q->mrs, &c->node, (unsigned long)mr);
	spin_unlock(&q->lock);
}

/**
 * vg_mr_quota_unhash() - take an MR's charge out of its device's table
 * @q: the device's table
 * @mr: the MR, about to be deregistered
 *
 * Before the driver frees @mr, so that an MR registered at the same
 * address meanwhile cannot be mistaken for it.
 *
 * Context: process; takes @q->lock.
 * Return: the charge (commit it again if the deregistration fails, else
 * give it back), or NULL if @mr has none.
 */
struct vg_mr_charge *vg_mr_quota_unhash(struct vg_mr_quota *q,
					const struct ib_mr *mr)
{
	struct vg_mr_charge *c;

	spin_lock(&q->lock);
	hash_for_each_possible(q->mrs, c, node, (unsigned long)mr) {
		if (c->mr == mr) {
			hash_del(&c->node);
			spin_unlock(&q->lock);
			return c;
		}
	}
	spin_unlock(&q->lock);
	return NULL;
}

/**
 * vg_mr_quota_give_back() - return a charge's bytes to its tenant
 * @c: a charge not in any table, or NULL; freed
 *
 * Context: process.
 */
void vg_mr_quota_give_back(struct vg_mr_charge *c)
{
	if (!c)
		return;
	atomic64_sub((s64)c->bytes, &c->t->mr_bytes);
	vg_tenant_put(c->t);
	kfree(c);
}

/**
 * vg_mr_quota_destroy() - give back every charge of a detached device
 * @q: the device's table; no wrapper uses it any more
 *
 * Context: process (detach, after the wrappers' grace period).
 */
void vg_mr_quota_destroy(struct vg_mr_quota *q)
{
	struct vg_mr_charge *c;
	struct hlist_node *tmp;
	int bkt;

	hash_for_each_safe(q->mrs, bkt, tmp, c, node) {
		hash_del(&c->node);
		vg_mr_quota_give_back(c);
	}
}
