/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate message splitter.
 *
 * Turns one work request into chunks of at most @chunk_size bytes so the
 * scheduler can interleave tenants at chunk granularity (Justitia §4.4,
 * §5.1). RDMA WRITE, WRITE_WITH_IMM, READ and READ_WITH_INV are split;
 * SEND, SEND_WITH_IMM, SEND_WITH_INV, atomics, inline WRs, LOCAL_INV and
 * REG_MR never are (a SEND is one receive at the peer; an inline payload is
 * copied at post time; atomics and memory-registration WRs have no
 * divisible payload): they come out as one chunk identical to the WR and
 * are charged whole.
 *
 * For a split WR:
 *  - chunk k covers message bytes [k * chunk_size, min((k + 1) * chunk_size,
 *    length)), its SGE list is the slice of the WR's list covering those
 *    bytes (cut across SGE boundaries, zero-length SGEs dropped) and its
 *    remote address is the WR's plus k * chunk_size;
 *  - only the last chunk carries the WR's wr_id, SIGNALED, SOLICITED and
 *    immediate data, and only it keeps WRITE_WITH_IMM (earlier chunks are
 *    plain WRITEs, so the peer consumes exactly one receive); the others
 *    carry wr_id 0 and no completion flags. FENCE stays on the first chunk,
 *    which is where the WR's ordering point is.
 *  - likewise only the last chunk of a READ_WITH_INV keeps the opcode and
 *    the rkey to invalidate (@imm); earlier chunks are plain READs into
 *    the same local MR. The device invalidates the MR once the last
 *    chunk's data is placed, and a send queue's READs complete in order,
 *    so the MR stays valid for every chunk and is invalidated only after
 *    the whole read, as the unsplit WR would have it. Passing the WR
 *    through unsplit would be correct too, but it is a bulk transfer
 *    (rdma_rw reads through a registered MR on iWARP devices, up to
 *    megabytes) that the scheduler must be able to interleave.
 * A WR no longer than @chunk_size, including a zero-length one, is passed
 * through as one chunk unchanged.
 *
 * The splitter is an iterator over a WR the caller keeps alive and
 * unchanged until the last chunk has been produced; it never allocates.
 *
 * Context and locking: no locks, no sleeping, any context. A struct
 * vg_split is used by one thread at a time (the caller's per-QP lock).
 */
#ifndef _VG_CORE_SPLIT_H
#define _VG_CORE_SPLIT_H

#include "vg_compat.h"
#include "wr.h"

/* Largest chunk size the splitter accepts (a device may allow less). */
#define VG_SPLIT_MAX_CHUNK	VG_MAX_MSG

struct vg_chunk {
	u64 wr_id;		/* the WR's wr_id on the last chunk, else 0 */
	u64 remote_addr;
	struct vg_sge *sg_list;	/* the caller's buffer passed to _next() */
	u32 num_sge;
	u32 length;		/* payload bytes of this chunk */
	u32 rkey;
	u32 imm;		/* the WR's immediate on the last chunk, else 0 */
	u32 flags;		/* VG_WR_* for this chunk */
	u8 opcode;		/* enum vg_opcode */
	bool first;
	bool last;
};

struct vg_split {
	const struct vg_wr *wr;
	u32 length;		/* total payload bytes of the WR */
	u32 chunk_size;
	u32 done;		/* payload bytes already emitted */
	u32 sge;		/* SGE holding byte @done */
	u32 sge_off;		/* offset of byte @done in that SGE */
	u32 nchunks;		/* chunks this WR yields */
	u32 emitted;		/* chunks produced so far */
	bool split;		/* false: one pass-through chunk */
};

/**
 * vg_wr_length() - total payload length of a WR
 * @wr: work request (sg_list must hold num_sge entries)
 * @len: result
 *
 * Return: 0; -EMSGSIZE if the SGE lengths sum above VG_MAX_MSG.
 * Any context.
 */
int vg_wr_length(const struct vg_wr *wr, u32 *len);

/**
 * vg_split_init() - start splitting @wr into chunks of @chunk_size bytes
 * @sp: iterator state (caller memory)
 * @wr: the WR; must stay valid and unchanged while @sp is in use
 * @chunk_size: largest chunk, 1..VG_SPLIT_MAX_CHUNK
 *
 * Validates @wr. Errors (nothing is produced):
 *  -EINVAL	@chunk_size is 0, unknown opcode or flags, or a NULL SGE list
 *		with num_sge > 0
 *  -ERANGE	@chunk_size above VG_SPLIT_MAX_CHUNK
 *  -E2BIG	num_sge above VG_MAX_SGE
 *  -EMSGSIZE	payload longer than VG_MAX_MSG (the SGE lengths, summed
 *		without 32-bit wrap-around)
 *  -EOVERFLOW	an SGE, or the remote range of a WRITE/READ, wraps past
 *		the end of the 64-bit address space
 * Return: 0 or the error above. Any context.
 */
int vg_split_init(struct vg_split *sp, const struct vg_wr *wr, u32 chunk_size);

/**
 * vg_split_next() - produce the next chunk
 * @sp: iterator initialized by vg_split_init()
 * @c: the chunk
 * @sge_buf: room for @sp->wr->num_sge SGEs; @c->sg_list points here.
 *	A chunk never has more SGEs than its WR: it covers one contiguous
 *	range of the message, so each SGE of the WR gives it at most one
 *	piece. Nothing beyond @c->num_sge entries is written.
 *
 * Cost: O(SGEs in the chunk). Any context.
 * Return: true if @c was filled, false once all chunks have been produced.
 */
bool vg_split_next(struct vg_split *sp, struct vg_chunk *c,
		   struct vg_sge *sge_buf);

/**
 * vg_split_count() - number of chunks @sp yields in total
 * @sp: initialized iterator
 */
static inline u32 vg_split_count(const struct vg_split *sp)
{
	return sp->nchunks;
}

/**
 * vg_split_remaining() - payload bytes not yet emitted
 * @sp: initialized iterator
 */
static inline u32 vg_split_remaining(const struct vg_split *sp)
{
	return sp->length - sp->done;
}

/**
 * vg_opcode_splittable() - whether WRs with @opcode can be split
 * @opcode: enum vg_opcode
 */
static inline bool vg_opcode_splittable(u8 opcode)
{
	return opcode == VG_OP_WRITE || opcode == VG_OP_WRITE_IMM ||
	       opcode == VG_OP_READ || opcode == VG_OP_READ_INV;
}

/**
 * vg_opcode_mid() - opcode of a split WR's chunks before the last
 * @opcode: enum vg_opcode of the WR, splittable
 *
 * The immediate data of a WRITE_WITH_IMM and the invalidation of a
 * READ_WITH_INV belong to the last chunk only.
 */
static inline u8 vg_opcode_mid(u8 opcode)
{
	switch (opcode) {
	case VG_OP_WRITE_IMM:
		return VG_OP_WRITE;
	case VG_OP_READ_INV:
		return VG_OP_READ;
	default:
		return opcode;
	}
}

#endif /* _VG_CORE_SPLIT_H */
