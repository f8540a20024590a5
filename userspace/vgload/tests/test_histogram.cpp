// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <vector>

#include "histogram.h"

using namespace vgload;

namespace {

// Reference: nearest-rank percentile over sorted samples.
double exact_percentile(std::vector<uint64_t> v, double p)
{
	std::sort(v.begin(), v.end());
	size_t rank = size_t(std::ceil(p / 100.0 * double(v.size()) - 1e-9));

	rank = std::clamp<size_t>(rank, 1, v.size());
	return double(v[rank - 1]);
}

}  // namespace

TEST(Histogram, EmptyIsZero)
{
	Histogram h;

	EXPECT_EQ(h.count(), 0u);
	EXPECT_EQ(h.percentile(50), 0);
	LatencySummary s = h.summary();
	EXPECT_EQ(s.samples, 0u);
	EXPECT_EQ(s.max_ns, 0);
}

TEST(Histogram, SingleSample)
{
	Histogram h;

	h.record(12345);
	EXPECT_EQ(h.percentile(0), 12345);
	EXPECT_EQ(h.percentile(50), 12345);
	EXPECT_EQ(h.percentile(99.9), 12345);
	EXPECT_EQ(h.percentile(100), 12345);
	EXPECT_EQ(h.min(), 12345u);
	EXPECT_EQ(h.max(), 12345u);
	EXPECT_DOUBLE_EQ(h.mean(), 12345);
}

TEST(Histogram, ExactBelow256)
{
	Histogram h;
	std::vector<uint64_t> v;

	for (uint64_t i = 1; i <= 200; i++) {
		h.record(i);
		v.push_back(i);
	}
	for (double p : { 1.0, 10.0, 50.0, 90.0, 99.0, 99.5, 100.0 })
		EXPECT_EQ(h.percentile(p), exact_percentile(v, p)) << p;
	EXPECT_EQ(h.percentile(50), 100);
	EXPECT_EQ(h.percentile(99), 198);
}

TEST(Histogram, NearestRankSemantics)
{
	Histogram h;

	// 1000 samples: 999 fast, 1 slow. p99.9 is the 999th value (fast),
	// max is the slow one.
	for (int i = 0; i < 999; i++)
		h.record(100);
	h.record(1000000);
	EXPECT_EQ(h.percentile(99.9), 100);
	EXPECT_EQ(h.percentile(100), 1000000);
	EXPECT_EQ(h.max(), 1000000u);
}

TEST(Histogram, BucketsCoverRangeContiguously)
{
	EXPECT_EQ(Histogram::bucket_of(0), 0u);
	EXPECT_EQ(Histogram::bucket_of(255), 255u);
	EXPECT_EQ(Histogram::bucket_of(UINT64_MAX), Histogram::bucket_count() - 1);
	for (size_t i = 0; i + 1 < Histogram::bucket_count(); i++) {
		uint64_t lo = Histogram::bucket_low(i), w = Histogram::bucket_width(i);

		ASSERT_EQ(lo + w, Histogram::bucket_low(i + 1)) << i;
		ASSERT_EQ(Histogram::bucket_of(lo), i);
		ASSERT_EQ(Histogram::bucket_of(lo + w - 1), i);
		// Relative width bound: <= 1/128 of the bucket's values.
		if (w > 1) {  // exact buckets have no error
			ASSERT_LE(double(w) / double(lo), 1.0 / 128 + 1e-12);
		}
	}
}

TEST(Histogram, RelativeErrorBoundedOnRandomData)
{
	std::mt19937_64 rng(42);
	std::lognormal_distribution<double> dist(10.5, 1.2);  // ~36 us median
	Histogram h;
	std::vector<uint64_t> v;

	for (int i = 0; i < 200000; i++) {
		uint64_t x = uint64_t(dist(rng));

		h.record(x);
		v.push_back(x);
	}
	for (double p : { 50.0, 90.0, 99.0, 99.9, 99.99 }) {
		double ex = exact_percentile(v, p), got = h.percentile(p);

		EXPECT_NEAR(got, ex, ex * 0.005 + 1) << "p" << p;
	}
	EXPECT_EQ(h.max(), *std::max_element(v.begin(), v.end()));
	EXPECT_EQ(h.min(), *std::min_element(v.begin(), v.end()));
}

TEST(Histogram, PercentilesAreOrdered)
{
	std::mt19937_64 rng(7);
	std::exponential_distribution<double> dist(1.0 / 50000);
	Histogram h;

	for (int i = 0; i < 50000; i++)
		h.record(uint64_t(dist(rng)));
	LatencySummary s = h.summary();

	EXPECT_LE(s.min_ns, s.p50_ns);
	EXPECT_LE(s.p50_ns, s.p90_ns);
	EXPECT_LE(s.p90_ns, s.p99_ns);
	EXPECT_LE(s.p99_ns, s.p999_ns);
	EXPECT_LE(s.p999_ns, s.max_ns);
}

TEST(Histogram, MergeEqualsRecordingTogether)
{
	Histogram a, b, all;

	for (uint64_t i = 0; i < 10000; i++) {
		uint64_t x = (i * 7919) % 100000 + 1;

		(i % 3 ? a : b).record(x);
		all.record(x);
	}
	a.merge(b);
	EXPECT_EQ(a.count(), all.count());
	EXPECT_EQ(a.min(), all.min());
	EXPECT_EQ(a.max(), all.max());
	EXPECT_DOUBLE_EQ(a.mean(), all.mean());
	for (double p : { 50.0, 99.0, 99.9 })
		EXPECT_EQ(a.percentile(p), all.percentile(p));
}

TEST(Histogram, ClearAndSwap)
{
	Histogram a, b;

	a.record(5);
	a.record_n(1000, 3);
	EXPECT_EQ(a.count(), 4u);
	a.swap(b);
	EXPECT_EQ(a.count(), 0u);
	EXPECT_EQ(b.count(), 4u);
	b.clear();
	EXPECT_EQ(b.count(), 0u);
	EXPECT_EQ(b.percentile(99), 0);
	b.record(7);
	EXPECT_EQ(b.min(), 7u);
}
