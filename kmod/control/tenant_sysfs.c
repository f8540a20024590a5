// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the files of /sys/kernel/verbsgate/tenants/<name>/
 * (docs/sysfs.md), one value per file, all read-only.
 *
 * Policy files read one field each with READ_ONCE (registry.c writes them
 * under vg_tenants_lock with WRITE_ONCE); selector files read fields fixed
 * at creation; counter files sum the per-CPU counters. No file takes a
 * lock, so a tenant's directory can be removed under vg_tenants_lock.
 */
#include <linux/kobject.h>
#include <linux/sysfs.h>

#include "tenant/tenant.h"

#include "sysfs.h"

static struct vg_ktenant *to_tenant(struct kobject *kobj)
{
	return container_of(kobj, struct vg_ktenant, kobj);
}

static ssize_t id_show(struct kobject *kobj, struct kobj_attribute *attr,
		       char *buf)
{
	return sysfs_emit(buf, "%u\n", to_tenant(kobj)->id);
}

static struct kobj_attribute id_attr = __ATTR_RO(id);

static ssize_t class_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vg_class_name(READ_ONCE(to_tenant(kobj)->pol.class)));
}

static struct kobj_attribute class_attr = __ATTR_RO(class);

/*
 * A numeric policy file: field @_field of the tenant's policy (registry.c
 * writes it with WRITE_ONCE), in decimal.
 */
#define VG_TENANT_POLICY_ATTR(_name, _field)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	u64 v = READ_ONCE(to_tenant(kobj)->pol._field);			\
									\
	return sysfs_emit(buf, "%llu\n", v);				\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

VG_TENANT_POLICY_ATTR(weight, weight);
VG_TENANT_POLICY_ATTR(min_rate, min_rate);
VG_TENANT_POLICY_ATTR(max_rate, max_rate);
VG_TENANT_POLICY_ATTR(rnr_retry_max, qpb.rnr_retry_max);
VG_TENANT_POLICY_ATTR(retry_cnt_max, qpb.retry_cnt_max);
VG_TENANT_POLICY_ATTR(rnr_timer_min_ns, qpb.rnr_timer_min_ns);
VG_TENANT_POLICY_ATTR(timeout_min_ns, qpb.timeout_min_ns);
VG_TENANT_POLICY_ATTR(rd_atomic_max, qpb.rd_atomic_max);
VG_TENANT_POLICY_ATTR(ctrl_rate, ctrl_rate);
VG_TENANT_POLICY_ATTR(ctrl_burst, ctrl_burst);
VG_TENANT_POLICY_ATTR(mr_bytes_max, mr_bytes_max);

static ssize_t selector_show(struct kobject *kobj,
			     struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n",
			  vg_selector_name(to_tenant(kobj)->sel.type));
}

static struct kobj_attribute selector_attr = __ATTR_RO(selector);

/* The selector's value: cgroup path, ULP name, or address prefix. */
static ssize_t match_show(struct kobject *kobj, struct kobj_attribute *attr,
			  char *buf)
{
	const struct vg_selector *sel = &to_tenant(kobj)->sel;

	switch (sel->type) {
	case VERBSGATE_SEL_CGROUP:
		return sysfs_emit(buf, "%s\n", sel->path);
	case VERBSGATE_SEL_ULP:
		return sysfs_emit(buf, "%s\n", sel->ulp);
	case VERBSGATE_SEL_LOCAL_ADDR:
	case VERBSGATE_SEL_PEER_ADDR:
		if (sel->v4)
			return sysfs_emit(buf, "%pI4/%u\n",
					  &sel->addr.s6_addr32[3],
					  sel->plen - 96);
		return sysfs_emit(buf, "%pI6c/%u\n", &sel->addr, sel->plen);
	default:
		return sysfs_emit(buf, "\n");
	}
}

static struct kobj_attribute match_attr = __ATTR_RO(match);

static ssize_t cgroup_id_show(struct kobject *kobj,
			      struct kobj_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%llu\n", cgroup_id(to_tenant(kobj)->sel.cgrp));
}

