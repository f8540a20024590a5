// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate tenant selectors (kmod/core/select.c).
 *
 * Each case of the main table gives the selectors of some tenants, one
 * QP's facts and which selector must take the QP, the way
 * vg_tenant_classify() picks: the highest vg_sel_rank(), none if every
 * rank is 0.
 */
#include <kunit/test.h>

#include "select.h"

/*
 * A cgroup v2 tree: root, a, a/b, a/b/c, a/y and x. A cgroup's identity
 * is only compared, so any distinct addresses do; a QP's cgroup is its
 * ancestors from the root down to itself.
 */
static const int cg_root, cg_a, cg_ab, cg_abc, cg_ay, cg_x;

static const void *const in_root[] = { &cg_root };
static const void *const in_a[] = { &cg_root, &cg_a };
static const void *const in_abc[] = { &cg_root, &cg_a, &cg_ab, &cg_abc };
static const void *const in_x[] = { &cg_root, &cg_x };

#define V4MAPPED(a, b, c, d) \
	{ 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d }

/* fd00:0:0:1::5, fd00:0:0:1::4, fd00:0:0:2::9 */
static const u8 gid_v6[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 1,
			       0, 0, 0, 0, 0, 0, 0, 5 };
static const u8 gid_v6_4[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 1,
				 0, 0, 0, 0, 0, 0, 0, 4 };
static const u8 gid_v6_peer[16] = { 0xfd, 0, 0, 0, 0, 0, 0, 2,
				    0, 0, 0, 0, 0, 0, 0, 9 };
/* 2007:ffff:...:ffff, the last address of 2000::/13, and 2008:: */
static const u8 gid_2007[16] = { 0x20, 0x07, 0xff, 0xff, 0xff, 0xff,
				 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
				 0xff, 0xff, 0xff, 0xff };
static const u8 gid_2008[16] = { 0x20, 0x08 };
/* ::ffff:10.1.2.3 and neighbours of 10.8.0.0/13; ::10.1.2.3 */
static const u8 gid_v4[16] = V4MAPPED(10, 1, 2, 3);
static const u8 gid_v4_last13[16] = V4MAPPED(10, 15, 255, 255);
static const u8 gid_v4_after13[16] = V4MAPPED(10, 16, 0, 0);
static const u8 gid_v4_before13[16] = V4MAPPED(10, 7, 255, 255);
static const u8 gid_v4compat[16] = { 0, 0, 0, 0, 0, 0, 0, 0,
				     0, 0, 0, 0, 10, 1, 2, 3 };

#define SEL_DEFAULT	{ .type = VG_SEL_DEFAULT }
#define SEL_CG(cg, lvl) \
	{ .type = VG_SEL_CGROUP, .cgrp = &(cg), .level = (lvl) }
#define SEL_ULP(name)	{ .type = VG_SEL_ULP, .ulp = (name) }
/* @...: the address, a braced initializer */
#define SEL_LOCAL(len, ...) \
	{ .type = VG_SEL_LOCAL_ADDR, .plen = (len), .addr = __VA_ARGS__ }
#define SEL_PEER(len, ...) \
	{ .type = VG_SEL_PEER_ADDR, .plen = (len), .addr = __VA_ARGS__ }
#define SEL_LOCAL4(len, a, b, c, d) \
	SEL_LOCAL(96 + (len), V4MAPPED(a, b, c, d))
#define SEL_PEER4(len, a, b, c, d) \
	SEL_PEER(96 + (len), V4MAPPED(a, b, c, d))

/* fd00:0:0:1:: and fd00:0:0:2:: (prefixes of gid_v6 and gid_v6_peer) */
#define FD_1	{ 0xfd, 0, 0, 0, 0, 0, 0, 1 }
#define FD_2	{ 0xfd, 0, 0, 0, 0, 0, 0, 2 }
/* gid_v6 and gid_v6_peer themselves */
#define FD_1_5	{ 0xfd, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5 }
#define FD_2_9	{ 0xfd, 0, 0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 9 }

#define MAX_SELS	4
#define NONE		(-1)

