// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate policy model and hierarchical scheduler
 * (kmod/core/sched.c, heap.c).
 */
#include <kunit/test.h>
#include <linux/vmalloc.h>

#include "sched.h"
#include "vg_prng.h"

#define CHUNK		4096U
#define OP_BYTES	200U
#define LMAX		(CHUNK + OP_BYTES)	/* largest charge below */

static struct vg_sched *sched_new_cfg(struct kunit *test,
				      const struct vg_sched_cfg *cfg)
{
	struct vg_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	size_t len = vg_sched_mem_size(cfg);
	void *mem;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_ASSERT_NE(test, len, (size_t)0);
	mem = kunit_kzalloc(test, len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	KUNIT_ASSERT_EQ(test, vg_sched_init(s, cfg, mem, len), 0);
	return s;
}

static struct vg_sched *sched_new(struct kunit *test, u32 nt, u32 nq)
{
	struct vg_sched_cfg cfg = { .max_tenants = nt, .max_qps = nq };

	return sched_new_cfg(test, &cfg);
}

static u32 tenant_new(struct kunit *test, struct vg_sched *s, u32 weight,
		      u64 min_rate, u64 max_rate)
{
	struct vg_tenant_cfg cfg = {
		.weight = weight,
		.tclass = VG_CLASS_BANDWIDTH,
		.min_rate = min_rate,
		.max_rate = max_rate,
	};
	u32 id;

	KUNIT_ASSERT_EQ(test, vg_sched_tenant_add(s, &cfg, &id), 0);
	return id;
}

static u32 qp_new(struct kunit *test, struct vg_sched *s, u32 tenant, u32 w)
{
	u32 qp;

	KUNIT_ASSERT_EQ(test, vg_sched_qp_add(s, tenant, w, &qp), 0);
	return qp;
}

/* Pick and charge one chunk of @cost; returns the QP or VG_SCHED_NONE. */
static u32 step(struct kunit *test, struct vg_sched *s, u64 cost, u64 now,
		bool backlogged)
{
	u64 next;
	u32 qp;

	if (vg_sched_pick(s, now, &qp, &next))
		return VG_SCHED_NONE;
	KUNIT_EXPECT_EQ(test, vg_sched_charge(s, qp, cost, now, backlogged), 0);
	return qp;
}

static u64 served(const struct vg_sched *s, u32 tenant)
{
	return s->tenants[tenant].served;
}

/* |part / total - w / sumw| <= (w / sumw) / den, exactly in integers. */
static bool share_ok(u64 part, u64 total, u64 w, u64 sumw, u64 den)
{
	u64 got = part * sumw, want = total * w;
	u64 diff = got > want ? got - want : want - got;

	return diff * den <= want;
}

/*
 * vg_sched_init() on bad limits or memory: the error, whether
 * vg_sched_mem_size() calls the limits invalid (size 0), and a refused
 * init leaves the scheduler untouched.
 */
enum sched_mem {
	MEM_EXACT,		/* vg_sched_mem_size() bytes */
	MEM_SHORT,		/* one byte less */
	MEM_64,			/* 64 bytes */
	MEM_NULL,		/* no memory */
};

struct sched_init_case {
	const char *name;
	u32 max_tenants, max_qps;
	enum sched_mem mem;
	int want;
};

static const struct sched_init_case sched_bad_init_cases[] = {
	{ "max_tenants 0", 0, 2, MEM_64, -EINVAL },
	{ "max_qps 0", 2, 0, MEM_64, -EINVAL },
	{ "max_tenants above VG_MAX_TENANTS", VG_MAX_TENANTS + 1, 2, MEM_64,
	  -ERANGE },
	{ "max_qps above VG_MAX_QPS", 2, VG_MAX_QPS + 1, MEM_64, -ERANGE },
	{ "64 bytes of memory", 2, 2, MEM_64, -EINVAL },
	{ "memory one byte short", 2, 2, MEM_SHORT, -EINVAL },
	{ "no memory", 2, 2, MEM_NULL, -EINVAL },
	{ "exactly vg_sched_mem_size() is accepted", 2, 2, MEM_EXACT, 0 },
};

static void sched_init_desc(const struct sched_init_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sched_bad_init, sched_bad_init_cases, sched_init_desc);

static void sched_bad_init(struct kunit *test)
{
	const struct sched_init_case *tc = test->param_value;
	struct vg_sched_cfg cfg = { .max_tenants = tc->max_tenants,
				    .max_qps = tc->max_qps, .capacity = 1000 };
	size_t need = vg_sched_mem_size(&cfg), len;
	struct vg_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	struct vg_sched *old = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	bool bad_limits = !tc->max_tenants || !tc->max_qps ||
			  tc->max_tenants > VG_MAX_TENANTS ||
			  tc->max_qps > VG_MAX_QPS;
	void *mem;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, old);
	/* vg_sched_mem_size() is 0 exactly for bad limits. */
	KUNIT_EXPECT_EQ(test, need == 0, bad_limits);
	len = tc->mem == MEM_EXACT ? need : tc->mem == MEM_SHORT ? need - 1 :
	      tc->mem == MEM_64 ? 64 : 0;
	mem = len ? kunit_kzalloc(test, len, GFP_KERNEL) : NULL;
	if (len)
		KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	memset(s, 0xa5, sizeof(*s));
	memcpy(old, s, sizeof(*s));
	KUNIT_EXPECT_EQ(test, vg_sched_init(s, &cfg, mem, len), tc->want);
	if (tc->want)
		KUNIT_EXPECT_EQ(test, memcmp(s, old, sizeof(*s)), 0);
}

/*
 * Bad calls on a scheduler of two tenant and two QP slots and a
 * capacity of 1000 B/s. Fixtures (sched_fixture()):
 *
 *   FX_EMPTY	no tenant
 *   FX_BASE	tenant FX_T (latency, weight 1, min_rate 600) with idle QP
 *		FX_Q; tenant FX_GONE and QP FX_GONE were created and deleted
 *   FX_FULL	FX_BASE, then a second tenant (min_rate 400) and QP: every
 *		slot and the whole capacity in use
 *   FX_ACTIVE	FX_BASE with FX_Q active
 *   FX_CAPPED	FX_BASE with FX_T capped at 1000 B/s and 10 s of sending
 *		just charged through vg_sched_send_idle()
 *
 * Each row is one call and the error it must return; a rejected call
 * changes nothing in the scheduler or its memory. Rows expecting 0 are
 * the accepted neighbours of a limit.
 */
#define FX_T		0U
#define FX_Q		0U
#define FX_GONE		1U
#define FX_OUT		2U	/* first handle beyond the slots */

enum sched_fx {
	FX_EMPTY,
	FX_BASE,
	FX_FULL,
	FX_ACTIVE,
	FX_CAPPED,
};

enum sched_op {
	OP_PICK,
	OP_TENANT_ADD,
	OP_TENANT_SET,
	OP_TENANT_DEL,
	OP_QP_ADD,		/* @id: the tenant */
	OP_QP_SET_WEIGHT,
	OP_QP_DEL,
	OP_ACTIVATE,
	OP_DEACTIVATE,
	OP_CHARGE,
	OP_SEND_IDLE,
};

struct sched_call_case {
	const char *name;
	enum sched_fx fx;
	enum sched_op op;
	u32 id;
	struct vg_tenant_cfg tc;	/* OP_TENANT_ADD, OP_TENANT_SET */
	u32 weight;			/* OP_QP_ADD, OP_QP_SET_WEIGHT */
	int want;
};

#define TC(w, c, min, max)						\
	{ .weight = (w), .tclass = VG_CLASS_##c, .min_rate = (min),	\
	  .max_rate = (max) }

