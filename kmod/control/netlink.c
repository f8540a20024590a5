// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the "verbsgate" generic netlink family (uapi/linux/verbsgate.h).
 *
 * This file is the family's ABI in one place: one strict policy per
 * command (resv_start_op is 0), the operations with their permissions,
 * and the events group. An attribute a command does not take, an
 * output-only attribute, a wrong type or length, or a value out of range
 * is rejected by the policy with an extended ack before a handler runs;
 * handlers check what a policy cannot express (required attributes,
 * combinations) and say why with NL_SET_ERR_MSG.
 *
 * Changes need CAP_NET_ADMIN (GENL_ADMIN_PERM); so does joining the events
 * group (GENL_MCAST_CAP_NET_ADMIN). GET and dumps are open to all; the QP
 * dump shows an unprivileged reader only its own QPs (netlink_qp.c). The
 * family lives in the initial network namespace only: its policy is
 * host-wide. Handlers run in process context, serialized by genl_mutex
 * (no parallel_ops), which also orders tenant changes against device
 * changes (devcfg.c).
 *
 * Events are sent only while the family is registered. Event sources do
 * not stop with the family: the interposed create and modify operations
 * announce QPs until every device is detached, in any context. On 6.1,
 * unregistering the family frees its group id at once, which a listener
 * may join again or another family may be given; an event sent to it
 * then reaches someone who did not ask for it. So vg_nl_event_send()
 * checks vg_nl_events_open inside an SRCU read-side section (it may sleep
 * with GFP_KERNEL, or run atomic with GFP_ATOMIC), and vg_netlink_exit()
 * clears the flag and waits for every sender before unregistering.
 */
#include <linux/limits.h>
#include <linux/srcu.h>
#include <linux/time64.h>

#include "core/qpbounds.h"
#include "core/sched.h"
#include "core/split.h"
#include "core/verbpace.h"
#include "datapath/device.h"

#include "netlink.h"
#include "netlink_handlers.h"

static struct netlink_range_validation vg_rate_range = {
	.max = VG_RATE_MAX,
};

static struct netlink_range_validation vg_max_rate_range = {
	.min = 1,
	.max = VG_RATE_MAX,
};

static struct netlink_range_validation vg_target_range = {
	.max = NSEC_PER_SEC,
};

static struct netlink_range_validation vg_period_range = {
	.min = NSEC_PER_USEC,
	.max = 10 * NSEC_PER_SEC,
};

static struct netlink_range_validation vg_chunk_range = {
	.min = 1,
	.max = VG_SPLIT_MAX_CHUNK,
};

static struct netlink_range_validation vg_burst_range = {
	.max = VG_SHAPER_BURST_MAX,
};

static struct netlink_range_validation vg_ppm_range = {
	.max = VG_PPM,
};

static struct netlink_range_validation vg_rnr_timer_range = {
	.max = VG_RNR_TIMER_MAX_NS,
};

static struct netlink_range_validation vg_ack_timeout_range = {
	.max = VG_ACK_TIMEOUT_MAX_NS,
};

static struct netlink_range_validation vg_verb_rate_range = {
	.max = VG_VERB_RATE_MAX,
};

static struct netlink_range_validation vg_verb_burst_range = {
	.min = 1,
	.max = VG_VERB_BURST_MAX,
};

static struct netlink_range_validation vg_op_bytes_range = {
	.max = VG_OP_BYTES_MAX,
};

static const struct nla_policy vg_sel_policy[VERBSGATE_SEL_ATTR_MAX + 1] = {
	[VERBSGATE_SEL_ATTR_TYPE] = NLA_POLICY_MAX(NLA_U32, VERBSGATE_SEL_MAX),
	[VERBSGATE_SEL_ATTR_CGROUP_PATH] = { .type = NLA_NUL_STRING,
					     .len = PATH_MAX - 1 },
	[VERBSGATE_SEL_ATTR_ULP] = { .type = NLA_NUL_STRING,
				     .len = MODULE_NAME_LEN - 1 },
	[VERBSGATE_SEL_ATTR_ADDR] = NLA_POLICY_RANGE(NLA_BINARY, 4, 16),
	[VERBSGATE_SEL_ATTR_PREFIX_LEN] = NLA_POLICY_MAX(NLA_U8, 128),
};

