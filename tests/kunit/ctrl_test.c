// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate controller (kmod/core/ctrl.c): Rmin,
 * SafeUtil AIMD and chunk-size selection.
 */
#include <kunit/test.h>

#include "ctrl.h"
#include "vg_prng.h"

#define MAXRATE		12500000000ULL	/* 100 Gbit/s of token bytes */
#define MAXOPS		30000000ULL
#define US		1000ULL

static struct vg_class_weights cw_of(u64 wb, u64 wt, u64 wl_sum, u32 nl,
				     u32 wl_max)
{
	struct vg_class_weights cw = {
		.sum = { wb, wt, wl_sum },
		.count = { wb ? 1 : 0, wt ? 1 : 0, nl },
		.max_latency = wl_max,
	};

	return cw;
}

/* The defaults for a device are valid, and fit its largest message. */
struct ctrl_default_case {
	const char *name;
	u64 max_ops;
	u32 max_chunk;
	u32 want_nolat, want_lat;	/* chunk sizes */
};

static const struct ctrl_default_case ctrl_default_cases[] = {
	{ "largest message VG_SPLIT_MAX_CHUNK", MAXOPS, VG_SPLIT_MAX_CHUNK,
	  1U << 20, 5120 },
	{ "largest message 4096, no op pacing", 0, 4096, 4096, 4096 },
	{ "largest message 1", MAXOPS, 1, 1, 1 },
};

