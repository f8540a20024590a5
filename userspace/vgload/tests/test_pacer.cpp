// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "clock.h"
#include "pacer.h"

using namespace vgload;

TEST(Pacer, UnlimitedAllowsEverything)
{
	Pacer p(0, 4);

	p.start(0);
	EXPECT_FALSE(p.limited());
	EXPECT_EQ(p.allowed(0), UINT64_MAX);
	p.consume(1000, 0);
	EXPECT_EQ(p.allowed(1), UINT64_MAX);
}

TEST(Pacer, SteadyRate)
{
	Pacer p(1000, 1);  // one op per ms
	const uint64_t ms = 1000000;

	p.start(0);
	EXPECT_DOUBLE_EQ(p.interval_ns(), 1e6);
	EXPECT_EQ(p.allowed(0), 1u);
	p.consume(1, 0);
	EXPECT_EQ(p.allowed(ms / 2), 0u);
	EXPECT_EQ(p.next_due(), ms);
	EXPECT_EQ(p.allowed(ms), 1u);

	// Posting exactly when due for a simulated second gives the rate.
	uint64_t posted = 1;

	for (uint64_t t = ms; t < 1000 * ms; t += 10000) {
		uint64_t a = p.allowed(t);

		if (a) {
			p.consume(a, t);
			posted += a;
		}
	}
	EXPECT_EQ(posted, 1000u);
}

TEST(Pacer, CatchUpIsBoundedByBurst)
{
	Pacer p(1000, 8);
	const uint64_t ms = 1000000;

	p.start(0);
	p.consume(1, 0);
	// Stalled for 100 ms: only a burst of 8 may go at once.
	EXPECT_EQ(p.allowed(100 * ms), 8u);
	p.consume(8, 100 * ms);
	EXPECT_EQ(p.allowed(100 * ms), 0u);
	// After the burst, the schedule resumes at the nominal rate.
	EXPECT_EQ(p.allowed(101 * ms), 1u);
	EXPECT_EQ(p.next_due(), 101 * ms);
}

TEST(Pacer, KeptScheduleLeavesEveryMissedOperationDue)
{
	Pacer p(1000, 0);  // --latency-from due
	const uint64_t ms = 1000000;

	p.start(0);
	p.consume(1, 0);
	// Stalled for 100 ms: the 100 operations due meanwhile all may go,
	// each with the time it was due.
	EXPECT_EQ(p.allowed(100 * ms), 100u);
	EXPECT_EQ(p.due(0), 1 * ms);
	EXPECT_EQ(p.due(99), 100 * ms);
	p.consume(3, 100 * ms);
	EXPECT_EQ(p.next_due(), 4 * ms);
	EXPECT_EQ(p.allowed(100 * ms), 97u);
}

TEST(Pacer, PerThreadSplit)
{
	// --rate 10k over 4 threads: 2500 ops/s each, 400 us apart.
	Pacer p(10000.0 / 4, 1);

	EXPECT_DOUBLE_EQ(p.interval_ns(), 400000);
}

TEST(WaitTurn, GoesWhenDueAndNotOnceStopped)
{
	std::atomic<bool> stop{ false };
	Pacer unlimited;
	Pacer p(1000, 1);

	EXPECT_TRUE(wait_turn(unlimited, stop));
	p.start(now_ns());
	EXPECT_TRUE(wait_turn(p, stop));
	stop = true;
	EXPECT_FALSE(wait_turn(unlimited, stop));
	EXPECT_FALSE(wait_turn(p, stop));
}

// A worker on a slow schedule ends with its run: stopped while it waits
// for a turn 100 s away, it does not take that turn.
TEST(WaitTurn, EndsWithTheRun)
{
	std::atomic<bool> stop{ false };
	Pacer p(0.01, 1);

	p.start(now_ns());
	p.consume(1, now_ns());
	std::thread stopper([&] {
		sleep_until_ns(now_ns() + 20000000);
		stop = true;
	});
	EXPECT_FALSE(wait_turn(p, stop));
	stopper.join();
}
