// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a tenant's pace of control verbs (kmod/core/verbpace.c).
 */
#include <kunit/test.h>

#include "verbpace.h"

#define MS	1000000ULL
/* A boot-time clock well past any burst's depth. */
#define T0	(1000000ULL * MS)

/* No pace: nothing waits, however many. */
static void verbpace_none(struct kunit *test)
{
	struct vg_verb_pace p = {};
	int i;

	for (i = 0; i < 10000; i++)
		KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 0, 1, true),
				0ULL);
}

/*
 * 100 verbs/s, a burst of 4: a quiet tenant's first five go at once
 * (the burst saved up, and the slot of now), then one every 10 ms.
 */
static void verbpace_burst_then_pace(struct kunit *test)
{
	struct vg_verb_pace p = {};
	int i;

	for (i = 0; i < 5; i++)
		KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, true),
				0ULL);
	for (i = 1; i <= 100; i++)
		KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, true),
				i * 10 * MS);
}

/* A caller that comes back when its turn came waits no more. */
static void verbpace_steady_rate(struct kunit *test)
{
	struct vg_verb_pace p = {};
	u64 now = T0, wait, waited = 0;
	int i;

	for (i = 0; i < 1000; i++) {
		wait = vg_verb_pace_take(&p, now, 1000, 1, true);
		waited += wait;
		now += wait;
	}
	/* 1000 verbs at 1000/s: a second, less the burst and the first. */
	KUNIT_EXPECT_EQ(test, waited, 998 * MS);
}

/* A quiet time saves up a burst, no more. */
static void verbpace_quiet_time(struct kunit *test)
{
	struct vg_verb_pace p = {};
	int i;

	for (i = 0; i < 50; i++)
		vg_verb_pace_take(&p, T0, 100, 8, true);
	/* An hour later: eight and the one of now, then the pace again. */
	for (i = 0; i < 9; i++)
		KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0 + 3600000 * MS,
							100, 8, true), 0ULL);
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0 + 3600000 * MS, 100, 8,
						true), 10 * MS);
}

/*
 * Destroys never wait and push the next turn at most a burst past now:
 * a process that exits with 10 000 objects costs its tenant one burst.
 */
static void verbpace_destroys_charge_a_burst_at_most(struct kunit *test)
{
	struct vg_verb_pace p = {};
	int i;

	for (i = 0; i < 10000; i++)
		KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, false),
				0ULL);
	KUNIT_EXPECT_EQ(test, p.next_ns, T0 + 40 * MS);
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, true),
			40 * MS);
	/* A create/destroy loop pays for both. */
	p.next_ns = 0;
	for (i = 0; i < 5; i++)
		vg_verb_pace_take(&p, T0, 100, 4, true);
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, false), 0ULL);
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, 100, 4, true),
			20 * MS);
}

/*
 * An error storm (tenant/ctrl_pace.c, vg_tenant_qp_error()): each failed
 * work request is charged without waiting, and the QP is back only
 * after the four modify QPs of RESET, INIT, RTR and RTS, which wait. At
 * 100 verbs/s a storm that fails and recovers as fast as it can gets
 * 100 / 5 = 20 rounds a second, its burst aside, not the rate of the
 * modifies alone (25).
 */
static void verbpace_failures_and_recoveries_share_the_pace(struct kunit *test)
{
	struct vg_verb_pace p = {};
	u64 now = T0;
	int rounds = 0, i;

	while (now < T0 + 10000 * MS) {
		vg_verb_pace_take(&p, now, 100, 4, false);
		for (i = 0; i < 4; i++)
			now += vg_verb_pace_take(&p, now, 100, 4, true);
		rounds++;
	}
	/* Ten seconds: 200 rounds, and the first burst's. */
	KUNIT_EXPECT_GE(test, rounds, 200);
	KUNIT_EXPECT_LE(test, rounds, 202);
}

/* Out of range: the largest rate and burst, a burst of at least one. */
static void verbpace_limits(struct kunit *test)
{
	struct vg_verb_pace p = {};
	u64 gap = NSEC_PER_SEC / VG_VERB_RATE_MAX;

	vg_verb_pace_take(&p, T0, U32_MAX, 0, true);
	vg_verb_pace_take(&p, T0, U32_MAX, 0, true);
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, T0, U32_MAX, 0, true),
			gap);
	/* Early after boot: no underflow below 0. */
	p.next_ns = 0;
	KUNIT_EXPECT_EQ(test, vg_verb_pace_take(&p, 5, 1, 1000, true), 0ULL);
}

static struct kunit_case vg_verbpace_cases[] = {
	KUNIT_CASE(verbpace_none),
	KUNIT_CASE(verbpace_burst_then_pace),
	KUNIT_CASE(verbpace_steady_rate),
	KUNIT_CASE(verbpace_quiet_time),
	KUNIT_CASE(verbpace_destroys_charge_a_burst_at_most),
	KUNIT_CASE(verbpace_failures_and_recoveries_share_the_pace),
	KUNIT_CASE(verbpace_limits),
	{}
};

static struct kunit_suite vg_verbpace_suite = {
	.name = "verbsgate-verbpace",
	.test_cases = vg_verbpace_cases,
};

kunit_test_suites(&vg_verbpace_suite);
