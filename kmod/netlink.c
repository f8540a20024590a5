// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the "verbsgate" generic netlink family (uapi/linux/verbsgate.h).
 *
 * Every operation validates strictly (resv_start_op is 0): attributes
 * outside the policy, and output-only attributes, are rejected with an
 * extended ack. The family lives in the initial network namespace only:
 * its policy is host-wide. Handlers run in process context, serialized by
 * genl_mutex (no parallel_ops); they take vg_devices_lock through the
 * device registry helpers.
 */
#include <net/genetlink.h>
#include <linux/verbsgate.h>

#include "device.h"
#include "netlink.h"

static struct genl_family vg_genl_family;

static const struct nla_policy vg_nl_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_DEV_INDEX] = { .type = NLA_U32 },
	[VERBSGATE_ATTR_DEV_NAME] = { .type = NLA_NUL_STRING,
				      .len = IB_DEVICE_NAME_MAX - 1 },
};

struct vg_nl_reply {
	struct sk_buff *skb;
	u32 portid;
	u32 seq;
	int flags;
};

/* Called with vg_devices_lock held (through the registry helpers). */
static int vg_nl_fill_dev(struct vg_device *dev, void *arg)
{
	struct vg_nl_reply *r = arg;
	void *hdr;

	hdr = genlmsg_put(r->skb, r->portid, r->seq, &vg_genl_family, r->flags,
			  VERBSGATE_CMD_DEV_GET);
	if (!hdr)
		return -EMSGSIZE;

	if (nla_put_u32(r->skb, VERBSGATE_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(r->skb, VERBSGATE_ATTR_DEV_NAME, dev->name) ||
	    nla_put_string(r->skb, VERBSGATE_ATTR_DEV_DRIVER, dev->driver) ||
	    nla_put_u32(r->skb, VERBSGATE_ATTR_DEV_PORTS, dev->ports) ||
	    nla_put_u64_64bit(r->skb, VERBSGATE_ATTR_DEV_NODE_GUID,
			      dev->node_guid, VERBSGATE_ATTR_PAD)) {
		genlmsg_cancel(r->skb, hdr);
		return -EMSGSIZE;
	}
	genlmsg_end(r->skb, hdr);
	return 0;
}

static int vg_nl_get_status(struct sk_buff *skb, struct genl_info *info)
{
	struct sk_buff *msg;
	void *hdr;

	msg = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!msg)
		return -ENOMEM;

	hdr = genlmsg_put_reply(msg, info, &vg_genl_family, 0,
				VERBSGATE_CMD_GET_STATUS);
	if (!hdr)
		goto nospace;
	if (nla_put_string(msg, VERBSGATE_ATTR_VERSION, VG_VERSION) ||
	    nla_put_u32(msg, VERBSGATE_ATTR_DEV_COUNT, vg_device_count()))
		goto nospace;
	genlmsg_end(msg, hdr);
	return genlmsg_reply(msg, info);

nospace:
	nlmsg_free(msg);
	return -EMSGSIZE;
}

static int vg_nl_dev_get(struct sk_buff *skb, struct genl_info *info)
{
	struct nlattr *idx_attr = info->attrs[VERBSGATE_ATTR_DEV_INDEX];
	struct nlattr *name_attr = info->attrs[VERBSGATE_ATTR_DEV_NAME];
	struct vg_nl_reply r = {
		.portid = info->snd_portid,
		.seq = info->snd_seq,
	};
	int ret;

	if (!idx_attr && !name_attr) {
		NL_SET_ERR_MSG(info->extack, "device index or name required");
		return -EINVAL;
	}

	r.skb = genlmsg_new(NLMSG_GOODSIZE, GFP_KERNEL);
	if (!r.skb)
		return -ENOMEM;

	ret = vg_device_with(idx_attr ? nla_get_u32(idx_attr) : U32_MAX,
			     name_attr ? nla_data(name_attr) : NULL,
			     vg_nl_fill_dev, &r);
	if (ret) {
		nlmsg_free(r.skb);
		if (ret == -ENODEV)
			NL_SET_ERR_MSG(info->extack,
				       "no such device attached to verbsgate");
		return ret;
	}
	return genlmsg_reply(r.skb, info);
}

/* cb->args[0]: index of the next device to dump. */
static int vg_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	struct vg_nl_reply r = {
		.skb = skb,
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
	};
	unsigned long pos = cb->args[0];
	int ret;

	ret = vg_device_for_each(&pos, vg_nl_fill_dev, &r);
	cb->args[0] = pos;
	/* A full skb ends this round; the next one resumes at pos. */
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

static const struct genl_small_ops vg_genl_ops[] = {
	{
		.cmd = VERBSGATE_CMD_GET_STATUS,
		.doit = vg_nl_get_status,
	},
	{
		.cmd = VERBSGATE_CMD_DEV_GET,
		.doit = vg_nl_dev_get,
		.dumpit = vg_nl_dev_dump,
	},
};

static struct genl_family vg_genl_family __ro_after_init = {
	.name = VERBSGATE_GENL_NAME,
	.version = VERBSGATE_GENL_VERSION,
	.maxattr = VERBSGATE_ATTR_MAX,
	.policy = vg_nl_policy,
	.resv_start_op = 0,
	.module = THIS_MODULE,
	.small_ops = vg_genl_ops,
	.n_small_ops = ARRAY_SIZE(vg_genl_ops),
};

/* Process context (module init). */
int vg_netlink_init(void)
{
	return genl_register_family(&vg_genl_family);
}

/*
 * Process context (module exit). Waits for running doit handlers; a dump in
 * progress holds a module reference, so it cannot outlive the module.
 */
void vg_netlink_exit(void)
{
	genl_unregister_family(&vg_genl_family);
}
