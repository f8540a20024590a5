// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: netlink commands on tenants (TENANT_ADD, _DEL, _SET, _GET)
 * and the counters dump (STATS_GET). Policies are in netlink.c; the
 * registry and its rules in tenant/registry.c. Handlers run in process
 * context under genl_mutex; dumps walk the registry under vg_tenants_lock.
 */
#include "tenant/tenant.h"

#include "netlink_handlers.h"

/* Address selectors are sent back in the form they were given. */
static int vg_nl_put_addr(struct sk_buff *skb, const struct vg_selector *sel)
{
	if (sel->v4)
		return nla_put(skb, VERBSGATE_SEL_ATTR_ADDR, 4,
			       &sel->addr.s6_addr32[3]) ||
		       nla_put_u8(skb, VERBSGATE_SEL_ATTR_PREFIX_LEN,
				  sel->plen - 96);
	return nla_put(skb, VERBSGATE_SEL_ATTR_ADDR, 16, &sel->addr) ||
	       nla_put_u8(skb, VERBSGATE_SEL_ATTR_PREFIX_LEN, sel->plen);
}

static int vg_nl_put_selector(struct sk_buff *skb,
			      const struct vg_selector *sel)
{
	struct nlattr *nest;
	int ret = 0;

	nest = nla_nest_start(skb, VERBSGATE_ATTR_TENANT_SELECTOR);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VERBSGATE_SEL_ATTR_TYPE, sel->type))
		return -EMSGSIZE;
	switch (sel->type) {
	case VERBSGATE_SEL_CGROUP:
		ret = nla_put_string(skb, VERBSGATE_SEL_ATTR_CGROUP_PATH,
				     sel->path) ||
		      nla_put_u64_64bit(skb, VERBSGATE_SEL_ATTR_CGROUP_ID,
					cgroup_id(sel->cgrp),
					VERBSGATE_SEL_ATTR_PAD);
		break;
	case VERBSGATE_SEL_ULP:
		ret = nla_put_string(skb, VERBSGATE_SEL_ATTR_ULP, sel->ulp);
		break;
	case VERBSGATE_SEL_LOCAL_ADDR:
	case VERBSGATE_SEL_PEER_ADDR:
		ret = vg_nl_put_addr(skb, sel);
		break;
	}
	if (ret)
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int vg_nl_put_stats(struct sk_buff *skb, struct vg_ktenant *t)
{
	struct vg_tenant_stats s;
	struct nlattr *nest;

	vg_tenant_stats_read(t, &s);
	nest = nla_nest_start(skb, VERBSGATE_ATTR_TENANT_STATS);
	if (!nest)
		return -EMSGSIZE;
	if (nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_TX_BYTES, s.tx_bytes,
			      VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_TX_WRS, s.tx_wrs,
			      VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_CHUNKS, s.chunks,
			      VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_SPLIT_WRS, s.split_wrs,
			      VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_THROTTLED_NS,
			      s.throttled_ns, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_QUEUED_WRS,
			      s.queued_wrs, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_QP_CLAMPS,
			      s.qp_clamps, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_CTRL_VERBS,
			      s.ctrl_verbs, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_CTRL_WAIT_NS,
			      s.ctrl_wait_ns, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_MR_BYTES,
			      s.mr_bytes, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_MR_REFUSED,
			      s.mr_refused, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_QP_ERRORS,
			      s.qp_errors, VERBSGATE_STAT_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_STAT_ATTR_RETRY_BYTES,
			      s.retry_bytes, VERBSGATE_STAT_ATTR_PAD))
		return -EMSGSIZE;
	nla_nest_end(skb, nest);
	return 0;
}

static int vg_nl_put_qp_bounds(struct sk_buff *skb, struct vg_ktenant *t)
{
	struct vg_qp_bounds b;

	vg_tenant_qp_bounds(t, &b);
	if (nla_put_u8(skb, VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX,
		       b.rnr_retry_max) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX,
		       b.retry_cnt_max) ||
	    nla_put_u64_64bit(skb, VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN,
			      b.rnr_timer_min_ns, VERBSGATE_ATTR_PAD) ||
	    nla_put_u64_64bit(skb, VERBSGATE_ATTR_TENANT_TIMEOUT_MIN,
			      b.timeout_min_ns, VERBSGATE_ATTR_PAD) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX,
		       b.rd_atomic_max))
		return -EMSGSIZE;
	return 0;
}

/**
 * vg_nl_fill_tenant() - append one message describing a tenant
 * @r: destination and header
 * @t: tenant
 * @what: VG_NL_TENANT_CONFIG and/or VG_NL_TENANT_STATS
 *
 * Context: process; any lock (no allocation).
 * Return: 0, or -EMSGSIZE with the message removed.
 */