static const struct sched_call_case sched_bad_call_cases[] = {
	{ "pick with no tenant", FX_EMPTY, OP_PICK, .want = -ENODATA },
	{ "pick with only idle QPs", FX_BASE, OP_PICK, .want = -ENODATA },

	/* Tenant policies. */
	{ "add weight 0", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(0, BANDWIDTH, 0, 0), .want = -EINVAL },
	{ "add weight above VG_WEIGHT_MAX", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(VG_WEIGHT_MAX + 1, BANDWIDTH, 0, 0), .want = -ERANGE },
	{ "add weight U32_MAX", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(U32_MAX, BANDWIDTH, 0, 0), .want = -ERANGE },
	{ "add class VG_CLASS_NR", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(1, NR, 0, 0), .want = -EINVAL },
	{ "add min_rate above max_rate", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, 10, 5), .want = -EINVAL },
	{ "add max_rate above VG_RATE_MAX", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, 10, VG_RATE_MAX + 1), .want = -ERANGE },
	{ "add min_rate above VG_RATE_MAX", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, VG_RATE_MAX + 1, 0), .want = -ERANGE },
	{ "add min_rate above the capacity", FX_EMPTY, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, 1001, 0), .want = -EDQUOT },
	{ "add guarantees summing above the capacity", FX_BASE, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, 600, 0), .want = -EDQUOT },
	{ "add guarantees summing to the capacity is accepted", FX_BASE,
	  OP_TENANT_ADD, .tc = TC(1, LATENCY, 400, 0) },
	{ "add beyond max_tenants", FX_FULL, OP_TENANT_ADD,
	  .tc = TC(1, LATENCY, 0, 0), .want = -ENOSPC },
	{ "set min_rate above the capacity", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(1, LATENCY, 1001, 0), .want = -EDQUOT },
	{ "set min_rate to the capacity is accepted", FX_BASE, OP_TENANT_SET,
	  FX_T, .tc = TC(1, LATENCY, 1000, 0) },
	{ "set guarantees summing above the capacity", FX_FULL, OP_TENANT_SET,
	  FX_T, .tc = TC(1, LATENCY, 601, 0), .want = -EDQUOT },
	{ "set weight 0", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(0, LATENCY, 1000, 0), .want = -EINVAL },
	{ "set weight above VG_WEIGHT_MAX", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(VG_WEIGHT_MAX + 1, LATENCY, 0, 0), .want = -ERANGE },
	{ "set class VG_CLASS_NR", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(1, NR, 0, 0), .want = -EINVAL },
	{ "set min_rate above max_rate", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(1, LATENCY, 600, 599), .want = -EINVAL },
	{ "set max_rate above VG_RATE_MAX", FX_BASE, OP_TENANT_SET, FX_T,
	  .tc = TC(1, LATENCY, 0, VG_RATE_MAX + 1), .want = -ERANGE },
	{ "set a deleted tenant", FX_BASE, OP_TENANT_SET, FX_GONE,
	  .tc = TC(1, LATENCY, 0, 0), .want = -ENOENT },
	{ "set a tenant beyond max_tenants", FX_BASE, OP_TENANT_SET, FX_OUT,
	  .tc = TC(1, LATENCY, 0, 0), .want = -ENOENT },
	{ "set tenant U32_MAX", FX_BASE, OP_TENANT_SET, U32_MAX,
	  .tc = TC(1, LATENCY, 0, 0), .want = -ENOENT },

	/* Tenant handles. */
	{ "delete a deleted tenant", FX_BASE, OP_TENANT_DEL, FX_GONE,
	  .want = -ENOENT },
	{ "delete a tenant beyond max_tenants", FX_BASE, OP_TENANT_DEL, FX_OUT,
	  .want = -ENOENT },
	{ "delete tenant U32_MAX", FX_BASE, OP_TENANT_DEL, U32_MAX,
	  .want = -ENOENT },
	{ "delete a tenant with a QP", FX_BASE, OP_TENANT_DEL, FX_T,
	  .want = -EBUSY },

	/* QPs. */
	{ "add a QP to a deleted tenant", FX_BASE, OP_QP_ADD, FX_GONE,
	  .weight = 1, .want = -ENOENT },
	{ "add a QP to a tenant beyond max_tenants", FX_BASE, OP_QP_ADD,
	  FX_OUT, .weight = 1, .want = -ENOENT },
	{ "add a QP to tenant U32_MAX", FX_BASE, OP_QP_ADD, U32_MAX,
	  .weight = 1, .want = -ENOENT },
	{ "add a QP of weight 0", FX_BASE, OP_QP_ADD, FX_T, .weight = 0,
	  .want = -EINVAL },
	{ "add a QP of weight above VG_WEIGHT_MAX", FX_BASE, OP_QP_ADD, FX_T,
	  .weight = VG_WEIGHT_MAX + 1, .want = -ERANGE },
	{ "add a QP of weight VG_WEIGHT_MAX is accepted", FX_BASE, OP_QP_ADD,
	  FX_T, .weight = VG_WEIGHT_MAX },
	{ "add a QP beyond max_qps", FX_FULL, OP_QP_ADD, FX_T, .weight = 1,
	  .want = -ENOSPC },
	{ "set QP weight 0", FX_BASE, OP_QP_SET_WEIGHT, FX_Q, .weight = 0,
	  .want = -EINVAL },
	{ "set QP weight above VG_WEIGHT_MAX", FX_BASE, OP_QP_SET_WEIGHT,
	  FX_Q, .weight = VG_WEIGHT_MAX + 1, .want = -ERANGE },
	{ "set the weight of a deleted QP", FX_BASE, OP_QP_SET_WEIGHT,
	  FX_GONE, .weight = 1, .want = -ENOENT },
	{ "set the weight of QP 7", FX_BASE, OP_QP_SET_WEIGHT, 7,
	  .weight = 1, .want = -ENOENT },
	{ "set the weight of QP U32_MAX", FX_BASE, OP_QP_SET_WEIGHT, U32_MAX,
	  .weight = 1, .want = -ENOENT },
	{ "delete a deleted QP", FX_BASE, OP_QP_DEL, FX_GONE,
	  .want = -ENOENT },
	{ "delete a QP beyond max_qps", FX_BASE, OP_QP_DEL, FX_OUT,
	  .want = -ENOENT },
	{ "delete QP U32_MAX", FX_BASE, OP_QP_DEL, U32_MAX, .want = -ENOENT },

	/* The hot path. */
	{ "activate QP 7", FX_BASE, OP_ACTIVATE, 7, .want = -ENOENT },
	{ "activate a deleted QP", FX_BASE, OP_ACTIVATE, FX_GONE,
	  .want = -ENOENT },
	{ "activate QP U32_MAX", FX_BASE, OP_ACTIVATE, U32_MAX,
	  .want = -ENOENT },
	{ "deactivate QP U32_MAX", FX_BASE, OP_DEACTIVATE, U32_MAX,
	  .want = -ENOENT },
	{ "deactivate a deleted QP", FX_BASE, OP_DEACTIVATE, FX_GONE,
	  .want = -ENOENT },
	{ "charge an idle QP", FX_BASE, OP_CHARGE, FX_Q, .want = -EINVAL },
	{ "charge QP 9", FX_BASE, OP_CHARGE, 9, .want = -ENOENT },
	{ "charge a deleted QP", FX_BASE, OP_CHARGE, FX_GONE,
	  .want = -ENOENT },
	{ "charge QP U32_MAX", FX_BASE, OP_CHARGE, U32_MAX, .want = -ENOENT },
	{ "charge QP U32_MAX while a QP is active", FX_ACTIVE, OP_CHARGE,
	  U32_MAX, .want = -ENOENT },
	{ "send idle on a deleted QP", FX_BASE, OP_SEND_IDLE, FX_GONE,
	  .want = -ENOENT },
	{ "send idle on QP U32_MAX", FX_BASE, OP_SEND_IDLE, U32_MAX,
	  .want = -ENOENT },
	{ "send idle while a QP is active", FX_ACTIVE, OP_SEND_IDLE, FX_Q,
	  .want = -EBUSY },
	{ "send idle while the tenant is capped", FX_CAPPED, OP_SEND_IDLE,
	  FX_Q, .want = -EAGAIN },
};

static void sched_call_desc(const struct sched_call_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sched_bad_call, sched_bad_call_cases, sched_call_desc);

struct sched_fixture {
	struct vg_sched *s;
	void *mem;
	size_t len;
};

static struct sched_fixture sched_fixture(struct kunit *test,
					  enum sched_fx fx)
{
	struct vg_sched_cfg cfg = { .max_tenants = 2, .max_qps = 2,
				    .capacity = 1000 };
	struct vg_tenant_cfg tc = { .weight = 1, .tclass = VG_CLASS_LATENCY,
				    .min_rate = 600 };
	struct sched_fixture f = { .len = vg_sched_mem_size(&cfg) };
	u32 id;

	f.s = kunit_kzalloc(test, sizeof(*f.s), GFP_KERNEL);
	f.mem = kunit_kzalloc(test, f.len, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f.s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, f.mem);
	KUNIT_ASSERT_EQ(test, vg_sched_init(f.s, &cfg, f.mem, f.len), 0);
	if (fx == FX_EMPTY)
		return f;

	KUNIT_ASSERT_EQ(test, tenant_new(test, f.s, 1, 0, 0), FX_GONE - 1);
	KUNIT_ASSERT_EQ(test, tenant_new(test, f.s, 1, 0, 0), FX_GONE);
	KUNIT_ASSERT_EQ(test, vg_sched_tenant_del(f.s, FX_GONE), 0);
	KUNIT_ASSERT_EQ(test, vg_sched_tenant_del(f.s, FX_T), 0);
	KUNIT_ASSERT_EQ(test, vg_sched_tenant_add(f.s, &tc, &id), 0);
	KUNIT_ASSERT_EQ(test, id, FX_T);
	KUNIT_ASSERT_EQ(test, qp_new(test, f.s, FX_T, 1), FX_Q);
	KUNIT_ASSERT_EQ(test, qp_new(test, f.s, FX_T, 1), FX_GONE);
	KUNIT_ASSERT_EQ(test, vg_sched_qp_del(f.s, FX_GONE), 0);

	switch (fx) {
	case FX_FULL:
		tc.min_rate = 400;
		KUNIT_ASSERT_EQ(test, vg_sched_tenant_add(f.s, &tc, &id), 0);
		qp_new(test, f.s, FX_T, 1);
		break;
	case FX_ACTIVE:
		KUNIT_ASSERT_EQ(test, vg_sched_activate(f.s, FX_Q, 0), 0);
		break;
	case FX_CAPPED:
		tc.max_rate = 1000;
		KUNIT_ASSERT_EQ(test, vg_sched_tenant_set(f.s, FX_T, &tc, 0),
				0);
		KUNIT_ASSERT_EQ(test, vg_sched_send_idle(f.s, FX_Q, 10000, 0),
				0);
		break;
	default:
		break;
	}
	return f;
}

static int sched_call(struct vg_sched *s, const struct sched_call_case *tc)
{
	u64 next;
	u32 id;

	switch (tc->op) {
	case OP_PICK:
		return vg_sched_pick(s, 0, &id, &next);
	case OP_TENANT_ADD:
		return vg_sched_tenant_add(s, &tc->tc, &id);
	case OP_TENANT_SET:
		return vg_sched_tenant_set(s, tc->id, &tc->tc, 0);
	case OP_TENANT_DEL:
		return vg_sched_tenant_del(s, tc->id);
	case OP_QP_ADD:
		return vg_sched_qp_add(s, tc->id, tc->weight, &id);
	case OP_QP_SET_WEIGHT:
		return vg_sched_qp_set_weight(s, tc->id, tc->weight);
	case OP_QP_DEL:
		return vg_sched_qp_del(s, tc->id);
	case OP_ACTIVATE:
		return vg_sched_activate(s, tc->id, 0);
	case OP_DEACTIVATE:
		return vg_sched_deactivate(s, tc->id);
	case OP_CHARGE:
		return vg_sched_charge(s, tc->id, 1, 0, false);
	case OP_SEND_IDLE:
		return vg_sched_send_idle(s, tc->id, 1, 0);
	}
	return -EOPNOTSUPP;
}

static void sched_bad_call(struct kunit *test)
{
	const struct sched_call_case *tc = test->param_value;
	struct sched_fixture f = sched_fixture(test, tc->fx);
	struct vg_sched *old = kunit_kzalloc(test, sizeof(*old), GFP_KERNEL);
	void *old_mem = kunit_kzalloc(test, f.len, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, old);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, old_mem);
	memcpy(old, f.s, sizeof(*old));
	memcpy(old_mem, f.mem, f.len);
	KUNIT_EXPECT_EQ(test, sched_call(f.s, tc), tc->want);
	if (tc->want) {
		KUNIT_EXPECT_EQ(test, memcmp(f.s, old, sizeof(*old)), 0);
		KUNIT_EXPECT_EQ(test, memcmp(f.mem, old_mem, f.len), 0);
	}
}

