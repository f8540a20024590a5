// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the send queue state machine (kmod/core/sqstate.c).
 *
 * The table lists every pair of states once: it is the diagram of
 * sqstate.h written out, so a change to the machine shows here.
 */
#include <kunit/test.h>

#include "sqstate.h"

struct sqstate_case {
	enum vg_sq_state from;
	enum vg_sq_state to;
	bool may;
};

#define MOVE(f, t)	{ VG_SQ_##f, VG_SQ_##t, true }
#define STAY(f, t)	{ VG_SQ_##f, VG_SQ_##t, false }

static const struct sqstate_case sqstate_cases[] = {
	STAY(READY, READY),
	MOVE(READY, ERROR),		/* a failed chunk, modify to ERR */
	MOVE(READY, RESETTING),
	MOVE(READY, CLOSED),
	STAY(READY, RELEASED),		/* destroy closes first */
	STAY(READY, BURIED),

	STAY(ERROR, READY),		/* only a reset clears an error */
	STAY(ERROR, ERROR),
	MOVE(ERROR, RESETTING),
	MOVE(ERROR, CLOSED),
	STAY(ERROR, RELEASED),
	STAY(ERROR, BURIED),

	MOVE(RESETTING, READY),		/* reset done, or refused from READY */
	MOVE(RESETTING, ERROR),		/* refused from ERROR */
	STAY(RESETTING, RESETTING),
	MOVE(RESETTING, CLOSED),	/* the owner destroys meanwhile */
	STAY(RESETTING, RELEASED),
	STAY(RESETTING, BURIED),

	STAY(CLOSED, READY),		/* a closed queue never posts again */
	STAY(CLOSED, ERROR),
	STAY(CLOSED, RESETTING),
	STAY(CLOSED, CLOSED),
	MOVE(CLOSED, RELEASED),
	MOVE(CLOSED, BURIED),		/* CQ destroyed, device removed */

	STAY(RELEASED, READY),
	STAY(RELEASED, ERROR),
	STAY(RELEASED, RESETTING),
	STAY(RELEASED, CLOSED),
	STAY(RELEASED, RELEASED),
	MOVE(RELEASED, BURIED),

	STAY(BURIED, READY),		/* freed: nothing follows */
	STAY(BURIED, ERROR),
	STAY(BURIED, RESETTING),
	STAY(BURIED, CLOSED),
	STAY(BURIED, RELEASED),
	STAY(BURIED, BURIED),

	/* Out of range never moves. */
	{ VG_SQ_NR, VG_SQ_READY, false },
	{ VG_SQ_READY, VG_SQ_NR, false },
	{ (enum vg_sq_state)-1, VG_SQ_ERROR, false },
};

static void sqstate_case_desc(const struct sqstate_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s -> %s",
		 vg_sq_state_name(c->from), vg_sq_state_name(c->to));
}

KUNIT_ARRAY_PARAM(sqstate_move, sqstate_cases, sqstate_case_desc);

static void sqstate_move(struct kunit *test)
{
	const struct sqstate_case *c = test->param_value;

	KUNIT_EXPECT_EQ(test, vg_sq_may_move(c->from, c->to), c->may);
}

/* Every state has a name of its own; the table above covers all pairs. */
static void sqstate_names(struct kunit *test)
{
	unsigned int s, t;

	KUNIT_EXPECT_EQ(test, ARRAY_SIZE(sqstate_cases),
			(size_t)VG_SQ_NR * VG_SQ_NR + 3);
	for (s = 0; s < VG_SQ_NR; s++) {
		KUNIT_EXPECT_NE(test, strcmp(vg_sq_state_name(s), "invalid"), 0);
		for (t = 0; t < s; t++)
			KUNIT_EXPECT_NE(test, strcmp(vg_sq_state_name(s),
						     vg_sq_state_name(t)), 0);
	}
	KUNIT_EXPECT_EQ(test, strcmp(vg_sq_state_name(VG_SQ_NR), "invalid"), 0);
}

static struct kunit_case vg_sqstate_cases[] = {
	KUNIT_CASE_PARAM(sqstate_move, sqstate_move_gen_params),
	KUNIT_CASE(sqstate_names),
	{}
};

static struct kunit_suite vg_sqstate_suite = {
	.name = "verbsgate-sqstate",
	.test_cases = vg_sqstate_cases,
};

kunit_test_suites(&vg_sqstate_suite);
