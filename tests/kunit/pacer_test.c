// SPDX-License-Identifier: GPL-2.0-only
/*
 * KUnit tests for the verbsgate token cost model (kmod/core/token.c), the
 * EDT rate arithmetic (rate.h) and the device pacer (kmod/core/pacer.c).
 */
#include <kunit/test.h>

#include "pacer.h"
#include "token.h"
#include "vg_prng.h"

static void token_model(struct kunit *test)
{
	struct vg_cost_model m;
	struct vg_token t;

	vg_cost_model_default(&m);
	vg_cost(&m, VG_OP_WRITE, 16, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 216ULL);
	KUNIT_EXPECT_EQ(test, t.ops, 1U);
	vg_cost(&m, VG_OP_READ, 1 << 20, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, (1ULL << 20) + 200);
	vg_cost(&m, VG_OP_ATOMIC_FETCH_ADD, 8, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 408ULL);
	KUNIT_EXPECT_EQ(test, t.ops, 2U);
	vg_cost(&m, VG_OP_REG_MR, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 4096ULL);
	KUNIT_EXPECT_EQ(test, t.ops, 8U);
	vg_cost(&m, VG_OP_LOCAL_INV, 0, 0, &t);
	KUNIT_EXPECT_EQ(test, t.ops, 8U);
	vg_cost(&m, VG_OP_SEND_IMM, U32_MAX, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, (u64)U32_MAX + 200);

	KUNIT_EXPECT_EQ(test, vg_cost_model_set(&m, VG_OPC_NR, 1, 1), -EINVAL);
	KUNIT_EXPECT_EQ(test, vg_cost_model_set(&m, VG_OPC_DATA, 1, 0), -EINVAL);
	KUNIT_EXPECT_EQ(test, vg_cost_model_set(&m, VG_OPC_DATA,
						VG_OP_BYTES_MAX + 1, 1), -ERANGE);
	KUNIT_EXPECT_EQ(test, vg_cost_model_set(&m, VG_OPC_DATA, 1,
						VG_OP_UNITS_MAX + 1), -ERANGE);
	vg_cost(&m, VG_OP_WRITE, 16, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 216ULL);
	KUNIT_EXPECT_EQ(test, vg_cost_model_set(&m, VG_OPC_DATA, 0, 3), 0);
	vg_cost(&m, VG_OP_SEND, 16, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 16ULL);
	KUNIT_EXPECT_EQ(test, t.ops, 3U);
}

/* Each packet's headers at the port: payload over the path MTU. */
static void token_packets(struct kunit *test)
{
	struct vg_cost_model m;
	struct vg_token t;

	vg_cost_model_default(&m);
	KUNIT_EXPECT_EQ(test, vg_cost_model_set_pkt(&m, VG_PKT_BYTES_MAX + 1),
			-ERANGE);
	KUNIT_EXPECT_EQ(test, m.pkt_bytes, 0U);
	KUNIT_ASSERT_EQ(test, vg_cost_model_set_pkt(&m, 58), 0);
	/* 4 KB at MTU 1024: four packets. */
	vg_cost(&m, VG_OP_WRITE, 4096, 1024, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 4096ULL + 200 + 4 * 58);
	/* One byte over: a fifth, short one. */
	vg_cost(&m, VG_OP_READ, 4097, 1024, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 4097ULL + 200 + 5 * 58);
	/* An empty SEND and an atomic still send a packet. */
	vg_cost(&m, VG_OP_SEND, 0, 1024, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 200ULL + 58);
	vg_cost(&m, VG_OP_ATOMIC_CMP_SWP, 8, 4096, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 8ULL + 400 + 58);
	/* The MTU unknown: one packet. */
	vg_cost(&m, VG_OP_WRITE, 1 << 20, 0, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, (1ULL << 20) + 200 + 58);
	/* A local operation sends none. */
	vg_cost(&m, VG_OP_REG_MR, 0, 1024, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, 4096ULL);
	/*
	 * The largest: a whole message at the smallest MTU, with the most
	 * per packet and per operation, is still one charge for the pacer.
	 */
	KUNIT_ASSERT_EQ(test, vg_cost_model_set_pkt(&m, VG_PKT_BYTES_MAX), 0);
	KUNIT_ASSERT_EQ(test, vg_cost_model_set(&m, VG_OPC_DATA,
						VG_OP_BYTES_MAX, 1), 0);
	vg_cost(&m, VG_OP_WRITE, VG_MAX_MSG, 256, &t);
	KUNIT_EXPECT_EQ(test, t.bytes, (u64)VG_MAX_MSG + VG_OP_BYTES_MAX +
			(VG_MAX_MSG / 256) * VG_PKT_BYTES_MAX);
	KUNIT_EXPECT_LE(test, t.bytes, VG_COST_MAX);
}

