// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: /sys/kernel/verbsgate/, one value per file (docs/sysfs.md).
 *
 *   /sys/kernel/verbsgate/devices/<ibdev>/{index,driver,ports,node_guid,
 *	settings (max_rate, target_p99_ns, ...), controller state (safe_util,
 *	rmin, chunk_size, ref_p99_ns, ...)}
 *   /sys/kernel/verbsgate/tenants/<name>/ (files in tenant_sysfs.c)
 *
 * A device directory is the kobject embedded in struct vg_device, and its
 * release frees the struct: the directory and the memory live and die
 * together; tenant directories likewise. Identity files read fields that
 * are fixed while the device is attached and take no lock; settings files
 * copy the settings under the device's ctrl_lock. vg_sysfs_device_del()
 * returns only after running show functions have finished (kernfs drains
 * active references in kobject_del()).
 *
 * Everything is read-only: changes go through netlink, which validates
 * them, answers with an extended ack and notifies listeners.
 */
#include <linux/kobject.h>
#include <linux/slab.h>
#include <linux/sysfs.h>

#include "datapath/device.h"
#include "tenant/tenant.h"

#include "devcfg.h"
#include "sysfs.h"

static struct kobject *vg_root_kobj;
static struct kset *vg_devices_kset;
static struct kset *vg_tenants_kset;

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

/* A settings or controller-state file: one value of a consistent copy. */
#define VG_DEVCFG_ATTR(_name, _fmt, _expr)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct vg_devcfg_view v;					\
									\
	vg_devcfg_read(to_vg_device(kobj), &v);				\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

VG_DEVCFG_ATTR(max_rate, "%llu", v.ctrl.cfg.max_rate);
VG_DEVCFG_ATTR(max_ops, "%llu", v.ctrl.cfg.max_ops);
VG_DEVCFG_ATTR(target_p99_ns, "%llu", v.ctrl.cfg.target_p99_ns);
VG_DEVCFG_ATTR(aimd_step, "%llu", v.ctrl.cfg.step);
VG_DEVCFG_ATTR(aimd_period_ns, "%llu", v.ctrl.cfg.period_ns);
VG_DEVCFG_ATTR(max_chunk, "%u", v.ctrl.cfg.max_chunk);
VG_DEVCFG_ATTR(chunk_nolat, "%u", v.ctrl.cfg.chunk_nolat);
VG_DEVCFG_ATTR(lat_each, "%d", !!(v.ctrl.cfg.flags & VG_CTRL_LAT_EACH));
VG_DEVCFG_ATTR(enforce, "%d", v.enforce);
VG_DEVCFG_ATTR(user_qps, "%s",
	       v.user_qps == VERBSGATE_USER_QPS_DENY ? "deny" : "allow");
VG_DEVCFG_ATTR(op_bytes_data, "%u", v.cost.cls[VG_OPC_DATA].bytes);
VG_DEVCFG_ATTR(op_units_data, "%u", v.cost.cls[VG_OPC_DATA].units);
VG_DEVCFG_ATTR(op_bytes_atomic, "%u", v.cost.cls[VG_OPC_ATOMIC].bytes);
VG_DEVCFG_ATTR(op_units_atomic, "%u", v.cost.cls[VG_OPC_ATOMIC].units);
VG_DEVCFG_ATTR(op_bytes_mr, "%u", v.cost.cls[VG_OPC_MR].bytes);
VG_DEVCFG_ATTR(op_units_mr, "%u", v.cost.cls[VG_OPC_MR].units);
VG_DEVCFG_ATTR(safe_util, "%llu", v.ctrl.safe);
VG_DEVCFG_ATTR(rmin, "%llu", v.ctrl.rmin);
VG_DEVCFG_ATTR(chunk_size, "%u", v.ctrl.chunk);
VG_DEVCFG_ATTR(ref_p99_ns, "%llu", v.ref_p99_ns);
VG_DEVCFG_ATTR(aimd_increases, "%llu", v.ctrl.increases);
VG_DEVCFG_ATTR(aimd_decreases, "%llu", v.ctrl.decreases);

/* One line: "SIZE:UTIL_PPM" per entry, separated by spaces. */
/* A device's tracked QPs in one enforcement state (vg_qp_enforcement()). */
#define VG_QPS_ATTR(_name, _state)					\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	u32 count[VERBSGATE_QP_ENFORCEMENT_MAX + 1];			\
									\
	vg_qp_table_count(&to_vg_device(kobj)->ipose.qps, count);	\
	return sysfs_emit(buf, "%u\n", count[_state]);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

VG_QPS_ATTR(qps_enforced, VERBSGATE_QP_ENFORCED);
VG_QPS_ATTR(qps_tracked, VERBSGATE_QP_TRACKED);
VG_QPS_ATTR(qps_unsupported, VERBSGATE_QP_UNSUPPORTED);

static ssize_t qps_untracked_show(struct kobject *kobj,
				  struct kobj_attribute *attr, char *buf)
{
	struct vg_device *dev = to_vg_device(kobj);

	return sysfs_emit(buf, "%u\n",
			  vg_qp_untracked(dev->ibdev, &dev->ipose.qps));
}

static struct kobj_attribute qps_untracked_attr = __ATTR_RO(qps_untracked);

