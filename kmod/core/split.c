// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate message splitter: see split.h for the rules.
 */
#include "split.h"

int vg_wr_length(const struct vg_wr *wr, u32 *len)
{
	u64 sum = 0;
	u32 i;

	/* At most VG_MAX_SGE (1024) terms below 2^32 each: no u64 overflow. */
	for (i = 0; i < wr->num_sge; i++)
		sum += wr->sg_list[i].length;
	if (sum > VG_MAX_MSG)
		return -EMSGSIZE;
	*len = (u32)sum;
	return 0;
}

/* Does [addr, addr + len) wrap past the end of the address space? */
static bool vg_range_wraps(u64 addr, u64 len)
{
	return len && addr > U64_MAX - (len - 1);
}

int vg_split_init(struct vg_split *sp, const struct vg_wr *wr, u32 chunk_size)
{
	u32 i, len;
	int ret;

	if (!chunk_size)
		return -EINVAL;
	if (chunk_size > VG_SPLIT_MAX_CHUNK)
		return -ERANGE;
	if (wr->opcode >= VG_OP_NR || (wr->flags & ~VG_WR_FLAGS_ALL))
		return -EINVAL;
	if (wr->num_sge > VG_MAX_SGE)
		return -E2BIG;
	if (wr->num_sge && !wr->sg_list)
		return -EINVAL;
	ret = vg_wr_length(wr, &len);
	if (ret)
		return ret;
	for (i = 0; i < wr->num_sge; i++)
		if (vg_range_wraps(wr->sg_list[i].addr, wr->sg_list[i].length))
			return -EOVERFLOW;
	if (vg_opcode_splittable(wr->opcode) &&
	    vg_range_wraps(wr->remote_addr, len))
		return -EOVERFLOW;

	sp->wr = wr;
	sp->length = len;
	sp->chunk_size = chunk_size;
	sp->done = 0;
	sp->sge = 0;
	sp->sge_off = 0;
	sp->emitted = 0;
	sp->split = vg_opcode_splittable(wr->opcode) &&
		    !(wr->flags & VG_WR_INLINE) && len > chunk_size;
	sp->nchunks = sp->split ? DIV_ROUND_UP(len, chunk_size) : 1;
	return 0;
}

/* The single chunk of a WR that is not split: the WR itself. */
static void vg_split_whole(struct vg_split *sp, struct vg_chunk *c,
			   struct vg_sge *sge_buf)
{
	const struct vg_wr *wr = sp->wr;

	if (wr->num_sge)
		memcpy(sge_buf, wr->sg_list, wr->num_sge * sizeof(*sge_buf));
	c->wr_id = wr->wr_id;
	c->remote_addr = wr->remote_addr;
	c->sg_list = sge_buf;
	c->num_sge = wr->num_sge;
	c->length = sp->length;
	c->rkey = wr->rkey;
	c->imm = wr->imm;
	c->flags = wr->flags;
	c->opcode = wr->opcode;
	c->first = true;
	c->last = true;
	sp->done = sp->length;
	sp->emitted = 1;
}

bool vg_split_next(struct vg_split *sp, struct vg_chunk *c,
		   struct vg_sge *sge_buf)
{
	const struct vg_wr *wr = sp->wr;
	u32 want, left, n = 0;
	bool last;

	if (sp->emitted >= sp->nchunks)
		return false;
	if (!sp->split) {
		vg_split_whole(sp, c, sge_buf);
		return true;
	}

	want = min(sp->chunk_size, sp->length - sp->done);
	for (left = want; left; ) {
		const struct vg_sge *s = &wr->sg_list[sp->sge];
		u32 take = min(s->length - sp->sge_off, left);

		if (take) {
			sge_buf[n].addr = s->addr + sp->sge_off;
			sge_buf[n].length = take;
			sge_buf[n].lkey = s->lkey;
			n++;
			left -= take;
			sp->sge_off += take;
		}
		if (sp->sge_off == s->length) {
			sp->sge++;
			sp->sge_off = 0;
		}
	}

	last = sp->emitted + 1 == sp->nchunks;
	c->remote_addr = wr->remote_addr + sp->done;
	c->sg_list = sge_buf;
	c->num_sge = n;
	c->length = want;
	c->rkey = wr->rkey;
	c->first = sp->emitted == 0;
	c->last = last;
	c->flags = c->first ? wr->flags & VG_WR_FENCE : 0;
	if (last) {
		c->wr_id = wr->wr_id;
		c->imm = wr->imm;
		c->flags |= wr->flags & (VG_WR_SIGNALED | VG_WR_SOLICITED);
		c->opcode = wr->opcode;
	} else {
		c->wr_id = 0;
		c->imm = 0;
		c->opcode = vg_opcode_mid(wr->opcode);
	}
	sp->done += want;
	sp->emitted++;
	return true;
}
