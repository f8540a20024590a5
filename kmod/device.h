/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the RDMA devices verbsgate is attached to.
 */
#ifndef _VG_DEVICE_H
#define _VG_DEVICE_H

#include <linux/kobject.h>
#include <linux/module.h>
#include <rdma/ib_verbs.h>

/**
 * struct vg_device - verbsgate's state for one RDMA device
 * @kobj: /sys/kernel/verbsgate/devices/<name>/; its release frees the struct
 * @ibdev: the device; valid until vg_device_remove() for it has returned
 * @index: @ibdev->index, the key of the device registry
 * @ports: number of physical ports
 * @node_guid: node GUID in host byte order
 * @name: current device name; changes on rename, under vg_devices_lock
 * @driver: name of the module that registered @ibdev
 *
 * Everything but @name and @kobj is fixed while the device is attached.
 */
struct vg_device {
	struct kobject kobj;
	struct ib_device *ibdev;
	u32 index;
	u32 ports;
	u64 node_guid;
	char name[IB_DEVICE_NAME_MAX];
	char driver[MODULE_NAME_LEN];
};

typedef int (*vg_device_fn)(struct vg_device *dev, void *arg);

int vg_devices_init(void);
void vg_devices_exit(void);

u32 vg_device_count(void);
int vg_device_with(u32 index, const char *name, vg_device_fn fn, void *arg);
int vg_device_for_each(unsigned long *pos, vg_device_fn fn, void *arg);

#endif /* _VG_DEVICE_H */
