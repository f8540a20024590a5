// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: netlink commands on devices (DEV_GET, DEV_SET). Policies are
 * in netlink.c; settings and their rules in devcfg.c. Handlers run in
 * process context under genl_mutex and reach a device through the
 * registry helpers, under vg_devices_lock.
 */
#include <linux/slab.h>

#include "datapath/device.h"

#include "devcfg.h"
#include "netlink_handlers.h"

static int vg_nl_put_chunk_table(struct sk_buff *skb,
				 const struct vg_ctrl_cfg *cfg)
{
	struct nlattr *table, *ent;
	u32 i;

	table = nla_nest_start(skb, VERBSGATE_ATTR_DEV_CHUNK_TABLE);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < cfg->ntable; i++) {
		ent = nla_nest_start(skb, i + 1);
		if (!ent ||
		    nla_put_u32(skb, VERBSGATE_CHUNK_ATTR_SIZE,
				cfg->table[i].chunk) ||
		    nla_put_u32(skb, VERBSGATE_CHUNK_ATTR_UTIL,
				cfg->table[i].util_ppm))
			return -EMSGSIZE;
		nla_nest_end(skb, ent);
	}
	nla_nest_end(skb, table);
	return 0;
}

static int vg_nl_put_op_costs(struct sk_buff *skb,
			      const struct vg_cost_model *m)
{
	struct nlattr *costs, *ent;
	u32 i;

	costs = nla_nest_start(skb, VERBSGATE_ATTR_DEV_OP_COSTS);
	if (!costs)
		return -EMSGSIZE;
	for (i = 0; i < VG_OPC_NR; i++) {
		ent = nla_nest_start(skb, i + 1);
		if (!ent ||
		    nla_put_u32(skb, VERBSGATE_OPCOST_ATTR_CLASS, i) ||
		    nla_put_u32(skb, VERBSGATE_OPCOST_ATTR_BYTES,
				m->cls[i].bytes) ||
		    nla_put_u32(skb, VERBSGATE_OPCOST_ATTR_UNITS,
				m->cls[i].units))
			return -EMSGSIZE;
		nla_nest_end(skb, ent);
	}
	nla_nest_end(skb, costs);
	return 0;
}

static int vg_nl_put_u64(struct sk_buff *skb, int type, u64 value)
{
	return nla_put_u64_64bit(skb, type, value, VERBSGATE_ATTR_PAD);
}

static int vg_nl_put_port_u64(struct sk_buff *skb, int type, u64 value)
{
	return nla_put_u64_64bit(skb, type, value, VERBSGATE_PORT_ATTR_PAD);
}

/*
 * How each port is paced: DEV_PORTS_PACED, and DEV_PORT_TABLE unless the
 * device is not shaped. At most VG_SHAPER_MAX_PORTS entries of some 100
 * bytes: the device's message stays far below NLMSG_GOODSIZE. Process
 * context, under vg_devices_lock: the device is in the registry, so its
 * shaper stays set up.
 */
static int vg_nl_put_dev_ports(struct sk_buff *skb, struct vg_device *dev,
			       const struct vg_devcfg_view *v)
{
	struct vg_shaper *sh = &dev->ipose.shaper;
	u32 i, n = vg_shaper_ports_paced(sh);
	struct vg_shaper_port_stats st;
	struct nlattr *table, *ent;

	lockdep_assert_held(&vg_devices_lock);

	if (nla_put_u32(skb, VERBSGATE_ATTR_DEV_PORTS_PACED, n))
		return -EMSGSIZE;
	if (!n)
		return 0;
	table = nla_nest_start(skb, VERBSGATE_ATTR_DEV_PORT_TABLE);
	if (!table)
		return -EMSGSIZE;
	for (i = 0; i < n; i++) {
		vg_shaper_port_stats(sh, i, &st);
		ent = nla_nest_start(skb, i + 1);
		if (!ent ||
		    nla_put_u32(skb, VERBSGATE_PORT_ATTR_NUM,
				rdma_start_port(dev->ibdev) + i) ||
		    vg_nl_put_port_u64(skb, VERBSGATE_PORT_ATTR_LINK_RATE,
				       v->link_rate[i]) ||
		    vg_nl_put_port_u64(skb, VERBSGATE_PORT_ATTR_RATE, st.rate) ||
		    vg_nl_put_port_u64(skb, VERBSGATE_PORT_ATTR_OP_RATE,
				       st.op_rate) ||
		    nla_put_u32(skb, VERBSGATE_PORT_ATTR_QPS, st.qps) ||
		    vg_nl_put_port_u64(skb, VERBSGATE_PORT_ATTR_PACED_BYTES,
				       st.paced_bytes) ||
		    vg_nl_put_port_u64(skb, VERBSGATE_PORT_ATTR_PACED_OPS,
				       st.paced_ops))
			return -EMSGSIZE;
		nla_nest_end(skb, ent);
	}
	nla_nest_end(skb, table);
	return 0;
}