static void rate_exact(struct kunit *test)
{
	struct vg_edt t = { .ns = 1000 };
	struct vg_rate r;
	int i;

	KUNIT_EXPECT_EQ(test, vg_rate_set(&r, VG_RATE_MAX + 1), -ERANGE);
	KUNIT_ASSERT_EQ(test, vg_rate_set(&r, 3), 0);
	/* 3 units at 3/s is one second, despite 1/3 s not being exact. */
	for (i = 0; i < 3; i++)
		vg_edt_advance(&t, &r, 1);
	KUNIT_EXPECT_LE(test, t.ns, 1000ULL + NSEC_PER_SEC);
	KUNIT_EXPECT_GE(test, t.ns, 1000ULL + NSEC_PER_SEC - 1);

	/* 10^9 one-byte charges at 10 GB/s: 0.1 s within a nanosecond. */
	KUNIT_ASSERT_EQ(test, vg_rate_set(&r, 10000000000ULL), 0);
	t.ns = 0;
	t.frac = 0;
	vg_edt_advance(&t, &r, 1000000000ULL);
	KUNIT_EXPECT_LE(test, t.ns, 100000000ULL);
	KUNIT_EXPECT_GE(test, t.ns, 100000000ULL - 1);

	/* The largest cost at the lowest rate does not overflow. */
	KUNIT_ASSERT_EQ(test, vg_rate_set(&r, 1), 0);
	KUNIT_EXPECT_EQ(test, vg_rate_ns(&r, VG_COST_MAX),
			VG_COST_MAX * NSEC_PER_SEC);
	KUNIT_ASSERT_EQ(test, vg_rate_set(&r, VG_RATE_MAX), 0);
	KUNIT_EXPECT_LE(test, vg_rate_ns(&r, VG_RATE_MAX), (u64)NSEC_PER_SEC);
	KUNIT_EXPECT_GE(test, vg_rate_ns(&r, VG_RATE_MAX),
			(u64)NSEC_PER_SEC - 1);
}

/* Pacer configurations vg_pacer_init() must refuse, and their limits. */
struct pacer_cfg_case {
	const char *name;
	struct vg_pacer_cfg cfg;
	int want;
};

static const struct pacer_cfg_case pacer_bad_cfg_cases[] = {
	{ "byte rate above VG_RATE_MAX",
	  { .byte_rate = VG_RATE_MAX + 1, .op_rate = 10 }, -ERANGE },
	{ "op rate above VG_RATE_MAX",
	  { .byte_rate = 1000, .op_rate = VG_RATE_MAX + 1 }, -ERANGE },
	{ "byte burst above VG_COST_MAX",
	  { .byte_rate = 1000, .op_rate = 10, .burst_bytes = VG_COST_MAX + 1 },
	  -ERANGE },
	{ "op burst above VG_COST_MAX",
	  { .byte_rate = 1000, .op_rate = 10, .burst_ops = VG_COST_MAX + 1 },
	  -ERANGE },
	{ "rates at VG_RATE_MAX, bursts at VG_COST_MAX are accepted",
	  { .byte_rate = VG_RATE_MAX, .op_rate = VG_RATE_MAX,
	    .burst_bytes = VG_COST_MAX, .burst_ops = VG_COST_MAX }, 0 },
	{ "unlimited rates are accepted", { 0 }, 0 },
};

static void pacer_cfg_desc(const struct pacer_cfg_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pacer_bad_cfg, pacer_bad_cfg_cases, pacer_cfg_desc);

