// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: the QP dump (QP_GET) and the QP_CLASSIFIED event. The policy
 * is in netlink.c; the QP table in qp.c. A message describes one tracked
 * QP: its device, its tenant, who created it and, once known, its
 * addresses.
 *
 * Who sees what follows `rdma res` (drivers/infiniband/core/nldev.c): a
 * kernel QP is shown only to readers in the initial pid namespace, a
 * process's QP only to readers whose pid namespace numbers its creator,
 * with the pid as numbered there. Beyond that, a reader without
 * CAP_NET_ADMIN sees only the QPs created under its own effective uid:
 * another user's QPs say who runs what and talks to whom (comm, cgroup,
 * GIDs), as `ss -p` tells only one's own processes' sockets. The events
 * group, which carries the same identities, is for CAP_NET_ADMIN only
 * (netlink.c) and its messages carry no pid: one message goes to every
 * listener, whatever its pid namespace.
 */
#include <linux/capability.h>
#include <linux/cred.h>
#include <linux/pid_namespace.h>

#include "datapath/device.h"
#include "datapath/qp.h"

#include "netlink_handlers.h"

/**
 * vg_nl_fill_qp() - append one message describing a QP
 * @r: destination and header
 * @dev: the QP's device; the caller keeps @dev->name stable
 *	(vg_devices_lock)
 * @q: the QP
 * @v: the dump's reader, for the pid; NULL for an event (no pid)
 *
 * Context: under rcu_read_lock() (for @q, its pid and its tenant); no
 * allocation.
 * Return: 0, or -EMSGSIZE with the message removed.
 */
int vg_nl_fill_qp(struct vg_nl_reply *r, const struct vg_device *dev,
		  const struct vg_qp *q, const struct vg_nl_viewer *v)
{
	struct vg_ktenant *tn = rcu_dereference(q->tenant);
	struct sk_buff *skb = r->skb;
	u32 enforcement, reason;
	pid_t pid = 0;
	void *hdr;

	/* Like nldev: an exited creator's number may name another process. */
	if (q->user && v && pid_has_task(q->pid, PIDTYPE_TGID))
		pid = pid_nr_ns(q->pid, v->pid_ns);

	hdr = genlmsg_put(skb, r->portid, r->seq, &vg_genl_family, r->flags,
			  r->cmd);
	if (!hdr)
		return -EMSGSIZE;
	if (nla_put_u32(skb, VERBSGATE_ATTR_DEV_INDEX, dev->index) ||
	    nla_put_string(skb, VERBSGATE_ATTR_DEV_NAME, dev->name) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_QP_NUM, q->qpn) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_QP_TYPE, q->type))
		goto nospace;
	enforcement = vg_qp_enforcement(q, &reason);
	if (nla_put_u32(skb, VERBSGATE_ATTR_QP_ENFORCEMENT, enforcement) ||
	    nla_put_u32(skb, VERBSGATE_ATTR_QP_REASON, reason))
		goto nospace;
	if (tn && (nla_put_u32(skb, VERBSGATE_ATTR_TENANT_ID, tn->id) ||
		   nla_put_string(skb, VERBSGATE_ATTR_TENANT_NAME, tn->name)))
		goto nospace;
	if (pid && nla_put_u32(skb, VERBSGATE_ATTR_QP_PID, pid))
		goto nospace;
	if (q->user &&
	    (nla_put_string(skb, VERBSGATE_ATTR_QP_COMM, q->comm) ||
	     nla_put_u64_64bit(skb, VERBSGATE_ATTR_QP_CGROUP_ID, q->cgroup_id,
			       VERBSGATE_ATTR_PAD)))
		goto nospace;
	if (!q->user && nla_put_string(skb, VERBSGATE_ATTR_QP_ULP, q->owner))
		goto nospace;
	/* Pairs with vg_qp_set_av(): the GIDs are set before has_av. */
	if (smp_load_acquire(&q->has_av) &&
	    (nla_put(skb, VERBSGATE_ATTR_QP_LOCAL_GID, sizeof(q->local_gid),
		     &q->local_gid) ||
	     nla_put(skb, VERBSGATE_ATTR_QP_PEER_GID, sizeof(q->peer_gid),
		     &q->peer_gid)))
		goto nospace;
	genlmsg_end(skb, hdr);
	return 0;

nospace:
	genlmsg_cancel(skb, hdr);
	return -EMSGSIZE;
}

struct vg_nl_qp_walk {
	struct vg_nl_reply r;
	struct vg_nl_viewer viewer;
	const struct vg_device *dev;
	u32 dev_index;		/* filter, U32_MAX: any */
	const char *dev_name;	/* filter, NULL: any */
	u32 tenant_id;		/* filter, U32_MAX: any */
	unsigned long resume_dev;	/* device whose QPs @qpn continues */
	unsigned long qpn;	/* next QP number to dump */
};

/* Whether @v may see @q (see the top of this file). Under rcu_read_lock(). */
static bool vg_nl_qp_visible(const struct vg_qp *q,
			     const struct vg_nl_viewer *v)
{
	if (!q->user)
		return v->admin && v->pid_ns == &init_pid_ns;
	if (!pid_nr_ns(q->pid, v->pid_ns))
		return false;
	return v->admin || uid_eq(q->uid, v->uid);
}

