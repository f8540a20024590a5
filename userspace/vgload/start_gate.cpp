// SPDX-License-Identifier: GPL-2.0-only
#include "start_gate.h"

#include <algorithm>
#include <chrono>

#include "clock.h"

namespace vgload {

bool StartGate::arrive_and_wait(uint64_t deadline_ns,
				const std::function<bool()> &give_up)
{
	std::unique_lock<std::mutex> lk(m_);

	if (++arrived_ >= expected_) {
		cv_.notify_all();
		return true;
	}
	for (;;) {
		if (arrived_ >= expected_)
			return true;
		const uint64_t now = now_ns();

		if (now >= deadline_ns || (give_up && give_up()))
			return false;
		const uint64_t nap = std::min<uint64_t>(deadline_ns - now, 100000000ull);

		cv_.wait_for(lk, std::chrono::nanoseconds(nap));
	}
}

uint64_t StartGate::arrived() const
{
	std::lock_guard<std::mutex> g(m_);

	return arrived_;
}

}  // namespace vgload
