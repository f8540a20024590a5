// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: /sys/kernel/verbsgate/, one value per file (docs/sysfs.md).
 *
 *   /sys/kernel/verbsgate/devices/<ibdev>/{index,driver,ports,node_guid}
 *
 * A device directory is the kobject embedded in struct vg_device, and its
 * release frees the struct: the directory and the memory live and die
 * together. Show functions read only fields that are fixed while the device
 * is attached, so they take no lock; vg_sysfs_device_del() returns only
 * after running show functions have finished (kernfs drains active
 * references in kobject_del()).
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "device.h"
#include "sysfs.h"

static struct kobject *vg_root_kobj;
static struct kset *vg_devices_kset;

static struct vg_device *to_vg_device(struct kobject *kobj)
{
	return container_of(kobj, struct vg_device, kobj);
}

static ssize_t index_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_vg_device(kobj)->index);
}

static struct kobj_attribute index_attr = __ATTR_RO(index);

static ssize_t driver_show(struct kobject *kobj, struct kobj_attribute *attr,
			   char *buf)
{
	return sysfs_emit(buf, "%s\n", to_vg_device(kobj)->driver);
}

static struct kobj_attribute driver_attr = __ATTR_RO(driver);

static ssize_t ports_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%u\n", to_vg_device(kobj)->ports);
}

static struct kobj_attribute ports_attr = __ATTR_RO(ports);

/* Same format as /sys/class/infiniband/<dev>/node_guid. */
static ssize_t node_guid_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	u64 guid = to_vg_device(kobj)->node_guid;

	return sysfs_emit(buf, "%04x:%04x:%04x:%04x\n",
			  (u16)(guid >> 48), (u16)(guid >> 32),
			  (u16)(guid >> 16), (u16)guid);
}

static struct kobj_attribute node_guid_attr = __ATTR_RO(node_guid);

static struct attribute *vg_device_attrs[] = {
	&index_attr.attr,
	&driver_attr.attr,
	&ports_attr.attr,
	&node_guid_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vg_device);

/* Any context the last kobject_put() runs in; frees the vg_device. */
static void vg_device_release(struct kobject *kobj)
{
	kfree(to_vg_device(kobj));
}

static const struct kobj_type vg_device_ktype = {
	.release = vg_device_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = vg_device_groups,
};

/**
 * vg_sysfs_device_add() - create /sys/kernel/verbsgate/devices/<dev->name>
 * @dev: zeroed except for its attribute fields
 *
 * Hands the ownership of @dev to its kobject: on failure @dev is freed.
 *
 * Context: process context; the caller holds vg_devices_lock.
 */
int vg_sysfs_device_add(struct vg_device *dev)
{
	int ret;

	dev->kobj.kset = vg_devices_kset;
	ret = kobject_init_and_add(&dev->kobj, &vg_device_ktype, NULL, "%s",
				   dev->name);
	if (ret) {
		kobject_put(&dev->kobj);
		return ret;
	}
	kobject_uevent(&dev->kobj, KOBJ_ADD);
	return 0;
}

/**
 * vg_sysfs_device_del() - remove a device directory and drop its reference
 * @dev: freed once the last reference is gone
 *
 * Context: process context; may sleep until running sysfs readers finish,
 * so the caller must not hold a lock that a reader could wait for.
 */
void vg_sysfs_device_del(struct vg_device *dev)
{
	kobject_uevent(&dev->kobj, KOBJ_REMOVE);
	kobject_del(&dev->kobj);
	kobject_put(&dev->kobj);
}

/**
 * vg_sysfs_device_rename() - follow an ib_device rename
 * @dev: its ->name already holds the new name
 *
 * Context: process context; the caller holds vg_devices_lock.
 */
int vg_sysfs_device_rename(struct vg_device *dev)
{
	return kobject_rename(&dev->kobj, dev->name);
}

/* Process context (module init). */
int vg_sysfs_init(void)
{
	vg_root_kobj = kobject_create_and_add("verbsgate", kernel_kobj);
	if (!vg_root_kobj)
		return -ENOMEM;

	vg_devices_kset = kset_create_and_add("devices", NULL, vg_root_kobj);
	if (!vg_devices_kset) {
		kobject_put(vg_root_kobj);
		return -ENOMEM;
	}
	return 0;
}

/* Process context (module exit), after every device was deleted. */
void vg_sysfs_exit(void)
{
	kset_unregister(vg_devices_kset);
	kobject_put(vg_root_kobj);
}
