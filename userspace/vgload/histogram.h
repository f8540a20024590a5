// SPDX-License-Identifier: GPL-2.0-only
// Latency histogram with bounded memory and bounded relative error.
//
// Values (nanoseconds) below 256 are kept exactly; above, each power of two
// is split into 128 buckets, so a bucket is at most 1/128 of its values
// wide and a reported percentile is within 0.4% of a recorded value. Min,
// max and sum are exact. Memory is fixed (~58 KiB), recording is O(1) and
// merging per-thread/per-interval histograms is a vector add: this is what
// lets a run report p99.9 over millions of operations without storing them.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

namespace vgload {

struct LatencySummary {
	uint64_t samples = 0;
	double min_ns = 0, mean_ns = 0, p50_ns = 0, p90_ns = 0, p99_ns = 0,
	       p999_ns = 0, max_ns = 0;
};

class Histogram {
public:
	Histogram();

	void record(uint64_t ns);
	void record_n(uint64_t ns, uint64_t n);
	void merge(const Histogram &other);
	void clear();
	void swap(Histogram &other) noexcept;

	uint64_t count() const { return count_; }
	uint64_t min() const { return count_ ? min_ : 0; }
	uint64_t max() const { return max_; }
	double mean() const;

	// Nearest-rank percentile, p in [0, 100]: the smallest recorded value
	// v such that at least p% of the samples are <= v, up to bucket
	// resolution; always within [min(), max()]. 0 when empty.
	double percentile(double p) const;

	LatencySummary summary() const;

	// Bucket arithmetic, exposed for tests.
	static size_t bucket_of(uint64_t ns);
	static uint64_t bucket_low(size_t idx);
	static uint64_t bucket_width(size_t idx);
	static size_t bucket_count();

private:
	std::vector<uint64_t> buckets_;
	uint64_t count_ = 0;
	uint64_t min_ = UINT64_MAX;
	uint64_t max_ = 0;
	long double sum_ = 0;
};

}  // namespace vgload