static void ctrl_default_desc(const struct ctrl_default_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(ctrl_default_cfg, ctrl_default_cases, ctrl_default_desc);

static void ctrl_default_cfg(struct kunit *test)
{
	const struct ctrl_default_case *tc = test->param_value;
	struct vg_ctrl_cfg cfg;

	vg_ctrl_default_cfg(&cfg, MAXRATE, tc->max_ops, tc->max_chunk);
	KUNIT_EXPECT_EQ(test, vg_ctrl_check_cfg(&cfg), 0);
	KUNIT_EXPECT_EQ(test, cfg.chunk_nolat, tc->want_nolat);
	KUNIT_EXPECT_EQ(test, cfg.table[0].chunk, tc->want_lat);
}

/* One field of struct vg_ctrl_cfg a bad-configuration row changes. */
enum ctrl_field {
	CF_NONE,
	CF_MAX_RATE,
	CF_MAX_OPS,
	CF_STEP,
	CF_PERIOD,
	CF_FLAGS,
	CF_MAX_CHUNK,
	CF_CHUNK_NOLAT,
	CF_NTABLE,
	CF_T0_CHUNK,
	CF_T0_PPM,
	CF_T1_CHUNK,
	CF_T1_PPM,
};

struct ctrl_set {
	enum ctrl_field field;
	u64 val;
};

#define CTRL_MAX_SETS	4

/*
 * The defaults for MAXRATE, MAXOPS and VG_SPLIT_MAX_CHUNK (5 KiB sustains
 * MaxRate) with @set applied, and the error vg_ctrl_check_cfg(),
 * vg_ctrl_init() and vg_ctrl_set_cfg() all return for it. A refused
 * configuration changes no controller. Rows expecting 0 are the
 * accepted neighbours of a limit.
 */
struct ctrl_cfg_case {
	const char *name;
	struct ctrl_set set[CTRL_MAX_SETS];
	int want;
};

#define SET(f, v)	{ CF_##f, (v) }

static const struct ctrl_cfg_case ctrl_bad_cfg_cases[] = {
	/* Rates and the AIMD step. */
	{ "max_rate 0", { SET(MAX_RATE, 0) }, -EINVAL },
	{ "max_rate above VG_RATE_MAX", { SET(MAX_RATE, VG_RATE_MAX + 1) },
	  -ERANGE },
	{ "max_ops above VG_RATE_MAX", { SET(MAX_OPS, VG_RATE_MAX + 1) },
	  -ERANGE },
	{ "max_ops 0 is accepted", { SET(MAX_OPS, 0) }, 0 },
	{ "step 0", { SET(STEP, 0) }, -EINVAL },
	{ "step above max_rate", { SET(STEP, MAXRATE + 1) }, -ERANGE },
	{ "step equal to max_rate is accepted", { SET(STEP, MAXRATE) }, 0 },
	{ "period 0", { SET(PERIOD, 0) }, -EINVAL },
	/* Flags. */
	{ "unknown flag BIT(5)", { SET(FLAGS, BIT(5)) }, -EINVAL },
	{ "every flag", { SET(FLAGS, U32_MAX) }, -EINVAL },
	{ "VG_CTRL_LAT_EACH is accepted", { SET(FLAGS, VG_CTRL_LAT_EACH) }, 0 },
	/* Chunk sizes: 0, and above the device maximum. */
	{ "chunk_nolat 0", { SET(CHUNK_NOLAT, 0) }, -EINVAL },
	{ "max_chunk 4096, below the default chunks",
	  { SET(MAX_CHUNK, 4096) }, -ERANGE },
	{ "max_chunk 0", { SET(MAX_CHUNK, 0) }, -EINVAL },
	{ "max_chunk above VG_SPLIT_MAX_CHUNK",
	  { SET(MAX_CHUNK, VG_SPLIT_MAX_CHUNK + 1) }, -ERANGE },
	{ "chunk_nolat above max_chunk",
	  { SET(MAX_CHUNK, 65536), SET(CHUNK_NOLAT, 65537) }, -ERANGE },
	{ "chunk_nolat equal to max_chunk is accepted",
	  { SET(MAX_CHUNK, 65536), SET(CHUNK_NOLAT, 65536) }, 0 },
	/* The chunk table. */
	{ "table chunk 0", { SET(T0_CHUNK, 0) }, -EINVAL },
	{ "table chunk above VG_SPLIT_MAX_CHUNK",
	  { SET(T0_CHUNK, VG_SPLIT_MAX_CHUNK + 1) }, -ERANGE },
	{ "table chunk above max_chunk",
	  { SET(MAX_CHUNK, 65536), SET(CHUNK_NOLAT, 65536),
	    SET(T0_CHUNK, 65537) }, -ERANGE },
	{ "table util_ppm above 1000000", { SET(T0_PPM, VG_PPM + 1) },
	  -ERANGE },
	{ "ntable 0", { SET(NTABLE, 0) }, -EINVAL },
	{ "ntable above VG_CTRL_MAX_TABLE",
	  { SET(NTABLE, VG_CTRL_MAX_TABLE + 1) }, -E2BIG },
	{ "second entry chunk 0",
	  { SET(NTABLE, 2), SET(T1_CHUNK, 0), SET(T1_PPM, VG_PPM) },
	  -EINVAL },
	{ "second entry util_ppm above 1000000",
	  { SET(NTABLE, 2), SET(T0_PPM, 500000), SET(T1_CHUNK, 8192),
	    SET(T1_PPM, VG_PPM + 1) }, -ERANGE },
	/* Unsorted tables. */
	{ "table not sorted by chunk",
	  { SET(NTABLE, 2), SET(T1_CHUNK, 4096), SET(T1_PPM, VG_PPM) },
	  -EINVAL },
	{ "table with equal chunks",
	  { SET(NTABLE, 2), SET(T1_CHUNK, 5120), SET(T1_PPM, VG_PPM) },
	  -EINVAL },
	{ "table not sorted by util_ppm",
	  { SET(NTABLE, 2), SET(T0_PPM, 500000), SET(T1_CHUNK, 8192),
	    SET(T1_PPM, 400000) }, -EINVAL },
	{ "table sorted by both is accepted",
	  { SET(NTABLE, 2), SET(T0_PPM, 500000), SET(T1_CHUNK, 8192),
	    SET(T1_PPM, 600000) }, 0 },
	{ "table with equal util_ppm is accepted",
	  { SET(NTABLE, 2), SET(T1_CHUNK, 8192), SET(T1_PPM, VG_PPM) }, 0 },
};

static void ctrl_cfg_desc(const struct ctrl_cfg_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(ctrl_bad_cfg, ctrl_bad_cfg_cases, ctrl_cfg_desc);

static void ctrl_apply(struct vg_ctrl_cfg *cfg, const struct ctrl_set *set)
{
	switch (set->field) {
	case CF_NONE:
		break;
	case CF_MAX_RATE:
		cfg->max_rate = set->val;
		break;
	case CF_MAX_OPS:
		cfg->max_ops = set->val;
		break;
	case CF_STEP:
		cfg->step = set->val;
		break;
	case CF_PERIOD:
		cfg->period_ns = set->val;
		break;
	case CF_FLAGS:
		cfg->flags = set->val;
		break;
	case CF_MAX_CHUNK:
		cfg->max_chunk = set->val;
		break;
	case CF_CHUNK_NOLAT:
		cfg->chunk_nolat = set->val;
		break;
	case CF_NTABLE:
		cfg->ntable = set->val;
		break;
	case CF_T0_CHUNK:
		cfg->table[0].chunk = set->val;
		break;
	case CF_T0_PPM:
		cfg->table[0].util_ppm = set->val;
		break;
	case CF_T1_CHUNK:
		cfg->table[1].chunk = set->val;
		break;
	case CF_T1_PPM:
		cfg->table[1].util_ppm = set->val;
		break;
	}
}

static void ctrl_bad_cfg(struct kunit *test)
{
	const struct ctrl_cfg_case *tc = test->param_value;
	struct vg_ctrl_cfg cfg, ok;
	struct vg_ctrl c, old;
	int i;

	vg_ctrl_default_cfg(&ok, MAXRATE, MAXOPS, VG_SPLIT_MAX_CHUNK);
	cfg = ok;
	for (i = 0; i < CTRL_MAX_SETS; i++)
		ctrl_apply(&cfg, &tc->set[i]);
	KUNIT_EXPECT_EQ(test, vg_ctrl_check_cfg(&cfg), tc->want);

	memset(&c, 0xa5, sizeof(c));
	memcpy(&old, &c, sizeof(old));
	KUNIT_EXPECT_EQ(test, vg_ctrl_init(&c, &cfg, 0), tc->want);
	if (tc->want)
		KUNIT_EXPECT_EQ(test, memcmp(&c, &old, sizeof(c)), 0);

	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &ok, 0), 0);
	memcpy(&old, &c, sizeof(old));
	KUNIT_EXPECT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), tc->want);
	if (tc->want)
		KUNIT_EXPECT_EQ(test, memcmp(&c, &old, sizeof(c)), 0);
}

