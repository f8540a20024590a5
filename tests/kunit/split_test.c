// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate message splitter (kmod/core/split.c).
 */
#include <kunit/test.h>

#include "split.h"
#include "vg_prng.h"

static struct vg_wr mkwr(u8 opcode, const struct vg_sge *sg, u32 n)
{
	struct vg_wr wr = {
		.wr_id = 0xabcdef,
		.remote_addr = 0x100000,
		.sg_list = sg,
		.num_sge = n,
		.rkey = 77,
		.imm = 0x12345678,
		.flags = VG_WR_SIGNALED | VG_WR_SOLICITED,
		.opcode = opcode,
	};

	return wr;
}

/*
 * vg_split_init() on bad WRs: each row is one WR and chunk size, and the
 * error it must get. A rejected WR leaves the iterator untouched (nothing
 * is produced). Rows expecting 0 are the accepted neighbours of a limit.
 */
struct split_bad_case {
	const char *name;
	u8 opcode;
	u8 flags;
	u32 nsge;
	const struct vg_sge *sg;	/* NULL: @nsge SGEs of @len bytes */
	u32 len;			/* 0: 4096 */
	bool no_list;			/* sg_list NULL */
	u64 remote_addr;		/* 0: mkwr()'s */
	u32 chunk;
	int want;
};

static const struct vg_sge split_sg_2g_1[] = {
	{ .addr = 0x1000, .length = BIT(31) }, { .addr = 0x1000, .length = 1 },
};

static const struct vg_sge split_sg_2g_0[] = {
	{ .addr = 0x1000, .length = BIT(31) }, { .addr = 0x1000, .length = 0 },
};

static const struct vg_sge split_sg_u32_1[] = {
	{ .addr = 0x1000, .length = U32_MAX }, { .addr = 0x1000, .length = 1 },
};

static const struct vg_sge split_sg_to_end[] = {
	{ .addr = U64_MAX - 99, .length = 100 },
};

static const struct vg_sge split_sg_past_end[] = {
	{ .addr = U64_MAX - 99, .length = 101 },
};

static const struct vg_sge split_sg_second_wraps[] = {
	{ .addr = 0, .length = 100 }, { .addr = U64_MAX, .length = 2 },
};

static const struct vg_sge split_sg_empty_at_end[] = {
	{ .addr = U64_MAX, .length = 0 },
};

