// SPDX-License-Identifier: GPL-2.0-only
#include "pacer.h"

#include <algorithm>
#include <cmath>

#include "clock.h"

namespace vgload {

Pacer::Pacer(double ops_per_s, uint32_t burst)
	: interval_ns_(ops_per_s > 0 ? 1e9 / ops_per_s : 0),
	  burst_(burst)
{
}

void Pacer::start(uint64_t now) { next_ = double(now); }

uint64_t Pacer::allowed(uint64_t now) const
{
	if (!limited())
		return UINT64_MAX;
	double t = double(now);

	if (t < next_)
		return 0;
	uint64_t due = uint64_t(std::floor((t - next_) / interval_ns_)) + 1;

	return burst_ ? std::min<uint64_t>(due, burst_) : due;
}

void Pacer::consume(uint64_t n, uint64_t now)
{
	if (!limited())
		return;
	// Forget debt older than one burst before advancing.
	if (burst_) {
		double floor_t = double(now) - double(burst_ - 1) * interval_ns_;

		if (next_ < floor_t)
			next_ = floor_t;
	}
	next_ += double(n) * interval_ns_;
}

bool wait_turn(const Pacer &p, const std::atomic<bool> &stop)
{
	if (!p.limited())
		return !stop.load();
	for (;;) {
		uint64_t now = now_ns();

		if (stop.load())
			return false;
		if (p.allowed(now))
			return true;
		sleep_until_ns(std::min(p.next_due(), now + MAX_TURN_WAIT_NS));
	}
}

}  // namespace vgload
