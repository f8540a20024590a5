// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: tenant selectors and QP classification: a selector built and
 * checked from a request, and the facts of a QP matched against every
 * linked tenant's selector (see tenant.h for the rules). The policy core
 * decides (core/select.h); this is its glue. Classification walks the
 * registry's tenants (registry.c) under RCU.
 */
#include <linux/cgroup.h>
#include <linux/ctype.h>
#include <linux/rcupdate.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/xarray.h>

#include "core/select.h"

#include "classify.h"
#include "tenant.h"

static const char *const vg_selector_names[] = {
	[VERBSGATE_SEL_DEFAULT] = "default",
	[VERBSGATE_SEL_CGROUP] = "cgroup",
	[VERBSGATE_SEL_ULP] = "ulp",
	[VERBSGATE_SEL_LOCAL_ADDR] = "local",
	[VERBSGATE_SEL_PEER_ADDR] = "peer",
};

/* The uapi mirrors the policy core's selectors. */
static_assert((int)VERBSGATE_SEL_DEFAULT == (int)VG_SEL_DEFAULT);
static_assert((int)VERBSGATE_SEL_CGROUP == (int)VG_SEL_CGROUP);
static_assert((int)VERBSGATE_SEL_ULP == (int)VG_SEL_ULP);
static_assert((int)VERBSGATE_SEL_LOCAL_ADDR == (int)VG_SEL_LOCAL_ADDR);
static_assert((int)VERBSGATE_SEL_PEER_ADDR == (int)VG_SEL_PEER_ADDR);
static_assert((int)__VERBSGATE_SEL_MAX == (int)VG_SEL_NR);
static_assert(sizeof(struct in6_addr) == VG_SEL_ADDR_LEN);
static_assert(sizeof(union ib_gid) == VG_SEL_ADDR_LEN);

/**
 * vg_selector_name() - name of a selector type, as the CLI spells it
 * @type: enum verbsgate_selector
 *
 * Context: any.
 */
const char *vg_selector_name(u32 type)
{
	return type < ARRAY_SIZE(vg_selector_names) ?
	       vg_selector_names[type] : "?";
}

/* 1..MODULE_NAME_LEN - 1 characters of [A-Za-z0-9_-]: a module name. */
static bool vg_ulp_name_valid(const char *name)
{
	size_t len = strnlen(name, MODULE_NAME_LEN);
	size_t i;

	if (!len || len >= MODULE_NAME_LEN)
		return false;
	for (i = 0; i < len; i++)
		if (!isalnum(name[i]) && name[i] != '_' && name[i] != '-')
			return false;
	return true;
}

/*
 * Fill @sel from @spec: validate, resolve the cgroup path (in the
 * requester's cgroup namespace) and take a reference on the cgroup.
 * Process context (the requester's).
 */
int vg_selector_init(struct vg_selector *sel,
		     const struct vg_tenant_spec *spec,
		     struct netlink_ext_ack *extack)
{
	struct cgroup *cgrp;
	struct vg_sel cs;
	int ret;

	sel->type = spec->sel_type;
	switch (spec->sel_type) {
	case VERBSGATE_SEL_CGROUP:
		if (!spec->cgroup_path || spec->ulp || spec->addr) {
			NL_SET_ERR_MSG(extack,
				       "a cgroup selector takes a cgroup path and nothing else");
			return -EINVAL;
		}
		if (spec->cgroup_path[0] != '/') {
			NL_SET_ERR_MSG(extack,
				       "cgroup path must be absolute on the cgroup2 hierarchy, e.g. /tenants/blue");
			return -EINVAL;
		}
		cgrp = cgroup_get_from_path(spec->cgroup_path);
		if (IS_ERR(cgrp)) {
			if (PTR_ERR(cgrp) == -ENOTDIR)
				NL_SET_ERR_MSG(extack,
					       "cgroup path is not a directory");
			else
				NL_SET_ERR_MSG(extack,
					       "no such cgroup on the cgroup2 hierarchy");
			return PTR_ERR(cgrp);
		}
		sel->cgrp = cgrp;
		sel->path = kstrdup(spec->cgroup_path, GFP_KERNEL);
		return sel->path ? 0 : -ENOMEM;

	case VERBSGATE_SEL_ULP:
		if (!spec->ulp || spec->cgroup_path || spec->addr) {
			NL_SET_ERR_MSG(extack,
				       "a ULP selector takes a ULP name and nothing else");
			return -EINVAL;
		}
		if (!vg_ulp_name_valid(spec->ulp)) {
			NL_SET_ERR_MSG(extack,
				       "ULP name must be a module name: [A-Za-z0-9_-], at most 55 characters");
			return -EINVAL;
		}
		strscpy(sel->ulp, spec->ulp, sizeof(sel->ulp));
		return 0;

	case VERBSGATE_SEL_LOCAL_ADDR:
	case VERBSGATE_SEL_PEER_ADDR:
		if (!spec->addr || spec->cgroup_path || spec->ulp) {
			NL_SET_ERR_MSG(extack,
				       "an address selector takes an address, a prefix length and nothing else");
			return -EINVAL;
		}
		if (spec->addr_len != 4 && spec->addr_len != 16) {
			NL_SET_ERR_MSG(extack,
				       "address must be 4 bytes (IPv4) or 16 bytes (IPv6 or GID)");
			return -EINVAL;
		}
		/* An IPv4 prefix is stored IPv4-mapped, as RoCEv2 GIDs are. */
		ret = vg_sel_prefix_init(&cs, spec->addr, spec->addr_len,
					 spec->plen);
		if (ret == -ERANGE) {
			NL_SET_ERR_MSG(extack, "IPv4 prefix length above 32");
			return ret;
		}
		if (ret) {
			NL_SET_ERR_MSG(extack,
				       "address has bits set beyond the prefix length");
			return ret;
		}
		sel->v4 = spec->addr_len == 4;
		memcpy(&sel->addr, cs.addr, sizeof(sel->addr));
		sel->plen = cs.plen;
		return 0;

	case VERBSGATE_SEL_DEFAULT:
		NL_SET_ERR_MSG(extack,
			       "only the built-in tenant \"default\" has the default selector");
		return -EINVAL;
	default:
		NL_SET_ERR_MSG(extack, "unknown selector type");
		return -EINVAL;
	}
}