static const struct split_bad_case split_bad_cases[] = {
	/* Chunk size. */
	{ "chunk size 0", .opcode = VG_OP_WRITE, .nsge = 1, .chunk = 0,
	  .want = -EINVAL },
	{ "chunk size above VG_SPLIT_MAX_CHUNK", .opcode = VG_OP_WRITE,
	  .nsge = 1, .chunk = VG_SPLIT_MAX_CHUNK + 1, .want = -ERANGE },
	{ "chunk size U32_MAX", .opcode = VG_OP_WRITE, .nsge = 1,
	  .chunk = U32_MAX, .want = -ERANGE },
	{ "chunk size VG_SPLIT_MAX_CHUNK is accepted", .opcode = VG_OP_WRITE,
	  .nsge = 1, .chunk = VG_SPLIT_MAX_CHUNK },
	{ "chunk size 1 is accepted", .opcode = VG_OP_WRITE, .nsge = 1,
	  .chunk = 1 },
	/* Opcode and flags. */
	{ "opcode VG_OP_NR", .opcode = VG_OP_NR, .nsge = 1, .chunk = 4096,
	  .want = -EINVAL },
	{ "opcode 255", .opcode = 255, .nsge = 1, .chunk = 4096,
	  .want = -EINVAL },
	{ "unknown flag BIT(7)", .opcode = VG_OP_WRITE, .flags = BIT(7),
	  .nsge = 1, .chunk = 4096, .want = -EINVAL },
	{ "every unknown flag", .opcode = VG_OP_WRITE,
	  .flags = (u8)~VG_WR_FLAGS_ALL, .nsge = 1, .chunk = 4096,
	  .want = -EINVAL },
	/* SGE list. */
	{ "VG_MAX_SGE + 1 SGEs", .opcode = VG_OP_WRITE, .nsge = VG_MAX_SGE + 1,
	  .chunk = 4096, .want = -E2BIG },
	{ "VG_MAX_SGE SGEs are accepted", .opcode = VG_OP_WRITE,
	  .nsge = VG_MAX_SGE, .chunk = 4096 },
	{ "NULL SGE list with one SGE", .opcode = VG_OP_WRITE, .nsge = 1,
	  .no_list = true, .chunk = 4096, .want = -EINVAL },
	{ "NULL SGE list without SGEs is accepted", .opcode = VG_OP_WRITE,
	  .nsge = 0, .no_list = true, .chunk = 4096 },
	/* Message size. */
	{ "VG_MAX_SGE SGEs of U32_MAX bytes (sum wraps 32 bits)",
	  .opcode = VG_OP_WRITE, .nsge = VG_MAX_SGE, .len = U32_MAX,
	  .chunk = 4096, .want = -EMSGSIZE },
	{ "2^32 bytes in two SGEs", .opcode = VG_OP_WRITE,
	  .sg = split_sg_u32_1, .nsge = 2, .chunk = 4096, .want = -EMSGSIZE },
	{ "SEND of 2^31 + 1 bytes", .opcode = VG_OP_SEND,
	  .sg = split_sg_2g_1, .nsge = 2, .chunk = 4096, .want = -EMSGSIZE },
	{ "SEND of 2^31 bytes is accepted", .opcode = VG_OP_SEND,
	  .sg = split_sg_2g_0, .nsge = 2, .chunk = 4096 },
	/* Address wrap-around. */
	{ "SGE ending at 2^64 is accepted", .opcode = VG_OP_WRITE,
	  .sg = split_sg_to_end, .nsge = 1, .chunk = 64 },
	{ "SGE past 2^64", .opcode = VG_OP_WRITE,
	  .sg = split_sg_past_end, .nsge = 1, .chunk = 64, .want = -EOVERFLOW },
	{ "SGE past 2^64 on a SEND", .opcode = VG_OP_SEND,
	  .sg = split_sg_past_end, .nsge = 1, .chunk = 4096,
	  .want = -EOVERFLOW },
	{ "second SGE past 2^64", .opcode = VG_OP_WRITE,
	  .sg = split_sg_second_wraps, .nsge = 2, .chunk = 4096,
	  .want = -EOVERFLOW },
	{ "empty SGE at U64_MAX is accepted", .opcode = VG_OP_WRITE,
	  .sg = split_sg_empty_at_end, .nsge = 1, .chunk = 4096 },
	{ "WRITE remote range past 2^64", .opcode = VG_OP_WRITE, .nsge = 1,
	  .len = 100, .remote_addr = U64_MAX - 98, .chunk = 64,
	  .want = -EOVERFLOW },
	{ "READ remote range past 2^64", .opcode = VG_OP_READ, .nsge = 1,
	  .len = 100, .remote_addr = U64_MAX - 98, .chunk = 64,
	  .want = -EOVERFLOW },
	{ "WRITE_WITH_IMM remote range past 2^64", .opcode = VG_OP_WRITE_IMM,
	  .nsge = 1, .len = 100, .remote_addr = U64_MAX - 98, .chunk = 4096,
	  .want = -EOVERFLOW },
	{ "READ_WITH_INV remote range past 2^64", .opcode = VG_OP_READ_INV,
	  .nsge = 1, .len = 100, .remote_addr = U64_MAX - 98, .chunk = 4096,
	  .want = -EOVERFLOW },
	{ "inline WRITE remote range past 2^64", .opcode = VG_OP_WRITE,
	  .flags = VG_WR_INLINE, .nsge = 1, .len = 100,
	  .remote_addr = U64_MAX - 98, .chunk = 4096, .want = -EOVERFLOW },
	{ "WRITE remote range ending at 2^64 is accepted",
	  .opcode = VG_OP_WRITE, .nsge = 1, .len = 100,
	  .remote_addr = U64_MAX - 99, .chunk = 4096 },
	/* SEND has no remote range; the address is not looked at. */
	{ "SEND remote address past 2^64 is accepted", .opcode = VG_OP_SEND,
	  .nsge = 1, .len = 100, .remote_addr = U64_MAX - 98, .chunk = 64 },
};

