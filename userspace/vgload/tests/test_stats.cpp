// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <cmath>
#include <thread>
#include <vector>

#include "stats.h"

using namespace vgload;

TEST(Stats, Rates)
{
	EXPECT_DOUBLE_EQ(rate_mops(2000000, 2.0), 1.0);
	EXPECT_DOUBLE_EQ(rate_gbps(125000000, 1.0), 1.0);  // 1e9 bits
	EXPECT_EQ(rate_mops(5, 0), 0);
	EXPECT_EQ(rate_gbps(5, -1), 0);
}

TEST(Stats, IntervalsSumToTotal)
{
	Collector c(2);

	{
		auto g = c.shard(0).lock();
		g->ops += 10;
		g->bytes += 160;
		g->lat.record(1000);
		g->errors["IBV_WC_RETRY_EXC_ERR"]++;
	}
	{
		auto g = c.shard(1).lock();
		g->ops += 5;
		g->bytes += 80;
		g->lat.record(3000);
	}
	IntervalRecord a = c.close_interval(0, 1, 0);

	EXPECT_EQ(a.ops, 15u);
	EXPECT_EQ(a.bytes, 240u);
	EXPECT_EQ(a.errors, 1u);
	EXPECT_DOUBLE_EQ(a.mops, 15e-6);
	EXPECT_EQ(a.lat.samples, 2u);

	{
		auto g = c.shard(1).lock();
		g->ops += 1;
		g->verbs["ibv_reg_mr"].ops++;
	}
	IntervalRecord b = c.close_interval(1, 3, 0);

	EXPECT_EQ(b.ops, 1u);
	EXPECT_EQ(b.errors, 0u);
	EXPECT_DOUBLE_EQ(b.mops, 0.5e-6);
	EXPECT_EQ(c.total().ops, 16u);
	EXPECT_EQ(c.total().lat.count(), 2u);
	EXPECT_EQ(c.total().errors.at("IBV_WC_RETRY_EXC_ERR"), 1u);
	EXPECT_EQ(c.total().verbs.at("ibv_reg_mr").ops, 1u);

	// An empty interval is empty, and totals don't change.
	IntervalRecord e = c.close_interval(3, 4, 0);

	EXPECT_EQ(e.ops, 0u);
	EXPECT_EQ(e.lat.samples, 0u);
	EXPECT_EQ(c.total().ops, 16u);
}

// Each interval says when its last operation completed, relative to the
// origin, whichever shard counted it; an interval without one says NaN.
TEST(Stats, IntervalsSayWhenTheirLastOperationCompleted)
{
	const uint64_t origin = 5000000000ull;
	Collector c(2);

	{
		auto g = c.shard(0).lock();
		g->ops++;
		g->last_done_ns = origin + 700000000ull;
	}
	{
		auto g = c.shard(1).lock();
		g->ops++;
		g->last_done_ns = origin + 250000000ull;
	}
	EXPECT_DOUBLE_EQ(c.close_interval(0, 1, origin).t_last_done_s, 0.7);
	EXPECT_TRUE(std::isnan(c.close_interval(1, 2, origin).t_last_done_s));
	{
		auto g = c.shard(1).lock();
		g->ops++;
		// Polled just before the measurement's start.
		g->last_done_ns = origin - 1000000ull;
	}
	EXPECT_DOUBLE_EQ(c.close_interval(2, 3, origin).t_last_done_s, -0.001);
	EXPECT_EQ(c.total().last_done_ns, origin + 700000000ull);
}

TEST(Stats, DiscardDropsWarmup)
{
	Collector c(1);

	c.shard(0).lock()->ops += 100;
	c.close_interval(0, 1, 0);
	c.shard(0).lock()->ops += 7;
	c.discard();
	EXPECT_EQ(c.total().ops, 0u);
	c.shard(0).lock()->ops += 3;
	EXPECT_EQ(c.close_interval(0, 1, 0).ops, 3u);
	EXPECT_EQ(c.total().ops, 3u);
}

TEST(Stats, ConcurrentWorkersLoseNothing)
{
	Collector c(4);
	std::vector<std::thread> t;
	uint64_t collected = 0;

	for (int w = 0; w < 4; w++)
		t.emplace_back([&c, w] {
			for (int i = 0; i < 20000; i++) {
				auto g = c.shard(size_t(w)).lock();
				g->ops++;
				g->lat.record(uint64_t(i));
			}
		});
	for (int i = 0; i < 50; i++)
		collected += c.close_interval(0, 1, 0).ops;
	for (auto &th : t)
		th.join();
	collected += c.close_interval(0, 1, 0).ops;
	EXPECT_EQ(collected, 80000u);
	EXPECT_EQ(c.total().ops, 80000u);
	EXPECT_EQ(c.total().lat.count(), 80000u);
}