/* Activation is idempotent, and a huge cost is clamped, not overflowed. */
static void sched_charge_clamped(struct kunit *test)
{
	struct sched_fixture f = sched_fixture(test, FX_BASE);
	struct vg_sched *s = f.s;
	u64 next;
	u32 id;

	KUNIT_EXPECT_EQ(test, vg_sched_activate(s, FX_Q, 0), 0);
	KUNIT_EXPECT_EQ(test, vg_sched_activate(s, FX_Q, 0), 0);
	KUNIT_EXPECT_EQ(test, s->tenants[FX_T].nactive, 1U);
	KUNIT_EXPECT_EQ(test, vg_sched_pick(s, 0, &id, &next), 0);
	KUNIT_EXPECT_EQ(test, id, FX_Q);
	KUNIT_EXPECT_EQ(test, vg_sched_charge(s, FX_Q, U64_MAX, 0, false), 0);
	KUNIT_EXPECT_EQ(test, served(s, FX_T), VG_CHARGE_MAX);
	KUNIT_EXPECT_EQ(test, vg_sched_pick(s, 0, &id, &next), -ENODATA);
}

/* Deleting every QP and tenant leaves nothing behind. */
static void sched_teardown(struct kunit *test)
{
	struct sched_fixture f = sched_fixture(test, FX_FULL);
	struct vg_sched *s = f.s;
	u32 i;

	KUNIT_EXPECT_EQ(test, vg_sched_activate(s, FX_Q, 0), 0);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, vg_sched_qp_del(s, i), 0);
	for (i = 0; i < 2; i++)
		KUNIT_EXPECT_EQ(test, vg_sched_tenant_del(s, i), 0);
	KUNIT_EXPECT_EQ(test, s->guaranteed, 0ULL);
	KUNIT_EXPECT_EQ(test, s->ntenants, 0U);
	KUNIT_EXPECT_EQ(test, s->nqps, 0U);
}

/* The device limits: 4096 tenants and 65536 QPs, then -ENOSPC. */
static void sched_limits(struct kunit *test)
{
	struct vg_sched_cfg cfg = { .max_tenants = VG_MAX_TENANTS,
				    .max_qps = VG_MAX_QPS };
	struct vg_tenant_cfg tc = { .weight = 1 };
	size_t len = vg_sched_mem_size(&cfg);
	struct vg_sched *s = kunit_kzalloc(test, sizeof(*s), GFP_KERNEL);
	u32 i, id, picks = 0;
	void *mem = vzalloc(len);
	u64 next;

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, s);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, mem);
	KUNIT_EXPECT_EQ(test, vg_sched_init(s, &cfg, mem, len), 0);
	for (i = 0; i < VG_MAX_TENANTS; i++) {
		tc.weight = 1 + i % VG_WEIGHT_MAX;
		if (vg_sched_tenant_add(s, &tc, &id) || id != i)
			break;
	}
	KUNIT_EXPECT_EQ(test, i, VG_MAX_TENANTS);
	KUNIT_EXPECT_EQ(test, vg_sched_tenant_add(s, &tc, &id), -ENOSPC);
	for (i = 0; i < VG_MAX_QPS; i++)
		if (vg_sched_qp_add(s, i % VG_MAX_TENANTS, 1, &id) ||
		    vg_sched_activate(s, id, 0))
			break;
	KUNIT_EXPECT_EQ(test, i, VG_MAX_QPS);
	KUNIT_EXPECT_EQ(test, vg_sched_qp_add(s, 0, 1, &id), -ENOSPC);
	for (i = 0; i < 100000; i++)
		picks += step(test, s, LMAX, 0, true) != VG_SCHED_NONE;
	KUNIT_EXPECT_EQ(test, picks, 100000U);
	for (i = 0; i < VG_MAX_QPS; i++)
		vg_sched_qp_del(s, i);
	for (i = 0; i < VG_MAX_TENANTS; i++)
		vg_sched_tenant_del(s, i);
	KUNIT_EXPECT_EQ(test, s->ntenants + s->nqps, 0U);
	KUNIT_EXPECT_EQ(test, vg_sched_pick(s, 0, &id, &next), -ENODATA);
	vfree(mem);
}

/*
 * The SFQ bound (sched.h) on the tags themselves: for every two entities
 * backlogged since their tags were equal, tag_f - tag_g is at most
 * L / w_f + L / w_g in tag units (cost * 2^30 / w). Tags are taken
 * relative to @v, at or below all of them. O(n): the largest tag - L/w
 * must not exceed the smallest tag + L/w.
 */
struct bound_acc {
	s64 hi, lo;
};

static void bound_add(struct bound_acc *b, u64 tag, u64 v, u64 inv_w)
{
	s64 rel = (s64)(tag - v), slack = (s64)(LMAX * inv_w);

	b->hi = max_t(s64, b->hi, rel - slack);
	b->lo = min_t(s64, b->lo, rel + slack);
}

/*
 * Property: with every QP backlogged, each tenant's long-run share matches
 * its weight within 2%, for random weights, QP counts and message sizes,
 * and the SFQ bound holds between every two tenants and every two QPs of
 * a tenant. The run is long enough for the bound to imply the 2%:
 * total >= 50 * L * (sumw / wmin + n).
 */
static void shares_case(struct kunit *test, u64 seed, u32 n, u32 wmin_cfg,
			u32 wmax, u32 qmax)
{
	static const u32 sizes[] = { 64, 512, 8192, 65536, 1 << 20 };
	u32 i, j, nq = 0, *tid, *w, *msg_max, *left;
	u64 sumw = 0, wmin = U64_MAX, total = 0, target;
	struct vg_sched *s = sched_new(test, n, n * qmax);
	struct bound_acc tb = { S64_MIN, S64_MAX };
	struct vg_prng r;

	tid = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	w = kunit_kcalloc(test, n, sizeof(u32), GFP_KERNEL);
	msg_max = kunit_kcalloc(test, n * qmax, sizeof(u32), GFP_KERNEL);
	left = kunit_kcalloc(test, n * qmax, sizeof(u32), GFP_KERNEL);
	KUNIT_ASSERT_TRUE(test, tid && w && msg_max && left);
	vg_prng_seed(&r, seed);

	for (i = 0; i < n; i++) {
		u32 k = vg_prng_range(&r, 1, qmax);

		w[i] = vg_prng_range(&r, wmin_cfg, wmax);
		tid[i] = tenant_new(test, s, w[i], 0, 0);
		sumw += w[i];
		wmin = min_t(u64, wmin, w[i]);
		for (j = 0; j < k; j++) {
			u32 qp = qp_new(test, s, tid[i],
					vg_prng_range(&r, 1, 10));

			msg_max[qp] = sizes[vg_prng_range(&r, 0, 4)];
			KUNIT_ASSERT_EQ(test, vg_sched_activate(s, qp, 0), 0);
			nq++;
		}
	}
	target = 50ULL * LMAX * (div64_u64(sumw, wmin) + 1 + n);
	while (total < target) {
		u64 next, cost;
		u32 qp, c;

		KUNIT_ASSERT_EQ(test, vg_sched_pick(s, 0, &qp, &next), 0);
		if (!left[qp])
			left[qp] = vg_prng_range(&r, 1, msg_max[qp]);
		c = min(left[qp], CHUNK);
		left[qp] -= c;
		cost = c + OP_BYTES;
		vg_sched_charge(s, qp, cost, 0, true);
		total += cost;
	}
	for (i = 0; i < n; i++) {
		const struct vg_sched_tenant *t = &s->tenants[tid[i]];
		struct bound_acc qb = { S64_MIN, S64_MAX };

		KUNIT_EXPECT_TRUE_MSG(test, share_ok(t->served, total, w[i],
						     sumw, 50),
				      "n %u tenant %u w %u/%llu got %llu/%llu",
				      n, i, w[i], sumw, t->served, total);
		bound_add(&tb, t->tag, s->vt.v, t->inv_w);
		for (j = 0; j < s->max_qps; j++)
			if (s->qps[j].state == VG_Q_ACTIVE &&
			    s->qps[j].tenant == tid[i])
				bound_add(&qb, vg_sched_qp_tag(s, j), t->vt.v,
					  s->qps[j].inv_w);
		KUNIT_EXPECT_LE_MSG(test, qb.hi, qb.lo, "QPs of tenant %u", i);
	}
	KUNIT_EXPECT_LE(test, tb.hi, tb.lo);
	kunit_info(test, "%u tenants, %u QPs, %llu token bytes\n", n, nq,
		   total);
}

static void sched_shares_random(struct kunit *test)
{
	shares_case(test, 1, 1, 1, VG_WEIGHT_MAX, 8);
	shares_case(test, 2, 2, 1, VG_WEIGHT_MAX, 8);
	shares_case(test, 3, 10, 1, VG_WEIGHT_MAX, 8);
	shares_case(test, 4, 100, 1, 1000, 4);
	shares_case(test, 5, 1000, 10, 100, 3);
}

/* QPs of one tenant share its service by QP weight. */
static void sched_qp_weights(struct kunit *test)
{
	static const u32 qw[] = { 1, 2, 3, 4, 10 };
	struct vg_sched *s = sched_new(test, 2, 8);
	u32 a = tenant_new(test, s, 1, 0, 0), b = tenant_new(test, s, 1, 0, 0);
	u32 qp[ARRAY_SIZE(qw)], i, qb = qp_new(test, s, b, 1);
	u64 got[8] = { 0 }, tot = 0;

	for (i = 0; i < ARRAY_SIZE(qw); i++) {
		qp[i] = qp_new(test, s, a, qw[i]);
		vg_sched_activate(s, qp[i], 0);
	}
	vg_sched_activate(s, qb, 0);
	for (i = 0; i < 200000; i++) {
		u64 cost = 1000 + i % 7 * 1000;

		got[step(test, s, cost, 0, true)] += cost;
	}
	/* Tenant a gets half however many QPs it has. */
	KUNIT_EXPECT_TRUE(test, share_ok(served(s, a), served(s, a) +
					 served(s, b), 1, 2, 500));
	for (i = 0; i < ARRAY_SIZE(qw); i++)
		tot += got[qp[i]];
	KUNIT_EXPECT_EQ(test, tot, served(s, a));
	for (i = 0; i < ARRAY_SIZE(qw); i++)
		KUNIT_EXPECT_TRUE_MSG(test, share_ok(got[qp[i]], tot, qw[i], 20,
						     100), "qp %u", i);
}

/*
 * vg_sched_pick_near() serves the preferred QP in its tenant's turns only:
 * tenants keep their 3:1 shares while one of a's two QPs is preferred
 * throughout, that QP gets all of a's service, b's QP is never served in
 * a's turns; once the preferred QP is idle, a's other QP is served.
 */
