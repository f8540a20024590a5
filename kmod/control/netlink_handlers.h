/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: what the netlink command handlers share (netlink.c defines
 * the family, its policies and its operations; netlink_tenant.c and
 * netlink_dev.c handle the commands).
 */
#ifndef _VG_NETLINK_HANDLERS_H
#define _VG_NETLINK_HANDLERS_H

#include <net/genetlink.h>
#include <linux/verbsgate.h>

struct vg_device;
struct vg_ktenant;
struct vg_qp;

extern struct genl_family vg_genl_family;

/* Where a reply message goes. */
struct vg_nl_reply {
	struct sk_buff *skb;
	u32 portid;
	u32 seq;
	int flags;
	u8 cmd;
};

/* The reply of a dump round. Context: the dumpit. */
static inline struct vg_nl_reply vg_nl_dump_reply(struct sk_buff *skb,
						  struct netlink_callback *cb,
						  u8 cmd)
{
	return (struct vg_nl_reply) {
		.skb = skb,
		.portid = NETLINK_CB(cb->skb).portid,
		.seq = cb->nlh->nlmsg_seq,
		.flags = NLM_F_MULTI,
		.cmd = cmd,
	};
}

/**
 * vg_nl_dump_done() - what a dumpit returns after a round
 * @skb: the round's message
 * @ret: the walk's result: 0 (all done), -EMSGSIZE (@skb is full) or an
 *	error
 *
 * A full @skb ends the round and the next one resumes where the walk
 * stopped; a message too large even for an empty @skb is an error.
 */
static inline int vg_nl_dump_done(struct sk_buff *skb, int ret)
{
	if (ret == -EMSGSIZE && skb->len)
		return skb->len;
	return ret ? ret : skb->len;
}

/**
 * struct vg_nl_viewer - who reads a QP dump, and so what it shows
 * @pid_ns: the reader's pid namespace: pids are numbered as seen there,
 *	and a QP whose creator has no number there is not shown
 * @uid: the reader's effective uid
 * @admin: the reader has CAP_NET_ADMIN: it sees the QPs of every uid
 *
 * Events have no viewer: one message goes to every listener of the
 * (CAP_NET_ADMIN only) group, so it carries no pid.
 */
struct vg_nl_viewer {
	struct pid_namespace *pid_ns;
	kuid_t uid;
	bool admin;
};

/* What a tenant message carries (a GET reply, or a STATS dump entry). */
#define VG_NL_TENANT_CONFIG	BIT(0)
#define VG_NL_TENANT_STATS	BIT(1)

int vg_nl_fill_tenant(struct vg_nl_reply *r, struct vg_ktenant *t,
		      u32 what);
int vg_nl_fill_dev(struct vg_device *dev, void *arg);
int vg_nl_fill_qp(struct vg_nl_reply *r, const struct vg_device *dev,
		  const struct vg_qp *q, const struct vg_nl_viewer *v);

bool vg_nl_events_listened(void);
struct sk_buff *vg_nl_event_new(gfp_t gfp);
void vg_nl_event_send(struct sk_buff *skb, gfp_t gfp);

int vg_nl_tenant_add(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_del(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_set(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_get(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_dump(struct sk_buff *skb, struct netlink_callback *cb);
int vg_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb);

int vg_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int vg_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);
int vg_nl_dev_set(struct sk_buff *skb, struct genl_info *info);

int vg_nl_qp_dump(struct sk_buff *skb, struct netlink_callback *cb);
void vg_nl_qp_classified(struct vg_device *dev, const struct vg_qp *q);

#endif /* _VG_NETLINK_HANDLERS_H */