/*
 * Settings, controller state and the ports' pacing, from a consistent
 * copy. Process context, under vg_devices_lock.
 */
static int vg_nl_put_devcfg(struct sk_buff *skb, struct vg_device *dev)
{
	const struct vg_ctrl_cfg *cfg;
	struct vg_devcfg_view *v;
	int ret = -EMSGSIZE;

	lockdep_assert_held(&vg_devices_lock);

	/* About 330 bytes: kept off the stack of a deep netlink path. */
	v = kmalloc(sizeof(*v), GFP_KERNEL);
	if (!v)
		return -ENOMEM;
	vg_devcfg_read(dev, v);
	cfg = &v->ctrl.cfg;
	if (vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_MAX_RATE, cfg->max_rate) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_MAX_OPS, cfg->max_ops) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_TARGET_P99,
			  cfg->target_p99_ns) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_AIMD_STEP, cfg->step) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_AIMD_PERIOD,
			  cfg->period_ns) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_CHUNK_NOLAT, cfg->chunk_nolat) ||
	    vg_nl_put_chunk_table(skb, cfg) ||
	    vg_nl_put_op_costs(skb, &v->cost) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_DEV_LAT_EACH,
		       !!(cfg->flags & VG_CTRL_LAT_EACH)) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_DEV_ENFORCE, v->enforce) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_DEV_USER_QPS, v->user_qps) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_BURST, v->burst) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_LINK_RATE, v->link_rate_set) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_PKT_OVERHEAD,
			v->cost.pkt_bytes) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_MAX_CHUNK, cfg->max_chunk) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_SAFE_UTIL, v->ctrl.safe) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_RMIN, v->ctrl.rmin) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_CHUNK_SIZE, v->ctrl.chunk) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_REF_P99, v->ref_p99_ns) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_AIMD_INCREASES,
			  v->ctrl.increases) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_AIMD_DECREASES,
			  v->ctrl.decreases))
		goto out;
	ret = vg_nl_put_dev_ports(skb, dev, v);
out:
	kfree(v);
	return ret;
}

/* Process context: the device's QPs by enforcement, and the untracked. */
static int vg_nl_put_dev_qps(struct sk_buff *skb, struct vg_device *dev)
{
	u32 count[VERBSGATE_QP_ENFORCEMENT_MAX + 1];
	struct vg_qp_table *t = &dev->ipose.qps;

	vg_qp_table_count(t, count);
	if (nla_put_u32(skb, VERBSGATE_ATTR_DEV_QPS_ENFORCED,
			count[VERBSGATE_QP_ENFORCED]) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_QPS_TRACKED,
			count[VERBSGATE_QP_TRACKED]) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_QPS_UNSUPPORTED,
			count[VERBSGATE_QP_UNSUPPORTED]) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_DEV_QPS_UNTRACKED,
			vg_qp_untracked(dev->ibdev, t)) ||
	    nla_put_u8(skb, VERBSGATE_ATTR_DEV_USER_QPS_ENFORCED,
		       vg_interpose_user_qps_enforced(&dev->ipose)) ||
	    vg_nl_put_u64(skb, VERBSGATE_ATTR_DEV_USER_QPS_REFUSED,
			  atomic64_read(&dev->ipose.user_refused)))
		return -EMSGSIZE;
	return 0;
}

/**
 * vg_nl_fill_dev() - append one message describing a device
 * @dev: the device
 * @arg: struct vg_nl_reply
 *
 * Context: process; called with vg_devices_lock held (registry helpers).
 * Return: 0, -EMSGSIZE (message removed) or -ENOMEM.
 */