static void sched_pick_near(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 2, 4);
	u32 a = tenant_new(test, s, 3, 0, 0), b = tenant_new(test, s, 1, 0, 0);
	u32 a0 = qp_new(test, s, a, 1), a1 = qp_new(test, s, a, 1);
	u32 qb = qp_new(test, s, b, 1), qp, i;
	u64 got[4] = { 0 }, next;

	vg_sched_activate(s, a0, 0);
	vg_sched_activate(s, a1, 0);
	vg_sched_activate(s, qb, 0);
	for (i = 0; i < 40000; i++) {
		/* Three askers in four prefer a0, the others b's QP. */
		KUNIT_ASSERT_EQ(test, vg_sched_pick_near(s, 0, i % 4 ? a0 : qb,
							 &qp, &next), 0);
		KUNIT_EXPECT_EQ(test, vg_sched_charge(s, qp, 1000, 0, true), 0);
		got[qp] += 1000;
	}
	KUNIT_EXPECT_TRUE(test, share_ok(served(s, a), served(s, a) +
					 served(s, b), 3, 4, 100));
	KUNIT_EXPECT_EQ(test, got[qb], served(s, b));
	/* a1 only in a's turns asked for by b's askers. */
	KUNIT_EXPECT_EQ(test, got[a0] + got[a1], served(s, a));
	KUNIT_EXPECT_GT(test, got[a0], got[a1]);

	/* a0 idle: a's turns go to a1, whatever is preferred. */
	vg_sched_deactivate(s, a0);
	for (i = 0; i < 100; i++) {
		KUNIT_ASSERT_EQ(test, vg_sched_pick_near(s, 0, a0, &qp, &next),
				0);
		KUNIT_EXPECT_NE(test, qp, a0);
		KUNIT_EXPECT_EQ(test, vg_sched_charge(s, qp, 1000, 0, true), 0);
	}
	/* No preference is a plain pick. */
	KUNIT_ASSERT_EQ(test, vg_sched_pick_near(s, 0, VG_SCHED_NONE, &qp,
						 &next), 0);
}

/*
 * vg_sched_pick_spare() names the QP of the tenant with the smallest tag
 * but the busy QP's, and changes nothing: among six tenants (more than
 * the tenant heap's root and its children), a capped one and idle ones
 * are never named; a pick after it is the pick before it.
 */
static void sched_pick_spare(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 8, 8);
	u32 t[6], q[6], capped, qc, idle, qi, qp, first, i, j;
	u64 next, spare_tag;

	for (i = 0; i < 6; i++) {
		t[i] = tenant_new(test, s, 1, 0, 0);
		q[i] = qp_new(test, s, t[i], 1);
		vg_sched_activate(s, q[i], 0);
	}
	capped = tenant_new(test, s, 1, 0, 1000);
	qc = qp_new(test, s, capped, 1);
	idle = tenant_new(test, s, 1, 0, 0);
	qi = qp_new(test, s, idle, 1);
	vg_sched_activate(s, qc, 0);
	/* The capped tenant's first chunk sends it to wait a second. */
	while (!vg_sched_pick(s, 0, &qp, &next) && qp != qc)
		vg_sched_charge(s, qp, 10, 0, true);
	vg_sched_charge(s, qc, 1000, 0, true);
	/* Tags 100, 200, ... 600 for q[0..5], in a scrambled order. */
	for (i = 0; i < 6; i++)
		for (j = 0; j < (i * 5) % 6 + 1; j++)
			vg_sched_charge(s, q[i], 100, 0, true);

	for (i = 0; i < 30; i++) {
		KUNIT_ASSERT_EQ(test, vg_sched_pick(s, 0, &first, &next), 0);
		KUNIT_ASSERT_EQ(test, vg_sched_pick_spare(s, first, &qp), 0);
		KUNIT_EXPECT_NE(test, qp, first);
		KUNIT_EXPECT_NE(test, qp, qc);
		KUNIT_EXPECT_NE(test, qp, qi);
		/* No other active tenant has a smaller tag. */
		spare_tag = s->tenants[s->qps[qp].tenant].tag;
		for (j = 0; j < 6; j++)
			if (q[j] != first)
				KUNIT_EXPECT_FALSE(test,
						   vg_before(s->tenants[t[j]].tag,
							     spare_tag));
		/* Nothing moved: the same pick again. */
		KUNIT_ASSERT_EQ(test, vg_sched_pick(s, 0, &j, &next), 0);
		KUNIT_EXPECT_EQ(test, j, first);
		vg_sched_charge(s, first, 50 + i * 7 % 90, 0, true);
	}
	/* Alone but for the capped tenant: no spare. */
	for (i = 1; i < 6; i++)
		vg_sched_deactivate(s, q[i]);
	KUNIT_EXPECT_EQ(test, vg_sched_pick_spare(s, q[0], &qp), -ENODATA);
	KUNIT_EXPECT_EQ(test, vg_sched_pick_spare(s, qi, &qp), -ENOENT);
}

/*
 * vg_sched_charge_spare() moves the tenant's fair-share tag by the least
 * charge only, but counts what was sent and runs the tenant's cap clock:
 * a capped tenant that took spare chunks beyond its cap waits for its
 * clock like any other and is no spare candidate meanwhile.
 */
static void sched_charge_spare(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 2, 4);
	u32 a = tenant_new(test, s, 1, 0, 0);
	u32 b = tenant_new(test, s, 1, 0, 1000);	/* 1000 B/s */
	u32 qa = qp_new(test, s, a, 1), qb = qp_new(test, s, b, 1), qp;
	u64 now = 10 * NSEC_PER_SEC, tag, next;

	vg_sched_activate(s, qa, now);
	vg_sched_activate(s, qb, now);
	KUNIT_ASSERT_EQ(test, vg_sched_pick_spare(s, qa, &qp), 0);
	KUNIT_EXPECT_EQ(test, qp, qb);
	tag = s->tenants[b].tag;
	/* Ten seconds of its cap in one spare chunk. */
	KUNIT_ASSERT_EQ(test, vg_sched_charge_spare(s, qb, 10000, now, true),
			0);
	KUNIT_EXPECT_EQ(test, s->tenants[b].tag, tag + s->tenants[b].inv_w);
	KUNIT_EXPECT_EQ(test, served(s, b), 10000);
	KUNIT_EXPECT_EQ(test, vg_sched_pick_spare(s, qa, &qp), -ENODATA);
	KUNIT_ASSERT_EQ(test, vg_sched_pick(s, now, &qp, &next), 0);
	KUNIT_EXPECT_EQ(test, qp, qa);
	/* Its clock has come: a candidate again, its tag still the lower. */
	now += 10 * NSEC_PER_SEC;
	KUNIT_ASSERT_EQ(test, vg_sched_pick(s, now, &qp, &next), 0);
	KUNIT_EXPECT_EQ(test, vg_sched_pick_spare(s, qb, &qp), 0);
	KUNIT_EXPECT_EQ(test, qp, qa);
	KUNIT_ASSERT_EQ(test, vg_sched_charge(s, qa, 100, now, true), 0);
	KUNIT_ASSERT_EQ(test, vg_sched_pick(s, now, &qp, &next), 0);
	KUNIT_EXPECT_EQ(test, qp, qb);

	vg_sched_deactivate(s, qb);
	KUNIT_EXPECT_EQ(test, vg_sched_charge_spare(s, qb, 1, now, true),
			-EINVAL);
}

/*
 * A tenant gains nothing from more QPs: with 100 backlogged QPs, or with
 * 100 QPs that churn (each goes idle after one chunk and another one
 * wakes), it gets its weight's share and no more.
 */
static void sched_many_qps_no_gain(struct kunit *test)
{
	static const u32 wa[] = { 1, 3 };
	unsigned int c, churn;

	for (churn = 0; churn < 2; churn++)
		for (c = 0; c < ARRAY_SIZE(wa); c++) {
			struct vg_sched *s = sched_new(test, 2, 101);
			u32 a = tenant_new(test, s, wa[c], 0, 0);
			u32 b = tenant_new(test, s, 1, 0, 0);
			u32 qa = qp_new(test, s, a, 1), qb[100], i, wake = 0;
			u64 tot;

			vg_sched_activate(s, qa, 0);
			for (i = 0; i < 100; i++) {
				qb[i] = qp_new(test, s, b, 1);
				if (!churn || i < 50)
					vg_sched_activate(s, qb[i], 0);
			}
			for (i = 0; i < 100000; i++) {
				u64 next;
				u32 qp;

				KUNIT_ASSERT_EQ(test, vg_sched_pick(s, 0, &qp,
								    &next), 0);
				vg_sched_charge(s, qp, 4096 + OP_BYTES, 0,
						!churn || qp == qa);
				if (!churn || qp == qa)
					continue;
				/* b's QP went idle: wake another of b's. */
				while (vg_sched_qp_active(s, qb[wake]))
					wake = (wake + 1) % 100;
				vg_sched_activate(s, qb[wake], 0);
			}
			tot = served(s, a) + served(s, b);
			KUNIT_EXPECT_LE_MSG(test, served(s, b) * (wa[c] + 1),
					    tot + 2 * (4096 + OP_BYTES) *
					    (wa[c] + 1),
					    "churn %u wa %u", churn, wa[c]);
			KUNIT_EXPECT_TRUE(test, share_ok(served(s, b), tot, 1,
							 wa[c] + 1, 100));
		}
}

/* A QP whose chunks cost nothing is charged 1 and cannot starve others. */
static void sched_zero_cost(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 2, 2);
	u32 a = tenant_new(test, s, 1, 0, 0), b = tenant_new(test, s, 1, 0, 0);
	u32 qa = qp_new(test, s, a, 1), qb = qp_new(test, s, b, 1), i, nb = 0;

	vg_sched_activate(s, qa, 0);
	vg_sched_activate(s, qb, 0);
	for (i = 0; i < 10000; i++) {
		u64 next;
		u32 qp;

		KUNIT_ASSERT_EQ(test, vg_sched_pick(s, 0, &qp, &next), 0);
		vg_sched_charge(s, qp, qp == qa ? 0 : 1000, 0, true);
		nb += qp == qb;
	}
	KUNIT_EXPECT_GE(test, nb, 9U);
	KUNIT_EXPECT_EQ(test, served(s, a), 10000ULL - nb);
}

