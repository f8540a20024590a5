// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a tenant's quota of a held resource (kmod/core/quota.c).
 */
#include <kunit/test.h>

#include "quota.h"

#define MIB	(1024ULL * 1024)

/* Up to the quota exactly, not a byte past it. */
static void quota_fills_to_the_limit(struct kunit *test)
{
	u64 held = 0, add = 0;
	int i;

	for (i = 0; i < 4; i++) {
		KUNIT_ASSERT_TRUE(test, vg_quota_grant(held, 4 * MIB, MIB, &add));
		KUNIT_EXPECT_EQ(test, add, MIB);
		held += add;
	}
	KUNIT_EXPECT_FALSE(test, vg_quota_grant(held, 4 * MIB, 1, &add));
	/* What was given back may be taken again. */
	held -= MIB;
	KUNIT_EXPECT_TRUE(test, vg_quota_grant(held, 4 * MIB, MIB, &add));
}

/* One registration larger than the quota, and one that would wrap. */
static void quota_refuses_what_cannot_fit(struct kunit *test)
{
	u64 add = 7;

	KUNIT_EXPECT_FALSE(test, vg_quota_grant(0, MIB, MIB + 1, &add));
	KUNIT_EXPECT_FALSE(test, vg_quota_grant(MIB, 2 * MIB, U64_MAX, &add));
	KUNIT_EXPECT_FALSE(test, vg_quota_grant(U64_MAX - 1, U64_MAX, 2, &add));
	/* A refusal leaves @add alone. */
	KUNIT_EXPECT_EQ(test, add, 7ULL);
	/* A held count already over a lowered quota refuses, not wraps. */
	KUNIT_EXPECT_FALSE(test, vg_quota_grant(3 * MIB, MIB, 0, &add));
}

/* No quota: anything goes, and the count saturates rather than wraps. */
static void quota_none_counts_and_saturates(struct kunit *test)
{
	u64 add = 0;

	KUNIT_EXPECT_TRUE(test, vg_quota_grant(0, 0, 1ULL << 40, &add));
	KUNIT_EXPECT_EQ(test, add, 1ULL << 40);
	/* An implicit on-demand MR's length, U64_MAX, next to 4 KiB. */
	KUNIT_EXPECT_TRUE(test, vg_quota_grant(4096, 0, U64_MAX, &add));
	KUNIT_EXPECT_EQ(test, add, U64_MAX - 4096);
	KUNIT_EXPECT_TRUE(test, vg_quota_grant(U64_MAX, 0, 1, &add));
	KUNIT_EXPECT_EQ(test, add, 0ULL);
}

/* A zero-length registration always fits, even at the quota. */
static void quota_zero_fits(struct kunit *test)
{
	u64 add = 9;

	KUNIT_EXPECT_TRUE(test, vg_quota_grant(MIB, MIB, 0, &add));
	KUNIT_EXPECT_EQ(test, add, 0ULL);
}

static struct kunit_case vg_quota_cases[] = {
	KUNIT_CASE(quota_fills_to_the_limit),
	KUNIT_CASE(quota_refuses_what_cannot_fit),
	KUNIT_CASE(quota_none_counts_and_saturates),
	KUNIT_CASE(quota_zero_fits),
	{}
};

static struct kunit_suite vg_quota_suite = {
	.name = "verbsgate-quota",
	.test_cases = vg_quota_cases,
};

kunit_test_suites(&vg_quota_suite);
