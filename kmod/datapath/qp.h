/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: the QPs verbsgate tracks on a device.
 */
#ifndef _VG_QP_H
#define _VG_QP_H

#include <linux/rcupdate.h>
#include <linux/sched.h>
#include <linux/xarray.h>
#include <rdma/ib_verbs.h>

#include "tenant/tenant.h"

struct vg_sendq;
struct vg_usq;

/**
 * struct vg_qp - what verbsgate knows about one QP
 * @qp: the QP; valid while the entry is in its device's table
 * @qpn: QP number, the table key
 * @type: enum ib_qp_type
 * @user: created through uverbs on behalf of a process
 * @pid: creating process (user QPs), referenced; dumps give its number in
 *	the reader's pid namespace
 * @uid: creating task's effective uid (user QPs): whose QP it is
 * @cgroup_id: cgroup v2 id of the creating process (user QPs), else 0
 * @cgrp: that cgroup, referenced, for re-classification (user QPs)
 * @comm: creating process's name (user QPs)
 * @owner: the kernel ULP that owns it (kernel QPs), e.g. "nvme_rdma"
 * @has_av: @local_gid and @peer_gid are set (connected QPs past RTR)
 * @local_gid: source GID of the address vector
 * @peer_gid: destination GID of the address vector
 * @tenant: the tenant the QP belongs to, referenced; NULL only between
 *	insertion and the first classification (vg_qp_add())
 * @sq: the shaper's state of a shaped (kernel-owned RC/UC) QP, or NULL;
 *	set once after creation, cleared before destruction
 * @usq: the shaper's state of a governed user QP's send queue (usq.h),
 *	or NULL; set once after creation, cleared when it stops being
 *	governed (readers use RCU)
 * @unshaped: why a kernel RC/UC QP has no @sq (enum verbsgate_qp_reason),
 *	set before @sq would have been published
 * @rcu: deferred free after RCU readers, who may use @pid and @cgrp
 *
 * Fixed after creation except @has_av and the GIDs, which the modify path
 * sets once, under the table's xa_lock, before publishing @has_av, and
 * @tenant, which changes under the table's xa_lock (readers use RCU).
 */
struct vg_qp {
	struct ib_qp *qp;
	u32 qpn;
	u8 type;
	bool user;
	struct pid *pid;
	kuid_t uid;
	u64 cgroup_id;
	struct cgroup *cgrp;
	char comm[TASK_COMM_LEN];
	char owner[32];
	bool has_av;
	union ib_gid local_gid;
	union ib_gid peer_gid;
	struct vg_ktenant __rcu *tenant;
	struct vg_sendq *sq;
	struct vg_usq __rcu *usq;
	u8 unshaped;
	struct rcu_head rcu;
};

/* The QPs of one device, keyed by QP number. */
struct vg_qp_table {
	struct xarray qps;
};

void vg_qp_table_init(struct vg_qp_table *t);
void vg_qp_table_destroy(struct vg_qp_table *t);

bool vg_qp_tracked_type(enum ib_qp_type type);
int vg_qp_add(struct vg_qp_table *t, struct ib_qp *qp, bool user,
	      struct vg_qp **out);
bool vg_qp_set_av(struct vg_qp_table *t, struct ib_qp *qp,
		  const struct ib_qp_attr *attr, int attr_mask);
struct vg_qp *vg_qp_find(struct vg_qp_table *t, struct ib_qp *qp);
struct vg_qp *vg_qp_take(struct vg_qp_table *t, struct ib_qp *qp);
void vg_qp_put_back(struct vg_qp_table *t, struct vg_qp *q);
void vg_qp_free(struct vg_qp *q);

/* A QP moved by vg_qp_table_retenant(); runs under rcu_read_lock(). */
typedef void (*vg_qp_moved_fn)(const struct vg_qp *q, void *arg);
void vg_qp_table_retenant(struct vg_qp_table *t, enum vg_tenant_event ev,
			  struct vg_ktenant *changed, vg_qp_moved_fn moved,
			  void *arg);

u32 vg_qp_enforcement(const struct vg_qp *q, u32 *reason);
void vg_qp_table_count(struct vg_qp_table *t,
		       u32 count[VERBSGATE_QP_ENFORCEMENT_MAX + 1]);
u32 vg_qp_untracked(struct ib_device *ibdev, struct vg_qp_table *t);

typedef int (*vg_qp_fn)(const struct vg_qp *q, void *arg);
int vg_qp_for_each(struct vg_qp_table *t, unsigned long *pos, vg_qp_fn fn,
		   void *arg);

#endif /* _VG_QP_H */
