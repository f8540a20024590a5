/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate's view of a send work request, independent of ib_core.
 *
 * The kernel glue translates struct ib_send_wr (and its ib_rdma_wr /
 * ib_atomic_wr / ib_reg_wr containers) into struct vg_wr before asking the
 * policy core to split or charge it, and translates chunks back. Immediate
 * data and the invalidate rkey are opaque 32-bit values (network order as
 * in ib_core); the core never interprets them.
 */
#ifndef _VG_CORE_WR_H
#define _VG_CORE_WR_H

#include "vg_compat.h"

enum vg_opcode {
	VG_OP_WRITE,
	VG_OP_WRITE_IMM,
	VG_OP_SEND,
	VG_OP_SEND_IMM,
	VG_OP_SEND_INV,
	VG_OP_READ,
	VG_OP_READ_INV,		/* invalidates the local MR of rkey @imm */
	VG_OP_ATOMIC_CMP_SWP,
	VG_OP_ATOMIC_FETCH_ADD,
	VG_OP_LOCAL_INV,
	VG_OP_REG_MR,
	VG_OP_NR
};

/* Send flags, mirroring IB_SEND_* semantics. */
#define VG_WR_SIGNALED		BIT(0)
#define VG_WR_SOLICITED		BIT(1)
#define VG_WR_INLINE		BIT(2)
#define VG_WR_FENCE		BIT(3)
#define VG_WR_FLAGS_ALL		(VG_WR_SIGNALED | VG_WR_SOLICITED | \
				 VG_WR_INLINE | VG_WR_FENCE)

/*
 * Most SGEs per WR the core accepts: a sanity bound above what devices
 * offer (mlx5 30, rxe 32 or more with inline room, rdmavt 96 by default).
 * The core keeps no array of this size; the glue checks each WR against
 * its QP's own max_send_sge.
 */
#define VG_MAX_SGE		1024U
/* Longest message: 2^31 bytes, the InfiniBand architecture's limit. */
#define VG_MAX_MSG		BIT(31)

struct vg_sge {
	u64 addr;
	u32 length;
	u32 lkey;
};

struct vg_wr {
	u64 wr_id;
	u64 remote_addr;		/* RDMA and atomic opcodes */
	const struct vg_sge *sg_list;
	u32 num_sge;
	u32 rkey;
	u32 imm;			/* immediate data or rkey to invalidate */
	u32 flags;			/* VG_WR_* */
	u8 opcode;			/* enum vg_opcode */
};

#endif /* _VG_CORE_WR_H */