struct select_case {
	const char *name;
	struct vg_sel sel[MAX_SELS];
	int nsel;
	struct vg_sel_facts f;
	int want;		/* index into @sel of the winner, or NONE */
};

/* The selectors of a case and their count. */
#define SELS(...)							\
	.sel = { __VA_ARGS__ },						\
	.nsel = sizeof((struct vg_sel[]){ __VA_ARGS__ }) /		\
		sizeof(struct vg_sel)

/* Facts of a user QP whose cgroup, at depth @lvl, has ancestors @anc. */
#define USER_IN(anc, lvl) \
	.user = true, .ancestors = (anc), .level = (lvl)

static const struct select_case select_cases[] = {
	/* Each rule alone. */
	{ "default takes a user QP", SELS(SEL_DEFAULT),
	  { .user = true }, 0 },
	{ "default takes a kernel QP without facts", SELS(SEL_DEFAULT),
	  { .user = false }, 0 },
	{ "cgroup takes a QP of its own cgroup", SELS(SEL_CG(cg_a, 1)),
	  { USER_IN(in_a, 1) }, 0 },
	{ "cgroup takes a QP of a descendant", SELS(SEL_CG(cg_a, 1)),
	  { USER_IN(in_abc, 3) }, 0 },
	{ "root cgroup takes every user QP", SELS(SEL_CG(cg_root, 0)),
	  { USER_IN(in_x, 1) }, 0 },
	{ "cgroup ignores a QP of its parent", SELS(SEL_CG(cg_ab, 2)),
	  { USER_IN(in_a, 1) }, NONE },
	{ "cgroup ignores a QP of a sibling", SELS(SEL_CG(cg_x, 1)),
	  { USER_IN(in_abc, 3) }, NONE },
	{ "cgroup ignores a QP of a cousin", SELS(SEL_CG(cg_ay, 2)),
	  { USER_IN(in_abc, 3) }, NONE },
	{ "cgroup ignores a user QP of unknown cgroup",
	  SELS(SEL_CG(cg_root, 0)), { .user = true }, NONE },
	{ "kernel QP never matches a cgroup selector",
	  SELS(SEL_CG(cg_root, 0)),
	  { .ancestors = in_root, .level = 0, .ulp = "nvmet_rdma" }, NONE },
	{ "ULP takes a kernel QP of that owner", SELS(SEL_ULP("nvmet_rdma")),
	  { .ulp = "nvmet_rdma" }, 0 },
	{ "ULP name must match whole", SELS(SEL_ULP("nvmet")),
	  { .ulp = "nvmet_rdma" }, NONE },
	{ "ULP ignores a kernel QP without owner", SELS(SEL_ULP("rds_rdma")),
	  { .ulp = NULL }, NONE },
	{ "user QP never matches a ULP selector", SELS(SEL_ULP("nvmet_rdma")),
	  { USER_IN(in_a, 1), .ulp = "nvmet_rdma" }, NONE },
	{ "local prefix takes the source GID", SELS(SEL_LOCAL(64, FD_1)),
	  { .local = gid_v6, .peer = gid_v6_peer }, 0 },
	{ "local prefix ignores the destination GID", SELS(SEL_LOCAL(64, FD_2)),
	  { .local = gid_v6, .peer = gid_v6_peer }, NONE },
	{ "peer prefix takes the destination GID", SELS(SEL_PEER(64, FD_2)),
	  { .local = gid_v6, .peer = gid_v6_peer }, 0 },
	{ "peer prefix ignores the source GID", SELS(SEL_PEER(64, FD_1)),
	  { .local = gid_v6, .peer = gid_v6_peer }, NONE },
	{ "address selectors ignore QPs without addresses",
	  SELS(SEL_LOCAL(0, { 0 }), SEL_PEER(0, { 0 }),
	       SEL_LOCAL4(0, 0, 0, 0, 0)),
	  { .ulp = "nvmet_rdma" }, NONE },
	{ "address selectors match a user QP", SELS(SEL_PEER(64, FD_2)),
	  { USER_IN(in_x, 1), .peer = gid_v6_peer }, 0 },

	/* Prefix lengths. */
	{ "/0 takes any address", SELS(SEL_LOCAL(0, { 0 })),
	  { .local = gid_v4 }, 0 },
	{ "/128 takes its address", SELS(SEL_LOCAL(128, FD_1_5)),
	  { .local = gid_v6 }, 0 },
	{ "/128 ignores a difference in the last bit",
	  SELS(SEL_LOCAL(128, FD_1_5)),
	  { .local = gid_v6_4 }, NONE },
	{ "/13 takes the last address inside", SELS(SEL_PEER(13, { 0x20 })),
	  { .peer = gid_2007 }, 0 },
	{ "/13 ignores the first address beyond", SELS(SEL_PEER(13, { 0x20 })),
	  { .peer = gid_2008 }, NONE },
	{ "IPv4 /24 takes an IPv4-mapped GID",
	  SELS(SEL_LOCAL4(24, 10, 1, 2, 0)), { .local = gid_v4 }, 0 },
	{ "IPv4 /13 takes the last address inside",
	  SELS(SEL_PEER4(13, 10, 8, 0, 0)), { .peer = gid_v4_last13 }, 0 },
	{ "IPv4 /13 ignores the first address beyond",
	  SELS(SEL_PEER4(13, 10, 8, 0, 0)), { .peer = gid_v4_after13 }, NONE },
	{ "IPv4 /13 ignores the last address before",
	  SELS(SEL_PEER4(13, 10, 8, 0, 0)), { .peer = gid_v4_before13 },
	  NONE },
	{ "IPv4 /0 ignores a native IPv6 GID", SELS(SEL_LOCAL4(0, 0, 0, 0, 0)),
	  { .local = gid_v6 }, NONE },
	{ "IPv4 /32 ignores an IPv4-compatible GID",
	  SELS(SEL_LOCAL4(32, 10, 1, 2, 3)), { .local = gid_v4compat }, NONE },

	/* Precedence between rules. */
	{ "cgroup beats address", SELS(SEL_PEER(64, FD_2), SEL_CG(cg_a, 1)),
	  { USER_IN(in_abc, 3), .peer = gid_v6_peer }, 1 },
	{ "cgroup root beats an exact /128",
	  SELS(SEL_PEER(128, FD_2_9),
	       SEL_CG(cg_root, 0)),
	  { USER_IN(in_abc, 3), .peer = gid_v6_peer }, 1 },
	{ "address beats ULP",
	  SELS(SEL_ULP("nvmet_rdma"), SEL_LOCAL(8, { 0xfd })),
	  { .ulp = "nvmet_rdma", .local = gid_v6 }, 1 },
	{ "address /0 beats ULP",
	  SELS(SEL_ULP("nvmet_rdma"), SEL_PEER(0, { 0 })),
	  { .ulp = "nvmet_rdma", .peer = gid_v6_peer }, 1 },
	{ "ULP beats default", SELS(SEL_DEFAULT, SEL_ULP("nvmet_rdma")),
	  { .ulp = "nvmet_rdma" }, 1 },
	{ "address beats default", SELS(SEL_DEFAULT, SEL_LOCAL(0, { 0 })),
	  { .local = gid_v6 }, 1 },
	{ "cgroup beats default", SELS(SEL_DEFAULT, SEL_CG(cg_root, 0)),
	  { USER_IN(in_root, 0) }, 1 },
	{ "user QP: cgroup beats address, ULP and default",
	  SELS(SEL_DEFAULT, SEL_ULP("nvmet_rdma"), SEL_PEER(64, FD_2),
	       SEL_CG(cg_a, 1)),
	  { USER_IN(in_a, 1), .ulp = "nvmet_rdma", .peer = gid_v6_peer }, 3 },
	{ "kernel QP: address beats ULP and default, cgroup ignored",
	  SELS(SEL_DEFAULT, SEL_ULP("nvmet_rdma"), SEL_PEER(64, FD_2),
	       SEL_CG(cg_root, 0)),
	  { .ulp = "nvmet_rdma", .peer = gid_v6_peer }, 2 },
	{ "kernel QP without addresses: ULP wins",
	  SELS(SEL_DEFAULT, SEL_ULP("nvmet_rdma"), SEL_PEER(0, { 0 }),
	       SEL_CG(cg_root, 0)),
	  { .ulp = "nvmet_rdma" }, 1 },
	{ "user QP of another cgroup: address wins",
	  SELS(SEL_DEFAULT, SEL_LOCAL(64, FD_1), SEL_CG(cg_x, 1)),
	  { USER_IN(in_abc, 3), .local = gid_v6 }, 1 },

	/* Within a rule. */
	{ "deepest cgroup wins",
	  SELS(SEL_CG(cg_root, 0), SEL_CG(cg_a, 1), SEL_CG(cg_ab, 2)),
	  { USER_IN(in_abc, 3) }, 2 },
	{ "deepest cgroup wins in any order",
	  SELS(SEL_CG(cg_ab, 2), SEL_CG(cg_root, 0), SEL_CG(cg_a, 1)),
	  { USER_IN(in_abc, 3) }, 0 },
	{ "deepest ancestor wins over a deeper cousin",
	  SELS(SEL_CG(cg_ay, 2), SEL_CG(cg_a, 1)),
	  { USER_IN(in_abc, 3) }, 1 },
	{ "longest prefix wins",
	  SELS(SEL_LOCAL(8, { 0xfd }), SEL_LOCAL(64, FD_1),
	       SEL_LOCAL(13, { 0xfd })),
	  { .local = gid_v6 }, 1 },
	{ "longer local beats shorter peer",
	  SELS(SEL_PEER(48, { 0xfd }), SEL_LOCAL(64, FD_1)),
	  { .local = gid_v6, .peer = gid_v6_peer }, 1 },
	{ "longer peer beats shorter local",
	  SELS(SEL_PEER(64, FD_2), SEL_LOCAL(48, { 0xfd })),
	  { .local = gid_v6, .peer = gid_v6_peer }, 0 },
	{ "peer beats local at equal length",
	  SELS(SEL_LOCAL(64, FD_1), SEL_PEER(64, FD_2)),
	  { .local = gid_v6, .peer = gid_v6_peer }, 1 },
	{ "peer beats local at /0",
	  SELS(SEL_LOCAL(0, { 0 }), SEL_PEER(0, { 0 })),
	  { .local = gid_v6, .peer = gid_v6_peer }, 1 },
	{ "peer beats local at IPv4 /32",
	  SELS(SEL_PEER4(32, 10, 1, 2, 3), SEL_LOCAL4(32, 10, 1, 2, 3)),
	  { .local = gid_v4, .peer = gid_v4 }, 0 },
	{ "IPv4 /24 beats the IPv4-mapped ::ffff:0:0/96",
	  SELS(SEL_LOCAL(96, V4MAPPED(0, 0, 0, 0)),
	       SEL_LOCAL4(24, 10, 1, 2, 0)),
	  { .local = gid_v4 }, 1 },
};

