/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vg_rc.h: what the user-space test tools beside it share: open an RDMA
 * device by name, create a QP, and bring it up connected to another QP
 * of the same device (RC and UC) or ready to send (UD); failures exit
 * with status 2 and the verb's errno.
 */
#ifndef VG_RC_H
#define VG_RC_H

#include <errno.h>
#include <infiniband/verbs.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* The Q_Key of the tools' UD QPs. */
#define VG_QKEY 0x11111111

static inline long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline void die(const char *what)
{
	perror(what);
	exit(2);
}

/* Opens device @name and reads GID @gid_index of its port 1. */
static inline struct ibv_context *open_dev(const char *name, int gid_index,
					   union ibv_gid *gid)
{
	struct ibv_device **devs = ibv_get_device_list(NULL);
	struct ibv_context *ctx = NULL;
	int i;

	for (i = 0; devs && devs[i]; i++)
		if (!strcmp(ibv_get_device_name(devs[i]), name))
			ctx = ibv_open_device(devs[i]);
	if (devs)
		ibv_free_device_list(devs);
	if (!ctx || ibv_query_gid(ctx, 1, gid_index, gid))
		die(name);
	return ctx;
}

static inline struct ibv_qp *make_qp(struct ibv_pd *pd, struct ibv_cq *scq,
				     struct ibv_cq *rcq, enum ibv_qp_type type,
				     unsigned int send_wr, unsigned int recv_wr,
				     unsigned int sge, unsigned int inline_data)
{
	struct ibv_qp_init_attr init = {
		.send_cq = scq, .recv_cq = rcq, .qp_type = type,
		.cap = { .max_send_wr = send_wr, .max_recv_wr = recv_wr,
			 .max_send_sge = sge, .max_recv_sge = sge,
			 .max_inline_data = inline_data },
	};
	struct ibv_qp *qp = ibv_create_qp(pd, &init);

	if (!qp)
		die("ibv_create_qp");
	return qp;
}

/*
 * RC and UC: connect @qp to QP @dest on GID @gid. @timeout and
 * @retry_cnt are the RC transport timer (4.096 us * 2^timeout) and retry
 * count. UD: ready to send to any QP with VG_QKEY.
 */
static inline void connect_qp(struct ibv_qp *qp, unsigned int dest,
			      const union ibv_gid *gid, int gid_index,
			      int timeout, int retry_cnt)
{
	int rc = qp->qp_type == IBV_QPT_RC, ud = qp->qp_type == IBV_QPT_UD;
	struct ibv_qp_attr a;
	int mask;

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_INIT;
	a.port_num = 1;
	mask = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT;
	if (ud) {
		a.qkey = VG_QKEY;
		mask |= IBV_QP_QKEY;
	} else {
		a.qp_access_flags = IBV_ACCESS_REMOTE_WRITE |
				    IBV_ACCESS_LOCAL_WRITE;
		if (rc)
			a.qp_access_flags |= IBV_ACCESS_REMOTE_READ |
					     IBV_ACCESS_REMOTE_ATOMIC;
		mask |= IBV_QP_ACCESS_FLAGS;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("INIT");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTR;
	mask = IBV_QP_STATE;
	if (!ud) {
		a.path_mtu = IBV_MTU_1024;
		a.dest_qp_num = dest;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = *gid;
		a.ah_attr.grh.sgid_index = gid_index;
		a.ah_attr.grh.hop_limit = 1;
		a.ah_attr.port_num = 1;
		mask |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN |
			IBV_QP_RQ_PSN;
	}
	if (rc) {
		a.max_dest_rd_atomic = 1;
		a.min_rnr_timer = 12;
		mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("RTR");

	memset(&a, 0, sizeof(a));
	a.qp_state = IBV_QPS_RTS;
	mask = IBV_QP_STATE | IBV_QP_SQ_PSN;
	if (rc) {
		a.timeout = timeout;
		a.retry_cnt = retry_cnt;
		a.rnr_retry = 7;
		a.max_rd_atomic = 1;
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	if (ibv_modify_qp(qp, &a, mask))
		die("RTS");
}

/*
 * A signaled RDMA WRITE of @len bytes from @src to @dst, both in @mr.
 * Return: ibv_post_send()'s error.
 */
static inline int try_write(struct ibv_qp *qp, struct ibv_mr *mr, char *src,
			    char *dst, unsigned int len, unsigned long long id)
{
	struct ibv_sge sge = { .addr = (uintptr_t)src, .length = len,
			       .lkey = mr->lkey };
	struct ibv_send_wr wr, *bad;

	memset(&wr, 0, sizeof(wr));
	wr.wr_id = id;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	wr.opcode = IBV_WR_RDMA_WRITE;
	wr.send_flags = IBV_SEND_SIGNALED;
	wr.wr.rdma.remote_addr = (uintptr_t)dst;
	wr.wr.rdma.rkey = mr->rkey;
	return ibv_post_send(qp, &wr, &bad);
}

/* try_write(), exiting on failure. */
static inline void post_write(struct ibv_qp *qp, struct ibv_mr *mr,
			      char *src, char *dst, unsigned int len,
			      unsigned long long id)
{
	errno = try_write(qp, mr, src, dst, len, id);
	if (errno)
		die("ibv_post_send");
}

#endif /* VG_RC_H */
