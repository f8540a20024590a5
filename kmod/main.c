// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: per-tenant performance isolation for shared RDMA devices.
 *
 * Module entry points, and the one file that knows every layer: it hands
 * the control plane's hooks (control/control.h) to the registries below.
 * Initialization order is sysfs root, tenant
 * registry (with the default tenant), the QP path's tenant notifier,
 * device registry (an ib_client, which
 * attaches to every present device and interposes on its QP operations),
 * netlink, then debugfs; teardown runs in reverse, so netlink and debugfs
 * readers never see a registry that is being torn down, sysfs outlives
 * every device and tenant directory, tenants outlive the QPs that
 * reference them, and the last wrapper has returned before the module
 * text goes away (interpose.c). Devices still announce QPs after the
 * family is gone, until they are detached: vg_netlink_exit() closes the
 * events and waits for their senders before it unregisters the family,
 * so nothing is multicast on a group id the family no longer owns.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "control/control.h"
#include "control/debugfs.h"
#include "control/netlink.h"
#include "control/sysfs.h"
#include "datapath/device.h"
#include "datapath/interpose.h"
#include "datapath/qp_tenant.h"
#include "datapath/sendq.h"
#include "tenant/tenant.h"

#include "lock_order.h"

static int __init verbsgate_init(void)
{
	int ret;

	ret = vg_sysfs_init();
	if (ret)
		return ret;
	ret = vg_tenants_init(&vg_control_tenant_ops);
	if (ret)
		goto err_sysfs;
	ret = vg_qp_tenants_init();
	if (ret)
		goto err_tenants;
	ret = vg_sendq_init();
	if (ret)
		goto err_qp_tenants;
	ret = vg_devices_init(&vg_control_device_ops);
	if (ret)
		goto err_sendq;
	ret = vg_netlink_init();
	if (ret)
		goto err_devices;
	vg_debugfs_init();

	pr_info("version %s loaded\n", VG_VERSION);
	return 0;

err_devices:
	vg_devices_exit();
	vg_interpose_exit();
err_sendq:
	vg_sendq_exit();
err_qp_tenants:
	vg_qp_tenants_exit();
err_tenants:
	vg_tenants_exit();
err_sysfs:
	vg_sysfs_exit();
	return ret;
}

static void __exit verbsgate_exit(void)
{
	vg_debugfs_exit();
	vg_netlink_exit();
	vg_devices_exit();
	vg_interpose_exit();
	vg_sendq_exit();
	vg_qp_tenants_exit();
	vg_tenants_exit();
	vg_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(verbsgate_init);
module_exit(verbsgate_exit);

MODULE_DESCRIPTION("Per-tenant performance isolation for shared RDMA devices");
MODULE_AUTHOR("The verbsgate authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(VG_VERSION);