static void pacer_bad_cfg(struct kunit *test)
{
	const struct pacer_cfg_case *tc = test->param_value;
	struct vg_pacer p;

	KUNIT_EXPECT_EQ(test, vg_pacer_init(&p, &tc->cfg, 0), tc->want);
}

/*
 * Rates vg_pacer_set_rates() must refuse on a pacer of 1000 B/s and
 * 10 op/s, leaving it unchanged, and the limits it accepts.
 */
struct pacer_rates_case {
	const char *name;
	u64 byte_rate, op_rate;
	int want;
};

static const struct pacer_rates_case pacer_bad_rates_cases[] = {
	{ "op rate above VG_RATE_MAX", 1, VG_RATE_MAX + 1, -ERANGE },
	{ "byte rate above VG_RATE_MAX", VG_RATE_MAX + 1, 1, -ERANGE },
	{ "both rates U64_MAX", U64_MAX, U64_MAX, -ERANGE },
	{ "both rates at VG_RATE_MAX are accepted", VG_RATE_MAX, VG_RATE_MAX,
	  0 },
	{ "unlimited rates are accepted", 0, 0, 0 },
};

static void pacer_rates_desc(const struct pacer_rates_case *c, char *desc)
{
	snprintf(desc, KUNIT_PARAM_DESC_SIZE, "%s", c->name);
}

KUNIT_ARRAY_PARAM(pacer_bad_rates, pacer_bad_rates_cases, pacer_rates_desc);

static void pacer_bad_rates(struct kunit *test)
{
	const struct pacer_rates_case *tc = test->param_value;
	const struct vg_pacer_cfg cfg = { .byte_rate = 1000, .op_rate = 10 };
	struct vg_pacer p, old;

	memset(&p, 0, sizeof(p));
	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, 0), 0);
	memcpy(&old, &p, sizeof(old));
	KUNIT_EXPECT_EQ(test,
			vg_pacer_set_rates(&p, tc->byte_rate, tc->op_rate),
			tc->want);
	if (tc->want)
		KUNIT_EXPECT_EQ(test, memcmp(&p, &old, sizeof(p)), 0);
}

/*
 * Send back to back for one simulated second with random chunk costs:
 * the tokens released must match the rate within one chunk plus the burst.
 */
static void pacer_long_run(struct kunit *test)
{
	struct vg_pacer_cfg cfg = {
		.byte_rate = 1250000000ULL,	/* 10 Gbit/s */
		.op_rate = 2000000,
		.burst_bytes = 65536,
		.burst_ops = 64,
	};
	const u64 t0 = 5 * NSEC_PER_SEC, span = NSEC_PER_SEC;
	u64 now = t0, ops = 0, bytes = 0;
	struct vg_prng r;
	struct vg_pacer p;

	vg_prng_seed(&r, 42);
	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, t0), 0);
	KUNIT_EXPECT_LE(test, vg_pacer_next(&p), t0);
	for (;;) {
		struct vg_token t = { .bytes = vg_prng_range(&r, 64, 8192),
				      .ops = 1 };

		now = max(now, vg_pacer_next(&p));
		if (now >= t0 + span)
			break;
		vg_pacer_charge(&p, now, &t);
		bytes += t.bytes;
		ops += t.ops;
	}
	KUNIT_EXPECT_EQ(test, p.sent_bytes, bytes);
	KUNIT_EXPECT_EQ(test, p.sent_ops, ops);
	/* Bytes bind (avg chunk 4 KB: 300k op/s < 2M op/s). */
	KUNIT_EXPECT_LE(test, bytes, cfg.byte_rate + cfg.burst_bytes + 8192);
	KUNIT_EXPECT_GE(test, bytes, cfg.byte_rate - 8192);

	/* 16-byte chunks: the op rate binds instead. */
	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, t0), 0);
	now = t0;
	ops = 0;
	for (;;) {
		struct vg_token t = { .bytes = 16, .ops = 1 };

		now = max(now, vg_pacer_next(&p));
		if (now >= t0 + span)
			break;
		vg_pacer_charge(&p, now, &t);
		ops++;
	}
	KUNIT_EXPECT_LE(test, ops, cfg.op_rate + cfg.burst_ops + 1);
	KUNIT_EXPECT_GE(test, ops, cfg.op_rate - 1);
}

