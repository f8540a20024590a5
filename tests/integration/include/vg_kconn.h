/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vg_kconn.h: connect kernel RC QPs over one RoCE device's loopback, for
 * the test bed's test-only ULPs (tests/integration/kqp, kpost, cqctx,
 * rcpair, readinv, regretry), with the buffers they move; fakedev's ULP, which
 * connects over its own device, takes the buffers and the QP pair's
 * creation. Static inline functions: each module that includes it has
 * its own copy of those it uses. Never use outside the test bed.
 *
 * Kernel QPs get no address resolution from ib_modify_qp() (only user
 * QPs do), so the address vector carries the netdev's own MAC as its
 * destination: rxe then loops the packets back to itself.
 */
#ifndef _VG_KCONN_H
#define _VG_KCONN_H

#include <linux/etherdevice.h>
#include <linux/slab.h>
#include <rdma/ib_cache.h>
#include <rdma/ib_verbs.h>

/* Where a QP of the device is reached: its own address on @port. */
struct vg_kconn_addr {
	u32 port;
	union ib_gid gid;
	int gid_index;
	u8 dmac[ETH_ALEN];
};

/*
 * The device's RoCE v2 GID of an IPv4 address on @port, and the MAC of
 * its netdev. Process context. Return: 0, or -ENODEV if it has none.
 */
static inline int vg_kconn_addr(struct ib_device *ibdev, u32 port,
				struct vg_kconn_addr *a)
{
	const struct ib_gid_attr *attr;
	struct net_device *ndev;
	int i;

	for (i = 0; i < ibdev->port_data[port].immutable.gid_tbl_len; i++) {
		attr = rdma_get_gid_attr(ibdev, port, i);
		if (IS_ERR(attr))
			continue;
		if (attr->gid_type == IB_GID_TYPE_ROCE_UDP_ENCAP &&
		    ipv6_addr_v4mapped((struct in6_addr *)attr->gid.raw)) {
			a->port = port;
			a->gid = attr->gid;
			a->gid_index = i;
			rcu_read_lock();
			ndev = rdma_read_gid_attr_ndev_rcu(attr);
			if (!IS_ERR(ndev))
				ether_addr_copy(a->dmac, ndev->dev_addr);
			rcu_read_unlock();
			rdma_put_gid_attr(attr);
			return 0;
		}
		rdma_put_gid_attr(attr);
	}
	pr_err("%s has no RoCE v2 GID of an IPv4 address\n",
	       dev_name(&ibdev->dev));
	return -ENODEV;
}

/* Process context: one modify, logged if the driver refuses it. */
static inline int vg_kconn_modify(struct ib_qp *qp, struct ib_qp_attr *a,
				  int mask)
{
	int ret = ib_modify_qp(qp, a, mask);

	if (ret)
		pr_err("QP %u: modify to state %d failed: %d\n", qp->qp_num,
		       a->qp_state, ret);
	return ret;
}

/*
 * Process context: @qp from RESET to RTS, connected to QP @peer_qpn at
 * @a, with local and remote read and write access and up to @rd_atomic
 * RDMA READs outstanding each way. Packet sequence numbers start at 0.
 */
static inline int vg_kconn_connect(struct ib_qp *qp, u32 peer_qpn,
				   const struct vg_kconn_addr *a, u8 rd_atomic)
{
	struct ib_qp_attr attr = {
		.qp_state = IB_QPS_INIT,
		.port_num = a->port,
		.qp_access_flags = IB_ACCESS_LOCAL_WRITE |
				   IB_ACCESS_REMOTE_WRITE |
				   IB_ACCESS_REMOTE_READ,
	};
	union ib_gid gid = a->gid;
	int ret;

	ret = vg_kconn_modify(qp, &attr, IB_QP_STATE | IB_QP_PKEY_INDEX |
			      IB_QP_PORT | IB_QP_ACCESS_FLAGS);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTR;
	attr.path_mtu = IB_MTU_1024;
	attr.dest_qp_num = peer_qpn;
	attr.max_dest_rd_atomic = rd_atomic;
	attr.min_rnr_timer = 12;
	attr.ah_attr.type = rdma_ah_find_type(qp->device, a->port);
	rdma_ah_set_port_num(&attr.ah_attr, a->port);
	rdma_ah_set_grh(&attr.ah_attr, &gid, 0, a->gid_index, 64, 0);
	ether_addr_copy(attr.ah_attr.roce.dmac, a->dmac);
	ret = vg_kconn_modify(qp, &attr, IB_QP_STATE | IB_QP_AV |
			      IB_QP_PATH_MTU | IB_QP_DEST_QPN |
			      IB_QP_RQ_PSN | IB_QP_MAX_DEST_RD_ATOMIC |
			      IB_QP_MIN_RNR_TIMER);
	if (ret)
		return ret;
	memset(&attr, 0, sizeof(attr));
	attr.qp_state = IB_QPS_RTS;
	attr.timeout = 14;
	attr.retry_cnt = 7;
	attr.rnr_retry = 7;
	attr.max_rd_atomic = rd_atomic;
	return vg_kconn_modify(qp, &attr, IB_QP_STATE | IB_QP_TIMEOUT |
			       IB_QP_RETRY_CNT | IB_QP_RNR_RETRY |
			       IB_QP_SQ_PSN | IB_QP_MAX_QP_RD_ATOMIC);
}