int vg_nl_fill_dev(struct vg_device *dev, void *arg)
{
	struct vg_nl_reply *r = arg;
	void *hdr;
	int ret;

	lockdep_assert_held(&vg_devices_lock);

	hdr = genlmsg_put(r->skb, r->portid, r->seq, &vg_genl_family, r->flags,
			  r->cmd);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(r->skb, VERBSGATE_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(r->skb, VERBSGATE_ATTR_DEV_NAME, dev->name) ||
	    nla_put_string(r->skb, VERBSGATE_ATTR_DEV_DRIVER, dev->driver) ||
	    nla_put_u32(r->skb, VERBSGATE_ATTR_DEV_PORTS, dev->ports) ||
	    nla_put_u64_64bit(r->skb, VERBSGATE_ATTR_DEV_NODE_GUID,
			      dev->node_guid, VERBSGATE_ATTR_PAD)) {
		ret = -EMSGSIZE;
		goto cancel;
	}
	ret = vg_nl_put_devcfg(r->skb, dev);
	if (ret)
		goto cancel;
	ret = vg_nl_put_dev_qps(r->skb, dev);
	if (ret)
		goto cancel;
	genlmsg_end(r->skb, hdr);
	return 0;

cancel:
	genlmsg_cancel(r->skb, hdr);
	return ret;
}

/* The device a request names: DEV_INDEX and/or DEV_NAME. */
static int vg_nl_dev_key(struct nlattr **attrs, u32 *index, const char **name,
			 struct netlink_ext_ack *extack)
{
	struct nlattr *idx_attr = attrs[VERBSGATE_ATTR_DEV_INDEX];
	struct nlattr *name_attr = attrs[VERBSGATE_ATTR_DEV_NAME];

	if (!idx_attr && !name_attr) {
		NL_SET_ERR_MSG(extack, "device index or name required");
		return -EINVAL;
	}
	*index = idx_attr ? nla_get_u32(idx_attr) : U32_MAX;
	*name = name_attr ? nla_data(name_attr) : NULL;
	return 0;
}

/* DEV_GET doit. Process context; open to all. */
int vg_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct vg_nl_reply r = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
		.cmd = VERBSGATE_CMD_DEV_GET,
	};
	const char *name;
	u32 index;
	int ret;

	ret = vg_nl_dev_key(info->attrs, &index, &name, info->extack);
	if (ret)
		return ret;

	r.skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!r.skb)
		return -ENOMEM;

	ret = vg_device_with(index, name, vg_nl_fill_dev, &r);
	if (ret) {
		nlmsg_free(r.skb);
		if (ret == -ENODEV)
			NL_SET_ERR_MSG(info->extack,
				       "no such device attached to verbsgate");
		return ret;
	}
	return genlmsg_reply(r.skb, info);
}

struct vg_nl_dev_walk {
	struct vg_nl_reply r;
	u32 index;		/* filter, U32_MAX: any */
	const char *name;	/* filter, NULL: any */
};

/* Under vg_devices_lock (vg_device_for_each()). */
static int vg_nl_dev_dump_one(struct vg_device *dev, void *arg)
{
	struct vg_nl_dev_walk *w = arg;

	lockdep_assert_held(&vg_devices_lock);

	if ((w->index != U32_MAX && w->index != dev->index) ||
	    (w->name && strcmp(w->name, dev->name)))
		return 0;
	return vg_nl_fill_dev(dev, &w->r);
}

/*
 * DEV_GET dumpit; DEV_INDEX and DEV_NAME filter. Process context; open to
 * all. cb->args[0]: index of the next device to dump.
 */
int vg_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *idx_attr = info->attrs[VERBSGATE_ATTR_DEV_INDEX];
	struct nlattr *name_attr = info->attrs[VERBSGATE_ATTR_DEV_NAME];
	struct vg_nl_dev_walk w = {
		.r = vg_nl_dump_reply(skb, cb, VERBSGATE_CMD_DEV_GET),
		.index = idx_attr ? nla_get_u32(idx_attr) : U32_MAX,
		.name = name_attr ? nla_data(name_attr) : NULL,
	};
	unsigned long pos = cb->args[0];
	int ret;

	ret = vg_device_for_each(&pos, vg_nl_dev_dump_one, &w);
	cb->args[0] = pos;
	return vg_nl_dump_done(skb, ret);
}

