// SPDX-License-Identifier: GPL-2.0-only
#include "stats.h"

#include <algorithm>
#include <limits>

namespace vgload {

void Counters::merge(const Counters &o)
{
	ops += o.ops;
	bytes += o.bytes;
	last_done_ns = std::max(last_done_ns, o.last_done_ns);
	lat.merge(o.lat);
	for (const auto &kv : o.errors)
		errors[kv.first] += kv.second;
	for (const auto &kv : o.verbs) {
		VerbCounters &v = verbs[kv.first];

		v.ops += kv.second.ops;
		v.errors += kv.second.errors;
		v.lat.merge(kv.second.lat);
	}
}

void Counters::clear()
{
	ops = 0;
	bytes = 0;
	last_done_ns = 0;
	lat.clear();
	errors.clear();
	verbs.clear();
}

uint64_t Counters::error_total() const
{
	uint64_t n = 0;

	for (const auto &kv : errors)
		n += kv.second;
	return n;
}

void StatsShard::take(Counters &out)
{
	out.clear();
	std::lock_guard<std::mutex> g(m_);
	// Swap rather than copy: the worker continues on the cleared
	// counters `out` had, the collector gets the full ones.
	std::swap(out.ops, cur_.ops);
	std::swap(out.bytes, cur_.bytes);
	std::swap(out.last_done_ns, cur_.last_done_ns);
	out.lat.swap(cur_.lat);
	out.errors.swap(cur_.errors);
	out.verbs.swap(cur_.verbs);
}

double rate_mops(uint64_t ops, double secs)
{
	return secs > 0 ? double(ops) / secs / 1e6 : 0.0;
}

double rate_gbps(uint64_t bytes, double secs)
{
	return secs > 0 ? double(bytes) * 8.0 / secs / 1e9 : 0.0;
}

Collector::Collector(size_t n)
{
	for (size_t i = 0; i < n; i++)
		shards_.push_back(std::make_unique<StatsShard>());
}

void Collector::discard()
{
	for (auto &s : shards_)
		s->take(scratch_);
	scratch_.clear();
	total_.clear();
}

IntervalRecord Collector::close_interval(double t0, double t1,
					 uint64_t origin_ns)
{
	Counters iv;

	for (auto &s : shards_) {
		s->take(scratch_);
		iv.merge(scratch_);
	}
	scratch_.clear();
	total_.merge(iv);

	IntervalRecord r;
	double secs = t1 - t0;

	r.t_start_s = t0;
	r.t_end_s = t1;
	r.ops = iv.ops;
	r.bytes = iv.bytes;
	r.errors = iv.error_total();
	r.t_last_done_s = iv.last_done_ns ?
		double(int64_t(iv.last_done_ns - origin_ns)) / 1e9 :
		std::numeric_limits<double>::quiet_NaN();
	r.mops = rate_mops(iv.ops, secs);
	r.gbps = rate_gbps(iv.bytes, secs);
	r.lat = iv.lat.summary();
	return r;
}

}  // namespace vgload
