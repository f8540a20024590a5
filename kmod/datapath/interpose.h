/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: interposition of an RDMA device's QP operations.
 */
#ifndef _VG_INTERPOSE_H
#define _VG_INTERPOSE_H

#include <rdma/ib_verbs.h>

#include "mr_quota.h"
#include "qp.h"
#include "shaper.h"

/**
 * struct vg_interpose - a device's interposed operations
 * @create_qp: the driver's operation, called by the wrapper
 * @modify_qp: likewise
 * @destroy_qp: likewise
 * @post_send: likewise
 * @poll_cq: likewise
 * @drain_sq: likewise, if the driver has one (NULL: ib_core's generic
 *	drain, which posts through post_send)
 * @destroy_cq: likewise
 * @create_cq: likewise; this and the four below only if @ctrl_verbs
 * @alloc_pd: likewise
 * @dealloc_pd: likewise
 * @reg_user_mr: likewise
 * @dereg_mr: likewise
 * @mr_quota: the MRs processes registered while interposed, each with
 *	the tenant its bytes were charged to (mr_quota.c)
 * @qps: the QPs created while interposed
 * @shaper: the shaper of the device's kernel-owned send queues
 * @user_refused: user QPs refused by the device's user-qps deny
 * @attached: the wrappers are installed
 * @ctrl_verbs: the CQ, PD and MR wrappers are installed (ctrl_verbs.c)
 * @stopping: the device is being detached: control verbs wait no more
 */
struct vg_interpose {
	int (*create_qp)(struct ib_qp *qp, struct ib_qp_init_attr *attr,
			 struct ib_udata *udata);
	int (*modify_qp)(struct ib_qp *qp, struct ib_qp_attr *attr,
			 int attr_mask, struct ib_udata *udata);
	int (*destroy_qp)(struct ib_qp *qp, struct ib_udata *udata);
	int (*post_send)(struct ib_qp *qp, const struct ib_send_wr *wr,
			 const struct ib_send_wr **bad);
	int (*poll_cq)(struct ib_cq *cq, int num_entries, struct ib_wc *wc);
	void (*drain_sq)(struct ib_qp *qp);
	int (*destroy_cq)(struct ib_cq *cq, struct ib_udata *udata);
	int (*create_cq)(struct ib_cq *cq, const struct ib_cq_init_attr *attr,
			 struct ib_udata *udata);
	int (*alloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	int (*dealloc_pd)(struct ib_pd *pd, struct ib_udata *udata);
	struct ib_mr *(*reg_user_mr)(struct ib_pd *pd, u64 start, u64 length,
				     u64 virt_addr, int access,
				     struct ib_udata *udata);
	int (*dereg_mr)(struct ib_mr *mr, struct ib_udata *udata);
	struct vg_mr_quota mr_quota;
	struct vg_qp_table qps;
	struct vg_shaper shaper;
	atomic64_t user_refused;
	bool attached;
	bool ctrl_verbs;
	bool stopping;
};

struct vg_device;

void vg_interpose_attach(struct vg_device *dev);
bool vg_interpose_detach(struct vg_device *dev, bool rings,
			 unsigned long bound);
void vg_interpose_exit(void);
bool vg_interpose_user_qps_enforced(const struct vg_interpose *ip);

#endif /* _VG_INTERPOSE_H */
