// SPDX-License-Identifier: GPL-2.0-only
// Run statistics: what workers count and how the main thread turns it into
// interval and total records.
//
// Each worker owns a StatsShard guarded by its own mutex, taken once per
// completion batch (uncontended except when the main thread collects an
// interval). Collecting swaps the shard's counters for empty ones in O(1),
// so a report never stalls a worker for longer than a pointer swap.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "histogram.h"

namespace vgload {

// Per-verb counters (control-verb storms: ibv_reg_mr, ibv_dereg_mr, ...).
struct VerbCounters {
	uint64_t ops = 0;
	uint64_t errors = 0;
	Histogram lat;
};

struct Counters {
	uint64_t ops = 0;        // successful operations
	uint64_t bytes = 0;      // payload bytes of successful operations
	uint64_t last_done_ns = 0;  // now_ns() of the latest one, 0: none
	Histogram lat;           // per-operation latency (ns)
	// Failures by name: completion status ("IBV_WC_RNR_RETRY_EXC_ERR") or
	// verb and errno ("ibv_reg_mr:ENOMEM").
	std::map<std::string, uint64_t> errors;
	std::map<std::string, VerbCounters> verbs;

	void merge(const Counters &o);
	void clear();
	uint64_t error_total() const;
};

class StatsShard {
public:
	// Lock for a batch of updates: `auto g = shard.lock(); g->ops++;`.
	class Guard {
	public:
		explicit Guard(StatsShard &s) : lk_(s.m_), c_(&s.cur_) {}
		Counters *operator->() { return c_; }
		Counters &operator*() { return *c_; }

	private:
		std::unique_lock<std::mutex> lk_;
		Counters *c_;
	};

	Guard lock() { return Guard(*this); }

	// Moves the accumulated counters out, leaving the shard empty.
	void take(Counters &out);

private:
	std::mutex m_;
	Counters cur_;
};

struct IntervalRecord {
	double t_start_s = 0;    // relative to the start of measurement
	double t_end_s = 0;
	uint64_t ops = 0;
	uint64_t bytes = 0;
	uint64_t errors = 0;
	// When its last successful operation completed (same origin as
	// t_start_s; negative if before it), or NaN if none did: a rate
	// between two completions is exact however large the messages, where
	// one over an interval's edges is off by up to a message.
	double t_last_done_s = 0;
	double mops = 0;
	double gbps = 0;
	LatencySummary lat;
};

// Mops and Gbit/s of payload for `ops`/`bytes` over `secs`.
double rate_mops(uint64_t ops, double secs);
double rate_gbps(uint64_t bytes, double secs);

class Collector {
public:
	explicit Collector(size_t nshards);

	StatsShard &shard(size_t i) { return *shards_[i]; }
	size_t shards() const { return shards_.size(); }

	// Drops everything counted so far (end of warm-up).
	void discard();

	// Closes the interval [t_start_s, t_end_s), both in seconds since
	// origin_ns (a now_ns() value): merges the shards into the run total
	// and returns the interval's record.
	IntervalRecord close_interval(double t_start_s, double t_end_s,
				      uint64_t origin_ns);

	const Counters &total() const { return total_; }

private:
	std::vector<std::unique_ptr<StatsShard>> shards_;
	Counters scratch_;
	Counters total_;
};

}  // namespace vgload
