// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: keep tracked QPs in their tenants as tenants come and go
 * (rules R2 and R3 of tenant/tenant.h), keep the shapers' tenant slots in step
 * with the tenants' policies, and announce every classification with a
 * QP_CLASSIFIED event: at creation, when a QP's address becomes known,
 * and when a tenant change moves it.
 *
 * Events are best effort, like the other events of the family: with no
 * listener nothing is allocated; without memory the event is dropped and
 * the classification stands.
 */
#include "device.h"
#include "qp.h"
#include "qp_tenant.h"

/* vg_qp_moved_fn of the notifier's pass; @arg is the device. */
static void vg_qp_moved(const struct vg_qp *q, void *arg)
{
	vg_device_ops->qp_classified(arg, q);
}

struct vg_qp_change {
	enum vg_tenant_event ev;
	struct vg_ktenant *t;
};

/* Under vg_tenants_lock and vg_devices_lock (vg_device_for_each()). */
static int vg_qp_retenant_dev(struct vg_device *dev, void *arg)
{
	struct vg_qp_change *c = arg;

	lockdep_assert_held(&vg_tenants_lock);

	lockdep_assert_held(&vg_devices_lock);

	vg_qp_table_retenant(&dev->ipose.qps, c->ev, c->t, vg_qp_moved, dev);
	/* After the moves: a deleted tenant's slots follow its QPs. */
	vg_shaper_tenant_event(&dev->ipose.shaper, c->ev, c->t);
	return 0;
}

/*
 * Tenant notifier: process context, under vg_tenants_lock, after the
 * change is visible to classification. Takes vg_devices_lock (the lock
 * order of kmod/lock_order.h), then each table's xa_lock per QP.
 */
static int vg_qp_tenant_event(struct notifier_block *nb, unsigned long ev,
			      void *data)
{
	struct vg_qp_change c = { .ev = ev, .t = data };
	unsigned long pos = 0;

	lockdep_assert_held(&vg_tenants_lock);

	vg_device_for_each(&pos, vg_qp_retenant_dev, &c);
	return NOTIFY_OK;
}

static struct notifier_block vg_qp_tenant_nb = {
	.notifier_call = vg_qp_tenant_event,
};

struct vg_qp_announcement {
	struct vg_device *dev;
	struct ib_qp *qp;
};

/* Under vg_devices_lock (vg_device_with()). */
static int vg_qp_announce_locked(struct vg_device *dev, void *arg)
{
	struct vg_qp_announcement *a = arg;
	struct vg_qp *q;

	lockdep_assert_held(&vg_devices_lock);

	/* The index may have been reused by a device attached since. */
	if (dev != a->dev)
		return 0;
	rcu_read_lock();
	q = vg_qp_find(&dev->ipose.qps, a->qp);
	if (q)
		vg_device_ops->qp_classified(dev, q);
	rcu_read_unlock();
	return 0;
}

/**
 * vg_qp_announce() - send a QP_CLASSIFIED event for a QP
 * @dev: its device
 * @qp: the QP, tracked in @dev's table (nothing is sent otherwise)
 *
 * Context: process context (the interposed create and modify operations);
 * takes vg_devices_lock, for the device's name.
 */
void vg_qp_announce(struct vg_device *dev, struct ib_qp *qp)
{
	struct vg_qp_announcement a = { .dev = dev, .qp = qp };

	if (!vg_device_ops->events_wanted())
		return;
	vg_device_with(dev->index, NULL, vg_qp_announce_locked, &a);
}

/* Process context (module init), before any device is attached. */
int vg_qp_tenants_init(void)
{
	return vg_tenant_register_notifier(&vg_qp_tenant_nb);
}

/* Process context (module exit), after every device is detached. */
void vg_qp_tenants_exit(void)
{
	vg_tenant_unregister_notifier(&vg_qp_tenant_nb);
}