/* Idle shares go to active tenants; returning earns no credit either way. */
static void sched_work_conserving(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 2, 2);
	u32 a = tenant_new(test, s, 9, 0, 0), b = tenant_new(test, s, 1, 0, 0);
	u32 qa = qp_new(test, s, a, 1), qb = qp_new(test, s, b, 1), i, first;
	u64 sa, sb;

	vg_sched_activate(s, qb, 0);
	for (i = 0; i < 1000; i++)
		KUNIT_EXPECT_EQ(test, step(test, s, 1000, 0, true), qb);
	vg_sched_activate(s, qa, 0);
	sa = served(s, a);
	sb = served(s, b);
	first = U32_MAX;
	for (i = 0; i < 10000; i++)
		if (step(test, s, 1000, 0, true) == qa && first == U32_MAX)
			first = i;
	KUNIT_EXPECT_LE(test, first, 1U);
	KUNIT_EXPECT_TRUE(test, share_ok(served(s, a) - sa, served(s, a) - sa +
					 served(s, b) - sb, 9, 10, 100));
	/* a leaves again: b alone gets everything. */
	vg_sched_deactivate(s, qa);
	for (i = 0; i < 100; i++)
		KUNIT_EXPECT_EQ(test, step(test, s, 1000, 0, true), qb);
}

/*
 * Virtual time wraps every few maximum charges at weight 1; fairness and
 * the no-credit rule for returning tenants and QPs must survive that.
 */
static void sched_vtime_wrap(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 2, 3);
	u32 a = tenant_new(test, s, 1, 0, 0), b = tenant_new(test, s, 1, 0, 0);
	u32 qa = qp_new(test, s, a, 1), qa2 = qp_new(test, s, a, 1);
	u32 qb = qp_new(test, s, b, 1), i, nb = 0, na2 = 0, gap;

	vg_sched_activate(s, qa, 0);
	vg_sched_activate(s, qb, 0);
	for (i = 0; i < 1000; i++)
		nb += step(test, s, VG_CHARGE_MAX, 0, true) == qb;
	KUNIT_EXPECT_EQ(test, nb, 500U);
	KUNIT_EXPECT_GT(test, s->vt.hi, 100U);

	/* b idles while a's virtual time wraps several times over. */
	for (gap = 1; gap < 40; gap += 7) {
		vg_sched_deactivate(s, qb);
		for (i = 0; i < gap; i++)
			KUNIT_EXPECT_EQ(test, step(test, s, VG_CHARGE_MAX, 0,
						   true), qa);
		vg_sched_activate(s, qb, 0);
		nb = 0;
		for (i = 0; i < 100; i++)
			nb += step(test, s, VG_CHARGE_MAX, 0, true) == qb;
		KUNIT_EXPECT_EQ_MSG(test, nb, 50U, "gap %u", gap);
	}

	/* The same inside a tenant: qa2 joins after qa's tags wrapped. */
	vg_sched_deactivate(s, qb);
	for (i = 0; i < 50; i++)
		step(test, s, VG_CHARGE_MAX, 0, true);
	vg_sched_activate(s, qa2, 0);
	for (i = 0; i < 100; i++)
		na2 += step(test, s, VG_CHARGE_MAX, 0, true) == qa2;
	KUNIT_EXPECT_EQ(test, na2, 50U);
}

/*
 * Rates with simulated time: the device moves 1 token byte per ns. A
 * capped tenant gets its cap however large its weight; a guaranteed one
 * its guarantee however small its weight; the rest goes to the others.
 */
static u64 run_for(struct kunit *test, struct vg_sched *s, u64 now, u64 end,
		   u64 cost)
{
	while (now < end) {
		u64 next;
		u32 qp;
		int ret = vg_sched_pick(s, now, &qp, &next);

		if (ret == -EAGAIN) {
			KUNIT_EXPECT_GT(test, next, now);
			now = next;
			continue;
		}
		KUNIT_ASSERT_EQ(test, ret, 0);
		vg_sched_charge(s, qp, cost, now, true);
		now += cost;
	}
	return now;
}

static void sched_rates(struct kunit *test)
{
	const u64 sec = NSEC_PER_SEC, cost = 4096 + OP_BYTES;
	struct vg_sched_cfg cfg = { .max_tenants = 4, .max_qps = 4,
				    .capacity = 1000000000ULL };
	struct vg_sched *s = sched_new_cfg(test, &cfg);
	u32 a = tenant_new(test, s, 100, 0, 100000000ULL);	/* cap 10% */
	u32 b = tenant_new(test, s, 1, 0, 0);
	u32 qa = qp_new(test, s, a, 1), qb = qp_new(test, s, b, 1);
	struct vg_tenant_cfg tc = { .weight = 1, .min_rate = 500000000ULL };
	u64 now = sec, sa, sb, start;
	u32 c, qc;

	vg_sched_activate(s, qa, now);
	vg_sched_activate(s, qb, now);
	now = run_for(test, s, now, 2 * sec, cost);
	KUNIT_EXPECT_LE(test, served(s, a), 100000000ULL + 100000 + cost);
	KUNIT_EXPECT_GE(test, served(s, a), 100000000ULL - cost);
	KUNIT_EXPECT_GE(test, served(s, b), 890000000ULL);

	/* a alone: the device idles (-EAGAIN) between a's chunks. */
	vg_sched_deactivate(s, qb);
	sa = served(s, a);
	now = run_for(test, s, now, 3 * sec, cost);
	KUNIT_EXPECT_LE(test, served(s, a) - sa, 100000000ULL + 2 * cost);
	KUNIT_EXPECT_GE(test, served(s, a) - sa, 100000000ULL - 2 * cost);

	/* c: weight 1 of 102 but guaranteed 50%. */
	KUNIT_ASSERT_EQ(test, vg_sched_tenant_add(s, &tc, &c), 0);
	qc = qp_new(test, s, c, 1);
	vg_sched_activate(s, qb, now);
	vg_sched_activate(s, qc, now);
	sa = served(s, a);
	sb = served(s, b);
	start = now;
	now = run_for(test, s, now, 4 * sec, cost);
	/* Half of the phase's length (a bit under a second) in bytes. */
	KUNIT_EXPECT_GE(test, served(s, c), (now - start) / 2 - 2 * cost);
	KUNIT_EXPECT_LE(test, served(s, a) - sa, 100000000ULL + 2 * cost);
	KUNIT_EXPECT_GE(test, served(s, b) - sb, 380000000ULL);

	/* Lifting the cap takes effect at once: a (weight 100) dominates. */
	tc.weight = 100;
	tc.min_rate = 0;
	KUNIT_ASSERT_EQ(test, vg_sched_tenant_set(s, a, &tc, now), 0);
	sa = served(s, a);
	run_for(test, s, now, 5 * sec, cost);
	KUNIT_EXPECT_GE(test, served(s, a) - sa, 450000000ULL);
}

/*
 * Caps of many tenants come due at once: a pick releases at most
 * VG_SCHED_CAP_RELEASE of them (the caller holds its lock meanwhile),
 * the earliest first, and the next picks release the rest.
 */
static void sched_cap_release(struct kunit *test)
{
	const u64 rate = 1000000ULL;	/* 1 MB/s: a charge of 1 MB caps 1 s */
	u32 tid[4 * VG_SCHED_CAP_RELEASE + 2], qp, left, picks, i;
	const u32 n = ARRAY_SIZE(tid);
	struct vg_sched *s = sched_new(test, n, n);
	u64 now = NSEC_PER_SEC, next;

	for (i = 0; i < n; i++) {
		tid[i] = tenant_new(test, s, 1, 0, rate);
		qp = qp_new(test, s, tid[i], 1);
		vg_sched_activate(s, qp, now);
		/* Tenant i's cap comes due i ms after tenant 0's. */
		KUNIT_ASSERT_EQ(test, vg_sched_charge(s, qp, rate + i * 1000,
						      now, true), 0);
		KUNIT_ASSERT_EQ(test, s->tenants[tid[i]].state, VG_T_CAPPED);
	}
	KUNIT_ASSERT_EQ(test, s->cap.n, n);
	/* Before any cap comes due, a pick says when the first one does. */
	KUNIT_ASSERT_EQ(test, vg_sched_pick(s, now, &qp, &next), -EAGAIN);
	KUNIT_EXPECT_GT(test, next, now);
	KUNIT_EXPECT_LE(test, next, now + NSEC_PER_SEC);

	now += 2 * NSEC_PER_SEC;	/* every cap has come due */
	for (picks = 0; s->cap.n; picks++) {
		left = s->cap.n;
		KUNIT_ASSERT_EQ(test, vg_sched_pick(s, now, &qp, &next), 0);
		KUNIT_EXPECT_EQ(test, left - s->cap.n,
				min(left, VG_SCHED_CAP_RELEASE));
		/* Released in the order their caps came due. */
		for (i = 0; i < n; i++)
			KUNIT_EXPECT_EQ(test,
					s->tenants[tid[i]].state == VG_T_CAPPED,
					i >= n - s->cap.n);
	}
	KUNIT_EXPECT_EQ(test, picks, DIV_ROUND_UP(n, VG_SCHED_CAP_RELEASE));
}

/* Mark block @b as used once more; it must be one the pool handed out. */
static void mark_qblk(struct kunit *test, const struct vg_sched *s, u8 *seen,
		      u32 b)
{
	KUNIT_ASSERT_LT(test, b, s->qpool_top);
	KUNIT_ASSERT_EQ(test, seen[b]++, 0);
}

/*
 * The QP heap blocks: each tenant holds exactly the blocks its QP count
 * needs (sched.h), no block is held twice or both held and free, and
 * every block is held or free. Suites run one test at a time: one
 * scratch map serves every check.
 */
static u8 qblk_seen[4096];