static const struct nla_policy vg_chunk_policy[VERBSGATE_CHUNK_ATTR_MAX + 1] = {
	[VERBSGATE_CHUNK_ATTR_SIZE] = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &vg_chunk_range),
	[VERBSGATE_CHUNK_ATTR_UTIL] = NLA_POLICY_FULL_RANGE(NLA_U32,
							    &vg_ppm_range),
};

static const struct nla_policy
vg_opcost_policy[VERBSGATE_OPCOST_ATTR_MAX + 1] = {
	[VERBSGATE_OPCOST_ATTR_CLASS] = NLA_POLICY_MAX(NLA_U32,
						       VERBSGATE_OP_CLASS_MAX),
	[VERBSGATE_OPCOST_ATTR_BYTES] = NLA_POLICY_FULL_RANGE(NLA_U32,
							      &vg_op_bytes_range),
	[VERBSGATE_OPCOST_ATTR_UNITS] = NLA_POLICY_RANGE(NLA_U32, 1,
							 VG_OP_UNITS_MAX),
};

/* Policies shared by several commands. */
#define VG_POL_DEV_INDEX	{ .type = NLA_U32 }
#define VG_POL_DEV_NAME		{ .type = NLA_NUL_STRING, \
				  .len = IB_DEVICE_NAME_MAX - 1 }
#define VG_POL_TENANT_NAME	{ .type = NLA_NUL_STRING, \
				  .len = VERBSGATE_TENANT_NAME_MAX - 1 }
#define VG_POL_TENANT_POLICY						\
	[VERBSGATE_ATTR_TENANT_CLASS] =					\
		NLA_POLICY_MAX(NLA_U32, VERBSGATE_CLASS_MAX),		\
	[VERBSGATE_ATTR_TENANT_WEIGHT] =				\
		NLA_POLICY_RANGE(NLA_U32, VG_WEIGHT_MIN, VG_WEIGHT_MAX),\
	[VERBSGATE_ATTR_TENANT_MIN_RATE] =				\
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rate_range),		\
	[VERBSGATE_ATTR_TENANT_MAX_RATE] =				\
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rate_range),		\
	[VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX] =				\
		NLA_POLICY_MAX(NLA_U8, VG_QP_RETRY_NONE),		\
	[VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX] =				\
		NLA_POLICY_MAX(NLA_U8, VG_QP_RETRY_NONE),		\
	[VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN] =				\
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rnr_timer_range),	\
	[VERBSGATE_ATTR_TENANT_TIMEOUT_MIN] =				\
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_ack_timeout_range),	\
	[VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX] = { .type = NLA_U8 },	\
	[VERBSGATE_ATTR_TENANT_CTRL_RATE] =				\
		NLA_POLICY_FULL_RANGE(NLA_U32, &vg_verb_rate_range),	\
	[VERBSGATE_ATTR_TENANT_CTRL_BURST] =				\
		NLA_POLICY_FULL_RANGE(NLA_U32, &vg_verb_burst_range),	\
	[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX] = { .type = NLA_U64 }

/* GET_STATUS takes no attribute: every one is rejected. */
static const struct nla_policy vg_status_policy[VERBSGATE_ATTR_MAX + 1] = {
};

static const struct nla_policy vg_dev_get_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_DEV_INDEX] = VG_POL_DEV_INDEX,
	[VERBSGATE_ATTR_DEV_NAME] = VG_POL_DEV_NAME,
};

