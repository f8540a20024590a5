// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: /sys/kernel/verbsgate/, one value per file (docs/sysfs.md).
 *
 *   /sys/kernel/verbsgate/devices/<ibdev>/{index,driver,ports,node_guid,
 *	settings (max_rate, target_p99_ns, ...), controller state (safe_util,
 *	rmin, chunk_size, ref_p99_ns, ...), ports_paced}
 *   /sys/kernel/verbsgate/devices/<ibdev>/paced_ports/<port>/{link_rate,rate,
 *	op_rate,qps,paced_bytes,paced_ops} (not ports/<port>/: "ports" is
 *	the file of the port count)
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
 * A port directory reads the port's pacer in the device's shaper, which
 * lives only while the device is attached: the directories are made once
 * the shaper is set up and removed, readers drained, before it goes
 * (vg_sysfs_ports_add(), vg_sysfs_ports_del()). Each is a kobject of its
 * own, freed by its release; it holds a reference on its parent, and so
 * on the device's kobject, which keeps the vg_device it points to.
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
VG_DEVCFG_ATTR(burst, "%u", v.burst);
VG_DEVCFG_ATTR(link_rate, "%llu", v.link_rate_set);
VG_DEVCFG_ATTR(pkt_overhead, "%u", v.cost.pkt_bytes);
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

/* 0 before the shaper is set up and after it went, or without one. */
static ssize_t ports_paced_show(struct kobject *kobj,
				struct kobj_attribute *attr, char *buf)
{
	struct vg_device *dev = to_vg_device(kobj);

	return sysfs_emit(buf, "%u\n",
			  vg_shaper_ports_paced(&dev->ipose.shaper));
}

static struct kobj_attribute ports_paced_attr = __ATTR_RO(ports_paced);

/* One line: "SIZE:UTIL_PPM" per entry, separated by spaces. */
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
	&burst_attr.attr,
	&link_rate_attr.attr,
	&pkt_overhead_attr.attr,
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
	&ports_paced_attr.attr,
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

/* devices/<ibdev>/paced_ports/<port>/: one port's pacer (see the top). */
struct vg_port_dir {
	struct kobject kobj;
	struct vg_device *dev;
	u32 idx;		/* in the shaper's ports */
};

static struct vg_port_dir *to_port_dir(struct kobject *kobj)
{
	return container_of(kobj, struct vg_port_dir, kobj);
}

/* Not under a lock: the directory goes before the shaper. */
static void vg_port_dir_stats(struct kobject *kobj,
			      struct vg_shaper_port_stats *st)
{
	struct vg_port_dir *pd = to_port_dir(kobj);

	vg_shaper_port_stats(&pd->dev->ipose.shaper, pd->idx, st);
}

