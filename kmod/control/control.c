// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: what the control plane does when tenants and devices come
 * and go (see control.h). Each hook runs in the context its struct
 * documents (tenant/tenant.h, datapath/device.h).
 */
#include "control.h"
#include "devcfg.h"
#include "netlink_handlers.h"
#include "sysfs.h"

const struct vg_tenant_ops vg_control_tenant_ops = {
	.check_guarantees = vg_devices_check_guarantees,
	.class_weights = vg_devcfg_set_class_weights,
	.publish = vg_sysfs_tenant_add,
	.unpublish = vg_sysfs_tenant_del,
};

/* Settings first: the sysfs files read them. Under vg_devices_lock. */
static int vg_control_device_add(struct vg_device *dev)
{
	lockdep_assert_held(&vg_devices_lock);

	vg_devcfg_init(dev);
	return vg_sysfs_device_add(dev);
}

/* The wrappers are installed, the shaper set up. Under vg_devices_lock. */
static void vg_control_device_attached(struct vg_device *dev)
{
	lockdep_assert_held(&vg_devices_lock);

	vg_devcfg_publish(dev);
	vg_devcfg_start(dev);
	vg_sysfs_ports_add(dev);
}

/* Out of the registry, the wrappers still installed. No lock held. */
static void vg_control_device_detach(struct vg_device *dev)
{
	/* Before the shaper goes: the port files read it. */
	vg_sysfs_ports_del(dev);
	vg_devcfg_stop(dev);
}

const struct vg_device_ops vg_control_device_ops = {
	.add = vg_control_device_add,
	.attached = vg_control_device_attached,
	.detach = vg_control_device_detach,
	.remove = vg_sysfs_device_del,
	.rename = vg_sysfs_device_rename,
	.qp_classified = vg_nl_qp_classified,
	.events_wanted = vg_nl_events_listened,
};