static const struct nla_policy vg_dev_set_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_DEV_INDEX] = VG_POL_DEV_INDEX,
	[VERBSGATE_ATTR_DEV_NAME] = VG_POL_DEV_NAME,
	[VERBSGATE_ATTR_DEV_MAX_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_max_rate_range),
	[VERBSGATE_ATTR_DEV_MAX_OPS] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rate_range),
	[VERBSGATE_ATTR_DEV_TARGET_P99] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_target_range),
	[VERBSGATE_ATTR_DEV_AIMD_STEP] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rate_range),
	[VERBSGATE_ATTR_DEV_AIMD_PERIOD] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_period_range),
	[VERBSGATE_ATTR_DEV_CHUNK_NOLAT] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vg_chunk_range),
	[VERBSGATE_ATTR_DEV_CHUNK_TABLE] =
		NLA_POLICY_NESTED_ARRAY(vg_chunk_policy),
	[VERBSGATE_ATTR_DEV_OP_COSTS] =
		NLA_POLICY_NESTED_ARRAY(vg_opcost_policy),
	[VERBSGATE_ATTR_DEV_LAT_EACH] = NLA_POLICY_MAX(NLA_U8, 1),
	[VERBSGATE_ATTR_DEV_ENFORCE] = NLA_POLICY_MAX(NLA_U8, 1),
	[VERBSGATE_ATTR_DEV_USER_QPS] =
		NLA_POLICY_MAX(NLA_U8, VERBSGATE_USER_QPS_MAX),
	[VERBSGATE_ATTR_DEV_BURST] =
		NLA_POLICY_FULL_RANGE(NLA_U32, &vg_burst_range),
	[VERBSGATE_ATTR_DEV_LINK_RATE] =
		NLA_POLICY_FULL_RANGE(NLA_U64, &vg_rate_range),
	/* 0..VG_PKT_BYTES_MAX or VERBSGATE_PKT_OVERHEAD_AUTO: devcfg.c */
	[VERBSGATE_ATTR_DEV_PKT_OVERHEAD] = { .type = NLA_U32 },
};

static const struct nla_policy vg_tenant_add_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_TENANT_NAME] = VG_POL_TENANT_NAME,
	[VERBSGATE_ATTR_TENANT_SELECTOR] = NLA_POLICY_NESTED(vg_sel_policy),
	VG_POL_TENANT_POLICY,
};

static const struct nla_policy vg_tenant_set_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_TENANT_NAME] = VG_POL_TENANT_NAME,
	/* Validated as a selector, then refused by the handler with a reason. */
	[VERBSGATE_ATTR_TENANT_SELECTOR] = NLA_POLICY_NESTED(vg_sel_policy),
	VG_POL_TENANT_POLICY,
};

/* QP_GET: filters. */
static const struct nla_policy vg_qp_get_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_DEV_INDEX] = VG_POL_DEV_INDEX,
	[VERBSGATE_ATTR_DEV_NAME] = VG_POL_DEV_NAME,
	[VERBSGATE_ATTR_TENANT_NAME] = VG_POL_TENANT_NAME,
};

/* TENANT_DEL, TENANT_GET, STATS_GET: a tenant name (a filter in dumps). */
static const struct nla_policy vg_tenant_name_policy[VERBSGATE_ATTR_MAX + 1] = {
	[VERBSGATE_ATTR_TENANT_NAME] = VG_POL_TENANT_NAME,
};

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

#define VG_OP(_cmd, _policy)			\
	.cmd = (_cmd),				\
	.policy = (_policy),			\
	.maxattr = VERBSGATE_ATTR_MAX

static const struct genl_ops vg_genl_ops[] = {
	{
		VG_OP(VERBSGATE_CMD_GET_STATUS, vg_status_policy),
		.doit = vg_nl_get_status,
	},
	{
		VG_OP(VERBSGATE_CMD_DEV_GET, vg_dev_get_policy),
		.doit = vg_nl_dev_get,
		.dumpit = vg_nl_dev_dump,
	},
	{
		VG_OP(VERBSGATE_CMD_TENANT_ADD, vg_tenant_add_policy),
		.doit = vg_nl_tenant_add,
		.flags = GENL_ADMIN_PERM,
	},
	{
		VG_OP(VERBSGATE_CMD_TENANT_DEL, vg_tenant_name_policy),
		.doit = vg_nl_tenant_del,
		.flags = GENL_ADMIN_PERM,
	},
	{
		VG_OP(VERBSGATE_CMD_TENANT_SET, vg_tenant_set_policy),
		.doit = vg_nl_tenant_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		VG_OP(VERBSGATE_CMD_TENANT_GET, vg_tenant_name_policy),
		.doit = vg_nl_tenant_get,
		.dumpit = vg_nl_tenant_dump,
	},
	{
		VG_OP(VERBSGATE_CMD_DEV_SET, vg_dev_set_policy),
		.doit = vg_nl_dev_set,
		.flags = GENL_ADMIN_PERM,
	},
	{
		VG_OP(VERBSGATE_CMD_QP_GET, vg_qp_get_policy),
		.dumpit = vg_nl_qp_dump,
	},
	{
		VG_OP(VERBSGATE_CMD_STATS_GET, vg_tenant_name_policy),
		.dumpit = vg_nl_stats_dump,
	},
};

