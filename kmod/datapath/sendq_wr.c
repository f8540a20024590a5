// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a send queue's WRs in the shaper's hands: ib_core's opcodes
 * in the policy core's model, the copies the QP's queue holds (with a
 * reserve for when GFP_ATOMIC memory runs out), and each chunk built
 * back in ib_core's format for the driver.
 */
#define pr_fmt(fmt) KBUILD_MODNAME ": " fmt

#include <linux/mempool.h>
#include <linux/slab.h>

#include "core/split.h"

#include "fault.h"
#include "sendq.h"

/* ib_core's opcodes the shaper models, and the completion each gives. */
bool vg_opcode_of(enum ib_wr_opcode op, u8 *vop, enum ib_wc_opcode *wc)
{
	switch (op) {
	case IB_WR_RDMA_WRITE:
		*vop = VG_OP_WRITE;
		*wc = IB_WC_RDMA_WRITE;
		return true;
	case IB_WR_RDMA_WRITE_WITH_IMM:
		*vop = VG_OP_WRITE_IMM;
		*wc = IB_WC_RDMA_WRITE;
		return true;
	case IB_WR_SEND:
		*vop = VG_OP_SEND;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_SEND_WITH_IMM:
		*vop = VG_OP_SEND_IMM;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_SEND_WITH_INV:
		*vop = VG_OP_SEND_INV;
		*wc = IB_WC_SEND;
		return true;
	case IB_WR_RDMA_READ:
		*vop = VG_OP_READ;
		*wc = IB_WC_RDMA_READ;
		return true;
	case IB_WR_RDMA_READ_WITH_INV:	/* an ib_rdma_wr, split (split.h) */
		*vop = VG_OP_READ_INV;
		*wc = IB_WC_RDMA_READ;
		return true;
	case IB_WR_ATOMIC_CMP_AND_SWP:
		*vop = VG_OP_ATOMIC_CMP_SWP;
		*wc = IB_WC_COMP_SWAP;
		return true;
	case IB_WR_ATOMIC_FETCH_AND_ADD:
		*vop = VG_OP_ATOMIC_FETCH_ADD;
		*wc = IB_WC_FETCH_ADD;
		return true;
	case IB_WR_LOCAL_INV:
		*vop = VG_OP_LOCAL_INV;
		*wc = IB_WC_LOCAL_INV;
		return true;
	case IB_WR_REG_MR:
	case IB_WR_REG_MR_INTEGRITY:	/* an ib_reg_wr too, never split */
		*vop = VG_OP_REG_MR;
		*wc = IB_WC_REG_MR;
		return true;
	default:
		return false;
	}
}

static bool vg_opcode_rdma(u8 vop)
{
	return vop == VG_OP_WRITE || vop == VG_OP_WRITE_IMM ||
	       vop == VG_OP_READ || vop == VG_OP_READ_INV;
}

static bool vg_opcode_atomic(u8 vop)
{
	return vop == VG_OP_ATOMIC_CMP_SWP || vop == VG_OP_ATOMIC_FETCH_ADD;
}

/* IB_SEND_* to VG_WR_*, for the flags the splitter handles. */
static u32 vg_flags_of(int send_flags)
{
	return (send_flags & IB_SEND_SIGNALED ? VG_WR_SIGNALED : 0) |
	       (send_flags & IB_SEND_SOLICITED ? VG_WR_SOLICITED : 0) |
	       (send_flags & IB_SEND_INLINE ? VG_WR_INLINE : 0) |
	       (send_flags & IB_SEND_FENCE ? VG_WR_FENCE : 0);
}

/* Copy @wr in the container its opcode @vop implies, unchained. */
static void vg_wr_copy(union vg_send_wr *dst, const struct ib_send_wr *wr,
		       u8 vop)
{
	if (vg_opcode_rdma(vop))
		dst->rdma = *rdma_wr(wr);
	else if (vg_opcode_atomic(vop))
		dst->atomic = *atomic_wr(wr);
	else if (vop == VG_OP_REG_MR)
		dst->reg = *reg_wr(wr);
	else
		dst->wr = *wr;
	dst->wr.next = NULL;
}

