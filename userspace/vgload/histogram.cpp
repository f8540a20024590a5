// SPDX-License-Identifier: GPL-2.0-only
#include "histogram.h"

#include <algorithm>
#include <cmath>

namespace vgload {

namespace {
constexpr unsigned SUB_BITS = 7;                 // 128 sub-buckets
constexpr uint64_t SUB = 1ull << SUB_BITS;
constexpr uint64_t EXACT = 2 * SUB;              // [0, 256) exact
// Shifts 1..56 cover values up to 2^64 - 1.
constexpr size_t NBUCKETS = EXACT + (64 - SUB_BITS - 1) * SUB;
}  // namespace

size_t Histogram::bucket_count() { return NBUCKETS; }

size_t Histogram::bucket_of(uint64_t v)
{
	if (v < EXACT)
		return size_t(v);
	unsigned msb = 63u - unsigned(__builtin_clzll(v));
	unsigned shift = msb - SUB_BITS;                // >= 1
	uint64_t mant = v >> shift;                     // [128, 256)

	return size_t(EXACT + (shift - 1) * SUB + (mant - SUB));
}

uint64_t Histogram::bucket_low(size_t idx)
{
	if (idx < EXACT)
		return idx;
	size_t rel = idx - EXACT;
	unsigned shift = unsigned(rel / SUB) + 1;
	uint64_t mant = SUB + rel % SUB;

	return mant << shift;
}

uint64_t Histogram::bucket_width(size_t idx)
{
	if (idx < EXACT)
		return 1;
	return 1ull << (unsigned((idx - EXACT) / SUB) + 1);
}

Histogram::Histogram() : buckets_(NBUCKETS, 0) {}

void Histogram::record(uint64_t ns) { record_n(ns, 1); }

void Histogram::record_n(uint64_t ns, uint64_t n)
{
	if (!n)
		return;
	buckets_[bucket_of(ns)] += n;
	count_ += n;
	min_ = std::min(min_, ns);
	max_ = std::max(max_, ns);
	sum_ += (long double)ns * n;
}

void Histogram::merge(const Histogram &o)
{
	if (!o.count_)
		return;
	for (size_t i = 0; i < NBUCKETS; i++)
		buckets_[i] += o.buckets_[i];
	count_ += o.count_;
	min_ = std::min(min_, o.min_);
	max_ = std::max(max_, o.max_);
	sum_ += o.sum_;
}

void Histogram::clear()
{
	std::fill(buckets_.begin(), buckets_.end(), 0);
	count_ = 0;
	min_ = UINT64_MAX;
	max_ = 0;
	sum_ = 0;
}

void Histogram::swap(Histogram &o) noexcept
{
	buckets_.swap(o.buckets_);
	std::swap(count_, o.count_);
	std::swap(min_, o.min_);
	std::swap(max_, o.max_);
	std::swap(sum_, o.sum_);
}

double Histogram::mean() const
{
	return count_ ? double(sum_ / count_) : 0.0;
}

double Histogram::percentile(double p) const
{
	if (!count_)
		return 0;
	p = std::clamp(p, 0.0, 100.0);
	// Nearest rank, computed in integers where possible so that e.g.
	// p99.9 of 1000 samples is the 999th value, not the 1000th.
	uint64_t rank = uint64_t(std::ceil(p / 100.0 * double(count_) - 1e-9));
	rank = std::clamp<uint64_t>(rank, 1, count_);

	uint64_t seen = 0;
	for (size_t i = 0; i < NBUCKETS; i++) {
		seen += buckets_[i];
		if (seen >= rank) {
			double mid = double(bucket_low(i)) +
				     double(bucket_width(i) - 1) / 2.0;
			return std::clamp(mid, double(min()), double(max_));
		}
	}
	return double(max_);
}

LatencySummary Histogram::summary() const
{
	LatencySummary s;

	s.samples = count_;
	if (!count_)
		return s;
	s.min_ns = double(min());
	s.max_ns = double(max_);
	s.mean_ns = mean();
	s.p50_ns = percentile(50);
	s.p90_ns = percentile(90);
	s.p99_ns = percentile(99);
	s.p999_ns = percentile(99.9);
	return s;
}

}  // namespace vgload