/*
 * Process context: @n zeroed buffers of @len bytes in @buf, mapped for
 * @ibdev at @dma. On failure the caller frees what was made with
 * vg_kconn_bufs_free(). Return: 0 or -ENOMEM.
 */
static inline int vg_kconn_bufs_alloc(struct ib_device *ibdev, void **buf,
				      u64 *dma, int n, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		buf[i] = kvzalloc(len, GFP_KERNEL);
		if (!buf[i])
			return -ENOMEM;
		dma[i] = ib_dma_map_single(ibdev, buf[i], len,
					   DMA_BIDIRECTIONAL);
		if (ib_dma_mapping_error(ibdev, dma[i])) {
			kvfree(buf[i]);
			buf[i] = NULL;
			return -ENOMEM;
		}
	}
	return 0;
}

/* Process context: unmap and free what vg_kconn_bufs_alloc() made. */
static inline void vg_kconn_bufs_free(struct ib_device *ibdev, void **buf,
				      u64 *dma, int n, size_t len)
{
	int i;

	for (i = 0; i < n; i++) {
		if (buf[i])
			ib_dma_unmap_single(ibdev, dma[i], len,
					    DMA_BIDIRECTIONAL);
		kvfree(buf[i]);
		buf[i] = NULL;
	}
}

/*
 * Process context: two QPs of @pd as @init asks, in @qp. On failure the
 * caller destroys those in @qp that are not NULL. Return: 0 or -errno.
 */
static inline int vg_kconn_qps(struct ib_pd *pd, struct ib_qp_init_attr *init,
			       struct ib_qp **qp)
{
	int i, ret;

	for (i = 0; i < 2; i++) {
		qp[i] = ib_create_qp(pd, init);
		if (IS_ERR(qp[i])) {
			ret = PTR_ERR(qp[i]);
			qp[i] = NULL;
			return ret;
		}
	}
	return 0;
}

/*
 * Process context: two RC QPs of @pd with send queues of @wrs WRs (one
 * SGE each, one receive WR) completing on @cq, in @qp, connected to
 * each other at @a. On failure the caller destroys those in @qp that
 * are not NULL. Return: 0 or -errno.
 */
static inline int vg_kconn_pair(struct ib_pd *pd, struct ib_cq *cq, u32 wrs,
				struct vg_kconn_addr *a, struct ib_qp **qp)
{
	struct ib_qp_init_attr init = {
		.send_cq = cq,
		.recv_cq = cq,
		.cap = {
			.max_send_wr = wrs,
			.max_recv_wr = 1,
			.max_send_sge = 1,
			.max_recv_sge = 1,
		},
		.sq_sig_type = IB_SIGNAL_REQ_WR,
		.qp_type = IB_QPT_RC,
	};
	int i, ret;

	ret = vg_kconn_qps(pd, &init, qp);
	if (!ret)
		ret = vg_kconn_addr(pd->device, 1, a);
	for (i = 0; !ret && i < 2; i++)
		ret = vg_kconn_connect(qp[i], qp[1 - i]->qp_num, a, 1);
	return ret;
}