static void split_bad_desc(const struct split_bad_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(split_bad_input, split_bad_cases, split_bad_desc);

static void split_bad_input(struct kunit *test)
{
	const struct split_bad_case *tc = test->param_value;
	struct vg_split sp, old;
	const struct vg_sge *list = tc->sg;
	struct vg_sge *sg;
	struct vg_wr wr;
	u32 i;

	if (!list && !tc->no_list) {
		sg = kunit_kcalloc(test, tc->nsge, sizeof(*sg), GFP_KERNEL);
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sg);
		for (i = 0; i < tc->nsge; i++)
			sg[i] = (struct vg_sge){ .addr = 0x1000,
						 .length = tc->len ?: 4096 };
		list = sg;
	}
	wr = mkwr(tc->opcode, list, tc->nsge);
	wr.flags = tc->flags;
	if (tc->remote_addr)
		wr.remote_addr = tc->remote_addr;

	memset(&sp, 0xa5, sizeof(sp));
	memcpy(&old, &sp, sizeof(old));
	KUNIT_EXPECT_EQ(test, vg_split_init(&sp, &wr, tc->chunk), tc->want);
	if (tc->want)
		KUNIT_EXPECT_EQ(test, memcmp(&sp, &old, sizeof(sp)), 0);
}

/* Opcodes and flags that are never split come out whole. */
static void split_never(struct kunit *test)
{
	static const u8 ops[] = { VG_OP_SEND, VG_OP_SEND_IMM, VG_OP_SEND_INV,
				  VG_OP_ATOMIC_CMP_SWP,
				  VG_OP_ATOMIC_FETCH_ADD, VG_OP_LOCAL_INV,
				  VG_OP_REG_MR, VG_OP_WRITE, VG_OP_READ,
				  VG_OP_READ_INV };
	struct vg_sge sg[3] = {
		{ .addr = 0x10000, .length = 1 << 20, .lkey = 1 },
		{ .addr = 0x900000, .length = 0, .lkey = 2 },
		{ .addr = 0x200000, .length = 5000, .lkey = 3 },
	};
	struct vg_sge out[ARRAY_SIZE(sg)];
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(ops); i++) {
		struct vg_wr wr = mkwr(ops[i], sg, 3);
		struct vg_split sp;
		struct vg_chunk c;

		if (vg_opcode_splittable(ops[i]))
			wr.flags |= VG_WR_INLINE;
		KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, 4096), 0);
		KUNIT_EXPECT_EQ(test, vg_split_count(&sp), 1U);
		KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
		KUNIT_EXPECT_TRUE(test, c.first && c.last);
		KUNIT_EXPECT_EQ(test, c.opcode, ops[i]);
		KUNIT_EXPECT_EQ(test, c.length, (1U << 20) + 5000);
		KUNIT_EXPECT_EQ(test, c.num_sge, 3U);
		KUNIT_EXPECT_EQ(test, memcmp(out, sg, sizeof(sg)), 0);
		KUNIT_EXPECT_EQ(test, c.wr_id, wr.wr_id);
		KUNIT_EXPECT_EQ(test, c.flags, wr.flags);
		KUNIT_EXPECT_EQ(test, c.imm, wr.imm);
		KUNIT_EXPECT_EQ(test, c.remote_addr, wr.remote_addr);
		KUNIT_EXPECT_FALSE(test, vg_split_next(&sp, &c, out));
	}
}

static void split_zero_length(struct kunit *test)
{
	struct vg_sge sg = { .addr = 0x1000, .length = 0, .lkey = 5 };
	struct vg_sge out[1];
	struct vg_wr wr[2];
	unsigned int i;

	wr[0] = mkwr(VG_OP_WRITE_IMM, NULL, 0);
	wr[1] = mkwr(VG_OP_WRITE, &sg, 1);
	for (i = 0; i < ARRAY_SIZE(wr); i++) {
		struct vg_split sp;
		struct vg_chunk c;

		KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr[i], 1), 0);
		KUNIT_EXPECT_EQ(test, vg_split_count(&sp), 1U);
		KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
		KUNIT_EXPECT_EQ(test, c.length, 0U);
		KUNIT_EXPECT_EQ(test, c.num_sge, wr[i].num_sge);
		KUNIT_EXPECT_EQ(test, c.opcode, wr[i].opcode);
		KUNIT_EXPECT_EQ(test, c.wr_id, wr[i].wr_id);
		KUNIT_EXPECT_EQ(test, c.flags, wr[i].flags);
		KUNIT_EXPECT_EQ(test, c.imm, wr[i].imm);
		KUNIT_EXPECT_TRUE(test, c.last);
		KUNIT_EXPECT_FALSE(test, vg_split_next(&sp, &c, out));
	}
}

