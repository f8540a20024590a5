// SPDX-License-Identifier: GPL-2.0-only
// Offered-rate pacing for one worker (--rate split over threads).
//
// Operation k is due at start + k * interval. A worker that fell behind
// (its QPs were full) may catch up by at most `burst` operations: a paced
// tenant must not turn a stall into an unbounded burst. With burst 0 the
// schedule is kept whatever happens: every operation missed during a
// stall stays due, as it does for a client whose requests arrive on a
// clock of their own (--latency-from due).
#pragma once

#include <atomic>
#include <cstdint>

namespace vgload {

class Pacer {
public:
	// ops_per_s <= 0: unlimited. burst 0: the schedule is kept.
	Pacer(double ops_per_s = 0, uint32_t burst = 1);

	bool limited() const { return interval_ns_ > 0; }
	void start(uint64_t now);

	// Operations that may be posted at `now` (UINT64_MAX when unlimited).
	uint64_t allowed(uint64_t now) const;

	// Records n posted operations.
	void consume(uint64_t n, uint64_t now);

	// Absolute time at which the next operation becomes due.
	uint64_t next_due() const { return uint64_t(next_); }

	// Absolute time at which the operation @n after the next is due.
	uint64_t due(uint64_t n) const
	{
		return uint64_t(next_ + double(n) * interval_ns_);
	}

	double interval_ns() const { return interval_ns_; }

private:
	double interval_ns_ = 0;
	double next_ = 0;
	uint32_t burst_ = 1;            // 0: unbounded
};

// How long a worker waiting for its turn sleeps at most before it looks
// at its run's stop flag again.
constexpr uint64_t MAX_TURN_WAIT_NS = 10000000;

// Sleeps until `p` lets an operation go, or `stop` is set, looked at
// every MAX_TURN_WAIT_NS at least: a worker on a slow schedule (a storm
// at a few operations a second) ends with its run, not at its next
// turn. Whether the operation may go.
bool wait_turn(const Pacer &p, const std::atomic<bool> &stop);

}  // namespace vgload