/* Under rcu_read_lock() (vg_qp_for_each()). */
static int vg_nl_qp_dump_one(const struct vg_qp *q, void *arg)
{
	struct vg_nl_qp_walk *w = arg;
	struct vg_ktenant *tn;

	if (!vg_nl_qp_visible(q, &w->viewer))
		return 0;
	if (w->tenant_id != U32_MAX) {
		tn = rcu_dereference(q->tenant);
		if (!tn || tn->id != w->tenant_id)
			return 0;
	}
	return vg_nl_fill_qp(&w->r, w->dev, q, &w->viewer);
}

/* Under vg_devices_lock (vg_device_for_each()). */
static int vg_nl_qp_dump_dev(struct vg_device *dev, void *arg)
{
	struct vg_nl_qp_walk *w = arg;
	int ret;

	lockdep_assert_held(&vg_devices_lock);

	if ((w->dev_index != U32_MAX && w->dev_index != dev->index) ||
	    (w->dev_name && strcmp(w->dev_name, dev->name)))
		return 0;
	if (dev->index != w->resume_dev)
		w->qpn = 0;
	w->resume_dev = dev->index;
	w->dev = dev;
	ret = vg_qp_for_each(&dev->ipose.qps, &w->qpn, vg_nl_qp_dump_one, w);
	if (!ret)
		w->qpn = 0;
	return ret;
}

static int vg_nl_dev_exists(struct vg_device *dev, void *arg)
{
	return 0;
}

/*
 * On the first round: resolve the filters, so that an unknown device or
 * tenant is an error rather than an empty dump. Returns the tenant id
 * filter or U32_MAX, or a negative error.
 */
static s64 vg_nl_qp_dump_start(struct netlink_callback *cb,
			       struct vg_nl_qp_walk *w)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *tname = info->attrs[VERBSGATE_ATTR_TENANT_NAME];
	struct vg_ktenant *tn;
	u32 id;

	if ((w->dev_index != U32_MAX || w->dev_name) &&
	    vg_device_with(w->dev_index, w->dev_name, vg_nl_dev_exists, NULL)) {
		NL_SET_ERR_MSG(cb->extack, "no such device");
		return -ENODEV;
	}
	if (!tname)
		return U32_MAX;
	tn = vg_tenant_find(nla_data(tname));
	if (!tn) {
		NL_SET_ERR_MSG(cb->extack, "no such tenant");
		return -ENOENT;
	}
	id = tn->id;
	vg_tenant_put(tn);
	return id;
}

/*
 * QP_GET dumpit; DEV_INDEX, DEV_NAME and TENANT_NAME filter. Process
 * context (the reader's: each round decides what it may see, as nldev
 * does); open to all; takes vg_devices_lock, then RCU. cb->args[0]:
 * device index to resume at; [1]: QP number in it; [2]: tenant filter id
 * 1 once the filters are resolved; [3]: the tenant filter's id.
 */
int vg_nl_qp_dump(struct sk_buff *skb, struct netlink_callback *cb)
{
	const struct genl_dumpit_info *info = genl_dumpit_info(cb);
	struct nlattr *idx_attr = info->attrs[VERBSGATE_ATTR_DEV_INDEX];
	struct nlattr *name_attr = info->attrs[VERBSGATE_ATTR_DEV_NAME];
	struct vg_nl_qp_walk w = {
		.r = vg_nl_dump_reply(skb, cb, VERBSGATE_CMD_QP_GET),
		.dev_index = idx_attr ? nla_get_u32(idx_attr) : U32_MAX,
		.dev_name = name_attr ? nla_data(name_attr) : NULL,
		.resume_dev = cb->args[0],
		.qpn = cb->args[1],
		.viewer = {
			.pid_ns = task_active_pid_ns(current),
			.uid = current_euid(),
			.admin = netlink_capable(cb->skb, CAP_NET_ADMIN),
		},
	};
	unsigned long pos = cb->args[0];
	s64 filter;
	int ret;

	if (!cb->args[2]) {
		filter = vg_nl_qp_dump_start(cb, &w);
		if (filter < 0)
			return filter;
		cb->args[2] = 1;
		cb->args[3] = filter;
	}
	w.tenant_id = cb->args[3];

	ret = vg_device_for_each(&pos, vg_nl_qp_dump_dev, &w);
	cb->args[0] = pos;
	cb->args[1] = w.qpn;
	return vg_nl_dump_done(skb, ret);
}

/**
 * vg_nl_qp_classified() - multicast a QP_CLASSIFIED event for a QP
 * @dev: its device
 * @q: the QP
 *
 * Best effort: with no listener nothing is allocated, without memory the
 * event is dropped.
 *
 * Context: atomic: under vg_devices_lock and rcu_read_lock() (the data
 * path's struct vg_device_ops::qp_classified); GFP_ATOMIC.
 */
void vg_nl_qp_classified(struct vg_device *dev, const struct vg_qp *q)
{
	struct vg_nl_reply r = { .cmd = VERBSGATE_CMD_QP_CLASSIFIED };

	lockdep_assert_held(&vg_devices_lock);

	r.skb = vg_nl_event_new(GFP_ATOMIC);
	if (!r.skb)
		return;
	if (vg_nl_fill_qp(&r, dev, q, NULL)) {
		nlmsg_free(r.skb);
		return;
	}
	vg_nl_event_send(r.skb, GFP_ATOMIC);
}
