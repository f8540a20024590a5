// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: /sys/kernel/debug/verbsgate/: fault/, the fault injection
 * points (fault.c); rxe_policy, where verbsgate stands with a patched
 * rdma_rxe's send queue policy interface (datapath/usq_rxe.c): one of
 * no-device, unsupported, busy, failed, registered; usq_objects, the
 * governed user send queues verbsgate keeps state for (datapath/usq.c);
 * tenant_objects, the tenant objects alive; and qps, one line per
 * tracked QP:
 *
 *   <ibdev> qpn <n> type <RC|UC|UD|XRC_INI> user pid <pid> comm <comm>
 *	cgroup <id> [local <addr> peer <addr>] tenant <name>
 *   <ibdev> qpn <n> type <type> kernel owner <ulp> [local <addr> peer <addr>]
 *	tenant <name>
 *
 * Addresses are IPv4 for IPv4-mapped GIDs, else the GID in IPv6 notation.
 * A debugging aid with no ABI promise; operators use the netlink QP dump.
 * debugfs failures are not fatal (the kernel's convention).
 */
#include <linux/debugfs.h>
#include <linux/ipv6.h>
#include <linux/seq_file.h>
#include <net/ipv6.h>

#include "datapath/device.h"
#include "datapath/fault.h"
#include "datapath/usq.h"
#include "datapath/usq_rxe.h"
#include "tenant/tenant.h"

#include "debugfs.h"

static struct dentry *vg_debugfs_root;

static const char *vg_qp_type_name(u8 type)
{
	switch (type) {
	case IB_QPT_RC:
		return "RC";
	case IB_QPT_UC:
		return "UC";
	case IB_QPT_UD:
		return "UD";
	case IB_QPT_XRC_INI:
		return "XRC_INI";
	default:
		return "?";
	}
}

static void vg_seq_gid(struct seq_file *m, const union ib_gid *gid)
{
	const struct in6_addr *a = (const struct in6_addr *)gid->raw;

	if (ipv6_addr_v4mapped(a))
		seq_printf(m, "%pI4", &a->s6_addr32[3]);
	else
		seq_printf(m, "%pI6c", a);
}

struct vg_qps_walk {
	struct seq_file *m;
	const char *dev;
};

/* Under rcu_read_lock() (vg_qp_for_each()). */
static int vg_qps_show_one(const struct vg_qp *q, void *arg)
{
	struct vg_qps_walk *w = arg;
	struct seq_file *m = w->m;
	struct vg_ktenant *tn = rcu_dereference(q->tenant);

	seq_printf(m, "%s qpn %u type %s ", w->dev, q->qpn,
		   vg_qp_type_name(q->type));
	if (q->user)
		seq_printf(m, "user pid %d comm %s cgroup %llu", pid_nr(q->pid),
			   q->comm, q->cgroup_id);
	else
		seq_printf(m, "kernel owner %s", q->owner[0] ? q->owner : "?");
	/* Pairs with vg_qp_set_av(): the GIDs are set before has_av. */
	if (smp_load_acquire(&q->has_av)) {
		seq_puts(m, " local ");
		vg_seq_gid(m, &q->local_gid);
		seq_puts(m, " peer ");
		vg_seq_gid(m, &q->peer_gid);
	}
	seq_printf(m, " tenant %s\n", tn ? tn->name : "-");
	return 0;
}

/* Under vg_devices_lock (vg_device_for_each()). */
static int vg_qps_show_dev(struct vg_device *dev, void *arg)
{
	struct vg_qps_walk w = { .m = arg, .dev = dev->name };
	unsigned long pos = 0;

	lockdep_assert_held(&vg_devices_lock);

	return vg_qp_for_each(&dev->ipose.qps, &pos, vg_qps_show_one, &w);
}

/* Process context (read(2)); takes vg_devices_lock, then RCU. */
static int vg_qps_show(struct seq_file *m, void *unused)
{
	unsigned long pos = 0;

	return vg_device_for_each(&pos, vg_qps_show_dev, m);
}
DEFINE_SHOW_ATTRIBUTE(vg_qps);

/* tenant_objects: the live tenant objects, for leak checks. */
static int vg_tenant_objects_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", vg_tenant_objects());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vg_tenant_objects);

/* usq_objects: see the top of this file. */
static int vg_usq_objects_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%d\n", vg_usq_objects());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vg_usq_objects);

/* rxe_policy: see the top of this file. */
static int vg_rxe_policy_show(struct seq_file *m, void *unused)
{
	seq_printf(m, "%s\n", vg_rxe_policy_state());
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(vg_rxe_policy);

/* Process context (module init). */
void vg_debugfs_init(void)
{
	vg_debugfs_root = debugfs_create_dir("verbsgate", NULL);
	debugfs_create_file("qps", 0400, vg_debugfs_root, NULL, &vg_qps_fops);
	debugfs_create_file("tenant_objects", 0444, vg_debugfs_root, NULL,
			    &vg_tenant_objects_fops);
	debugfs_create_file("rxe_policy", 0444, vg_debugfs_root, NULL,
			    &vg_rxe_policy_fops);
	debugfs_create_file("usq_objects", 0444, vg_debugfs_root, NULL,
			    &vg_usq_objects_fops);
	vg_fault_debugfs_init(vg_debugfs_root);
}

/*
 * Process context (module exit), before devices go: debugfs_remove()
 * waits for running readers.
 */
void vg_debugfs_exit(void)
{
	debugfs_remove(vg_debugfs_root);
}