/*
 * WR copies come from kmalloc(GFP_ATOMIC). When that finds no memory, a
 * copy of up to VG_PWR_RESERVE_SIZE bytes (any WR of up to VG_CHUNK_SGE
 * SGEs without inline data) comes from a reserve that only its own
 * elements refill, so that a QP keeps moving under memory pressure
 * instead of failing posts that would not fail without verbsgate (ULPs
 * treat -ENOMEM from ib_post_send() as a full send queue, a state they
 * size their queues never to reach: nvmet_rdma drops the response).
 */
#define VG_PWR_RESERVE_NR	64
#define VG_PWR_RESERVE_SIZE	(sizeof(struct vg_pwr) + VG_CHUNK_SGE * \
				 (sizeof(struct ib_sge) + sizeof(struct vg_sge)))

static mempool_t *vg_pwr_reserve;

/*
 * The reserve's allocator: fills it at creation (process context); an
 * atomic caller, whose own kmalloc() just failed, takes an element.
 */
static void *vg_pwr_reserve_alloc(gfp_t gfp, void *unused)
{
	if (!gfpflags_allow_blocking(gfp))
		return NULL;
	return kmalloc(VG_PWR_RESERVE_SIZE, gfp);
}

/* Any context. */
void vg_pwr_free(struct vg_pwr *p)
{
	if (p->reserved)
		mempool_free(p, vg_pwr_reserve);
	else
		kfree(p);
}

/* Any context: memory for a copy of @size bytes, or NULL. */
static struct vg_pwr *vg_pwr_alloc(size_t size)
{
	struct vg_pwr *p = NULL;

	if (!vg_should_fail(VG_FAULT_WR_COPY))
		p = kmalloc(size, GFP_ATOMIC | __GFP_NOWARN);
	if (p) {
		p->reserved = false;
	} else if (size <= VG_PWR_RESERVE_SIZE) {
		p = mempool_alloc(vg_pwr_reserve, GFP_ATOMIC);
		if (p)
			p->reserved = true;
	}
	return p;
}

/**
 * vg_pwr_reserve_init() - create the reserve of WR copies
 *
 * Context: process context (module init).
 * Return: 0 or -ENOMEM.
 */
int vg_pwr_reserve_init(void)
{
	vg_pwr_reserve = mempool_create(VG_PWR_RESERVE_NR,
					vg_pwr_reserve_alloc, mempool_kfree,
					NULL);
	return vg_pwr_reserve ? 0 : -ENOMEM;
}

/**
 * vg_pwr_reserve_exit() - free the reserve
 *
 * Context: process context (module exit), once every device is detached
 * and no QP's state remains.
 */
void vg_pwr_reserve_exit(void)
{
	mempool_destroy(vg_pwr_reserve);
}

/*
 * Copy @wr, its container, SGEs and inline payload, for a send queue of
 * @max_sge SGEs per WR. A WR with more than VG_CHUNK_SGE SGEs gets room
 * for its chunks' SGEs too (vg_pwr::csge). Any context (GFP_ATOMIC).
 * Return: the copy, or NULL with *@err set: -EOPNOTSUPP an opcode the
 * shaper does not model, -EINVAL more SGEs than @max_sge or a payload
 * above 2^31 bytes, -ENOMEM.
 */