static int vg_nl_parse_chunk_table(struct nlattr *attr,
				   struct vg_devcfg_change *c,
				   struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VERBSGATE_CHUNK_ATTR_MAX + 1];
	struct nlattr *ent;
	int rem, ret;

	nla_for_each_nested(ent, attr, rem) {
		if (c->ntable == VG_CTRL_MAX_TABLE) {
			NL_SET_ERR_MSG_ATTR(extack, ent,
					    "chunk table has more than 16 entries");
			return -E2BIG;
		}
		/* Entries were validated by the family policy. */
		ret = nla_parse_nested(tb, VERBSGATE_CHUNK_ATTR_MAX, ent, NULL,
				       extack);
		if (ret)
			return ret;
		if (!tb[VERBSGATE_CHUNK_ATTR_SIZE] ||
		    !tb[VERBSGATE_CHUNK_ATTR_UTIL]) {
			NL_SET_ERR_MSG_ATTR(extack, ent,
					    "chunk table entry needs a size and a utilization");
			return -EINVAL;
		}
		c->table[c->ntable].chunk =
			nla_get_u32(tb[VERBSGATE_CHUNK_ATTR_SIZE]);
		c->table[c->ntable].util_ppm =
			nla_get_u32(tb[VERBSGATE_CHUNK_ATTR_UTIL]);
		c->ntable++;
	}
	return 0;
}

static int vg_nl_parse_op_costs(struct nlattr *attr,
				struct vg_devcfg_change *c,
				struct netlink_ext_ack *extack)
{
	struct nlattr *tb[VERBSGATE_OPCOST_ATTR_MAX + 1];
	struct vg_opcost_change *oc;
	struct nlattr *ent;
	u32 seen = 0, cls;
	int rem, ret;

	nla_for_each_nested(ent, attr, rem) {
		ret = nla_parse_nested(tb, VERBSGATE_OPCOST_ATTR_MAX, ent, NULL,
				       extack);
		if (ret)
			return ret;
		if (!tb[VERBSGATE_OPCOST_ATTR_CLASS]) {
			NL_SET_ERR_MSG_ATTR(extack, ent,
					    "operation cost entry needs a class");
			return -EINVAL;
		}
		cls = nla_get_u32(tb[VERBSGATE_OPCOST_ATTR_CLASS]);
		if (seen & BIT(cls)) {
			NL_SET_ERR_MSG_ATTR(extack, ent,
					    "operation class given twice");
			return -EINVAL;
		}
		seen |= BIT(cls);
		oc = &c->cost[c->ncost++];
		oc->cls = cls;
		if (tb[VERBSGATE_OPCOST_ATTR_BYTES]) {
			oc->has_bytes = true;
			oc->bytes = nla_get_u32(tb[VERBSGATE_OPCOST_ATTR_BYTES]);
		}
		if (tb[VERBSGATE_OPCOST_ATTR_UNITS]) {
			oc->has_units = true;
			oc->units = nla_get_u32(tb[VERBSGATE_OPCOST_ATTR_UNITS]);
		}
	}
	return 0;
}

/* DEV_SET attributes (validated by vg_dev_set_policy) into @c. */
static int vg_nl_parse_devcfg(struct nlattr **attrs,
			      struct vg_devcfg_change *c,
			      struct netlink_ext_ack *extack)
{
	static const struct {
		int attr;
		u32 bit;
		size_t off;
	} u64s[] = {
		{ VERBSGATE_ATTR_DEV_MAX_RATE, VG_DC_MAX_RATE,
		  offsetof(struct vg_devcfg_change, max_rate) },
		{ VERBSGATE_ATTR_DEV_MAX_OPS, VG_DC_MAX_OPS,
		  offsetof(struct vg_devcfg_change, max_ops) },
		{ VERBSGATE_ATTR_DEV_TARGET_P99, VG_DC_TARGET_P99,
		  offsetof(struct vg_devcfg_change, target_p99_ns) },
		{ VERBSGATE_ATTR_DEV_AIMD_STEP, VG_DC_AIMD_STEP,
		  offsetof(struct vg_devcfg_change, step) },
		{ VERBSGATE_ATTR_DEV_AIMD_PERIOD, VG_DC_AIMD_PERIOD,
		  offsetof(struct vg_devcfg_change, period_ns) },
		{ VERBSGATE_ATTR_DEV_LINK_RATE, VG_DC_LINK_RATE,
		  offsetof(struct vg_devcfg_change, link_rate) },
	};
	int ret;
	u32 i;