static void ctrl_rmin(struct kunit *test)
{
	struct vg_class_weights cw;
	struct vg_ctrl_cfg cfg;
	struct vg_ctrl c;

	vg_ctrl_default_cfg(&cfg, 20000, MAXOPS, VG_SPLIT_MAX_CHUNK);
	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &cfg, 0), 0);
	KUNIT_EXPECT_EQ(test, c.rmin, 20000ULL);
	KUNIT_EXPECT_EQ(test, c.safe, 20000ULL);

	/* B {3, 5}, T {5}, L {2, 7}: latency counts as one tenant of 7. */
	cw = cw_of(8, 5, 9, 2, 7);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, 20000ULL * 13 / 20);
	KUNIT_EXPECT_EQ(test, c.nlat, 2U);
	/* Equal weights, B = 2, T = 1, L = 3: Justitia's (B + T) / (B + T + 1). */
	cw = cw_of(2, 1, 3, 3, 1);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, 15000ULL);
	/* Counting each latency tenant: (B + T) / (B + T + L). */
	cfg.flags = VG_CTRL_LAT_EACH;
	KUNIT_ASSERT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, 10000ULL);
	/* No latency tenants: Rmin = SafeUtil = MaxRate. */
	cw = cw_of(2, 1, 0, 0, 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, 20000ULL);
	KUNIT_EXPECT_EQ(test, c.safe, 20000ULL);
	/* Only latency tenants: nothing is guaranteed, but rates stay >= 1. */
	cw = cw_of(0, 0, 5, 1, 5);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, 1ULL);
	/* The largest weights do not overflow. */
	cw = cw_of(4095ULL * VG_WEIGHT_MAX, 0, VG_WEIGHT_MAX, 1, VG_WEIGHT_MAX);
	cfg.max_rate = VG_RATE_MAX;
	cfg.flags = 0;
	KUNIT_ASSERT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_LE(test, c.rmin, VG_RATE_MAX / 4096 * 4095 + 1);
	KUNIT_EXPECT_GE(test, c.rmin, VG_RATE_MAX / 4096 * 4095 - 1);
}

