/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * vg_kconn.h: connect kernel RC QPs over one RoCE device's loopback, for
 * the test bed's test-only ULPs (tests/integration/kqp, cqctx, rcpair,
 * readinv), with the buffers they move. Static functions: each module that includes it has its own
 * copy. Never use outside the test bed.
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
static int vg_kconn_addr(struct ib_device *ibdev, u32 port,
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
static int vg_kconn_modify(struct ib_qp *qp, struct ib_qp_attr *a, int mask)
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
static int vg_kconn_connect(struct ib_qp *qp, u32 peer_qpn,
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

	for (i = 0; i < 2; i++) {
		qp[i] = ib_create_qp(pd, &init);
		if (IS_ERR(qp[i])) {
			ret = PTR_ERR(qp[i]);
			qp[i] = NULL;
			return ret;
		}
	}
	ret = vg_kconn_addr(pd->device, 1, a);
	for (i = 0; !ret && i < 2; i++)
		ret = vg_kconn_connect(qp[i], qp[1 - i]->qp_num, a, 1);
	return ret;
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