struct vg_pwr *vg_pwr_copy(const struct ib_send_wr *wr, u32 max_sge,
			   int *err)
{
	size_t inl = 0, size, per_sge;
	enum ib_wc_opcode wco;
	struct vg_pwr *p;
	u32 i, n, off = 0;
	u8 vop;

	if (!vg_opcode_of(wr->opcode, &vop, &wco)) {
		*err = -EOPNOTSUPP;
		return NULL;
	}
	if (wr->num_sge < 0 || wr->num_sge > max_sge) {
		*err = -EINVAL;
		return NULL;
	}
	n = wr->num_sge;
	if (wr->send_flags & IB_SEND_INLINE)
		for (i = 0; i < n; i++)
			inl += wr->sg_list[i].length;
	if (inl > SZ_64K) {
		*err = -EINVAL;
		return NULL;
	}
	/* n <= VG_MAX_SGE (vg_sendq_create()): no overflow. */
	per_sge = sizeof(struct ib_sge) + sizeof(struct vg_sge);
	size = sizeof(*p) + n * per_sge * (n > VG_CHUNK_SGE ? 2 : 1) + inl;
	p = vg_pwr_alloc(size);
	if (!p) {
		*err = -ENOMEM;
		return NULL;
	}
	vg_wr_copy(&p->u, wr, vop);
	p->sge = (struct ib_sge *)(p + 1);
	p->vsge = (struct vg_sge *)(p->sge + n);
	p->csge = NULL;
	p->cvsge = NULL;
	p->inline_buf = (u8 *)(p->vsge + n);
	if (n > VG_CHUNK_SGE) {
		p->csge = (struct ib_sge *)p->inline_buf;
		p->cvsge = (struct vg_sge *)(p->csge + n);
		p->inline_buf = (u8 *)(p->cvsge + n);
	}
	p->length = 0;
	p->status = IB_WC_SUCCESS;
	for (i = 0; i < wr->num_sge; i++) {
		p->sge[i] = wr->sg_list[i];
		if (inl) {
			memcpy(p->inline_buf + off,
			       (void *)(uintptr_t)wr->sg_list[i].addr,
			       wr->sg_list[i].length);
			p->sge[i].addr = (uintptr_t)(p->inline_buf + off);
			off += wr->sg_list[i].length;
		}
		p->vsge[i].addr = p->sge[i].addr;
		p->vsge[i].length = p->sge[i].length;
		p->vsge[i].lkey = p->sge[i].lkey;
	}
	p->u.wr.sg_list = p->sge;

	memset(&p->vwr, 0, sizeof(p->vwr));
	p->vwr.wr_id = wr->wr_id;
	p->vwr.sg_list = p->vsge;
	p->vwr.num_sge = wr->num_sge;
	p->vwr.flags = vg_flags_of(wr->send_flags);
	p->vwr.opcode = vop;
	if (vg_opcode_rdma(vop)) {
		p->vwr.remote_addr = p->u.rdma.remote_addr;
		p->vwr.rkey = p->u.rdma.rkey;
	} else if (vg_opcode_atomic(vop)) {
		p->vwr.remote_addr = p->u.atomic.remote_addr;
		p->vwr.rkey = p->u.atomic.rkey;
	}
	if (vop == VG_OP_WRITE_IMM || vop == VG_OP_SEND_IMM)
		p->vwr.imm = (__force u32)wr->ex.imm_data;
	else if (vop == VG_OP_SEND_INV || vop == VG_OP_READ_INV)
		p->vwr.imm = wr->ex.invalidate_rkey;
	if (vg_wr_length(&p->vwr, &p->length)) {
		vg_pwr_free(p);
		*err = -EINVAL;
		return NULL;
	}
	return p;
}

/*
 * Fill @sq's chunk WR for chunk @c of @p, with its SGEs in @sge (room for
 * @c->num_sge). Any context; the caller holds @sq's @slot.posting role.
 */
void vg_sendq_build(struct vg_sendq *sq, const struct vg_pwr *p,
		    const struct vg_chunk *c, struct ib_sge *sge,
		    bool signal)
{
	struct ib_send_wr *w = &sq->chunk_wr.wr;
	int keep = IB_SEND_SIGNALED | IB_SEND_SOLICITED | IB_SEND_FENCE;
	u32 i;

	sq->chunk_wr = p->u;
	w->next = NULL;
	for (i = 0; i < c->num_sge; i++) {
		sge[i].addr = c->sg_list[i].addr;
		sge[i].length = c->sg_list[i].length;
		sge[i].lkey = c->sg_list[i].lkey;
	}
	w->sg_list = sge;
	w->num_sge = c->num_sge;
	/*
	 * Earlier chunks of a WRITE_WITH_IMM are plain WRITEs, of a
	 * READ_WITH_INV plain READs: the last chunk alone invalidates.
	 */
	if (p->vwr.opcode == VG_OP_WRITE_IMM && c->opcode == VG_OP_WRITE)
		w->opcode = IB_WR_RDMA_WRITE;
	else if (p->vwr.opcode == VG_OP_READ_INV && c->opcode == VG_OP_READ)
		w->opcode = IB_WR_RDMA_READ;
	if (vg_opcode_rdma(p->vwr.opcode)) {
		sq->chunk_wr.rdma.remote_addr = c->remote_addr;
		sq->chunk_wr.rdma.rkey = c->rkey;
	}
	w->send_flags = (p->u.wr.send_flags & ~keep) |
			(c->flags & VG_WR_SOLICITED ? IB_SEND_SOLICITED : 0) |
			(c->flags & VG_WR_FENCE ? IB_SEND_FENCE : 0) |
			(signal ? IB_SEND_SIGNALED : 0);
}
