// SPDX-License-Identifier: GPL-2.0-only
// The one time source of vgload. CLOCK_MONOTONIC through the vDSO costs a
// few tens of nanoseconds and needs no CPU-frequency calibration, which is
// what makes perftest's latency tools abort under TCG.
#pragma once

#include <cstdint>
#include <ctime>

namespace vgload {

inline uint64_t now_ns()
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return uint64_t(ts.tv_sec) * 1000000000ull + uint64_t(ts.tv_nsec);
}

constexpr uint64_t NS_PER_S = 1000000000ull;

inline uint64_t seconds_to_ns(double s)
{
	return s <= 0 ? 0 : uint64_t(s * 1e9 + 0.5);
}

// Sleep until an absolute CLOCK_MONOTONIC time (ns); returns early on a
// signal, which callers treat like any other wake-up.
inline void sleep_until_ns(uint64_t t)
{
	struct timespec ts;

	ts.tv_sec = time_t(t / NS_PER_S);
	ts.tv_nsec = long(t % NS_PER_S);
	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

}  // namespace vgload