/* A hand-checked WRITE_WITH_IMM: 3 SGEs, 10000 bytes, 4096-byte chunks. */
static void split_write_imm(struct kunit *test)
{
	struct vg_sge sg[3] = {
		{ .addr = 0xa000, .length = 3000, .lkey = 1 },
		{ .addr = 0xb000, .length = 2000, .lkey = 2 },
		{ .addr = 0xc000, .length = 5000, .lkey = 3 },
	};
	struct vg_wr wr = mkwr(VG_OP_WRITE_IMM, sg, 3);
	struct vg_sge out[ARRAY_SIZE(sg)];
	struct vg_split sp;
	struct vg_chunk c;

	wr.flags |= VG_WR_FENCE;
	KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, 4096), 0);
	KUNIT_EXPECT_EQ(test, vg_split_count(&sp), 3U);

	KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
	KUNIT_EXPECT_TRUE(test, c.first && !c.last);
	KUNIT_EXPECT_EQ(test, c.opcode, VG_OP_WRITE);
	KUNIT_EXPECT_EQ(test, c.flags, VG_WR_FENCE);
	KUNIT_EXPECT_EQ(test, c.wr_id, 0ULL);
	KUNIT_EXPECT_EQ(test, c.imm, 0U);
	KUNIT_EXPECT_EQ(test, c.remote_addr, 0x100000ULL);
	KUNIT_EXPECT_EQ(test, c.length, 4096U);
	KUNIT_ASSERT_EQ(test, c.num_sge, 2U);
	KUNIT_EXPECT_EQ(test, out[0].addr, 0xa000ULL);
	KUNIT_EXPECT_EQ(test, out[0].length, 3000U);
	KUNIT_EXPECT_EQ(test, out[1].addr, 0xb000ULL);
	KUNIT_EXPECT_EQ(test, out[1].length, 1096U);
	KUNIT_EXPECT_EQ(test, out[1].lkey, 2U);

	KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
	KUNIT_EXPECT_TRUE(test, !c.first && !c.last);
	KUNIT_EXPECT_EQ(test, c.flags, 0U);
	KUNIT_EXPECT_EQ(test, c.remote_addr, 0x100000ULL + 4096);
	KUNIT_ASSERT_EQ(test, c.num_sge, 2U);
	KUNIT_EXPECT_EQ(test, out[0].addr, 0xb000ULL + 1096);
	KUNIT_EXPECT_EQ(test, out[0].length, 904U);
	KUNIT_EXPECT_EQ(test, out[1].addr, 0xc000ULL);
	KUNIT_EXPECT_EQ(test, out[1].length, 3192U);

	KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
	KUNIT_EXPECT_TRUE(test, !c.first && c.last);
	KUNIT_EXPECT_EQ(test, c.opcode, VG_OP_WRITE_IMM);
	KUNIT_EXPECT_EQ(test, c.flags, VG_WR_SIGNALED | VG_WR_SOLICITED);
	KUNIT_EXPECT_EQ(test, c.wr_id, 0xabcdefULL);
	KUNIT_EXPECT_EQ(test, c.imm, 0x12345678U);
	KUNIT_EXPECT_EQ(test, c.remote_addr, 0x100000ULL + 8192);
	KUNIT_EXPECT_EQ(test, c.length, 10000U - 8192);
	KUNIT_ASSERT_EQ(test, c.num_sge, 1U);
	KUNIT_EXPECT_EQ(test, out[0].addr, 0xc000ULL + 3192);
	KUNIT_EXPECT_EQ(test, out[0].length, 1808U);
	KUNIT_EXPECT_EQ(test, out[0].lkey, 3U);
	KUNIT_EXPECT_FALSE(test, vg_split_next(&sp, &c, out));
	KUNIT_EXPECT_EQ(test, vg_split_remaining(&sp), 0U);
}

