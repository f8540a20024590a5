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

extern struct genl_family vg_genl_family;

/* Where a reply message goes. */
struct vg_nl_reply {
	struct sk_buff *skb;
	u32 portid;
	u32 seq;
	int flags;
	u8 cmd;
};

/* What a tenant message carries (a GET reply, or a STATS dump entry). */
#define VG_NL_TENANT_CONFIG	BIT(0)
#define VG_NL_TENANT_STATS	BIT(1)

int vg_nl_fill_tenant(struct vg_nl_reply *r, struct vg_ktenant *t,
		      u32 what);
int vg_nl_fill_dev(struct vg_device *dev, void *arg);

struct sk_buff *vg_nl_event_new(void);
void vg_nl_event_send(struct sk_buff *skb);

int vg_nl_tenant_add(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_del(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_set(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_get(struct sk_buff *skb, struct genl_info *info);
int vg_nl_tenant_dump(struct sk_buff *skb, struct netlink_callback *cb);
int vg_nl_stats_dump(struct sk_buff *skb, struct netlink_callback *cb);

int vg_nl_dev_get(struct sk_buff *skb, struct genl_info *info);
int vg_nl_dev_dump(struct sk_buff *skb, struct netlink_callback *cb);
int vg_nl_dev_set(struct sk_buff *skb, struct genl_info *info);

#endif /* _VG_NETLINK_HANDLERS_H */