/*
 * Random arrivals (idle gaps, bursts) and costs: for every pair of
 * departures t_i <= t_j the tokens sent in [t_i, t_j] are at most
 * B + r (t_j - t_i) + c_max, no departure precedes its EDT, and an idle
 * pacer lets a full bucket go at once.
 */
static void pacer_burst_bound(struct kunit *test)
{
	enum { N = 1500 };
	struct vg_pacer_cfg cfg = {
		.byte_rate = 100000000ULL, .burst_bytes = 20000,
	};
	const u64 cmax = 3000;
	u64 *when, *pre, now = 1000;
	struct vg_prng r;
	struct vg_pacer p;
	int i, j, burst;

	when = kunit_kcalloc(test, N, sizeof(u64), GFP_KERNEL);
	pre = kunit_kcalloc(test, N + 1, sizeof(u64), GFP_KERNEL);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, when);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, pre);
	vg_prng_seed(&r, 7);
	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, now), 0);

	/* Idle pacer: 20000 bytes of 1000-byte chunks go at once, then wait. */
	for (burst = 0; vg_pacer_next(&p) <= now; burst++) {
		struct vg_token t = { .bytes = 1000, .ops = 1 };

		vg_pacer_charge(&p, now, &t);
	}
	KUNIT_EXPECT_EQ(test, burst, 21);

	for (i = 0; i < N; i++) {
		struct vg_token t = { .bytes = vg_prng_range(&r, 1, cmax) };

		if (!vg_prng_range(&r, 0, 20))
			now += vg_prng_range(&r, 0, 2000000);	/* idle */
		now = max(now, vg_pacer_next(&p));
		vg_pacer_charge(&p, now, &t);
		when[i] = now;
		pre[i + 1] = pre[i] + t.bytes;
	}
	for (i = 0; i < N; i++)
		for (j = i; j < N; j++) {
			u64 sent = pre[j + 1] - pre[i];
			u64 allow = cfg.burst_bytes + cmax +
				    div64_u64((when[j] - when[i]) *
					      cfg.byte_rate, NSEC_PER_SEC) + 1;

			if (sent > allow) {
				KUNIT_FAIL(test, "i %d j %d sent %llu > %llu",
					   i, j, sent, allow);
				return;
			}
		}
}

/* 1000-byte chunks an idle pacer lets go at @now, each charged. */
static int pacer_idle_burst(struct vg_pacer *p, u64 now)
{
	struct vg_token t = { .bytes = 1000, .ops = 1 };
	int n;

	for (n = 0; vg_pacer_next(p) <= now; n++)
		vg_pacer_charge(p, now, &t);
	return n;
}

/*
 * The operator's burst (dev set DEV burst SIZE): a new depth bounds what
 * leaves after the next idle period; a shallower one drops saved tokens,
 * a deeper one is not filled at once; a depth out of range changes
 * nothing.
 */
static void pacer_set_burst(struct kunit *test)
{
	struct vg_pacer_cfg cfg = {
		.byte_rate = 1000000, .burst_bytes = 20000,
	};
	u64 now = 1000;
	struct vg_pacer p;

	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, now), 0);
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 21);

	KUNIT_ASSERT_EQ(test, vg_pacer_set_burst(&p, 4000), 0);
	now += 10 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 5);

	/* Depth 0: one chunk at a time, whatever the idle time. */
	KUNIT_ASSERT_EQ(test, vg_pacer_set_burst(&p, 0), 0);
	now += 10 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 1);
	KUNIT_EXPECT_EQ(test, vg_pacer_set_burst(&p, VG_COST_MAX + 1), -ERANGE);
	now += 10 * NSEC_PER_SEC;
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 1);

	/* Deeper now, but the bucket is empty: the next chunk waits 1 ms. */
	KUNIT_ASSERT_EQ(test, vg_pacer_set_burst(&p, 20000), 0);
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 0);
	KUNIT_EXPECT_EQ(test, vg_pacer_next(&p), now + NSEC_PER_MSEC);
	/* 5 ms later five chunks' worth is saved; 30 ms later all of it. */
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now + 5 * NSEC_PER_MSEC), 5);
	now += 30 * NSEC_PER_MSEC;
	KUNIT_EXPECT_EQ(test, pacer_idle_burst(&p, now), 21);
}