/* A port file: one value of what its pacer does. */
#define VG_PORT_ATTR(_name, _fmt, _expr)				\
static ssize_t port_##_name##_show(struct kobject *kobj,		\
				   struct kobj_attribute *attr,		\
				   char *buf)				\
{									\
	struct vg_shaper_port_stats st;					\
									\
	vg_port_dir_stats(kobj, &st);					\
	return sysfs_emit(buf, _fmt "\n", _expr);			\
}									\
static struct kobj_attribute port_##_name##_attr =			\
	__ATTR(_name, 0444, port_##_name##_show, NULL)

VG_PORT_ATTR(rate, "%llu", st.rate);
VG_PORT_ATTR(op_rate, "%llu", st.op_rate);
VG_PORT_ATTR(qps, "%u", st.qps);
VG_PORT_ATTR(paced_bytes, "%llu", st.paced_bytes);
VG_PORT_ATTR(paced_ops, "%llu", st.paced_ops);

/* The link's rate, as devcfg.c read it from the port (0: unknown). */
static ssize_t port_link_rate_show(struct kobject *kobj,
				   struct kobj_attribute *attr, char *buf)
{
	struct vg_port_dir *pd = to_port_dir(kobj);
	struct vg_devcfg_view v;

	vg_devcfg_read(pd->dev, &v);
	return sysfs_emit(buf, "%llu\n", v.link_rate[pd->idx]);
}

static struct kobj_attribute port_link_rate_attr =
	__ATTR(link_rate, 0444, port_link_rate_show, NULL);

static struct attribute *vg_port_attrs[] = {
	&port_link_rate_attr.attr,
	&port_rate_attr.attr,
	&port_op_rate_attr.attr,
	&port_qps_attr.attr,
	&port_paced_bytes_attr.attr,
	&port_paced_ops_attr.attr,
	NULL,
};
ATTRIBUTE_GROUPS(vg_port);

/* Any context the last kobject_put() runs in. */
static void vg_port_dir_release(struct kobject *kobj)
{
	kfree(to_port_dir(kobj));
}

static const struct kobj_type vg_port_ktype = {
	.release = vg_port_dir_release,
	.sysfs_ops = &kobj_sysfs_ops,
	.default_groups = vg_port_groups,
};

/**
 * vg_sysfs_ports_add() - create devices/<dev->name>/paced_ports/<port>/
 * @dev: a device whose wrappers were just installed, its shaper set up
 *	or not for good
 *
 * One directory per port its shaper paces apart; none, and no
 * paced_ports/ directory, if the device is not shaped. Without memory for
 * them the device goes without (netlink still shows its ports).
 *
 * Context: process context; the caller holds vg_devices_lock.
 */
void vg_sysfs_ports_add(struct vg_device *dev)
{
	u32 i, n = vg_shaper_ports_paced(&dev->ipose.shaper);
	struct vg_port_dir *pd;

	lockdep_assert_held(&vg_devices_lock);

	if (!n)
		return;
	dev->paced_ports_kobj = kobject_create_and_add("paced_ports",
						       &dev->kobj);
	if (!dev->paced_ports_kobj)
		goto fail;
	for (i = 0; i < n; i++) {
		pd = kzalloc(sizeof(*pd), GFP_KERNEL);
		if (!pd)
			goto fail;
		pd->dev = dev;
		pd->idx = i;
		/* The files exist before user space hears of the directory. */
		if (kobject_init_and_add(&pd->kobj, &vg_port_ktype,
					 dev->paced_ports_kobj, "%u",
					 rdma_start_port(dev->ibdev) + i)) {
			kobject_put(&pd->kobj);
			goto fail;
		}
		dev->port_kobj[i] = &pd->kobj;
		kobject_uevent(&pd->kobj, KOBJ_ADD);
	}
	return;

fail:
	pr_warn("%s: no sysfs directories for its ports\n", dev->name);
	vg_sysfs_ports_del(dev);
}

/**
 * vg_sysfs_ports_del() - remove devices/<dev->name>/paced_ports/
 * @dev: a device being detached, its shaper still set up; or one
 *	vg_sysfs_ports_add() failed on
 *
 * Returns once running readers of the port files have finished: the
 * shaper they read may go then.
 *
 * Context: process context; sleeps. The caller holds no lock a reader
 * could wait for (they take the device's ctrl_lock).
 */
void vg_sysfs_ports_del(struct vg_device *dev)
{
	struct kobject *kobj;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(dev->port_kobj); i++) {
		kobj = dev->port_kobj[i];
		if (!kobj)
			continue;
		kobject_uevent(kobj, KOBJ_REMOVE);
		kobject_del(kobj);
		kobject_put(kobj);
		dev->port_kobj[i] = NULL;
	}
	kobject_del(dev->paced_ports_kobj);
	kobject_put(dev->paced_ports_kobj);
	dev->paced_ports_kobj = NULL;
}

/**
 * vg_sysfs_tenant_add() - create /sys/kernel/verbsgate/tenants/<t->name>
 * @t: tenant whose kobject is initialized (its ktype is tenant/registry.c's)
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
