// SPDX-License-Identifier: GPL-2.0-only
#pragma once

#include <condition_variable>
#include <cstdint>
#include <functional>
#include <mutex>

namespace vgload {

// The server's --together: each session, set up and about to answer READY,
// waits here until all the sessions the server expects have come this far,
// so their clients start their data phases together. Without it a client
// begins as soon as its own session is set up, and on a congested port the
// first clients' traffic delays the later ones' TCP connections by whole
// SYN retransmission timeouts (seconds).
class StartGate {
public:
	explicit StartGate(uint64_t expected) : expected_(expected) {}

	// Counts the caller as arrived and blocks until @expected sessions
	// have arrived (true), or until @deadline_ns (now_ns() clock) passes or
	// @give_up() returns true, looked at every 100 ms (false).
	bool arrive_and_wait(uint64_t deadline_ns,
			     const std::function<bool()> &give_up);

	uint64_t arrived() const;
	uint64_t expected() const { return expected_; }

private:
	mutable std::mutex m_;
	std::condition_variable cv_;
	const uint64_t expected_;
	uint64_t arrived_ = 0;
};

}  // namespace vgload
