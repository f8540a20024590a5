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

static int check(struct vg_ctrl_cfg *cfg)
{
	return vg_ctrl_check_cfg(cfg);
}

static void ctrl_bad_cfg(struct kunit *test)
{
	struct vg_ctrl_cfg cfg, ok;
	struct vg_ctrl c;

	vg_ctrl_default_cfg(&ok, MAXRATE, MAXOPS, VG_SPLIT_MAX_CHUNK);
	KUNIT_EXPECT_EQ(test, check(&ok), 0);
	KUNIT_EXPECT_EQ(test, ok.chunk_nolat, 1U << 20);
	KUNIT_EXPECT_EQ(test, ok.table[0].chunk, 5120U);

	cfg = ok;
	cfg.max_rate = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.max_rate = VG_RATE_MAX + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.max_ops = VG_RATE_MAX + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.step = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.step = MAXRATE + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.period_ns = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg = ok;
	cfg.flags = BIT(5);
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	/* Chunk sizes: 0, and above the device maximum. */
	cfg = ok;
	cfg.chunk_nolat = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg = ok;
	cfg.max_chunk = 4096;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg.max_chunk = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.max_chunk = VG_SPLIT_MAX_CHUNK + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.table[0].chunk = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.table[0].chunk = VG_SPLIT_MAX_CHUNK + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.table[0].util_ppm = VG_PPM + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -ERANGE);
	cfg = ok;
	cfg.ntable = 0;
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.ntable = VG_CTRL_MAX_TABLE + 1;
	KUNIT_EXPECT_EQ(test, check(&cfg), -E2BIG);
	/* Unsorted tables. */
	cfg = ok;
	cfg.ntable = 2;
	cfg.table[1] = (struct vg_chunk_ent){ .chunk = 4096,
					      .util_ppm = VG_PPM };
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.table[0].util_ppm = 500000;
	cfg.table[1] = (struct vg_chunk_ent){ .chunk = 8192,
					      .util_ppm = 400000 };
	KUNIT_EXPECT_EQ(test, check(&cfg), -EINVAL);
	cfg.table[1].util_ppm = 600000;
	KUNIT_EXPECT_EQ(test, check(&cfg), 0);

	cfg.period_ns = 0;
	KUNIT_EXPECT_EQ(test, vg_ctrl_init(&c, &cfg, 0), -EINVAL);
	KUNIT_ASSERT_EQ(test, vg_ctrl_init(&c, &ok, 0), 0);
	KUNIT_EXPECT_EQ(test, vg_ctrl_set_cfg(&c, &cfg), -EINVAL);
	KUNIT_EXPECT_EQ(test, c.cfg.period_ns, ok.period_ns);

	/* A device whose largest message is below the defaults. */
	vg_ctrl_default_cfg(&cfg, MAXRATE, 0, 4096);
	KUNIT_EXPECT_EQ(test, check(&cfg), 0);
	KUNIT_EXPECT_EQ(test, cfg.chunk_nolat, 4096U);
	KUNIT_EXPECT_EQ(test, cfg.table[0].chunk, 4096U);
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
	KUNIT_CASE(ctrl_bad_cfg),
	KUNIT_CASE(ctrl_rmin),
	KUNIT_CASE(ctrl_aimd),
	KUNIT_CASE(ctrl_chunk_table),
	KUNIT_CASE(ctrl_random_bounds),
	{}
};

static struct kunit_suite vg_ctrl_suite = {
	.name = "verbsgate-ctrl",
	.test_cases = vg_ctrl_cases,
};

kunit_test_suites(&vg_ctrl_suite);