/* Pseudocode 1, step by step, with the period respected. */
static void ctrl_aimd(struct kunit *test)
{
	struct vg_class_weights cw = cw_of(1, 0, 1, 1, 1);
	struct vg_ctrl_cfg cfg;
	struct vg_ctrl c;
	u64 now = 1000 * US;
	int i;

	vg_ctrl_default_cfg(&cfg, MAXRATE, MAXOPS, VG_SPLIT_MAX_CHUNK);
	cfg.target_p99_ns = 10 * US;
	cfg.step = MAXRATE / 100;
	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &cfg, now), 0);
	KUNIT_EXPECT_EQ(test, c.chunk, 1U << 20);
	/* Without latency tenants a high p99 changes nothing. */
	KUNIT_EXPECT_FALSE(test, vg_ctrl_update(&c, now, 50 * US));
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE);

	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, MAXRATE / 2);
	KUNIT_EXPECT_EQ(test, c.chunk, 5120U);
	now += cfg.period_ns;
	KUNIT_EXPECT_TRUE(test, vg_ctrl_update(&c, now, 50 * US));
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 2);
	/* Too early: ignored. */
	KUNIT_EXPECT_FALSE(test, vg_ctrl_update(&c, now + 1, 1));
	/* Halving never goes below Rmin. */
	now += cfg.period_ns;
	KUNIT_EXPECT_FALSE(test, vg_ctrl_update(&c, now, 50 * US));
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 2);
	/* Additive increase up to MaxRate. */
	for (i = 1; i <= 60; i++) {
		now += cfg.period_ns;
		vg_ctrl_update(&c, now, 5 * US);
		KUNIT_EXPECT_EQ(test, c.safe,
				min(MAXRATE / 2 + i * cfg.step, MAXRATE));
	}
	KUNIT_EXPECT_EQ(test, c.increases, 60ULL);
	KUNIT_EXPECT_EQ(test, c.decreases, 2ULL);
	KUNIT_EXPECT_EQ(test, vg_ctrl_op_rate(&c), MAXOPS);
	now += cfg.period_ns;
	vg_ctrl_update(&c, now, 11 * US);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 2);
	KUNIT_EXPECT_EQ(test, vg_ctrl_op_rate(&c), MAXOPS / 2);

	/* Latency tenants leave: back to MaxRate and 1 MiB chunks at once. */
	cw = cw_of(1, 0, 0, 0, 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE);
	KUNIT_EXPECT_EQ(test, c.chunk, 1U << 20);

	/* No target: SafeUtil is Rmin while latency tenants exist. */
	cfg.target_p99_ns = 0;
	KUNIT_ASSERT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), 0);
	cw = cw_of(3, 0, 1, 1, 1);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 4 * 3);
	now += cfg.period_ns;
	vg_ctrl_update(&c, now, 0);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 4 * 3);
}

