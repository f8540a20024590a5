// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for a tenant's bounds on its QPs' retry attributes
 * (kmod/core/qpbounds.c): what a modify QP asks for, what it gets.
 */
#include <kunit/test.h>

#include "qpbounds.h"

#define MS(n)	((n) * 1000000ULL)
#define US(n)	((n) * 1000ULL)

/* What an attacker's QPs ask for (Husky's RNR storm): 0.01 ms, forever. */
static const struct vg_qp_retry_attr storm = {
	.rnr_retry = 7, .retry_cnt = 7, .min_rnr_timer = 1, .timeout = 1,
	.max_rd_atomic = 128,
};

#define ALL_ATTRS	(VG_QPA_RNR_RETRY | VG_QPA_RETRY_CNT |		\
			 VG_QPA_MIN_RNR_TIMER | VG_QPA_TIMEOUT |	\
			 VG_QPA_MAX_RD_ATOMIC)

struct qpbounds_case {
	const char *name;
	struct vg_qp_bounds b;
	u32 mask;
	struct vg_qp_retry_attr in;
	struct vg_qp_retry_attr out;
	u32 changed;
};

/* Bounds: RNR retries, retries, RNR timer, ACK timeout (ns), READ depth. */
#define B(rnr, retry, timer, timeout, rd)				\
	{ .rnr_retry_max = (rnr), .retry_cnt_max = (retry),		\
	  .rnr_timer_min_ns = (timer), .timeout_min_ns = (timeout),	\
	  .rd_atomic_max = (rd) }

static const struct qpbounds_case qpbounds_cases[] = {
	{ "no bound changes nothing", B(7, 7, 0, 0, 0), ALL_ATTRS,
	  storm, storm, 0 },
	{ "rnr_retry forever becomes the bound",
	  B(3, 7, 0, 0, 0), ALL_ATTRS,
	  storm, { 3, 7, 1, 1, 128 }, VG_QPA_RNR_RETRY },
	{ "rnr_retry within the bound stays",
	  B(3, 7, 0, 0, 0), ALL_ATTRS,
	  { 2, 7, 1, 1, 128 }, { 2, 7, 1, 1, 128 }, 0 },
	{ "a bound of 0 forbids RNR retries",
	  B(0, 7, 0, 0, 0), ALL_ATTRS,
	  storm, { 0, 7, 1, 1, 128 }, VG_QPA_RNR_RETRY },
	{ "retry_cnt above the bound",
	  B(7, 2, 0, 0, 0), ALL_ATTRS,
	  storm, { 7, 2, 1, 1, 128 }, VG_QPA_RETRY_CNT },
	/* 1.28 ms is code 14 exactly; 1 ms rounds up to it too. */
	{ "RNR timer raised to the floor",
	  B(7, 7, MS(1), 0, 0), ALL_ATTRS,
	  storm, { 7, 7, 14, 1, 128 }, VG_QPA_MIN_RNR_TIMER },
	{ "RNR timer on the floor stays",
	  B(7, 7, US(1280), 0, 0), ALL_ATTRS,
	  { 7, 7, 14, 1, 128 }, { 7, 7, 14, 1, 128 }, 0 },
	/* Code 0 is 655.36 ms, the longest, though the smallest code. */
	{ "RNR timer code 0 is the longest",
	  B(7, 7, MS(600), 0, 0), ALL_ATTRS,
	  { 7, 7, 0, 1, 128 }, { 7, 7, 0, 1, 128 }, 0 },
	{ "RNR timer above 491.52 ms is code 0",
	  B(7, 7, MS(500), 0, 0), ALL_ATTRS,
	  { 7, 7, 31, 1, 128 }, { 7, 7, 0, 1, 128 }, VG_QPA_MIN_RNR_TIMER },
	{ "RNR timer floor at the top",
	  B(7, 7, VG_RNR_TIMER_MAX_NS, 0, 0), ALL_ATTRS,
	  { 7, 7, 31, 1, 128 }, { 7, 7, 0, 1, 128 }, VG_QPA_MIN_RNR_TIMER },
	/* 4.096 us * 2^14 = 67.1 ms: the first at least 50 ms. */
	{ "ACK timeout raised to the floor",
	  B(7, 7, 0, MS(50), 0), ALL_ATTRS,
	  storm, { 7, 7, 1, 14, 128 }, VG_QPA_TIMEOUT },
	{ "an infinite ACK timeout stays",
	  B(7, 7, 0, MS(50), 0), ALL_ATTRS,
	  { 7, 7, 1, 0, 128 }, { 7, 7, 1, 0, 128 }, 0 },
	{ "ACK timeout floor at the top",
	  B(7, 7, 0, VG_ACK_TIMEOUT_MAX_NS, 0), ALL_ATTRS,
	  storm, { 7, 7, 1, 31, 128 }, VG_QPA_TIMEOUT },
	{ "READ depth above the bound",
	  B(7, 7, 0, 0, 4), ALL_ATTRS,
	  storm, { 7, 7, 1, 1, 4 }, VG_QPA_MAX_RD_ATOMIC },
	{ "every bound at once",
	  B(3, 3, MS(1), MS(50), 4), ALL_ATTRS,
	  storm, { 3, 3, 14, 14, 4 }, ALL_ATTRS },
	/* A modify that does not carry an attribute leaves it alone. */
	{ "only the fields the modify carries",
	  B(3, 3, MS(1), MS(50), 4), VG_QPA_MIN_RNR_TIMER,
	  storm, { 7, 7, 14, 1, 128 }, VG_QPA_MIN_RNR_TIMER },
	{ "nothing carried, nothing changed",
	  B(0, 0, MS(1), MS(50), 1), 0,
	  storm, storm, 0 },
	/* Codes the verbs do not define are the driver's to refuse. */
	{ "codes out of range are left to the driver",
	  B(7, 7, MS(1), MS(50), 0),
	  ALL_ATTRS,
	  { 7, 7, 32, 32, 128 }, { 7, 7, 32, 32, 128 }, 0 },
};