static struct kobj_attribute cgroup_id_attr = __ATTR_RO(cgroup_id);

static ssize_t qps_show(struct kobject *kobj, struct kobj_attribute *attr,
			char *buf)
{
	return sysfs_emit(buf, "%d\n", atomic_read(&to_tenant(kobj)->nqps));
}

static struct kobj_attribute qps_attr = __ATTR_RO(qps);

/* A counter file: field @_field of the per-CPU sums. */
#define VG_TENANT_STAT_ATTR(_name, _field)				\
static ssize_t _name##_show(struct kobject *kobj,			\
			    struct kobj_attribute *attr, char *buf)	\
{									\
	struct vg_tenant_stats s;					\
									\
	vg_tenant_stats_read(to_tenant(kobj), &s);			\
	return sysfs_emit(buf, "%llu\n", s._field);			\
}									\
static struct kobj_attribute _name##_attr = __ATTR_RO(_name)

VG_TENANT_STAT_ATTR(tx_bytes, tx_bytes);
VG_TENANT_STAT_ATTR(tx_wrs, tx_wrs);
VG_TENANT_STAT_ATTR(chunks, chunks);
VG_TENANT_STAT_ATTR(split_wrs, split_wrs);
VG_TENANT_STAT_ATTR(throttled_ns, throttled_ns);
VG_TENANT_STAT_ATTR(queued_wrs, queued_wrs);
VG_TENANT_STAT_ATTR(qp_clamps, qp_clamps);
VG_TENANT_STAT_ATTR(ctrl_verbs, ctrl_verbs);
VG_TENANT_STAT_ATTR(ctrl_wait_ns, ctrl_wait_ns);
VG_TENANT_STAT_ATTR(mr_bytes, mr_bytes);
VG_TENANT_STAT_ATTR(mr_refused, mr_refused);
VG_TENANT_STAT_ATTR(qp_errors, qp_errors);
VG_TENANT_STAT_ATTR(retry_bytes, retry_bytes);

static struct attribute *vg_tenant_attrs[] = {
	&id_attr.attr,
	&class_attr.attr,
	&weight_attr.attr,
	&min_rate_attr.attr,
	&max_rate_attr.attr,
	&rnr_retry_max_attr.attr,
	&retry_cnt_max_attr.attr,
	&rnr_timer_min_ns_attr.attr,
	&timeout_min_ns_attr.attr,
	&rd_atomic_max_attr.attr,
	&ctrl_rate_attr.attr,
	&ctrl_burst_attr.attr,
	&mr_bytes_max_attr.attr,
	&selector_attr.attr,
	&match_attr.attr,
	&cgroup_id_attr.attr,
	&qps_attr.attr,
	&tx_bytes_attr.attr,
	&tx_wrs_attr.attr,
	&chunks_attr.attr,
	&split_wrs_attr.attr,
	&throttled_ns_attr.attr,
	&queued_wrs_attr.attr,
	&qp_clamps_attr.attr,
	&ctrl_verbs_attr.attr,
	&ctrl_wait_ns_attr.attr,
	&mr_bytes_attr.attr,
	&mr_refused_attr.attr,
	&qp_errors_attr.attr,
	&retry_bytes_attr.attr,
	NULL,
};

/* cgroup_id only for cgroup selectors; match not for the default tenant. */
static umode_t vg_tenant_attr_visible(struct kobject *kobj,
				      struct attribute *attr, int n)
{
	u32 type = to_tenant(kobj)->sel.type;

	if (attr == &cgroup_id_attr.attr && type != VERBSGATE_SEL_CGROUP)
		return 0;
	if (attr == &match_attr.attr && type == VERBSGATE_SEL_DEFAULT)
		return 0;
	return attr->mode;
}

static const struct attribute_group vg_tenant_group = {
	.attrs = vg_tenant_attrs,
	.is_visible = vg_tenant_attr_visible,
};

const struct attribute_group *vg_tenant_groups[] = {
	&vg_tenant_group,
	NULL,
};