static void check_qblocks(struct kunit *test, const struct vg_sched *s)
{
	u32 i, j, b, nfree = 0, held = 0;
	u8 *seen = qblk_seen;

	KUNIT_ASSERT_LE(test, s->qpool_cap, (u32)sizeof(qblk_seen));
	memset(seen, 0, s->qpool_cap);
	KUNIT_ASSERT_LE(test, s->qpool_top, s->qpool_cap);
	for (b = s->qblk_free; b != VG_SCHED_NONE; b = s->qpool[b].dir[0]) {
		mark_qblk(test, s, seen, b);
		nfree++;
	}
	KUNIT_ASSERT_EQ(test, s->nqblk_free,
			nfree + s->qpool_cap - s->qpool_top);
	for (i = 0; i < s->max_tenants; i++) {
		const struct vg_sched_tenant *t = &s->tenants[i];
		u32 r = s->text[i].nqps;
		u32 d = r > VG_QHEAD ? DIV_ROUND_UP(r - VG_QHEAD, VG_QBLK) : 0;
		const u32 *dir = s->qpool[t->qdir].dir;

		if (t->state == VG_T_FREE)
			continue;
		KUNIT_ASSERT_EQ(test, t->qdepth,
				d <= 1 ? 0U : d <= VG_QDIR ? 1U : 2U);
		if (d)
			mark_qblk(test, s, seen, t->qblk0);
		held += d;
		if (t->qdepth) {
			mark_qblk(test, s, seen, t->qdir);
			held++;
		}
		if (t->qdepth == 1) {
			KUNIT_ASSERT_EQ(test, dir[0], t->qblk0);
			for (j = 1; j < d; j++)
				mark_qblk(test, s, seen, dir[j]);
		} else if (t->qdepth == 2) {
			KUNIT_ASSERT_EQ(test, s->qpool[dir[0]].dir[0], t->qblk0);
			for (j = 0; j < DIV_ROUND_UP(d, VG_QDIR); j++) {
				mark_qblk(test, s, seen, dir[j]);
				held++;
			}
			for (j = 1; j < d; j++)
				mark_qblk(test, s, seen,
					  s->qpool[dir[j / VG_QDIR]].dir[j % VG_QDIR]);
		}
	}
	KUNIT_ASSERT_EQ(test, held + s->nqblk_free, s->qpool_cap);
}

/* Structural invariants of the whole scheduler, checked by brute force. */
static void check_invariants(struct kunit *test, struct vg_sched *s)
{
	const struct vg_heap *heaps[3] = { &s->wfq, &s->grt, &s->cap };
	u32 i, h, nt = 0, nq = 0;

	for (h = 0; h < 3; h++) {
		const struct vg_heap *hp = heaps[h];

		for (i = 0; i < hp->n; i++) {
			u64 parent = hp->ent[i ? (i - 1) / 4 : 0].key;

			KUNIT_ASSERT_EQ(test, hp->pos[hp->ent[i].id], i + 1);
			KUNIT_ASSERT_FALSE(test, vg_before(hp->ent[i].key,
							   parent));
		}
	}
	for (i = 0; i < s->max_tenants; i++) {
		const struct vg_sched_tenant *t = &s->tenants[i];
		struct vg_qheap qh = vg_sched_qheap(s, i);
		u32 seen = 0, qps = 0, act = 0, k;

		if (t->state == VG_T_FREE) {
			KUNIT_ASSERT_FALSE(test, vg_heap_contains(&s->wfq, i) ||
					   vg_heap_contains(&s->cap, i));
			continue;
		}
		nt++;
		for (k = 0; k < s->max_qps; k++)
			if (s->qps[k].state != VG_Q_FREE &&
			    s->qps[k].tenant == i) {
				qps++;
				act += s->qps[k].state == VG_Q_ACTIVE;
				KUNIT_ASSERT_EQ(test, s->qps[k].state == VG_Q_ACTIVE,
						!!s->qpos[k]);
			}
		KUNIT_ASSERT_EQ(test, s->text[i].nqps, qps);
		KUNIT_ASSERT_EQ(test, t->nactive, act);
		KUNIT_ASSERT_EQ(test, vg_heap_contains(&s->wfq, i),
				t->state == VG_T_ACTIVE);
		KUNIT_ASSERT_EQ(test, vg_heap_contains(&s->grt, i),
				t->state == VG_T_ACTIVE && t->has_min);
		KUNIT_ASSERT_EQ(test, vg_heap_contains(&s->cap, i),
				t->state == VG_T_CAPPED);
		KUNIT_ASSERT_EQ(test, t->state == VG_T_IDLE, !act);
		if (t->state == VG_T_ACTIVE)
			KUNIT_ASSERT_EQ(test, s->wfq.ent[s->wfq.pos[i] - 1].key,
					t->tag);
		/* The QP heap: order, positions, membership. */
		for (k = 0; k < t->nactive; k++) {
			const struct vg_heap_ent *e = vg_qheap_at(&qh, k);
			const struct vg_heap_ent *up =
				vg_qheap_at(&qh, k ? (k - 1) / 4 : 0);
			u32 x = e->id;

			KUNIT_ASSERT_LT(test, x, s->max_qps);
			KUNIT_ASSERT_EQ(test, s->qps[x].state, VG_Q_ACTIVE);
			KUNIT_ASSERT_EQ(test, s->qps[x].tenant, i);
			KUNIT_ASSERT_EQ(test, s->qpos[x], k + 1);
			KUNIT_ASSERT_EQ(test, e->aux, s->qps[x].inv_w);
			KUNIT_ASSERT_FALSE(test, vg_before(e->key, up->key));
			seen++;
		}
		KUNIT_ASSERT_EQ(test, seen, act);
		nq += qps;
	}
	KUNIT_ASSERT_EQ(test, s->ntenants, nt);
	KUNIT_ASSERT_EQ(test, s->nqps, nq);
	check_qblocks(test, s);
	/* A cached pick is still its tenant's root. */
	if (s->pick_qp != VG_SCHED_NONE) {
		const struct vg_sched_tenant *t = &s->tenants[s->pick_tenant];

		KUNIT_ASSERT_TRUE(test, t->nactive > 0);
		KUNIT_ASSERT_EQ(test, s->qroot[s->pick_tenant].id, s->pick_qp);
	}
}

/* A cap for one tenant in four, a guarantee (below the cap) for one in four. */
static void random_rates(struct vg_prng *r, struct vg_tenant_cfg *tc)
{
	if (!vg_prng_range(r, 0, 3))
		tc->max_rate = vg_prng_range(r, 1000000, 2000000000);
	if (!vg_prng_range(r, 0, 3))
		tc->min_rate = vg_prng_range(r, 1, 100000000);
	if (tc->max_rate && tc->min_rate > tc->max_rate)
		tc->min_rate = tc->max_rate;
}

/*
 * The work of the calls since the last look: QP heap entries written and
 * QP heap blocks taken or returned (struct vg_sched's counters). One call
 * makes at most one QP heap operation, which writes at most one entry per
 * level of a heap of max_qps entries, and takes or returns at most three
 * blocks, whatever the pool's size or the QPs' spread over tenants.
 */
struct work_meter {
	u64 moved, blocks;	/* the counters at the last look */
	u32 levels;		/* of a QP heap of max_qps entries */
	u64 max_moved, max_blocks;	/* most seen in one look */
	u32 max_used;		/* most blocks held at a look */
};

static void meter_init(struct work_meter *m, const struct vg_sched *s)
{
	u64 level = 1, size = 1;

	memset(m, 0, sizeof(*m));
	m->moved = s->qmoved;
	m->blocks = s->qblocks;
	for (m->levels = 1; size < s->max_qps; m->levels++) {
		level *= 4;
		size += level;
	}
}

static void meter_check(struct kunit *test, const struct vg_sched *s,
			struct work_meter *m)
{
	u64 moved = s->qmoved - m->moved, blocks = s->qblocks - m->blocks;

	KUNIT_ASSERT_LE(test, moved, (u64)m->levels);
	KUNIT_ASSERT_LE(test, blocks, 3ULL);
	m->max_moved = max(m->max_moved, moved);
	m->max_blocks = max(m->max_blocks, blocks);
	m->max_used = max(m->max_used, s->qpool_cap - s->nqblk_free);
	m->moved = s->qmoved;
	m->blocks = s->qblocks;
}

/* Random operations against the invariants (model-free fuzzing). */
static void sched_random_ops(struct kunit *test)
{
	enum { NT = 12, NQ = 64 };
	struct vg_sched_cfg cfg = { .max_tenants = NT, .max_qps = NQ,
				    .rate_slack_ns = 5000 };
	struct vg_sched *s = sched_new_cfg(test, &cfg);
	struct work_meter m;
	struct vg_prng r;
	u32 depth = 0;
	u64 now = 0;
	int i;

	vg_prng_seed(&r, 99);
	meter_init(&m, s);
	for (i = 0; i < 40000; i++) {
		u32 op = vg_prng_range(&r, 0, 99), id, t, q;
		struct vg_tenant_cfg tc = {
			.weight = vg_prng_range(&r, 1, 20),
			.tclass = vg_prng_range(&r, 0, VG_CLASS_NR - 1),
		};
		u64 next;
		int ret;

		random_rates(&r, &tc);
		t = vg_prng_range(&r, 0, NT - 1);
		q = vg_prng_range(&r, 0, NQ - 1);
		now += vg_prng_range(&r, 0, 20000);

		if (op < 5) {
			vg_sched_tenant_add(s, &tc, &id);
		} else if (op < 7) {
			vg_sched_tenant_del(s, t);
		} else if (op < 10) {
			vg_sched_tenant_set(s, t, &tc, now);
		} else if (op < 16) {
			/* Half to tenants 0 and 1: some need a directory. */
			vg_sched_qp_add(s, op & 1 ? t : t % 2, tc.weight, &id);
		} else if (op < 19) {
			vg_sched_qp_del(s, q);
		} else if (op < 21) {
			vg_sched_qp_set_weight(s, q, tc.weight);
		} else if (op < 40) {
			vg_sched_activate(s, q, now);
		} else if (op < 48) {
			vg_sched_deactivate(s, q);
		} else {
			u64 cost = vg_prng_range(&r, 1, 70000);
			bool more = vg_prng_range(&r, 0, 3);

			ret = vg_sched_pick(s, now, &id, &next);
			if (!ret) {
				t = s->qps[id].tenant;
				KUNIT_ASSERT_TRUE(test,
						  vg_sched_qp_active(s, id));
				KUNIT_ASSERT_EQ(test, s->tenants[t].state,
						VG_T_ACTIVE);
				ret = vg_sched_charge(s, id, cost, now, more);
				KUNIT_ASSERT_EQ(test, ret, 0);
			} else if (ret == -EAGAIN) {
				KUNIT_ASSERT_GT(test, next, now);
				KUNIT_ASSERT_EQ(test, s->wfq.n, 0U);
			} else {
				KUNIT_ASSERT_EQ(test, ret, -ENODATA);
				KUNIT_ASSERT_EQ(test, s->wfq.n + s->cap.n, 0U);
			}
		}
		meter_check(test, s, &m);
		check_invariants(test, s);
		for (t = 0; t < NT; t++)
			depth = max_t(u32, depth, s->tenants[t].qdepth);
	}
	/* Tenants took and returned blocks, a directory among them. */
	KUNIT_EXPECT_GT(test, s->qblocks, 100ULL);
	KUNIT_EXPECT_EQ(test, depth, 1U);
}