int vg_nl_fill_tenant(struct vg_nl_reply *r, struct vg_ktenant *t, u32 what)
{
	struct sk_buff *skb = r->skb;
	void *hdr;

	hdr = genlmsg_put(skb, r->portid, r->seq, &vg_genl_family, r->flags,
			  r->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VERBSGATE_ATTR_TENANT_ID, t->id) ||
	    nla_put_string(skb, VERBSGATE_ATTR_TENANT_NAME, t->name) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_TENANT_QPS,
			atomic_read(&t->nqps)))
		goto nospace;
	if ((what & VG_NL_TENANT_CONFIG) &&
	    (nla_put_u32(skb, VERBSGATE_ATTR_TENANT_CLASS,
			 READ_ONCE(t->pol.class)) ||
	     nla_put_u32(skb, VERBSGATE_ATTR_TENANT_WEIGHT,
			 READ_ONCE(t->pol.weight)) ||
	     nla_put_u64_64bit(skb, VERBSGATE_ATTR_TENANT_MIN_RATE,
			       READ_ONCE(t->pol.min_rate), VERBSGATE_ATTR_PAD) ||
	     nla_put_u64_64bit(skb, VERBSGATE_ATTR_TENANT_MAX_RATE,
			       READ_ONCE(t->pol.max_rate), VERBSGATE_ATTR_PAD) ||
	     vg_nl_put_qp_bounds(skb, t) ||
	     nla_put_u32(skb, VERBSGATE_ATTR_TENANT_CTRL_RATE,
			 READ_ONCE(t->pol.ctrl_rate)) ||
	     nla_put_u32(skb, VERBSGATE_ATTR_TENANT_CTRL_BURST,
			 READ_ONCE(t->pol.ctrl_burst)) ||
	     nla_put_u64_64bit(skb, VERBSGATE_ATTR_TENANT_MR_BYTES_MAX,
			       READ_ONCE(t->pol.mr_bytes_max),
			       VERBSGATE_ATTR_PAD) ||
	     vg_nl_put_selector(skb, &t->sel)))
		goto nospace;
	if ((what & VG_NL_TENANT_STATS) && vg_nl_put_stats(skb, t))
		goto nospace;
	genlmsg_end(skb, hdr);
	return 0;

nospace:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

/* Tell the events group about a tenant change. Process context. */
static void vg_nl_tenant_notify(struct vg_ktenant *t, u8 cmd)
{
	struct vg_nl_reply r = { .cmd = cmd };

	r.skb = vg_nl_event_new(GFP_KERNEL);
	if (!r.skb)
		return;
	if (vg_nl_fill_tenant(&r, t, VG_NL_TENANT_CONFIG)) {
		nlmsg_free(r.skb);
		return;
	}
	vg_nl_event_send(r.skb, GFP_KERNEL);
}

static const char *vg_nl_tenant_name(struct genl_info *info)
{
	struct nlattr *a = info->attrs[VERBSGATE_ATTR_TENANT_NAME];

	if (!a) {
		NL_SET_ERR_MSG(info->extack, "tenant name required");
		return NULL;
	}
	return nla_data(a);
}

/*
 * Selector attributes into @spec. The family policy (vg_sel_policy) has
 * validated them, output-only ones (the cgroup id) included.
 */
static int vg_nl_parse_selector(struct nlattr *attr,
				struct vg_tenant_spec *spec,
				struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VERBSGATE_SEL_ATTR_MAX + 1];
	int ret;

	ret = nla_parse_nested(tb, VERBSGATE_SEL_ATTR_MAX, attr, NULL, extack);
	if (ret)
		return ret;
	if (!tb[VERBSGATE_SEL_ATTR_TYPE]) {
		NL_SET_ERR_MSG(extack, "selector type required");
		return -EINVAL;
	}
	spec->sel_type = nla_get_u32(tb[VERBSGATE_SEL_ATTR_TYPE]);
	if (tb[VERBSGATE_SEL_ATTR_CGROUP_PATH])
		spec->cgroup_path = nla_data(tb[VERBSGATE_SEL_ATTR_CGROUP_PATH]);
	if (tb[VERBSGATE_SEL_ATTR_ULP])
		spec->ulp = nla_data(tb[VERBSGATE_SEL_ATTR_ULP]);
	if (tb[VERBSGATE_SEL_ATTR_ADDR]) {
		spec->addr = nla_data(tb[VERBSGATE_SEL_ATTR_ADDR]);
		spec->addr_len = nla_len(tb[VERBSGATE_SEL_ATTR_ADDR]);
	}
	spec->plen = -1;
	if (tb[VERBSGATE_SEL_ATTR_PREFIX_LEN]) {
		if (!spec->addr) {
			NL_SET_ERR_MSG(extack,
				       "a prefix length needs an address");
			return -EINVAL;
		}
		spec->plen = nla_get_u8(tb[VERBSGATE_SEL_ATTR_PREFIX_LEN]);
	}
	return 0;
}

