// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate tail-latency window (kmod/core/window.c).
 */
#include <kunit/test.h>
#include <linux/sort.h>

#include "vg_prng.h"
#include "window.h"

static struct vg_window *window_new(struct kunit *test, u32 cap)
{
	struct vg_window *w;
	size_t sz = vg_window_size(cap);

	KUNIT_ASSERT_NE(test, sz, (size_t)0);
	w = kunit_kzalloc(test, sz, GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, w);
	KUNIT_ASSERT_EQ(test, vg_window_init(w, cap), 0);
	return w;
}

/* |got - want| <= want / 2^(SUB_BITS + 1), computed without overflow. */
static bool within_accuracy(u64 got, u64 want)
{
	u64 diff = got > want ? got - want : want - got;

	return diff <= want >> (VG_WIN_SUB_BITS + 1);
}

/*
 * Capacities vg_window_size() and vg_window_init() refuse: the size is 0
 * and init fails with -EINVAL, leaving an existing window untouched.
 */
struct window_cap_case {
	const char *name;
	u32 cap;
};

static const struct window_cap_case window_bad_cap_cases[] = {
	{ "capacity 0", 0 },
	{ "capacity VG_WIN_MAX_CAP + 1", VG_WIN_MAX_CAP + 1 },
	{ "capacity U32_MAX", U32_MAX },
};

static void window_cap_desc(const struct window_cap_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(window_bad_cap, window_bad_cap_cases, window_cap_desc);

static void window_bad_cap(struct kunit *test)
{
	const struct window_cap_case *tc = test->param_value;
	struct vg_window *w = window_new(test, 16);
	size_t sz = vg_window_size(16);
	struct vg_window *old = kunit_kzalloc(test, sz, GFP_KERNEL);

	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, old);
	vg_window_insert(w, 5);
	memcpy(old, w, sz);
	KUNIT_EXPECT_EQ(test, vg_window_size(tc->cap), (size_t)0);
	KUNIT_EXPECT_EQ(test, vg_window_init(w, tc->cap), -EINVAL);
	KUNIT_EXPECT_EQ(test, memcmp(w, old, sz), 0);
}

/*
 * vg_window_quantiles() on a window of @nsamples samples of 5 ns: the
 * error it returns, or 0 and @want_out in every result. A failed call
 * writes no result.
 */
struct window_quantile_case {
	const char *name;
	u32 nsamples;
	u32 ppm[3];
	unsigned int n;
	int want;
	u64 want_out;
};

static const struct window_quantile_case window_quantile_cases[] = {
	{ "empty window", 0, { 990000 }, 1, -ENODATA },
	{ "empty window, no quantiles", 0, { 0 }, 0, -ENODATA },
	{ "quantile VG_PPM + 1", 1, { VG_PPM + 1 }, 1, -EINVAL },
	{ "quantile U32_MAX", 1, { U32_MAX }, 1, -EINVAL },
	{ "quantiles unsorted", 1, { 990000, 500000 }, 2, -EINVAL },
	{ "last quantile unsorted", 1, { 0, 990000, 500000 }, 3, -EINVAL },
	{ "last quantile above VG_PPM", 1, { 0, VG_PPM, VG_PPM + 1 }, 3,
	  -EINVAL },
	{ "quantile VG_PPM is the largest sample", 1, { VG_PPM }, 1, 0, 5 },
	{ "quantile 0 is the smallest sample", 1, { 0 }, 1, 0, 5 },
	{ "equal quantiles are sorted", 1, { 500000, 500000 }, 2, 0, 5 },
};