/*
 * QPs come and go across tenants in the patterns that made the former
 * segment pool grow, move and compact (O(pool) under the caller's lock):
 * each call's work must stay within the bound of struct work_meter, the
 * scheduler consistent (check_invariants()), every add below max_qps must
 * find its blocks, and afterwards picks must follow the weights.
 *
 *   POOL_FREE_MIDDLE	every tenant but the last grows in turn until
 *			the pool is full; the middle half of the QPs
 *			goes; the last tenant takes their slots
 *   POOL_HANDOVER	tenant 0 takes every slot (two directory levels),
 *			gives them all back, tenant 1 takes them; then
 *			they move back one by one
 *   POOL_WORST_SPREAD	the spread that needs the most blocks: every
 *			tenant one data block's first QP, then as many as
 *			can one more QP than two data blocks (which needs
 *			a directory), the rest to tenant 0; then QPs move
 *			between random tenants
 *   POOL_RANDOM	random adds and deletes, tenants and sizes
 */
enum pool_pattern {
	POOL_FREE_MIDDLE,
	POOL_HANDOVER,
	POOL_WORST_SPREAD,
	POOL_RANDOM,
};

struct sched_pool_case {
	const char *name;
	u32 nt, nq;
	enum pool_pattern pattern;
};

static const struct sched_pool_case sched_pool_cases[] = {
	{ "fill, free the middle, add to another: 8 tenants, 1200 QPs",
	  8, 1200, POOL_FREE_MIDDLE },
	{ "fill, free the middle, add to another: 64 tenants, 4096 QPs",
	  64, 4096, POOL_FREE_MIDDLE },
	{ "one tenant takes every slot, then another: 2100 QPs",
	  2, 2100, POOL_HANDOVER },
	{ "most blocks per QP: 256 tenants, 4096 QPs",
	  256, 4096, POOL_WORST_SPREAD },
	{ "most blocks per QP: 64 tenants, 3000 QPs",
	  64, 3000, POOL_WORST_SPREAD },
	{ "random churn: 16 tenants, 3000 QPs", 16, 3000, POOL_RANDOM },
};