/**
 * struct vg_kconn_loop - a loopback pair of RC QPs and what it needs
 * @ibdev: the device; its user holds the reference
 * @pd: a PD of it, with an unsafe global rkey
 * @cq: the send and receive CQ of both QPs
 * @cq_legacy: @cq is ib_create_cq()'s, not ib_alloc_cq()'s
 * @qp: the sending QP, and the one it writes into
 * @where: the device's own address, which the QPs connect over
 * @buf: source and destination, @len bytes each
 * @dma: their addresses for the device
 * @len: the size of each buffer
 */
struct vg_kconn_loop {
	struct ib_device *ibdev;
	struct ib_pd *pd;
	struct ib_cq *cq;
	bool cq_legacy;
	struct ib_qp *qp[2];
	struct vg_kconn_addr where;
	void *buf[2];
	u64 dma[2];
	size_t len;
};

/*
 * Process context: @l's PD on @ibdev and its two zeroed buffers of @len
 * bytes; the user then creates a CQ and calls vg_kconn_loop_connect().
 * On failure the user frees what was made with vg_kconn_loop_close().
 * Return: 0 or -errno.
 */
static inline int vg_kconn_loop_open(struct vg_kconn_loop *l,
				     struct ib_device *ibdev, size_t len)
{
	int ret;

	l->ibdev = ibdev;
	l->len = len;
	l->pd = ib_alloc_pd(ibdev, IB_PD_UNSAFE_GLOBAL_RKEY);
	if (IS_ERR(l->pd)) {
		ret = PTR_ERR(l->pd);
		l->pd = NULL;
		return ret;
	}
	return vg_kconn_bufs_alloc(ibdev, l->buf, l->dma, 2, len);
}

/*
 * Process context: @cq, as ib_create_cq() (@legacy) or ib_alloc_cq()
 * returned it, becomes @l's CQ, and @l's QPs, with send queues of @wrs
 * WRs, are connected over it (vg_kconn_pair()). On failure the user
 * frees what was made with vg_kconn_loop_close(). Return: 0 or -errno.
 */
static inline int vg_kconn_loop_connect(struct vg_kconn_loop *l,
					struct ib_cq *cq, bool legacy, u32 wrs)
{
	if (IS_ERR(cq))
		return PTR_ERR(cq);
	l->cq = cq;
	l->cq_legacy = legacy;
	return vg_kconn_pair(l->pd, cq, wrs, &l->where, l->qp);
}

/*
 * Process context: free what vg_kconn_loop_open() and _connect() made,
 * undrained; @l can be opened again.
 */
static inline void vg_kconn_loop_close(struct vg_kconn_loop *l)
{
	int i;

	for (i = 0; i < 2; i++) {
		if (l->qp[i])
			ib_destroy_qp(l->qp[i]);
		l->qp[i] = NULL;
	}
	if (l->cq && l->cq_legacy)
		ib_destroy_cq(l->cq);
	else if (l->cq)
		ib_free_cq(l->cq);
	l->cq = NULL;
	vg_kconn_bufs_free(l->ibdev, l->buf, l->dma, 2, l->len);
	if (l->pd)
		ib_dealloc_pd(l->pd);
	l->pd = NULL;
}

/*
 * Process context: @n signaled RDMA WRITEs of @len bytes from @src to
 * @dst (both mapped for @qp's device, reached with its PD's global
 * rkey), the i-th completing to @cqe[i] with @done. Return: 0 or the
 * first failed post's error.
 */
static inline int vg_kconn_post_writes(struct ib_qp *qp, u64 src, u64 dst,
				       u32 len, struct ib_cqe *cqe, u32 n,
				       void (*done)(struct ib_cq *cq,
						    struct ib_wc *wc))
{
	struct ib_sge sge = {
		.addr = src,
		.length = len,
		.lkey = qp->pd->local_dma_lkey,
	};
	struct ib_rdma_wr wr = {
		.wr = {
			.sg_list = &sge,
			.num_sge = 1,
			.opcode = IB_WR_RDMA_WRITE,
			.send_flags = IB_SEND_SIGNALED,
		},
		.remote_addr = dst,
		.rkey = qp->pd->unsafe_global_rkey,
	};
	u32 i;
	int ret;

	for (i = 0; i < n; i++) {
		cqe[i].done = done;
		wr.wr.wr_cqe = &cqe[i];
		ret = ib_post_send(qp, &wr.wr, NULL);
		if (ret)
			return ret;
	}
	return 0;
}

#endif /* _VG_KCONN_H */
