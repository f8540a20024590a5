/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the /sys/kernel/verbsgate/ tree.
 */
#ifndef _VG_SYSFS_H
#define _VG_SYSFS_H

#include <linux/sysfs.h>

struct vg_device;
struct vg_ktenant;

int vg_sysfs_init(void);
void vg_sysfs_exit(void);

int vg_sysfs_device_add(struct vg_device *dev);
void vg_sysfs_device_del(struct vg_device *dev);
int vg_sysfs_device_rename(struct vg_device *dev);
void vg_sysfs_ports_add(struct vg_device *dev);
void vg_sysfs_ports_del(struct vg_device *dev);

int vg_sysfs_tenant_add(struct vg_ktenant *t);
void vg_sysfs_tenant_del(struct vg_ktenant *t);

/* The files of a tenant directory (tenant_sysfs.c). */
extern const struct attribute_group *vg_tenant_groups[];

#endif /* _VG_SYSFS_H */