static ssize_t user_qps_enforced_show(struct kobject *kobj,
				      struct kobj_attribute *attr, char *buf)
{
	const struct vg_device *dev = to_vg_device(kobj);

	return sysfs_emit(buf, "%d\n",
			  vg_interpose_user_qps_enforced(&dev->ipose));
}

static struct kobj_attribute user_qps_enforced_attr =
	__ATTR_RO(user_qps_enforced);

static ssize_t user_qps_refused_show(struct kobject *kobj,
				     struct kobj_attribute *attr, char *buf)
{
	struct vg_device *dev = to_vg_device(kobj);

	return sysfs_emit(buf, "%lld\n",
			  atomic64_read(&dev->ipose.user_refused));
}

static struct kobj_attribute user_qps_refused_attr =
	__ATTR_RO(user_qps_refused);

static ssize_t chunk_table_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct vg_devcfg_view v;
	int len = 0;
	u32 i;

	vg_devcfg_read(to_vg_device(kobj), &v);
	for (i = 0; i < v.ctrl.cfg.ntable; i++)
		len += sysfs_emit_at(buf, len, "%s%u:%u", i ? " " : "",
				     v.ctrl.cfg.table[i].chunk,
				     v.ctrl.cfg.table[i].util_ppm);
	len += sysfs_emit_at(buf, len, "\n");
	return len;
}

static struct kobj_attribute chunk_table_attr = __ATTR_RO(chunk_table);

static struct attribute *vg_device_attrs[] = {
	&index_attr.attr,
	&driver_attr.attr,
	&ports_attr.attr,
	&node_guid_attr.attr,
	&max_rate_attr.attr,
	&max_ops_attr.attr,
	&target_p99_ns_attr.attr,
	&aimd_step_attr.attr,
	&aimd_period_ns_attr.attr,
	&max_chunk_attr.attr,
	&chunk_nolat_attr.attr,
	&chunk_table_attr.attr,
	&lat_each_attr.attr,
	&enforce_attr.attr,
	&op_bytes_data_attr.attr,
	&op_units_data_attr.attr,
	&op_bytes_atomic_attr.attr,
	&op_units_atomic_attr.attr,
	&op_bytes_mr_attr.attr,
	&op_units_mr_attr.attr,
	&safe_util_attr.attr,
	&rmin_attr.attr,
	&chunk_size_attr.attr,
	&ref_p99_ns_attr.attr,
	&aimd_increases_attr.attr,
	&aimd_decreases_attr.attr,
	&qps_enforced_attr.attr,
	&qps_tracked_attr.attr,
	&qps_unsupported_attr.attr,
	&qps_untracked_attr.attr,
	&user_qps_attr.attr,
	&user_qps_enforced_attr.attr,
	&user_qps_refused_attr.attr,
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

	lockdep_assert_held(&vg_devices_lock);

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
	lockdep_assert_held(&vg_devices_lock);

	return kobject_rename(&dev->kobj, dev->name);
}

/**
 * vg_sysfs_tenant_add() - create /sys/kernel/verbsgate/tenants/<t->name>
 * @t: tenant whose kobject is initialized (its ktype is tenant/tenant.c's)
 *
 * On failure the caller still owns its reference on @t.
 *
 * Context: process context; the caller holds vg_tenants_lock.
 */
int vg_sysfs_tenant_add(struct vg_ktenant *t)
{
	int ret;

	lockdep_assert_held(&vg_tenants_lock);

	t->kobj.kset = vg_tenants_kset;
	ret = kobject_add(&t->kobj, NULL, "%s", t->name);
	if (ret)
		return ret;
	/* The files exist before user space hears of the directory. */
	ret = sysfs_create_groups(&t->kobj, vg_tenant_groups);
	if (ret) {
		kobject_del(&t->kobj);
		return ret;
	}
	kobject_uevent(&t->kobj, KOBJ_ADD);
	return 0;
}

/**
 * vg_sysfs_tenant_del() - remove a tenant's directory, keep its reference
 * @t: tenant
 *
 * Context: process context; may sleep until running sysfs readers finish
 * (they take no lock, so the caller may hold vg_tenants_lock).
 */
void vg_sysfs_tenant_del(struct vg_ktenant *t)
{
	kobject_uevent(&t->kobj, KOBJ_REMOVE);
	kobject_del(&t->kobj);
}

/* Process context (module init). */
int vg_sysfs_init(void)
{
	vg_root_kobj = kobject_create_and_add("verbsgate", kernel_kobj);
	if (!vg_root_kobj)
		return -ENOMEM;

	vg_devices_kset = kset_create_and_add("devices", NULL, vg_root_kobj);
	if (!vg_devices_kset)
		goto err_root;
	vg_tenants_kset = kset_create_and_add("tenants", NULL, vg_root_kobj);
	if (!vg_tenants_kset)
		goto err_devices;
	return 0;

err_devices:
	kset_unregister(vg_devices_kset);
err_root:
	kobject_put(vg_root_kobj);
	return -ENOMEM;
}

/* Process context (module exit), after every device and tenant was deleted. */
void vg_sysfs_exit(void)
{
	kset_unregister(vg_tenants_kset);
	kset_unregister(vg_devices_kset);
	kobject_put(vg_root_kobj);
}