/*
 * The policy core's view of @sel (core/select.h), which decides; @cs
 * points into @sel.
 */
static void vg_selector_core(const struct vg_selector *sel,
			     struct vg_sel *cs)
{
	*cs = (struct vg_sel){
		.type = sel->type,
		.plen = sel->plen,
		.ulp = sel->ulp,
		.cgrp = sel->cgrp,
		.level = sel->cgrp ? sel->cgrp->level : 0,
	};
	memcpy(cs->addr, sel->addr.s6_addr, sizeof(cs->addr));
}

/*
 * The core's view of @f: a cgroup v2 is described by its ancestors[] and
 * level, which is all cgroup_is_descendant() reads on one hierarchy.
 */
static void vg_facts_core(const struct vg_qp_facts *f,
			  struct vg_sel_facts *cf)
{
	*cf = (struct vg_sel_facts){
		.user = f->user,
		.ulp = f->ulp,
		.local = f->local ? f->local->raw : NULL,
		.peer = f->peer ? f->peer->raw : NULL,
	};
	if (f->cgrp) {
		cf->ancestors = (const void *const *)f->cgrp->ancestors;
		cf->level = f->cgrp->level;
	}
}

bool vg_selector_equal(const struct vg_selector *a,
		       const struct vg_selector *b)
{
	struct vg_sel ca, cb;

	vg_selector_core(a, &ca);
	vg_selector_core(b, &cb);
	return vg_sel_equal(&ca, &cb);
}

/* vg_sel_rank(): 0 no match, otherwise larger is better. */
static u64 vg_selector_rank(const struct vg_selector *sel,
			    const struct vg_sel_facts *cf)
{
	struct vg_sel cs;

	vg_selector_core(sel, &cs);
	return vg_sel_rank(&cs, cf);
}

/**
 * vg_tenant_classify() - the tenant a QP belongs to
 * @facts: what is known about the QP
 *
 * Applies the rules in tenant.h to the linked tenants. Pure: changes
 * nothing but the returned tenant's reference count. O(tenants).
 *
 * Context: any (no sleeping, no lock but RCU).
 * Return: the tenant, with a reference the caller drops with
 * vg_tenant_put(); the default tenant when nothing else matches. NULL only
 * while the module is being unloaded.
 */
struct vg_ktenant *vg_tenant_classify(const struct vg_qp_facts *facts)
{
	struct vg_ktenant *t, *best;
	struct vg_sel_facts cf;
	unsigned long id;
	u64 rank, best_rank;

	vg_facts_core(facts, &cf);
	rcu_read_lock();
	do {
		best = NULL;
		best_rank = 0;
		xa_for_each(&vg_tenants, id, t) {
			if (!READ_ONCE(t->linked))
				continue;
			rank = vg_selector_rank(&t->sel, &cf);
			if (rank > best_rank) {
				best = t;
				best_rank = rank;
			}
		}
		/*
		 * A tenant whose last reference is gone was unlinked just
		 * now: look again without it.
		 */
	} while (best && !kobject_get_unless_zero(&best->kobj));
	rcu_read_unlock();
	return best;
}

/**
 * vg_tenant_outranks() - whether @cand would take a QP from @cur
 * @cand: a linked tenant
 * @cur: the QP's current tenant
 * @facts: what is known about the QP
 *
 * The comparison vg_tenant_classify() makes, for one candidate: the QP
 * path's pass for rule R2 needs no more than this.
 *
 * Context: any (no sleeping, no lock).
 */
bool vg_tenant_outranks(const struct vg_ktenant *cand,
			const struct vg_ktenant *cur,
			const struct vg_qp_facts *facts)
{
	struct vg_sel_facts cf;

	vg_facts_core(facts, &cf);
	return vg_selector_rank(&cand->sel, &cf) >
	       vg_selector_rank(&cur->sel, &cf);
}
