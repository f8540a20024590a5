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

inline timespec ns_to_timespec(uint64_t t)
{
	return timespec{ time_t(t / NS_PER_S), long(t % NS_PER_S) };
}

// Sleep until an absolute CLOCK_MONOTONIC time (ns); returns early on a
// signal, which callers treat like any other wake-up.
inline void sleep_until_ns(uint64_t t)
{
	const timespec ts = ns_to_timespec(t);

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, nullptr);
}

}  // namespace vgload
