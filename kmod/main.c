// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: per-tenant performance isolation for shared RDMA devices.
 *
 * Module entry points. Initialization order is sysfs root, device registry
 * (an ib_client, which attaches to every present device), then netlink;
 * teardown runs in reverse, so netlink requests never see a registry that
 * is being torn down, and sysfs outlives every device directory.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/module.h>

#include "device.h"
#include "netlink.h"
#include "sysfs.h"

static int __init verbsgate_init(void)
{
	int ret;

	ret = vg_sysfs_init();
	if (ret)
		return ret;
	ret = vg_devices_init();
	if (ret)
		goto err_sysfs;
	ret = vg_netlink_init();
	if (ret)
		goto err_devices;

	pr_info("version %s loaded\n", VG_VERSION);
	return 0;

err_devices:
	vg_devices_exit();
err_sysfs:
	vg_sysfs_exit();
	return ret;
}

static void __exit verbsgate_exit(void)
{
	vg_netlink_exit();
	vg_devices_exit();
	vg_sysfs_exit();
	pr_info("unloaded\n");
}

module_init(verbsgate_init);
module_exit(verbsgate_exit);

MODULE_DESCRIPTION("Per-tenant performance isolation for shared RDMA devices");
MODULE_AUTHOR("The verbsgate authors");
MODULE_LICENSE("GPL");
MODULE_VERSION(VG_VERSION);
