// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <atomic>
#include <thread>
#include <vector>

#include "clock.h"
#include "start_gate.h"

using namespace vgload;

namespace {

const auto never = [] { return false; };

}  // namespace

TEST(StartGate, ReleasesEveryoneWhenTheLastArrives)
{
	StartGate gate(3);
	std::atomic<int> released{ 0 };
	std::vector<std::thread> waiters;

	for (int i = 0; i < 2; i++)
		waiters.emplace_back([&] {
			if (gate.arrive_and_wait(now_ns() + 20 * NS_PER_S, never))
				released++;
		});
	// Two of three wait; none may pass before the third arrives.
	while (gate.arrived() < 2)
		std::this_thread::yield();
	EXPECT_EQ(released.load(), 0);
	EXPECT_TRUE(gate.arrive_and_wait(now_ns() + 20 * NS_PER_S, never));
	for (auto &t : waiters)
		t.join();
	EXPECT_EQ(released.load(), 2);
	EXPECT_EQ(gate.arrived(), 3u);
}

TEST(StartGate, ALoneArrivalGivesUpAtItsDeadline)
{
	StartGate gate(2);

	EXPECT_FALSE(gate.arrive_and_wait(now_ns() + 50000000ull, never));
	EXPECT_EQ(gate.arrived(), 1u);
}

TEST(StartGate, AStopEndsTheWait)
{
	StartGate gate(2);
	std::atomic<bool> stop{ false };
	std::thread stopper([&] {
		while (gate.arrived() < 1)
			std::this_thread::yield();
		stop = true;
	});

	EXPECT_FALSE(gate.arrive_and_wait(now_ns() + 60 * NS_PER_S,
					  [&] { return stop.load(); }));
	stopper.join();
}

TEST(StartGate, OneExpectedPassesAtOnce)
{
	StartGate gate(1);

	EXPECT_TRUE(gate.arrive_and_wait(now_ns(), never));
}