static void sched_pool_desc(const struct sched_pool_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(sched_pool, sched_pool_cases, sched_pool_desc);

struct pool_run {
	struct kunit *test;
	struct vg_sched *s;
	struct work_meter m;
	u32 nt;
};

/* Tenant @t gets a QP: it must succeed below max_qps. */
static u32 pool_add(struct pool_run *pr, u32 t)
{
	u32 qp = VG_SCHED_NONE;

	KUNIT_ASSERT_LT(pr->test, pr->s->nqps, pr->s->max_qps);
	KUNIT_ASSERT_EQ(pr->test, vg_sched_qp_add(pr->s, t, 1, &qp), 0);
	meter_check(pr->test, pr->s, &pr->m);
	return qp;
}

static void pool_del(struct pool_run *pr, u32 qp)
{
	KUNIT_ASSERT_EQ(pr->test, vg_sched_qp_del(pr->s, qp), 0);
	meter_check(pr->test, pr->s, &pr->m);
}

/* Some QP of tenant @t, or VG_SCHED_NONE. */
static u32 pool_qp_of(const struct vg_sched *s, u32 t)
{
	u32 q;

	for (q = 0; q < s->max_qps; q++)
		if (s->qps[q].state != VG_Q_FREE && s->qps[q].tenant == t)
			return q;
	return VG_SCHED_NONE;
}

/*
 * Every QP backlogged: each tenant's share follows its weight within 2%
 * and the SFQ bound holds between the QPs of each tenant (as in
 * shares_case()).
 */
static void pool_shares(struct pool_run *pr)
{
	struct kunit *test = pr->test;
	struct vg_sched *s = pr->s;
	u64 sumw = 0, wmin = U64_MAX, total = 0, target, *served0;
	u32 q, t, n = 0;

	served0 = kunit_kcalloc(test, pr->nt, sizeof(*served0), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, served0);
	for (q = 0; q < s->max_qps; q++)
		if (s->qps[q].state != VG_Q_FREE) {
			KUNIT_ASSERT_EQ(test, vg_sched_activate(s, q, 0), 0);
			meter_check(test, s, &pr->m);
		}
	for (t = 0; t < pr->nt; t++) {
		served0[t] = s->tenants[t].served;
		if (!s->text[t].nqps)
			continue;
		sumw += s->text[t].weight;
		wmin = min_t(u64, wmin, s->text[t].weight);
		n++;
	}
	target = 50ULL * LMAX * (div64_u64(sumw, wmin) + 1 + n);
	while (total < target) {
		KUNIT_ASSERT_NE(test, step(test, s, LMAX, 0, true),
				VG_SCHED_NONE);
		meter_check(test, s, &pr->m);
		total += LMAX;
	}
	for (t = 0; t < pr->nt; t++) {
		struct bound_acc qb = { S64_MIN, S64_MAX };

		if (!s->text[t].nqps)
			continue;
		KUNIT_EXPECT_TRUE_MSG(test,
				      share_ok(s->tenants[t].served - served0[t],
					       total, s->text[t].weight, sumw,
					       50),
				      "tenant %u of %u QPs", t,
				      s->text[t].nqps);
		for (q = 0; q < s->max_qps; q++)
			if (s->qps[q].state == VG_Q_ACTIVE &&
			    s->qps[q].tenant == t)
				bound_add(&qb, vg_sched_qp_tag(s, q),
					  s->tenants[t].vt.v, s->qps[q].inv_w);
		KUNIT_EXPECT_LE_MSG(test, qb.hi, qb.lo, "QPs of tenant %u", t);
	}
}

static void pool_free_middle(struct pool_run *pr)
{
	struct vg_sched *s = pr->s;
	u32 q, i;

	for (i = 0; s->nqps < s->max_qps; i++)
		pool_add(pr, i % (pr->nt - 1));
	check_invariants(pr->test, s);
	/* Handles were handed out in order: these are the middle half. */
	for (q = s->max_qps / 4; q < s->max_qps / 4 * 3; q++)
		pool_del(pr, q);
	check_invariants(pr->test, s);
	while (s->nqps < s->max_qps)
		pool_add(pr, pr->nt - 1);
	check_invariants(pr->test, s);
	KUNIT_EXPECT_GE(pr->test, s->tenants[pr->nt - 1].qdepth, 1U);
}

static void pool_handover(struct pool_run *pr)
{
	struct vg_sched *s = pr->s;
	u32 q, i;

	while (s->nqps < s->max_qps)
		pool_add(pr, 0);
	KUNIT_EXPECT_EQ(pr->test, s->tenants[0].qdepth, 2U);
	check_invariants(pr->test, s);
	for (q = 0; q < s->max_qps; q++)
		pool_del(pr, q);
	check_invariants(pr->test, s);
	KUNIT_EXPECT_EQ(pr->test, s->nqblk_free, s->qpool_cap);
	while (s->nqps < s->max_qps)
		pool_add(pr, 1);
	check_invariants(pr->test, s);
	/* Back to tenant 0 one by one, as QPs moving between tenants do. */
	for (i = 0; i < s->max_qps / 2; i++) {
		pool_del(pr, pool_qp_of(s, 1));
		pool_add(pr, 0);
	}
	check_invariants(pr->test, s);
}

static void pool_worst_spread(struct pool_run *pr)
{
	struct vg_sched *s = pr->s;
	struct vg_prng r;
	u32 t, i, q;

	for (t = 0; t < pr->nt && s->nqps + VG_QHEAD + 1 <= s->max_qps; t++)
		for (i = 0; i < VG_QHEAD + 1; i++)
			pool_add(pr, t);
	for (t = 0; t < pr->nt && s->nqps + VG_QBLK <= s->max_qps; t++)
		for (i = 0; i < VG_QBLK; i++)
			pool_add(pr, t);
	while (s->nqps < s->max_qps)
		pool_add(pr, 0);
	check_invariants(pr->test, s);
	vg_prng_seed(&r, pr->nt);
	for (i = 0; i < 2000; i++) {
		do {
			q = vg_prng_range(&r, 0, s->max_qps - 1);
		} while (s->qps[q].state == VG_Q_FREE);
		pool_del(pr, q);
		pool_add(pr, vg_prng_range(&r, 0, pr->nt - 1));
	}
	check_invariants(pr->test, s);
}

static void pool_random(struct pool_run *pr)
{
	struct vg_sched *s = pr->s;
	struct vg_prng r;
	u32 i, q, t;

	vg_prng_seed(&r, 5);
	for (i = 0; i < 30000; i++) {
		/* Tenants of very different sizes: weight the draw to 0. */
		t = vg_prng_range(&r, 0, 3) ? 0 : vg_prng_range(&r, 0, pr->nt - 1);
		if (s->nqps < s->max_qps && vg_prng_range(&r, 0, 99) < 55) {
			pool_add(pr, t);
			continue;
		}
		q = vg_prng_range(&r, 0, s->max_qps - 1);
		if (s->qps[q].state != VG_Q_FREE)
			pool_del(pr, q);
		if (!(i % 5000))
			check_invariants(pr->test, s);
	}
	check_invariants(pr->test, s);
}

static void sched_pool(struct kunit *test)
{
	const struct sched_pool_case *tc = test->param_value;
	struct pool_run pr = { .test = test, .nt = tc->nt };
	u32 t;

	pr.s = sched_new(test, tc->nt, tc->nq);
	for (t = 0; t < tc->nt; t++)
		KUNIT_ASSERT_EQ(test, tenant_new(test, pr.s, 1 + t % 4, 0, 0), t);
	meter_init(&pr.m, pr.s);
	switch (tc->pattern) {
	case POOL_FREE_MIDDLE:
		pool_free_middle(&pr);
		break;
	case POOL_HANDOVER:
		pool_handover(&pr);
		break;
	case POOL_WORST_SPREAD:
		pool_worst_spread(&pr);
		break;
	case POOL_RANDOM:
		pool_random(&pr);
		break;
	}
	pool_shares(&pr);
	check_invariants(test, pr.s);
	kunit_info(test, "at most %u of %u blocks held; per call at most %llu entries written (bound %u), %llu blocks\n",
		   pr.m.max_used, pr.s->qpool_cap, pr.m.max_moved,
		   pr.m.levels, pr.m.max_blocks);
}

static void expect_same_sched(struct kunit *test, const struct vg_sched *a,
			      const struct vg_sched *b)
{
	const struct vg_heap *ha[3] = { &a->wfq, &a->grt, &a->cap };
	const struct vg_heap *hb[3] = { &b->wfq, &b->grt, &b->cap };
	u32 i, k;

	KUNIT_ASSERT_EQ(test, a->vt.v, b->vt.v);
	KUNIT_ASSERT_EQ(test, a->vt.hi, b->vt.hi);
	KUNIT_ASSERT_EQ(test, a->pick_qp, b->pick_qp);
	for (k = 0; k < 3; k++) {
		KUNIT_ASSERT_EQ(test, ha[k]->n, hb[k]->n);
		for (i = 0; i < ha[k]->n; i++) {
			KUNIT_ASSERT_EQ(test, ha[k]->ent[i].id, hb[k]->ent[i].id);
			KUNIT_ASSERT_EQ(test, ha[k]->ent[i].key,
					hb[k]->ent[i].key);
		}
	}
	for (i = 0; i < a->max_tenants; i++) {
		const struct vg_sched_tenant *ta = &a->tenants[i];
		const struct vg_sched_tenant *tb = &b->tenants[i];

		KUNIT_ASSERT_EQ(test, ta->state, tb->state);
		KUNIT_ASSERT_EQ(test, ta->tag, tb->tag);
		KUNIT_ASSERT_EQ(test, ta->tag_hi, tb->tag_hi);
		KUNIT_ASSERT_EQ(test, ta->vt.v, tb->vt.v);
		KUNIT_ASSERT_EQ(test, ta->vt.hi, tb->vt.hi);
		KUNIT_ASSERT_EQ(test, ta->served, tb->served);
		KUNIT_ASSERT_EQ(test, ta->nactive, tb->nactive);
		KUNIT_ASSERT_EQ(test, a->text[i].min_next.ns,
				b->text[i].min_next.ns);
		KUNIT_ASSERT_EQ(test, a->text[i].min_next.frac,
				b->text[i].min_next.frac);
		KUNIT_ASSERT_EQ(test, a->text[i].max_next.ns,
				b->text[i].max_next.ns);
		KUNIT_ASSERT_EQ(test, a->text[i].max_next.frac,
				b->text[i].max_next.frac);
		for (k = 0; k < ta->nactive; k++) {
			struct vg_qheap qa = vg_sched_qheap(a, i);
			struct vg_qheap qb = vg_sched_qheap(b, i);

			KUNIT_ASSERT_EQ(test, vg_qheap_at(&qa, k)->id,
					vg_qheap_at(&qb, k)->id);
			KUNIT_ASSERT_EQ(test, vg_qheap_at(&qa, k)->key,
					vg_qheap_at(&qb, k)->key);
		}
	}
	for (i = 0; i < a->max_qps; i++) {
		KUNIT_ASSERT_EQ(test, a->qps[i].state, b->qps[i].state);
		KUNIT_ASSERT_EQ(test, a->qps[i].tag, b->qps[i].tag);
		KUNIT_ASSERT_EQ(test, a->qps[i].tag_hi, b->qps[i].tag_hi);
		KUNIT_ASSERT_EQ(test, a->qpos[i], b->qpos[i]);
	}
}

/*
 * vg_sched_send_idle() against the three calls it stands for: two
 * schedulers take the same random operations, except that a send of one
 * WR goes the long way on one and through vg_sched_send_idle() on the
 * other, and must leave them alike. Charges of VG_CHARGE_MAX at weight 1
 * wrap the virtual clocks; rate clocks cap and guarantee.
 */
static void sched_send_idle_same(struct kunit *test)
{
	enum { NT = 6, NQ = 16 };
	struct vg_sched_cfg cfg = { .max_tenants = NT, .max_qps = NQ,
				    .rate_slack_ns = 5000 };
	struct vg_sched *a = sched_new_cfg(test, &cfg);
	struct vg_sched *b = sched_new_cfg(test, &cfg);
	u32 fast = 0, capped = 0, busy = 0;
	struct vg_prng r;
	u64 now = 0;
	int i;

	vg_prng_seed(&r, 7);
	for (i = 0; i < 30000; i++) {
		u32 op = vg_prng_range(&r, 0, 99), id, ida, q, t;
		struct vg_tenant_cfg tc = {
			.weight = vg_prng_range(&r, 1, 3) == 1 ? 1 :
				  vg_prng_range(&r, 1, 50),
		};
		u64 cost = vg_prng_range(&r, 0, 3) ? vg_prng_range(&r, 0, 70000) :
			   VG_CHARGE_MAX;
		u64 next;
		int ret;

		random_rates(&r, &tc);
		t = vg_prng_range(&r, 0, NT - 1);
		q = vg_prng_range(&r, 0, NQ - 1);
		now += vg_prng_range(&r, 0, 20000);

		if (op < 4) {
			ret = vg_sched_tenant_add(a, &tc, &ida);
			KUNIT_ASSERT_EQ(test, vg_sched_tenant_add(b, &tc, &id),
					ret);
		} else if (op < 6) {
			vg_sched_tenant_set(a, t, &tc, now);
			vg_sched_tenant_set(b, t, &tc, now);
		} else if (op < 12) {
			ret = vg_sched_qp_add(a, t, tc.weight, &ida);
			KUNIT_ASSERT_EQ(test, vg_sched_qp_add(b, t, tc.weight,
							      &id), ret);
		} else if (op < 14) {
			vg_sched_qp_del(a, q);
			vg_sched_qp_del(b, q);
		} else if (op < 22) {
			vg_sched_activate(a, q, now);
			vg_sched_activate(b, q, now);
		} else if (op < 40) {
			/* Mostly idle devices: drain everything now and then. */
			for (id = 0; id < NQ; id++) {
				vg_sched_deactivate(a, id);
				vg_sched_deactivate(b, id);
			}
		} else if (op < 55) {
			ret = vg_sched_pick(a, now, &ida, &next);
			KUNIT_ASSERT_EQ(test, vg_sched_pick(b, now, &id, &next),
					ret);
			if (!ret) {
				KUNIT_ASSERT_EQ(test, id, ida);
				vg_sched_charge(a, id, cost, now, op & 1);
				vg_sched_charge(b, id, cost, now, op & 1);
			}
		} else if (vg_sched_qp_active(a, q)) {
			continue;
		} else {
			ret = vg_sched_send_idle(b, q, cost, now);
			if (ret == -ENOENT) {
				KUNIT_ASSERT_EQ(test,
						vg_sched_activate(a, q, now),
						-ENOENT);
				continue;
			}
			vg_sched_activate(a, q, now);
			if (!ret) {
				KUNIT_ASSERT_EQ(test, vg_sched_pick(a, now, &id,
								    &next), 0);
				KUNIT_ASSERT_EQ(test, id, q);
				vg_sched_charge(a, q, cost, now, false);
				fast++;
			} else {
				/* Not sent: the WR is queued, the QP active. */
				if (ret == -EAGAIN) {
					KUNIT_ASSERT_EQ(test,
							vg_sched_pick(a, now,
								      &id,
								      &next),
							-EAGAIN);
					capped++;
				} else {
					KUNIT_ASSERT_EQ(test, ret, -EBUSY);
					busy++;
				}
				vg_sched_activate(b, q, now);
			}
		}
		expect_same_sched(test, a, b);
		check_invariants(test, b);
	}
	KUNIT_EXPECT_GT(test, fast, 1000U);
	KUNIT_EXPECT_GT(test, capped, 10U);
	KUNIT_EXPECT_GT(test, busy, 100U);
	/* Both levels' virtual clocks wrapped. */
	KUNIT_EXPECT_GT(test, b->vt.hi, 0U);
}

static void sched_class_weights(struct kunit *test)
{
	struct vg_sched *s = sched_new(test, 8, 1);
	struct vg_tenant_cfg tc = { .weight = 3, .tclass = VG_CLASS_BANDWIDTH };
	struct vg_class_weights cw;
	u32 id, lat;

	vg_sched_tenant_add(s, &tc, &id);
	tc.weight = 5;
	vg_sched_tenant_add(s, &tc, &id);
	tc.tclass = VG_CLASS_THROUGHPUT;
	vg_sched_tenant_add(s, &tc, &id);
	tc.tclass = VG_CLASS_LATENCY;
	tc.weight = 2;
	vg_sched_tenant_add(s, &tc, &id);
	tc.weight = 7;
	vg_sched_tenant_add(s, &tc, &lat);
	vg_sched_class_weights(s, &cw);
	KUNIT_EXPECT_EQ(test, cw.sum[VG_CLASS_BANDWIDTH], 8ULL);
	KUNIT_EXPECT_EQ(test, cw.count[VG_CLASS_BANDWIDTH], 2U);
	KUNIT_EXPECT_EQ(test, cw.sum[VG_CLASS_THROUGHPUT], 5ULL);
	KUNIT_EXPECT_EQ(test, cw.sum[VG_CLASS_LATENCY], 9ULL);
	KUNIT_EXPECT_EQ(test, cw.count[VG_CLASS_LATENCY], 2U);
	KUNIT_EXPECT_EQ(test, cw.max_latency, 7U);
	vg_sched_tenant_del(s, lat);
	vg_sched_class_weights(s, &cw);
	KUNIT_EXPECT_EQ(test, cw.max_latency, 2U);
}

static struct kunit_case vg_sched_cases[] = {
	KUNIT_CASE_PARAM(sched_bad_init, sched_bad_init_gen_params),
	KUNIT_CASE_PARAM(sched_bad_call, sched_bad_call_gen_params),
	KUNIT_CASE(sched_charge_clamped),
	KUNIT_CASE(sched_teardown),
	KUNIT_CASE(sched_limits),
	KUNIT_CASE(sched_shares_random),
	KUNIT_CASE(sched_qp_weights),
	KUNIT_CASE(sched_pick_near),
	KUNIT_CASE(sched_pick_spare),
	KUNIT_CASE(sched_charge_spare),
	KUNIT_CASE(sched_many_qps_no_gain),
	KUNIT_CASE(sched_zero_cost),
	KUNIT_CASE(sched_work_conserving),
	KUNIT_CASE(sched_vtime_wrap),
	KUNIT_CASE(sched_rates),
	KUNIT_CASE(sched_cap_release),
	KUNIT_CASE(sched_random_ops),
	KUNIT_CASE_PARAM(sched_pool, sched_pool_gen_params),
	KUNIT_CASE(sched_send_idle_same),
	KUNIT_CASE(sched_class_weights),
	{}
};

static struct kunit_suite vg_sched_suite = {
	.name = "verbsgate-sched",
	.test_cases = vg_sched_cases,
};

kunit_test_suites(&vg_sched_suite);