/* The smallest chunk in the table that sustains SafeUtil. */
static void ctrl_chunk_table(struct kunit *test)
{
	struct vg_class_weights cw = cw_of(1, 0, 9, 1, 9);	/* Rmin 10% */
	struct vg_ctrl_cfg cfg;
	struct vg_ctrl c;
	u64 now = 0;

	vg_ctrl_default_cfg(&cfg, MAXRATE, 0, 1 << 20);
	cfg.target_p99_ns = 10 * US;
	cfg.step = MAXRATE / 10;
	cfg.ntable = 3;
	cfg.table[0] = (struct vg_chunk_ent){ .chunk = 4096,
					      .util_ppm = 300000 };
	cfg.table[1] = (struct vg_chunk_ent){ .chunk = 16384,
					      .util_ppm = 700000 };
	cfg.table[2] = (struct vg_chunk_ent){ .chunk = 65536,
					      .util_ppm = 900000 };
	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &cfg, now), 0);
	vg_ctrl_set_weights(&c, &cw);
	/* SafeUtil 100%: no entry sustains it, take the largest. */
	KUNIT_EXPECT_EQ(test, c.chunk, 65536U);
	vg_ctrl_update(&c, now += cfg.period_ns, 20 * US);	/* 50% */
	KUNIT_EXPECT_EQ(test, c.chunk, 16384U);
	vg_ctrl_update(&c, now += cfg.period_ns, 20 * US);	/* 25% */
	KUNIT_EXPECT_EQ(test, c.chunk, 4096U);
	vg_ctrl_update(&c, now += cfg.period_ns, 20 * US);	/* 12.5% */
	KUNIT_EXPECT_EQ(test, c.chunk, 4096U);
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 22.5% */
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 32.5% */
	KUNIT_EXPECT_EQ(test, c.chunk, 16384U);
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 42.5% */
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 52.5% */
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 62.5% */
	KUNIT_EXPECT_EQ(test, c.chunk, 16384U);
	vg_ctrl_update(&c, now += cfg.period_ns, 1);		/* 72.5% */
	KUNIT_EXPECT_EQ(test, c.chunk, 65536U);
}

/*
 * Throughput tenants get the table's chunk, as latency tenants do, but
 * leave SafeUtil, Rmin and the AIMD alone.
 */
static void ctrl_chunk_throughput(struct kunit *test)
{
	struct vg_class_weights cw = cw_of(1, 0, 0, 0, 0);
	struct vg_ctrl_cfg cfg;
	struct vg_ctrl c;
	u64 now = 0;

	vg_ctrl_default_cfg(&cfg, MAXRATE, MAXOPS, VG_SPLIT_MAX_CHUNK);
	cfg.target_p99_ns = 10 * US;
	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &cfg, now), 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.chunk, 1U << 20);

	/* A throughput tenant comes: 5 KiB chunks, SafeUtil stays. */
	cw = cw_of(1, 1, 0, 0, 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.chunk, 5120U);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE);
	KUNIT_EXPECT_EQ(test, c.rmin, MAXRATE);
	/* A high p99 does not halve it: no latency tenant asks. */
	now += cfg.period_ns;
	KUNIT_EXPECT_FALSE(test, vg_ctrl_update(&c, now, 50 * US));
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE);
	KUNIT_EXPECT_EQ(test, c.decreases, 0ULL);

	/* The chunk that sustains MaxRate, from a longer table. */
	cfg.ntable = 2;
	cfg.table[0] = (struct vg_chunk_ent){ .chunk = 1024,
					      .util_ppm = 500000 };
	cfg.table[1] = (struct vg_chunk_ent){ .chunk = 8192,
					      .util_ppm = 1000000 };
	KUNIT_ASSERT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), 0);
	KUNIT_EXPECT_EQ(test, c.chunk, 8192U);
	/* With a latency tenant too, SafeUtil moves and the chunk with it. */
	cw = cw_of(1, 1, 2, 1, 2);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.rmin, MAXRATE / 2);
	now += cfg.period_ns;
	KUNIT_EXPECT_TRUE(test, vg_ctrl_update(&c, now, 50 * US));
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE / 2);
	KUNIT_EXPECT_EQ(test, c.chunk, 1024U);

	/* The throughput and latency tenants leave: 1 MiB chunks again. */
	cw = cw_of(1, 0, 0, 0, 0);
	vg_ctrl_set_weights(&c, &cw);
	KUNIT_EXPECT_EQ(test, c.chunk, 1U << 20);
	KUNIT_EXPECT_EQ(test, c.safe, MAXRATE);
}