static void pacer_unlimited_and_rate_change(struct kunit *test)
{
	struct vg_pacer_cfg cfg = { 0 };
	struct vg_token t = { .bytes = 1 << 20, .ops = 1 };
	struct vg_pacer p;
	u64 now = 100, d0, d1;
	int i;

	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, now), 0);
	for (i = 0; i < 1000; i++) {
		vg_pacer_charge(&p, now, &t);
		KUNIT_EXPECT_LE(test, vg_pacer_next(&p), now);
	}

	/* 1 MB/s: a 1 MB chunk makes the next wait a second... */
	KUNIT_ASSERT_EQ(test, vg_pacer_set_rates(&p, 1 << 20, 0), 0);
	vg_pacer_charge(&p, now, &t);
	d0 = vg_pacer_next(&p);
	KUNIT_EXPECT_EQ(test, d0, now + NSEC_PER_SEC);
	/* ...and after doubling the rate, the next one waits half that. */
	KUNIT_ASSERT_EQ(test, vg_pacer_set_rates(&p, 2 << 20, 0), 0);
	vg_pacer_charge(&p, d0, &t);
	d1 = vg_pacer_next(&p);
	KUNIT_EXPECT_EQ(test, d1 - d0, (u64)NSEC_PER_SEC / 2);
}

/*
 * vg_pacer_full(): the byte bucket holds its depth only after a depth's
 * worth of time unspent; the op bucket must let a chunk go too; an
 * unlimited byte rate is never full (it loses nothing).
 */
static void pacer_full(struct kunit *test)
{
	struct vg_pacer_cfg cfg = {
		.byte_rate = 1000000, .burst_bytes = 10000,
		.op_rate = 1000, .burst_ops = 0,
	};
	struct vg_token chunk = { .bytes = 10000, .ops = 1 };
	struct vg_token op = { .bytes = 1, .ops = 1 };
	u64 now = NSEC_PER_SEC;
	struct vg_pacer p;

	KUNIT_ASSERT_EQ(test, vg_pacer_init(&p, &cfg, now), 0);
	KUNIT_EXPECT_TRUE(test, vg_pacer_full(&p, now));
	/* A bucket's worth sent: empty, full again 10 ms later. */
	vg_pacer_charge(&p, now, &chunk);
	KUNIT_EXPECT_FALSE(test, vg_pacer_full(&p, now));
	KUNIT_EXPECT_FALSE(test, vg_pacer_full(&p, now + 10 * NSEC_PER_MSEC -
					       1));
	KUNIT_EXPECT_TRUE(test, vg_pacer_full(&p, now + 10 * NSEC_PER_MSEC));
	/* Bytes to spare, but the op bucket waits 1 ms for the next op. */
	now += 20 * NSEC_PER_MSEC;
	vg_pacer_charge(&p, now, &op);
	KUNIT_EXPECT_FALSE(test, vg_pacer_full(&p, now));
	KUNIT_EXPECT_TRUE(test, vg_pacer_full(&p, now + NSEC_PER_MSEC));

	KUNIT_ASSERT_EQ(test, vg_pacer_set_rates(&p, 0, 0), 0);
	KUNIT_EXPECT_FALSE(test, vg_pacer_full(&p, now + NSEC_PER_SEC));
}

static struct kunit_case vg_pacer_cases[] = {
	KUNIT_CASE(token_model),
	KUNIT_CASE(token_packets),
	KUNIT_CASE(rate_exact),
	KUNIT_CASE_PARAM(pacer_bad_cfg, pacer_bad_cfg_gen_params),
	KUNIT_CASE_PARAM(pacer_bad_rates, pacer_bad_rates_gen_params),
	KUNIT_CASE(pacer_long_run),
	KUNIT_CASE(pacer_burst_bound),
	KUNIT_CASE(pacer_set_burst),
	KUNIT_CASE(pacer_unlimited_and_rate_change),
	KUNIT_CASE(pacer_full),
	{}
};

static struct kunit_suite vg_pacer_suite = {
	.name = "verbsgate-pacer",
	.test_cases = vg_pacer_cases,
};

kunit_test_suites(&vg_pacer_suite);