/* The opcode a chunk that is not the last carries. */
static u8 split_mid_opcode(u8 op)
{
	if (op == VG_OP_WRITE_IMM)
		return VG_OP_WRITE;
	return op == VG_OP_READ_INV ? VG_OP_READ : op;
}

/*
 * Longest SGE list of the random test: rdmavt's default max_send_sge. Its
 * longest SGEs (2^24 bytes) then sum below 2^31.
 */
#define SPLIT_RANDOM_SGE	96U

/*
 * A READ_WITH_INV of 10000 bytes into one local MR, 4096-byte chunks: the
 * chunks before the last are plain READs without the rkey to invalidate,
 * so the MR stays valid until the last chunk's data is placed.
 */
static void split_read_inv(struct kunit *test)
{
	struct vg_sge sg[2] = {
		{ .addr = 0x7000, .length = 6000, .lkey = 9 },
		{ .addr = 0x9000, .length = 4000, .lkey = 9 },
	};
	struct vg_wr wr = mkwr(VG_OP_READ_INV, sg, 2);
	static const u32 len[] = { 4096, 4096, 1808 };
	struct vg_sge out[ARRAY_SIZE(sg)];
	struct vg_split sp;
	struct vg_chunk c;
	u32 k;

	wr.imm = 9;			/* the MR's rkey, to invalidate */
	KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, 4096), 0);
	KUNIT_ASSERT_EQ(test, vg_split_count(&sp), 3U);
	for (k = 0; k < 3; k++) {
		bool last = k == 2;

		KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
		KUNIT_EXPECT_EQ(test, c.last, last);
		KUNIT_EXPECT_EQ(test, c.opcode,
				last ? VG_OP_READ_INV : VG_OP_READ);
		KUNIT_EXPECT_EQ(test, c.imm, last ? 9U : 0U);
		KUNIT_EXPECT_EQ(test, c.wr_id, last ? wr.wr_id : 0ULL);
		KUNIT_EXPECT_EQ(test, c.flags,
				last ? VG_WR_SIGNALED | VG_WR_SOLICITED : 0U);
		KUNIT_EXPECT_EQ(test, c.rkey, wr.rkey);
		KUNIT_EXPECT_EQ(test, c.remote_addr, 0x100000ULL + 4096 * k);
		KUNIT_EXPECT_EQ(test, c.length, len[k]);
		if (k != 1)
			continue;
		/* The middle chunk: the end of one SGE, the start of the next. */
		KUNIT_ASSERT_EQ(test, c.num_sge, 2U);
		KUNIT_EXPECT_EQ(test, out[0].addr, 0x7000ULL + 4096);
		KUNIT_EXPECT_EQ(test, out[0].length, 1904U);
		KUNIT_EXPECT_EQ(test, out[1].addr, 0x9000ULL);
		KUNIT_EXPECT_EQ(test, out[1].length, 2192U);
	}
	KUNIT_EXPECT_FALSE(test, vg_split_next(&sp, &c, out));

	/* No longer than a chunk: the WR as it is. */
	KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, 16384), 0);
	KUNIT_ASSERT_TRUE(test, vg_split_next(&sp, &c, out));
	KUNIT_EXPECT_TRUE(test, c.first && c.last);
	KUNIT_EXPECT_EQ(test, c.opcode, VG_OP_READ_INV);
	KUNIT_EXPECT_EQ(test, c.imm, 9U);
	KUNIT_EXPECT_EQ(test, c.length, 10000U);
}

/* Cursor over the non-empty bytes of an SGE list, for the property test. */
struct sge_cursor {
	const struct vg_sge *sg;
	u32 n, i, off;
};

static void cursor_skip_empty(struct sge_cursor *cur)
{
	while (cur->i < cur->n && cur->off == cur->sg[cur->i].length) {
		cur->i++;
		cur->off = 0;
	}
}

/*
 * Consume @piece from @cur: it must be the next bytes of the original list
 * (same lkey, contiguous address, within one original SGE).
 */