/*
 * Property: whatever the tenants and the latency estimates do, SafeUtil
 * stays in [Rmin, MaxRate], equals MaxRate without latency tenants, and
 * the chunk size is a configured one within the device maximum.
 */
static void ctrl_random_bounds(struct kunit *test)
{
	struct vg_ctrl_cfg cfg;
	struct vg_prng r;
	struct vg_ctrl c;
	int seed, i;

	for (seed = 0; seed < 8; seed++) {
		u64 now = 0, max_rate;

		vg_prng_seed(&r, 1000 + seed);
		max_rate = vg_prng_range(&r, 1, VG_RATE_MAX);
		vg_ctrl_default_cfg(&cfg, max_rate, vg_prng_range(&r, 0, 1000000000),
				    vg_prng_range(&r, 1, VG_SPLIT_MAX_CHUNK));
		cfg.target_p99_ns = vg_prng_range(&r, 0, 3) ?
				    vg_prng_range(&r, 1, 100 * US) : 0;
		cfg.step = vg_prng_range(&r, 1, max_rate);
		cfg.period_ns = vg_prng_range(&r, 1, 100 * US);
		cfg.flags = vg_prng_range(&r, 0, 1) ? VG_CTRL_LAT_EACH : 0;
		KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &cfg, now), 0);
		for (i = 0; i < 20000; i++) {
			now += vg_prng_range(&r, 0, 2 * cfg.period_ns);
			if (!vg_prng_range(&r, 0, 50)) {
				u32 nl = vg_prng_range(&r, 0, 3);
				u64 wb = vg_prng_range(&r, 0, 40000);
				u64 wt = vg_prng_range(&r, 0, 40000);
				u32 wl = nl ? vg_prng_range(&r, 1, 10000) : 0;
				struct vg_class_weights cw;

				cw = cw_of(wb, wt, nl * wl, nl, wl);
				vg_ctrl_set_weights(&c, &cw);
			} else {
				u64 p99 = vg_prng_range(&r, 0, 2 *
							cfg.target_p99_ns + 1);

				vg_ctrl_update(&c, now, p99);
			}
			KUNIT_ASSERT_GE(test, c.rmin, 1ULL);
			KUNIT_ASSERT_LE(test, c.rmin, max_rate);
			KUNIT_ASSERT_GE(test, c.safe, c.rmin);
			KUNIT_ASSERT_LE(test, c.safe, max_rate);
			if (!c.nlat)
				KUNIT_ASSERT_EQ(test, c.safe, max_rate);
			KUNIT_ASSERT_TRUE(test, c.chunk == cfg.chunk_nolat ||
					  c.chunk == cfg.table[0].chunk);
			KUNIT_ASSERT_LE(test, c.chunk, cfg.max_chunk);
			KUNIT_ASSERT_GE(test, c.chunk, 1U);
		}
	}
}

static struct kunit_case vg_ctrl_cases[] = {
	KUNIT_CASE_PARAM(ctrl_default_cfg, ctrl_default_cfg_gen_params),
	KUNIT_CASE_PARAM(ctrl_bad_cfg, ctrl_bad_cfg_gen_params),
	KUNIT_CASE(ctrl_rmin),
	KUNIT_CASE(ctrl_aimd),
	KUNIT_CASE(ctrl_chunk_table),
	KUNIT_CASE(ctrl_chunk_throughput),
	KUNIT_CASE(ctrl_random_bounds),
	{}
};

static struct kunit_suite vg_ctrl_suite = {
	.name = "verbsgate-ctrl",
	.test_cases = vg_ctrl_cases,
};

kunit_test_suites(&vg_ctrl_suite);