static void select_case_desc(const struct select_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(select_winner, select_cases, select_case_desc);

/*
 * The selector a classification picks: the highest rank wins, and the
 * winner's rank is unique (distinct selectors never tie), so the order
 * of the tenants does not matter.
 */
static void select_winner(struct kunit *test)
{
	const struct select_case *c = test->param_value;
	u64 rank, best_rank = 0;
	int i, best = NONE, ties = 0;

	KUNIT_ASSERT_LE(test, c->nsel, MAX_SELS);
	for (i = 0; i < c->nsel; i++) {
		rank = vg_sel_rank(&c->sel[i], &c->f);
		if (rank > best_rank) {
			best = i;
			best_rank = rank;
			ties = 0;
		} else if (rank && rank == best_rank) {
			ties++;
		}
	}
	KUNIT_EXPECT_EQ(test, best, c->want);
	KUNIT_EXPECT_EQ(test, ties, 0);
}

/* The rank encoding tenant.c compares: rule << 32 | specificity. */
struct select_rank_case {
	const char *name;
	struct vg_sel sel;
	struct vg_sel_facts f;
	u64 want;
};

static const struct select_rank_case select_rank_cases[] = {
	{ "cgroup: its level", SEL_CG(cg_ab, 2), { USER_IN(in_abc, 3) },
	  VG_SEL_RANK(VG_SEL_RULE_CGROUP, 2) },
	{ "local: twice the length", SEL_LOCAL(64, FD_1), { .local = gid_v6 },
	  VG_SEL_RANK(VG_SEL_RULE_ADDR, 128) },
	{ "peer: twice the length plus one", SEL_PEER(64, FD_2),
	  { .peer = gid_v6_peer }, VG_SEL_RANK(VG_SEL_RULE_ADDR, 129) },
	{ "peer /128: 257", SEL_PEER(128, FD_2_9),
	  { .peer = gid_v6_peer }, VG_SEL_RANK(VG_SEL_RULE_ADDR, 257) },
	{ "ULP", SEL_ULP("rds_rdma"), { .ulp = "rds_rdma" },
	  VG_SEL_RANK(VG_SEL_RULE_ULP, 0) },
	{ "default", SEL_DEFAULT, { .user = true },
	  VG_SEL_RANK(VG_SEL_RULE_DEFAULT, 0) },
	{ "no match: 0", SEL_LOCAL(64, FD_2), { .local = gid_v6 }, 0 },
	{ "unknown type: 0", { .type = VG_SEL_NR }, { .user = true }, 0 },
	{ "prefix length above 128: 0", { .type = VG_SEL_LOCAL_ADDR,
					  .plen = 129 },
	  { .local = gid_v6 }, 0 },
	{ "cgroup of negative level: 0", SEL_CG(cg_root, -1),
	  { USER_IN(in_abc, 3) }, 0 },
};

static void select_rank_case_desc(const struct select_rank_case *c,
				  char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(select_rank, select_rank_cases, select_rank_case_desc);

static void select_rank(struct kunit *test)
{
	const struct select_rank_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vg_sel_rank(&c->sel, &c->f), c->want);
}

/* vg_sel_prefix_init(): validation, and where IPv4 prefixes go. */
struct select_prefix_case {
	const char *name;
	u8 addr[16];
	unsigned int len;
	int plen;
	int want_ret;
	struct vg_sel want;	/* @addr and @plen on success */
};

static const struct select_prefix_case select_prefix_cases[] = {
	{ "IPv4 /24 is ::ffff:a.b.c.0/120", { 10, 1, 2, 0 }, 4, 24, 0,
	  SEL_LOCAL4(24, 10, 1, 2, 0) },
	{ "IPv4 of all bits is /128", { 10, 1, 2, 3 }, 4, -1, 0,
	  SEL_LOCAL4(32, 10, 1, 2, 3) },
	{ "IPv4 /0 is ::ffff:0:0/96", { 0 }, 4, 0, 0,
	  SEL_LOCAL4(0, 0, 0, 0, 0) },
	{ "IPv4 /13", { 10, 8 }, 4, 13, 0, SEL_LOCAL4(13, 10, 8, 0, 0) },
	{ "IPv4 /13 with a bit beyond", { 10, 12 }, 4, 13, -EINVAL },
	{ "IPv4 host bits set", { 10, 1, 2, 3 }, 4, 24, -EINVAL },
	{ "IPv4 /33", { 10, 1, 2, 3 }, 4, 33, -ERANGE },
	{ "IPv6 /128", FD_1_5, 16, 128, 0, SEL_LOCAL(128, FD_1_5) },
	{ "IPv6 of all bits is /128", FD_1_5, 16, -1, 0,
	  SEL_LOCAL(128, FD_1_5) },
	{ "IPv6 /0", { 0 }, 16, 0, 0, SEL_LOCAL(0, { 0 }) },
	{ "IPv6 /0 with bits set", { 0xfd }, 16, 0, -EINVAL },
	{ "IPv6 /13", { 0x20, 0x08 }, 16, 13, 0,
	  SEL_LOCAL(13, { 0x20, 0x08 }) },
	{ "IPv6 /13 with a bit beyond", { 0x20, 0x04 }, 16, 13, -EINVAL },
	{ "IPv6 /129", { 0 }, 16, 129, -ERANGE },
	{ "prefix length below -1", { 0 }, 16, -2, -ERANGE },
	{ "8-byte address", { 0 }, 8, 0, -EINVAL },
	{ "empty address", { 0 }, 0, 0, -EINVAL },
};

static void select_prefix_case_desc(const struct select_prefix_case *c,
				    char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(select_prefix, select_prefix_cases,
		  select_prefix_case_desc);

static void select_prefix(struct kunit *test)
{
	const struct select_prefix_case *c = test->param_value;
	struct vg_sel sel, old;

	memset(&sel, 0xa5, sizeof(sel));
	memcpy(&old, &sel, sizeof(old));
	KUNIT_ASSERT_EQ(test, vg_sel_prefix_init(&sel, c->addr, c->len,
						 c->plen), c->want_ret);
	if (c->want_ret) {
		/* A failed call leaves the selector alone. */
		KUNIT_EXPECT_EQ(test, memcmp(&sel, &old, sizeof(sel)), 0);
		return;
	}
	KUNIT_EXPECT_EQ(test, sel.plen, c->want.plen);
	KUNIT_EXPECT_EQ(test, memcmp(sel.addr, c->want.addr, sizeof(sel.addr)),
			0);
}

/* vg_sel_equal(): what makes two tenants' selectors the same. */
struct select_equal_case {
	const char *name;
	struct vg_sel a, b;
	bool want;
};

static const char ulp_a[] = "nvmet_rdma", ulp_b[] = "nvmet_rdma";

static const struct select_equal_case select_equal_cases[] = {
	{ "two defaults", SEL_DEFAULT, SEL_DEFAULT, true },
	{ "default and root cgroup", SEL_DEFAULT, SEL_CG(cg_root, 0), false },
	{ "same cgroup", SEL_CG(cg_a, 1), SEL_CG(cg_a, 1), true },
	{ "other cgroup", SEL_CG(cg_a, 1), SEL_CG(cg_x, 1), false },
	{ "same ULP name in other strings", SEL_ULP(ulp_a), SEL_ULP(ulp_b),
	  true },
	{ "other ULP name", SEL_ULP("nvmet_rdma"), SEL_ULP("nvme_rdma"),
	  false },
	{ "ULP name and none", SEL_ULP("nvmet_rdma"), SEL_ULP(NULL), false },
	{ "same prefix", SEL_LOCAL(64, FD_1), SEL_LOCAL(64, FD_1), true },
	{ "local and peer prefix", SEL_LOCAL(64, FD_1), SEL_PEER(64, FD_1),
	  false },
	{ "other prefix length", SEL_PEER(64, FD_1), SEL_PEER(48, FD_1),
	  false },
	{ "other prefix bits", SEL_PEER(64, FD_1), SEL_PEER(64, FD_2), false },
	{ "IPv4 /0 and IPv6 /0", SEL_LOCAL4(0, 0, 0, 0, 0), SEL_LOCAL(0, { 0 }),
	  false },
};

static void select_equal_case_desc(const struct select_equal_case *c,
				   char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(select_equal, select_equal_cases, select_equal_case_desc);

/* Symmetric, and each selector equals itself. */
static void select_equal(struct kunit *test)
{
	const struct select_equal_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vg_sel_equal(&c->a, &c->b), c->want);
	KUNIT_EXPECT_EQ(test, vg_sel_equal(&c->b, &c->a), c->want);
	KUNIT_EXPECT_TRUE(test, vg_sel_equal(&c->a, &c->a));
}

static struct kunit_case vg_select_cases[] = {
	KUNIT_CASE_PARAM(select_winner, select_winner_gen_params),
	KUNIT_CASE_PARAM(select_rank, select_rank_gen_params),
	KUNIT_CASE_PARAM(select_prefix, select_prefix_gen_params),
	KUNIT_CASE_PARAM(select_equal, select_equal_gen_params),
	{}
};

static struct kunit_suite vg_select_suite = {
	.name = "verbsgate-select",
	.test_cases = vg_select_cases,
};

kunit_test_suites(&vg_select_suite);