static bool cursor_take(struct sge_cursor *cur, const struct vg_sge *piece)
{
	const struct vg_sge *o;

	cursor_skip_empty(cur);
	if (cur->i == cur->n || !piece->length)
		return false;
	o = &cur->sg[cur->i];
	if (piece->lkey != o->lkey || piece->addr != o->addr + cur->off ||
	    piece->length > o->length - cur->off)
		return false;
	cur->off += piece->length;
	return true;
}

static void split_one_random(struct kunit *test, struct vg_prng *r,
			     struct vg_sge *sg, struct vg_sge *out)
{
	static const u8 ops[] = { VG_OP_WRITE, VG_OP_WRITE_IMM, VG_OP_READ,
				  VG_OP_READ_INV };
	u32 n = vg_prng_range(r, 0, SPLIT_RANDOM_SGE), i, chunk, k = 0;
	struct sge_cursor cur = { .sg = sg, .n = n };
	u64 total = 0, seen = 0, remote;
	struct vg_split sp;
	struct vg_chunk c;
	struct vg_wr wr;

	for (i = 0; i < n; i++) {
		u32 kind = vg_prng_range(r, 0, 9);

		sg[i].addr = vg_prng_next(r) >> 2;
		sg[i].lkey = (u32)vg_prng_next(r);
		if (kind == 0)
			sg[i].length = 0;
		else if (kind == 1)
			sg[i].length = vg_prng_range(r, 1, 1 << 24);
		else
			sg[i].length = vg_prng_range(r, 1, 70000);
		total += sg[i].length;
	}
	wr = mkwr(ops[vg_prng_range(r, 0, ARRAY_SIZE(ops) - 1)], sg, n);
	wr.flags = vg_prng_next(r) & (VG_WR_FLAGS_ALL & ~VG_WR_INLINE);
	wr.remote_addr = vg_prng_next(r) >> 1;
	wr.wr_id = vg_prng_next(r);
	remote = wr.remote_addr;
	/* Chunk sizes from 1 byte up, but at most ~500 chunks per WR. */
	chunk = vg_prng_range(r, 1, vg_prng_range(r, 0, 1) ? 8192 : 1 << 22);
	chunk = max_t(u32, chunk, div_u64(total, 500) + 1);

	KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, chunk), 0);
	KUNIT_EXPECT_EQ(test, vg_split_count(&sp),
			total > chunk ? (u32)DIV_ROUND_UP(total, chunk) : 1U);
	while (vg_split_next(&sp, &c, out)) {
		u32 sum = 0;
		bool last = k + 1 == vg_split_count(&sp);

		KUNIT_ASSERT_LE(test, c.num_sge, n);
		for (i = 0; i < c.num_sge; i++) {
			sum += out[i].length;
			if (total > chunk)
				KUNIT_ASSERT_TRUE(test, cursor_take(&cur, &out[i]));
		}
		KUNIT_EXPECT_EQ(test, sum, c.length);
		KUNIT_EXPECT_EQ(test, c.remote_addr, remote + seen);
		KUNIT_EXPECT_EQ(test, c.rkey, wr.rkey);
		KUNIT_EXPECT_EQ(test, c.last, last);
		KUNIT_EXPECT_EQ(test, c.first, k == 0);
		if (!last)
			KUNIT_EXPECT_EQ(test, c.length, chunk);
		KUNIT_EXPECT_LE(test, c.length, max_t(u64, chunk, total));
		KUNIT_EXPECT_EQ(test, c.wr_id, last ? wr.wr_id : 0);
		KUNIT_EXPECT_EQ(test, c.imm, last ? wr.imm : 0);
		KUNIT_EXPECT_EQ(test, c.flags & (VG_WR_SIGNALED | VG_WR_SOLICITED),
				last ? wr.flags & (VG_WR_SIGNALED | VG_WR_SOLICITED) : 0);
		KUNIT_EXPECT_EQ(test, c.flags & VG_WR_FENCE,
				k == 0 ? wr.flags & VG_WR_FENCE : 0);
		KUNIT_EXPECT_EQ(test, c.opcode,
				last ? wr.opcode : split_mid_opcode(wr.opcode));
		seen += c.length;
		k++;
	}
	/* Every byte, local and remote, exactly once and in order. */
	KUNIT_EXPECT_EQ(test, seen, total);
	KUNIT_EXPECT_EQ(test, k, vg_split_count(&sp));
	if (total > chunk) {
		cursor_skip_empty(&cur);
		KUNIT_EXPECT_EQ(test, cur.i, n);
	}
}