static void qpbounds_case_desc(const struct qpbounds_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(qpbounds_apply, qpbounds_cases, qpbounds_case_desc);

static void qpbounds_apply(struct kunit *test)
{
	const struct qpbounds_case *c = test->param_value;
	struct vg_qp_retry_attr a = c->in;

	KUNIT_ASSERT_EQ(test, vg_qp_bounds_check(&c->b), 0);
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_apply(&c->b, c->mask, &a),
			c->changed);
	KUNIT_EXPECT_EQ(test, a.rnr_retry, c->out.rnr_retry);
	KUNIT_EXPECT_EQ(test, a.retry_cnt, c->out.retry_cnt);
	KUNIT_EXPECT_EQ(test, a.min_rnr_timer, c->out.min_rnr_timer);
	KUNIT_EXPECT_EQ(test, a.timeout, c->out.timeout);
	KUNIT_EXPECT_EQ(test, a.max_rd_atomic, c->out.max_rd_atomic);
	/* Applying again changes nothing: a clamped modify is within bounds. */
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_apply(&c->b, c->mask, &a), 0U);
}

/*
 * Every code and every floor between codes: the timer given is the
 * shortest one of the table at least the floor.
 */
static void qpbounds_rnr_timer_shortest(struct kunit *test)
{
	u64 floor_ns, got, t;
	unsigned int req, code;

	for (req = 0; req < 32; req++) {
		for (code = 0; code < 32; code++) {
			struct vg_qp_bounds b = VG_QP_BOUNDS_NONE;
			struct vg_qp_retry_attr a = { .min_rnr_timer = req };

			floor_ns = vg_rnr_timer_ns(code) - 1;
			b.rnr_timer_min_ns = floor_ns;
			vg_qp_bounds_apply(&b, VG_QPA_MIN_RNR_TIMER, &a);
			got = vg_rnr_timer_ns(a.min_rnr_timer);
			KUNIT_EXPECT_GE(test, got, floor_ns);
			if (vg_rnr_timer_ns(req) >= floor_ns) {
				KUNIT_EXPECT_EQ(test, a.min_rnr_timer, req);
				continue;
			}
			/* No code lies between the floor and what it gave. */
			for (t = 0; t < 32; t++) {
				u64 ns = vg_rnr_timer_ns(t);

				KUNIT_EXPECT_FALSE(test,
						   ns >= floor_ns && ns < got);
			}
		}
	}
}

static void qpbounds_tables(struct kunit *test)
{
	KUNIT_EXPECT_EQ(test, vg_rnr_timer_ns(0), VG_RNR_TIMER_MAX_NS);
	KUNIT_EXPECT_EQ(test, vg_rnr_timer_ns(1), US(10));
	KUNIT_EXPECT_EQ(test, vg_rnr_timer_ns(12), US(640));
	KUNIT_EXPECT_EQ(test, vg_rnr_timer_ns(31), US(491520));
	KUNIT_EXPECT_EQ(test, vg_rnr_timer_ns(32), 0ULL);
	KUNIT_EXPECT_EQ(test, vg_ack_timeout_ns(0), U64_MAX);
	KUNIT_EXPECT_EQ(test, vg_ack_timeout_ns(1), 8192ULL);
	KUNIT_EXPECT_EQ(test, vg_ack_timeout_ns(31), VG_ACK_TIMEOUT_MAX_NS);
	KUNIT_EXPECT_EQ(test, vg_ack_timeout_ns(32), 0ULL);
}

static void qpbounds_check_ranges(struct kunit *test)
{
	struct vg_qp_bounds b = VG_QP_BOUNDS_NONE;

	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), 0);
	b.rnr_retry_max = 8;
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), -ERANGE);
	b = VG_QP_BOUNDS_NONE;
	b.retry_cnt_max = 8;
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), -ERANGE);
	b = VG_QP_BOUNDS_NONE;
	b.rnr_timer_min_ns = VG_RNR_TIMER_MAX_NS + 1;
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), -ERANGE);
	b = VG_QP_BOUNDS_NONE;
	b.timeout_min_ns = VG_ACK_TIMEOUT_MAX_NS + 1;
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), -ERANGE);
	b = VG_QP_BOUNDS_NONE;
	b.rd_atomic_max = 255;
	KUNIT_EXPECT_EQ(test, vg_qp_bounds_check(&b), 0);
}

static struct kunit_case vg_qpbounds_cases[] = {
	KUNIT_CASE_PARAM(qpbounds_apply, qpbounds_apply_gen_params),
	KUNIT_CASE(qpbounds_rnr_timer_shortest),
	KUNIT_CASE(qpbounds_tables),
	KUNIT_CASE(qpbounds_check_ranges),
	{}
};

static struct kunit_suite vg_qpbounds_suite = {
	.name = "verbsgate-qpbounds",
	.test_cases = vg_qpbounds_cases,
};

kunit_test_suites(&vg_qpbounds_suite);