static void window_quantile_desc(const struct window_quantile_case *c,
				 char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(window_bad_quantile, window_quantile_cases,
		  window_quantile_desc);

static void window_bad_quantile(struct kunit *test)
{
	const struct window_quantile_case *tc = test->param_value;
	struct vg_window *w = window_new(test, 16);
	u64 out[ARRAY_SIZE(tc->ppm)];
	unsigned int i;

	for (i = 0; i < tc->nsamples; i++)
		vg_window_insert(w, 5);
	for (i = 0; i < ARRAY_SIZE(out); i++)
		out[i] = U64_MAX;
	KUNIT_ASSERT_EQ(test, vg_window_quantiles(w, tc->ppm, out, tc->n),
			tc->want);
	for (i = 0; i < ARRAY_SIZE(out); i++)
		KUNIT_EXPECT_EQ_MSG(test, out[i],
				    !tc->want && i < tc->n ? tc->want_out :
							     U64_MAX,
				    "result %u", i);
}

/* Buckets tile the u64 range in order and every value is within accuracy. */
static void window_buckets(struct kunit *test)
{
	u32 idx, prev = 0;
	int k;

	KUNIT_EXPECT_EQ(test, vg_window_bucket(0), 0U);
	KUNIT_EXPECT_EQ(test, vg_window_bucket(U64_MAX), VG_WIN_NBUCKETS - 1);
	for (idx = 0; idx < 2 * VG_WIN_SUB; idx++) {
		KUNIT_EXPECT_EQ(test, vg_window_bucket(idx), idx);
		KUNIT_EXPECT_EQ(test, vg_window_bucket_value(idx), (u64)idx);
	}
	/* Around every power of two, and at both ends of each bucket. */
	for (k = 1; k < 64; k++) {
		u64 p = 1ULL << k;
		u64 v[3] = { p - 1, p, p + 1 };
		int j;

		for (j = 0; j < 3; j++) {
			u64 rep;

			idx = vg_window_bucket(v[j]);
			rep = vg_window_bucket_value(idx);
			KUNIT_EXPECT_GE(test, idx, prev);
			KUNIT_EXPECT_TRUE(test, within_accuracy(rep, v[j]));
			KUNIT_EXPECT_EQ(test, vg_window_bucket(rep), idx);
			prev = idx;
		}
	}
	/* Consecutive buckets are adjacent: idx + 1 starts where idx ends. */
	for (idx = 2 * VG_WIN_SUB; idx < VG_WIN_NBUCKETS - 1; idx++) {
		u32 e = (idx >> VG_WIN_SUB_BITS) - 1;
		u64 lo = (u64)((idx & (VG_WIN_SUB - 1)) + VG_WIN_SUB) << e;
		u64 hi = lo + (1ULL << e) - 1;
		u64 rep = vg_window_bucket_value(idx);

		KUNIT_EXPECT_EQ(test, vg_window_bucket(lo), idx);
		KUNIT_EXPECT_EQ(test, vg_window_bucket(hi), idx);
		KUNIT_EXPECT_EQ(test, vg_window_bucket(hi + 1), idx + 1);
		KUNIT_EXPECT_TRUE(test, within_accuracy(rep, lo));
		KUNIT_EXPECT_TRUE(test, within_accuracy(rep, hi));
	}
}

static void window_exact_small(struct kunit *test)
{
	static const u32 ppm[] = { 0, 10000, 500000, 990000, 999000, VG_PPM };
	static const u64 want[] = { 1, 1, 50, 99, 100, 100 };
	struct vg_window *w = window_new(test, 100);
	u64 out[ARRAY_SIZE(ppm)];
	unsigned int i;

	/* Insert 100..1 so that order of arrival does not matter. */
	for (i = 100; i >= 1; i--)
		vg_window_insert(w, i);
	KUNIT_EXPECT_EQ(test, vg_window_count(w), 100U);
	KUNIT_ASSERT_EQ(test, vg_window_quantiles(w, ppm, out, ARRAY_SIZE(ppm)),
			0);
	for (i = 0; i < ARRAY_SIZE(ppm); i++)
		KUNIT_EXPECT_EQ_MSG(test, out[i], want[i], "ppm %u", ppm[i]);
}

/* Only the last @cap samples count; reset empties the window. */
static void window_slides(struct kunit *test)
{
	struct vg_window *w = window_new(test, 4);
	u64 v;
	int i;

	for (i = 0; i < 10; i++)
		vg_window_insert(w, i < 6 ? 1000000 : 10 + i);
	/* Window holds 16, 17, 18, 19. */
	KUNIT_EXPECT_EQ(test, vg_window_count(w), 4U);
	KUNIT_ASSERT_EQ(test, vg_window_quantile(w, VG_PPM, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 19ULL);
	KUNIT_ASSERT_EQ(test, vg_window_quantile(w, 0, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 16ULL);
	KUNIT_ASSERT_EQ(test, vg_window_quantile(w, 500000, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 17ULL);

	vg_window_reset(w);
	KUNIT_EXPECT_EQ(test, vg_window_count(w), 0U);
	KUNIT_EXPECT_EQ(test, vg_window_quantile(w, 0, &v), -ENODATA);
	vg_window_insert(w, 7);
	KUNIT_ASSERT_EQ(test, vg_window_quantile(w, 990000, &v), 0);
	KUNIT_EXPECT_EQ(test, v, 7ULL);
}

static int cmp_u64(const void *a, const void *b)
{
	u64 x = *(const u64 *)a, y = *(const u64 *)b;

	return x < y ? -1 : x > y;
}

/* Exact nearest-rank quantile of sorted @v[0..n). */
static u64 exact_quantile(const u64 *v, u32 n, u32 ppm)
{
	u64 r = div_u64((u64)ppm * n + VG_PPM - 1, VG_PPM);

	return v[clamp_t(u64, r, 1, n) - 1];
}

static const u32 check_ppm[] = { 0, 1, 500000, 900000, 990000, 999000,
				 999999, VG_PPM };

/* Compare @w with an exact sort of its samples, the last @n of @hist. */
static void check_against_sort(struct kunit *test, const struct vg_window *w,
			       const u64 *hist, u64 *sorted, u32 n)
{
	u64 got[ARRAY_SIZE(check_ppm)];
	unsigned int q;

	memcpy(sorted, hist, n * sizeof(u64));
	sort(sorted, n, sizeof(u64), cmp_u64, NULL);
	KUNIT_ASSERT_EQ(test, vg_window_count(w), n);
	KUNIT_ASSERT_EQ(test, vg_window_quantiles(w, check_ppm, got,
						  ARRAY_SIZE(check_ppm)), 0);
	for (q = 0; q < ARRAY_SIZE(check_ppm); q++) {
		u64 want = exact_quantile(sorted, n, check_ppm[q]);

		KUNIT_EXPECT_TRUE_MSG(test, within_accuracy(got[q], want),
				      "cap %u ppm %u got %llu want %llu",
				      w->cap, check_ppm[q], got[q], want);
	}
}

/*
 * Property: against an exact sort of the last @cap samples, every reported
 * quantile is within the stated relative accuracy, for several seeds,
 * capacities and value distributions (log-uniform over the whole u64 range,
 * or latency-like: a narrow body plus a heavy tail), checked a dozen times
 * along a stream three times longer than the window.
 */
static void window_random_vs_sort(struct kunit *test)
{
	static const u32 caps[] = { 1, 7, 1000, VG_WIN_DEFAULT_CAP };
	u64 *hist, *sorted;
	unsigned int c;

	hist = kunit_kcalloc(test, 3 * VG_WIN_DEFAULT_CAP, sizeof(u64),
			     GFP_KERNEL);
	sorted = kunit_kcalloc(test, VG_WIN_DEFAULT_CAP, sizeof(u64),
			       GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, hist);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, sorted);

	for (c = 0; c < ARRAY_SIZE(caps); c++) {
		u32 cap = caps[c], n_ins = 3 * cap, step = n_ins / 12 + 1, i;
		struct vg_window *w = window_new(test, cap);
		struct vg_prng r;

		vg_prng_seed(&r, 0x5eed0000 + c);
		for (i = 0; i < n_ins; i++) {
			u64 v;

			if (c & 1)	/* log-uniform */
				v = vg_prng_next(&r) >> vg_prng_range(&r, 0, 63);
			else if (vg_prng_range(&r, 0, 99))	/* body */
				v = vg_prng_range(&r, 15000, 40000);
			else		/* tail */
				v = vg_prng_range(&r, 40000, 300000000);
			hist[i] = v;
			vg_window_insert(w, v);
			if ((i + 1) % step == 0 || i + 1 == n_ins) {
				u32 n = min_t(u32, i + 1, cap);

				check_against_sort(test, w, &hist[i + 1 - n],
						   sorted, n);
			}
		}
	}
}

static struct kunit_case vg_window_cases[] = {
	KUNIT_CASE_PARAM(window_bad_cap, window_bad_cap_gen_params),
	KUNIT_CASE_PARAM(window_bad_quantile,
			 window_bad_quantile_gen_params),
	KUNIT_CASE(window_buckets),
	KUNIT_CASE(window_exact_small),
	KUNIT_CASE(window_slides),
	KUNIT_CASE(window_random_vs_sort),
	{}
};

static struct kunit_suite vg_window_suite = {
	.name = "verbsgate-window",
	.test_cases = vg_window_cases,
};

kunit_test_suites(&vg_window_suite);