	for (i = 0; i < ARRAY_SIZE(u64s); i++) {
		if (attrs[u64s[i].attr]) {
			*(u64 *)((char *)c + u64s[i].off) =
				nla_get_u64(attrs[u64s[i].attr]);
			c->set |= u64s[i].bit;
		}
	}
	if (attrs[VERBSGATE_ATTR_DEV_CHUNK_NOLAT]) {
		c->chunk_nolat = nla_get_u32(attrs[VERBSGATE_ATTR_DEV_CHUNK_NOLAT]);
		c->set |= VG_DC_CHUNK_NOLAT;
	}
	if (attrs[VERBSGATE_ATTR_DEV_CHUNK_TABLE]) {
		ret = vg_nl_parse_chunk_table(attrs[VERBSGATE_ATTR_DEV_CHUNK_TABLE],
					      c, extack);
		if (ret)
			return ret;
		c->set |= VG_DC_CHUNK_TABLE;
	}
	if (attrs[VERBSGATE_ATTR_DEV_OP_COSTS]) {
		ret = vg_nl_parse_op_costs(attrs[VERBSGATE_ATTR_DEV_OP_COSTS],
					   c, extack);
		if (ret)
			return ret;
		c->set |= VG_DC_OP_COSTS;
	}
	if (attrs[VERBSGATE_ATTR_DEV_LAT_EACH]) {
		c->lat_each = nla_get_u8(attrs[VERBSGATE_ATTR_DEV_LAT_EACH]);
		c->set |= VG_DC_LAT_EACH;
	}
	if (attrs[VERBSGATE_ATTR_DEV_ENFORCE]) {
		c->enforce = nla_get_u8(attrs[VERBSGATE_ATTR_DEV_ENFORCE]);
		c->set |= VG_DC_ENFORCE;
	}
	if (attrs[VERBSGATE_ATTR_DEV_USER_QPS]) {
		c->user_qps = nla_get_u8(attrs[VERBSGATE_ATTR_DEV_USER_QPS]);
		c->set |= VG_DC_USER_QPS;
	}
	if (attrs[VERBSGATE_ATTR_DEV_BURST]) {
		c->burst = nla_get_u32(attrs[VERBSGATE_ATTR_DEV_BURST]);
		c->set |= VG_DC_BURST;
	}
	if (attrs[VERBSGATE_ATTR_DEV_PKT_OVERHEAD]) {
		c->pkt_overhead =
			nla_get_u32(attrs[VERBSGATE_ATTR_DEV_PKT_OVERHEAD]);
		c->set |= VG_DC_PKT_OVERHEAD;
	}
	if (!c->set) {
		NL_SET_ERR_MSG(extack, "no device setting given");
		return -EINVAL;
	}
	return 0;
}

struct vg_nl_dev_set_arg {
	const struct vg_devcfg_change *c;
	struct netlink_ext_ack *extack;
	struct vg_nl_reply ev;	/* the event, if anyone listens */
};

/* Under vg_devices_lock (vg_device_with()). */
static int vg_nl_dev_set_one(struct vg_device *dev, void *arg)
{
	struct vg_nl_dev_set_arg *a = arg;
	int ret;

	lockdep_assert_held(&vg_devices_lock);

	ret = vg_devcfg_apply(dev, a->c, a->extack);
	if (ret)
		return ret;
	/* Build the event while the device cannot go away. */
	a->ev.skb = vg_nl_event_new(GFP_KERNEL);
	if (a->ev.skb && vg_nl_fill_dev(dev, &a->ev)) {
		nlmsg_free(a->ev.skb);
		a->ev.skb = NULL;
	}
	return 0;
}

/* DEV_SET doit. Process context; admin only. */
int vg_nl_dev_set(struct sk_buff *skb, struct genl_info *info)
{
	struct vg_nl_dev_set_arg a = {
		.extack = info->extack,
		.ev = { .cmd = VERBSGATE_CMD_DEV_SET },
	};
	struct vg_devcfg_change *c;
	const char *name;
	u32 index;
	int ret;

	ret = vg_nl_dev_key(info->attrs, &index, &name, info->extack);
	if (ret)
		return ret;
	c = kzalloc(sizeof(*c), GFP_KERNEL);
	if (!c)
		return -ENOMEM;
	ret = vg_nl_parse_devcfg(info->attrs, c, info->extack);
	if (ret)
		goto out;
	a.c = c;
	ret = vg_device_with(index, name, vg_nl_dev_set_one, &a);
	if (ret == -ENODEV)
		NL_SET_ERR_MSG(info->extack,
			       "no such device attached to verbsgate");
	vg_nl_event_send(a.ev.skb, GFP_KERNEL);
out:
	kfree(c);
	return ret;
}