enum vg_mcgrp {
	VG_MCGRP_EVENTS,
};

static const struct genl_multicast_group vg_mcgrps[] = {
	/* Events say who runs what (netlink_qp.c): admins only. */
	[VG_MCGRP_EVENTS] = { .name = VERBSGATE_MCGRP_EVENTS,
			      .flags = GENL_MCAST_CAP_NET_ADMIN },
};

struct genl_family vg_genl_family __ro_after_init = {
	.name = VERBSGATE_GENL_NAME,
	.version = VERBSGATE_GENL_VERSION,
	.maxattr = VERBSGATE_ATTR_MAX,
	.resv_start_op = 0,
	.netnsok = false,
	.module = THIS_MODULE,
	.ops = vg_genl_ops,
	.n_ops = ARRAY_SIZE(vg_genl_ops),
	.mcgrps = vg_mcgrps,
	.n_mcgrps = ARRAY_SIZE(vg_mcgrps),
};

/* Set once the family is registered, cleared before it is unregistered. */
static bool vg_nl_events_open;
DEFINE_STATIC_SRCU(vg_nl_events_srcu);

/**
 * vg_nl_events_listened() - whether anyone listens to the events group
 *
 * Context: any. Lets a sender skip preparing an event nobody reads. False
 * while the family is not registered: its group id is not its own then.
 */
bool vg_nl_events_listened(void)
{
	/* Pairs with the release in vg_netlink_init(): the group id is set. */
	return smp_load_acquire(&vg_nl_events_open) &&
	       genl_has_listeners(&vg_genl_family, &init_net, VG_MCGRP_EVENTS);
}

/**
 * vg_nl_event_new() - a message for the events group, if anyone listens
 * @gfp: GFP_KERNEL, or GFP_ATOMIC where the caller cannot sleep
 *
 * Context: process, or atomic with GFP_ATOMIC. Return: the message, or
 * NULL (no listener, no memory: events are best effort, the change itself
 * has happened).
 */
struct sk_buff *vg_nl_event_new(gfp_t gfp)
{
	if (!vg_nl_events_listened())
		return NULL;
	return genlmsg_new(NLMSG_GOODSIZE, gfp);
}

/**
 * vg_nl_event_send() - multicast a message vg_nl_event_new() made
 * @skb: the message, or NULL; consumed
 * @gfp: as for vg_nl_event_new()
 *
 * A message whose family is being unregistered is dropped.
 *
 * Context: process, or atomic with GFP_ATOMIC; enters vg_nl_events_srcu.
 */
void vg_nl_event_send(struct sk_buff *skb, gfp_t gfp)
{
	int idx;

	if (!skb)
		return;
	idx = srcu_read_lock(&vg_nl_events_srcu);
	/* Pairs with the release in vg_netlink_init(), as above. */
	if (smp_load_acquire(&vg_nl_events_open))
		genlmsg_multicast(&vg_genl_family, skb, 0, VG_MCGRP_EVENTS,
				  gfp);
	else
		nlmsg_free(skb);
	srcu_read_unlock(&vg_nl_events_srcu, idx);
}

/* Process context (module init). Events flow once the family exists. */
int vg_netlink_init(void)
{
	int ret;

	ret = genl_register_family(&vg_genl_family);
	if (ret)
		return ret;
	/* Senders that see the flag see the family's group id. */
	smp_store_release(&vg_nl_events_open, true);
	return 0;
}

/*
 * Process context (module exit). Stops events first: once
 * synchronize_srcu() returns, every sender that saw the family open has
 * multicast, and later ones drop their message. Then unregistering waits
 * for running doit handlers; a dump in progress holds a module reference,
 * so it cannot outlive the module.
 */
void vg_netlink_exit(void)
{
	WRITE_ONCE(vg_nl_events_open, false);
	synchronize_srcu(&vg_nl_events_srcu);
	genl_unregister_family(&vg_genl_family);
}