/* QP bounds present in @attrs into @b; returns VG_TP_* bits. */
static u32 vg_nl_parse_qp_bounds(struct nlattr **attrs, struct vg_qp_bounds *b)
{
	struct nlattr *a;
	u32 mask = 0;

	a = attrs[VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX];
	if (a) {
		b->rnr_retry_max = nla_get_u8(a);
		mask |= VG_TP_RNR_RETRY_MAX;
	}
	a = attrs[VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX];
	if (a) {
		b->retry_cnt_max = nla_get_u8(a);
		mask |= VG_TP_RETRY_CNT_MAX;
	}
	a = attrs[VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN];
	if (a) {
		b->rnr_timer_min_ns = nla_get_u64(a);
		mask |= VG_TP_RNR_TIMER_MIN;
	}
	a = attrs[VERBSGATE_ATTR_TENANT_TIMEOUT_MIN];
	if (a) {
		b->timeout_min_ns = nla_get_u64(a);
		mask |= VG_TP_TIMEOUT_MIN;
	}
	a = attrs[VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX];
	if (a) {
		b->rd_atomic_max = nla_get_u8(a);
		mask |= VG_TP_RD_ATOMIC_MAX;
	}
	return mask;
}

/* Policy attributes present in @attrs into @pol; returns VG_TP_* bits. */
static u32 vg_nl_parse_policy(struct nlattr **attrs,
			      struct vg_tenant_policy *pol)
{
	u32 mask = 0;

	if (attrs[VERBSGATE_ATTR_TENANT_CLASS]) {
		pol->class = nla_get_u32(attrs[VERBSGATE_ATTR_TENANT_CLASS]);
		mask |= VG_TP_CLASS;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_WEIGHT]) {
		pol->weight = nla_get_u32(attrs[VERBSGATE_ATTR_TENANT_WEIGHT]);
		mask |= VG_TP_WEIGHT;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_MIN_RATE]) {
		pol->min_rate =
			nla_get_u64(attrs[VERBSGATE_ATTR_TENANT_MIN_RATE]);
		mask |= VG_TP_MIN_RATE;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_MAX_RATE]) {
		pol->max_rate =
			nla_get_u64(attrs[VERBSGATE_ATTR_TENANT_MAX_RATE]);
		mask |= VG_TP_MAX_RATE;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_CTRL_RATE]) {
		pol->ctrl_rate =
			nla_get_u32(attrs[VERBSGATE_ATTR_TENANT_CTRL_RATE]);
		mask |= VG_TP_CTRL_RATE;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_CTRL_BURST]) {
		pol->ctrl_burst =
			nla_get_u32(attrs[VERBSGATE_ATTR_TENANT_CTRL_BURST]);
		mask |= VG_TP_CTRL_BURST;
	}
	if (attrs[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX]) {
		pol->mr_bytes_max =
			nla_get_u64(attrs[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX]);
		mask |= VG_TP_MR_BYTES_MAX;
	}
	return mask | vg_nl_parse_qp_bounds(attrs, &pol->qpb);
}

/* TENANT_ADD doit. Process context (the requester's); admin only. */
int vg_nl_tenant_add(struct sk_buff *skb, struct genl_info *info)
{
	struct vg_tenant_spec spec = {};
	struct vg_ktenant *t;
	u32 mask;
	int ret;

	spec.name = vg_nl_tenant_name(info);
	if (!spec.name)
		return -EINVAL;
	if (!info->attrs[VERBSGATE_ATTR_TENANT_SELECTOR]) {
		NL_SET_ERR_MSG(info->extack,
			       "selector required (cgroup, ulp, local or peer)");
		return -EINVAL;
	}
	ret = vg_nl_parse_selector(info->attrs[VERBSGATE_ATTR_TENANT_SELECTOR],
				   &spec, info->extack);
	if (ret)
		return ret;
	spec.pol.qpb = VG_QP_BOUNDS_NONE;
	spec.pol.ctrl_burst = VG_VERB_BURST_DEFAULT;
	mask = vg_nl_parse_policy(info->attrs, &spec.pol);
	if (!(mask & VG_TP_CLASS)) {
		NL_SET_ERR_MSG(info->extack, "tenant class required");
		return -EINVAL;
	}
	if (!(mask & VG_TP_WEIGHT)) {
		NL_SET_ERR_MSG(info->extack, "tenant weight required");
		return -EINVAL;
	}

	t = vg_tenant_add(&spec, info->extack);
	if (IS_ERR(t))
		return PTR_ERR(t);
	vg_nl_tenant_notify(t, VERBSGATE_CMD_TENANT_ADD);
	vg_tenant_put(t);
	return 0;
}