static void split_random_conserves(struct kunit *test)
{
	struct vg_sge *sg = kunit_kcalloc(test, SPLIT_RANDOM_SGE, sizeof(*sg),
					  GFP_KERNEL);
	struct vg_sge *out = kunit_kcalloc(test, SPLIT_RANDOM_SGE,
					   sizeof(*out), GFP_KERNEL);
	struct vg_prng r;
	int iter;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	vg_prng_seed(&r, 0x5917);
	for (iter = 0; iter < 2000; iter++)
		split_one_random(test, &r, sg, out);
}

/*
 * SGE lists of a given length, every opcode: each chunk's SGEs are exactly
 * the pieces of the WR's list under its byte range, and the chunks cover
 * the WR exactly once. Lists longer than 32 SGEs are what rdmavt (96 by
 * default) and rxe (more with inline room) accept.
 */
struct split_sges_case {
	const char *name;
	u32 nsge;
	const u32 *lengths;	/* NULL: split_sges_length() */
	u32 chunk;
};

static const u32 split_sges_3[] = { 4097, 1, 65536 };

static const struct split_sges_case split_sges_cases[] = {
	{ "1 SGE", 1, NULL, 4096 },
	{ "3 SGEs (4097, 1, 65536 bytes)", 3, split_sges_3, 4096 },
	{ "3 SGEs (4097, 1, 65536 bytes)", 3, split_sges_3, 1 },
	{ "32 SGEs", 32, NULL, 4096 },
	{ "33 SGEs", 33, NULL, 4096 },
	{ "33 SGEs", 33, NULL, 1U << 20 },
	{ "96 SGEs", 96, NULL, 4096 },
	{ "96 SGEs", 96, NULL, 65536 },
};

static void split_sges_desc(const struct split_sges_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s, chunk %u", c->name,
		 c->chunk);
}

KUNIT_ARRAY_PARAM(split_sges, split_sges_cases, split_sges_desc);

/* Varied lengths, not multiples of the chunk; the 8th SGE is empty. */
static u32 split_sges_length(u32 i)
{
	return i == 7 ? 0 : 1 + (i * 977 + 301) % 5000;
}

/*
 * Check chunk @c against message bytes [@from, @from + @c->length) of
 * @sg: the pieces of the SGEs under that range, in order, empty ones left
 * out. Return: the bytes the pieces cover.
 */
static u64 split_check_pieces(struct kunit *test, const struct vg_sge *sg,
			      u32 n, const struct vg_chunk *c, u64 from)
{
	u64 to = from + c->length, off = 0, covered = 0;
	u32 i, k = 0;

	for (i = 0; i < n; off += sg[i].length, i++) {
		u64 a = max(from, off), b = min(to, off + sg[i].length);

		if (a >= b)
			continue;
		KUNIT_ASSERT_LT_MSG(test, k, c->num_sge, "SGE %u missing", i);
		KUNIT_EXPECT_EQ(test, c->sg_list[k].addr, sg[i].addr + (a - off));
		KUNIT_EXPECT_EQ(test, c->sg_list[k].length, (u32)(b - a));
		KUNIT_EXPECT_EQ(test, c->sg_list[k].lkey, sg[i].lkey);
		covered += c->sg_list[k].length;
		k++;
	}
	KUNIT_EXPECT_EQ(test, k, c->num_sge);
	return covered;
}

