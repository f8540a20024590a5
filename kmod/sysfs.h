/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the /sys/kernel/verbsgate/ tree.
 */
#ifndef _VG_SYSFS_H
#define _VG_SYSFS_H

struct vg_device;

int vg_sysfs_init(void);
void vg_sysfs_exit(void);

int vg_sysfs_device_add(struct vg_device *dev);
void vg_sysfs_device_del(struct vg_device *dev);
int vg_sysfs_device_rename(struct vg_device *dev);

#endif /* _VG_SYSFS_H */