/* TENANT_DEL doit. Process context; admin only. */
int vg_nl_tenant_del(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = vg_nl_tenant_name(info);
	struct vg_ktenant *t;

	if (!name)
		return -EINVAL;
	t = vg_tenant_del(name, info->extack);
	if (IS_ERR(t))
		return PTR_ERR(t);
	vg_nl_tenant_notify(t, VERBSGATE_CMD_TENANT_DEL);
	vg_tenant_put(t);
	return 0;
}

/* TENANT_SET doit. Process context; admin only. */
int vg_nl_tenant_set(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = vg_nl_tenant_name(info);
	struct vg_tenant_policy pol = {};
	struct vg_ktenant *t;
	u32 mask;

	if (!name)
		return -EINVAL;
	if (info->attrs[VERBSGATE_ATTR_TENANT_SELECTOR]) {
		NL_SET_ERR_MSG_ATTR(info->extack,
				    info->attrs[VERBSGATE_ATTR_TENANT_SELECTOR],
				    "a tenant's selector cannot change; delete and add the tenant");
		return -EINVAL;
	}
	mask = vg_nl_parse_policy(info->attrs, &pol);
	t = vg_tenant_set(name, mask, &pol, info->extack);
	if (IS_ERR(t))
		return PTR_ERR(t);
	vg_nl_tenant_notify(t, VERBSGATE_CMD_TENANT_SET);
	vg_tenant_put(t);
	return 0;
}

/* TENANT_GET doit. Process context; open to all. */
int vg_nl_tenant_get(struct sk_buff *skb, struct genl_info *info)
{
	const char *name = vg_nl_tenant_name(info);
	struct vg_nl_reply r = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
		.cmd = VERBSGATE_CMD_TENANT_GET,
	};
	struct vg_ktenant *t;
	int ret;

	if (!name)
		return -EINVAL;
	t = vg_tenant_find(name);
	if (!t) {
		NL_SET_ERR_MSG(info->extack, "no such tenant");
		return -ENOENT;
	}
	r.skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!r.skb) {
		vg_tenant_put(t);
		return -ENOMEM;
	}
	ret = vg_nl_fill_tenant(&r, t, VG_NL_TENANT_CONFIG);
	vg_tenant_put(t);
	if (ret) {
		nlmsg_free(r.skb);
		return ret;
	}
	return genlmsg_reply(r.skb, info);
}

struct vg_nl_tenant_walk {
	struct vg_nl_reply r;
	const char *only;	/* name filter, or NULL */
	u32 what;
};

/* Under vg_tenants_lock (vg_tenant_for_each()). */
static int vg_nl_dump_one(struct vg_ktenant *t, void *arg)
{
	struct vg_nl_tenant_walk *w = arg;

	lockdep_assert_held(&vg_tenants_lock);

	if (w->only && strcmp(w->only, t->name))
		return 0;
	return vg_nl_fill_tenant(&w->r, t, w->what);
}

/* cb->args[0]: id of the next tenant to dump. */
static int vg_nl_tenants_dump(struct sk_buff *skb, struct netlink_callback *cb,
			      u8 cmd, u32 what)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *name = info->attrs[VERBSGATE_ATTR_TENANT_NAME];
	struct vg_nl_tenant_walk w = {
		.r = vg_nl_dump_reply(skb, cb, cmd),
		.only = name ? nla_data(name) : NULL,
		.what = what,
	};
	unsigned long pos = cb->args[0];
	int ret;

	ret = vg_tenant_for_each(&pos, vg_nl_dump_one, &w);
	cb->args[0] = pos;
	return vg_nl_dump_done(skb, ret);
}

/* TENANT_GET dumpit. Process context; open to all. */
int vg_nl_tenant_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return vg_nl_tenants_dump(skb, cb, VERBSGATE_CMD_TENANT_GET,
				  VG_NL_TENANT_CONFIG);
}

/* STATS_GET dumpit. Process context; open to all. */
int vg_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	return vg_nl_tenants_dump(skb, cb, VERBSGATE_CMD_STATS_GET,
				  VG_NL_TENANT_STATS);
}