static void split_sges(struct kunit *test)
{
	const struct split_sges_case *tc = test->param_value;
	struct vg_sge *sg, *out;
	u64 total = 0;
	u32 i;
	u8 op;

	sg = kunit_kcalloc(test, tc->nsge, sizeof(*sg), GFP_KERNEL);
	/* One entry more than the WR has: a canary nothing may write. */
	out = kunit_kcalloc(test, tc->nsge + 1, sizeof(*out), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sg);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, out);
	for (i = 0; i < tc->nsge; i++) {
		sg[i].addr = 0x10000000ULL * (i + 1) + 3 * i;
		sg[i].length = tc->lengths ? tc->lengths[i] :
					     split_sges_length(i);
		sg[i].lkey = 100 + i;
		total += sg[i].length;
	}

	for (op = 0; op < VG_OP_NR; op++) {
		struct vg_wr wr = mkwr(op, sg, tc->nsge);
		bool split = vg_opcode_splittable(op) && total > tc->chunk;
		u64 seen = 0;
		struct vg_split sp;
		struct vg_chunk c;
		u32 k = 0;

		wr.flags |= VG_WR_FENCE;
		out[tc->nsge] = (struct vg_sge){ 0xdead, 0xbeef, 0xcafe };
		KUNIT_ASSERT_EQ(test, vg_split_init(&sp, &wr, tc->chunk), 0);
		KUNIT_EXPECT_EQ(test, vg_split_count(&sp),
				split ? (u32)DIV_ROUND_UP(total, tc->chunk) :
					1U);
		while (vg_split_next(&sp, &c, out)) {
			bool last = k + 1 == vg_split_count(&sp);

			KUNIT_ASSERT_LE(test, c.num_sge, tc->nsge);
			KUNIT_EXPECT_PTR_EQ(test, c.sg_list, out);
			KUNIT_EXPECT_EQ(test, c.first, k == 0);
			KUNIT_EXPECT_EQ(test, c.last, last);
			KUNIT_EXPECT_EQ(test, c.opcode,
					last ? op : split_mid_opcode(op));
			KUNIT_EXPECT_EQ(test, c.wr_id, last ? wr.wr_id : 0);
			KUNIT_EXPECT_EQ(test, c.imm, last ? wr.imm : 0);
			KUNIT_EXPECT_EQ(test, c.rkey, wr.rkey);
			if (!split) {
				/* Whole: the list as it is, empty SGEs too. */
				KUNIT_ASSERT_EQ(test, c.num_sge, tc->nsge);
				KUNIT_EXPECT_EQ(test, memcmp(out, sg, tc->nsge *
							     sizeof(*sg)), 0);
				KUNIT_EXPECT_EQ(test, c.flags, wr.flags);
				KUNIT_EXPECT_EQ(test, c.length, (u32)total);
				KUNIT_EXPECT_EQ(test, c.remote_addr,
						wr.remote_addr);
			} else {
				KUNIT_EXPECT_EQ(test, c.length,
						(u32)min_t(u64, tc->chunk,
							   total - seen));
				KUNIT_EXPECT_EQ(test, c.remote_addr,
						wr.remote_addr + seen);
				KUNIT_EXPECT_EQ(test,
						split_check_pieces(test, sg,
								   tc->nsge,
								   &c, seen),
						(u64)c.length);
			}
			seen += c.length;
			k++;
		}
		/* Every byte exactly once; nothing past the chunk's list. */
		KUNIT_EXPECT_EQ(test, seen, total);
		KUNIT_EXPECT_EQ(test, k, vg_split_count(&sp));
		KUNIT_EXPECT_EQ(test, vg_split_remaining(&sp), 0U);
		KUNIT_EXPECT_EQ(test, out[tc->nsge].addr, 0xdeadULL);
		KUNIT_EXPECT_EQ(test, out[tc->nsge].length, 0xbeefU);
		KUNIT_EXPECT_EQ(test, out[tc->nsge].lkey, 0xcafeU);
	}
}

static struct kunit_case vg_split_cases[] = {
	KUNIT_CASE_PARAM(split_bad_input, split_bad_input_gen_params),
	KUNIT_CASE(split_never),
	KUNIT_CASE(split_zero_length),
	KUNIT_CASE(split_write_imm),
	KUNIT_CASE(split_read_inv),
	KUNIT_CASE(split_random_conserves),
	KUNIT_CASE_PARAM(split_sges, split_sges_gen_params),
	{}
};

static struct kunit_suite vg_split_suite = {
	.name = "verbsgate-split",
	.test_cases = vg_split_cases,
};

kunit_test_suites(&vg_split_suite);
