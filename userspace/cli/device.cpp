// SPDX-License-Identifier: GPL-2.0-only
#include "device.h"

#include "requests.h"
#include "units.h"

#include <cstdio>

namespace vg {

namespace {

std::string time_or_none(uint64_t ns)
{
	return ns ? format_time(ns) : "none";
}

// enum verbsgate_user_qps, as `dev set ... user-qps` takes it
const char *user_qps_name(bool deny)
{
	return deny ? "deny" : "allow";
}

// A port's link rate, 0 if its device did not say
std::string rate_or_unknown(uint64_t r)
{
	return r ? format_rate(r) : "unknown";
}

// The operator's link rate, 0 when the device's applies
std::string rate_or_device(uint64_t r)
{
	return r ? format_rate(r) : "device";
}

// A pacer's rates, 0 when it does not limit
std::string rate_or_unlimited(uint64_t r)
{
	return r ? format_rate(r) : "unlimited";
}

std::string ops_or_unlimited(uint64_t n)
{
	return n ? std::to_string(n) : "unlimited";
}

unsigned views(bool details)
{
	return kDevKey | kDevInfo | kDevQps | kDevPorts |
	       (details ? kDevSettings | kDevState : 0);
}

}  // namespace

const Table<ChunkEntry> &chunk_entry_table()
{
	using E = ChunkEntry;
	static const Table<E> t = {
		row(VERBSGATE_CHUNK_ATTR_SIZE, &E::size, unit<uint32_t>(format_size))
			.sent("chunk-table size").shows("%s").key("size"),
		row(VERBSGATE_CHUNK_ATTR_UTIL, &E::util_ppm,
		    unit<uint32_t>(format_ppm))
			.sent("chunk-table utilization").shows("@%s")
			.key("util_ppm"),
	};
	return t;
}

const Table<OpCost> &op_cost_table()
{
	using C = OpCost;
	static const Table<C> t = {
		// First: it names the entry in JSON.
		row(VERBSGATE_OPCOST_ATTR_CLASS, &C::cls,
		    words<uint32_t>(op_class_name))
			.sent("cost class").shows(" %s").key("class"),
		row(VERBSGATE_OPCOST_ATTR_BYTES, &C::bytes).sent("cost bytes")
			.always().shows(" bytes %s").key("bytes"),
		row(VERBSGATE_OPCOST_ATTR_UNITS, &C::units).sent("cost units")
			.always().shows(" units %s").key("units"),
	};
	return t;
}

const Table<PortPacing> &port_table()
{
	using P = PortPacing;
	static const Table<P> t = {
		row(VERBSGATE_PORT_ATTR_NUM, &P::port).shows("port %s")
			.key("port"),
		row(VERBSGATE_PORT_ATTR_LINK_RATE, &P::link_rate,
		    unit<uint64_t>(rate_or_unknown))
			.shows(" link %s").key("link_rate"),
		row(VERBSGATE_PORT_ATTR_RATE, &P::rate,
		    unit<uint64_t>(rate_or_unlimited))
			.shows(" rate %s").key("rate"),
		row(VERBSGATE_PORT_ATTR_OP_RATE, &P::op_rate,
		    unit<uint64_t>(ops_or_unlimited))
			.shows(" op-rate %s").key("op_rate"),
		row(VERBSGATE_PORT_ATTR_QPS, &P::qps).shows(" qps %s")
			.key("qps"),
		row(VERBSGATE_PORT_ATTR_PACED_BYTES, &P::paced_bytes)
			.shows(" paced-bytes %s").key("paced_bytes"),
		row(VERBSGATE_PORT_ATTR_PACED_OPS, &P::paced_ops)
			.shows(" paced-ops %s").key("paced_ops"),
	};
	return t;
}

// Rows in JSON order; text lines (at) order them otherwise where the two
// have always differed.
const Table<Device> &device_table()
{
	using D = Device;
	auto rate = unit<uint64_t>(format_rate);
	auto time = unit<uint64_t>(format_time);
	auto size = unit<uint32_t>(format_size);
	auto none = unit<uint64_t>(time_or_none);
	static const Table<D> t = {
		row(VERBSGATE_ATTR_DEV_INDEX, &D::index)
			.in(kDevKey).shows("%s: ").key("index"),
		row(VERBSGATE_ATTR_DEV_NAME, &D::name).sent("device name")
			.in(kDevKey).shows("%s:").key("name"),
		row(VERBSGATE_ATTR_DEV_DRIVER, &D::driver)
			.in(kDevInfo).shows(" driver %s").key("driver"),
		row(VERBSGATE_ATTR_DEV_PORTS, &D::ports)
			.in(kDevInfo).shows(" ports %s").key("ports"),
		row(VERBSGATE_ATTR_DEV_PORTS_PACED, &D::ports_paced)
			.in(kDevPorts).shows(" ports-paced %s").key("ports_paced"),
		row(VERBSGATE_ATTR_DEV_NODE_GUID, &D::node_guid,
		    words<uint64_t>(format_guid))
			.in(kDevInfo).shows(" node_guid %s").key("node_guid"),
		row(VERBSGATE_ATTR_DEV_QPS_ENFORCED, &D::qps_enforced).in(kDevQps)
			.at(1).shows(" qps enforced %s").key("qps.enforced"),
		row(VERBSGATE_ATTR_DEV_QPS_TRACKED, &D::qps_tracked).in(kDevQps)
			.at(1).shows(" tracked %s").key("qps.tracked"),
		row(VERBSGATE_ATTR_DEV_QPS_UNSUPPORTED, &D::qps_unsupported)
			.in(kDevQps).at(1).shows(" unsupported %s")
			.key("qps.unsupported"),
		row(VERBSGATE_ATTR_DEV_QPS_UNTRACKED, &D::qps_untracked)
			.in(kDevQps).at(1).shows(" untracked %s")
			.key("qps.untracked"),
		row(VERBSGATE_ATTR_DEV_USER_QPS_ENFORCED, &D::user_qps_enforced,
		    on_off("enforced", "not-enforced"))
			.in(kDevQps).at(1).shows(" user-qps %s")
			.key("user_qps_enforced"),
		row(VERBSGATE_ATTR_DEV_USER_QPS_REFUSED, &D::user_qps_refused)
			.in(kDevQps).at(1).nonzero().shows(" refused %s")
			.key("user_qps_refused"),
		row(VERBSGATE_ATTR_DEV_MAX_RATE, &D::max_rate, rate)
			.sent("maxrate").in(kDevSettings).at(2)
			.shows(" maxrate %s").key("max_rate"),
		row(VERBSGATE_ATTR_DEV_MAX_OPS, &D::max_ops).sent("maxops")
			.in(kDevSettings).at(2).shows(" maxops %s").key("max_ops"),
		row(VERBSGATE_ATTR_DEV_TARGET_P99, &D::target_p99_ns, none)
			.sent("target-p99").in(kDevSettings).at(2)
			.shows(" target-p99 %s").key("target_p99_ns"),
		row(VERBSGATE_ATTR_DEV_AIMD_STEP, &D::step, rate).sent("step")
			.in(kDevSettings).at(2).shows(" step %s").key("aimd_step"),
		row(VERBSGATE_ATTR_DEV_AIMD_PERIOD, &D::period_ns, time)
			.sent("period").in(kDevSettings).at(2)
			.shows(" period %s").key("aimd_period_ns"),
		row(VERBSGATE_ATTR_DEV_BURST, &D::burst, size).sent("burst")
			.in(kDevSettings).at(2).shows(" burst %s").key("burst"),
		row(VERBSGATE_ATTR_DEV_LINK_RATE, &D::link_rate,
		    unit<uint64_t>(rate_or_device))
			.sent("link-rate").in(kDevSettings).at(2)
			.shows(" link-rate %s").key("link_rate"),
		row(VERBSGATE_ATTR_DEV_PKT_OVERHEAD, &D::pkt_overhead)
			.sent("pkt-overhead").in(kDevSettings).at(2)
			.shows(" pkt-overhead %s").key("pkt_overhead"),
		row(VERBSGATE_ATTR_DEV_CHUNK_NOLAT, &D::chunk_nolat, size)
			.sent("chunk-nolat").in(kDevSettings).at(3, 2)
			.shows(" chunk-nolat %s").key("chunk_nolat"),
		entries(VERBSGATE_ATTR_DEV_CHUNK_TABLE, &D::chunk_table,
			chunk_entry_table(), {",", false})
			.sent("chunk-table").in(kDevSettings).at(3, 1)
			.shows(" chunk-table %s").key("chunk_table"),
		entries(VERBSGATE_ATTR_DEV_OP_COSTS, &D::costs, op_cost_table(),
			{"", true})
			.sent("cost").in(kDevSettings).at(4)
			.shows(" cost%s").key("op_costs"),
		row(VERBSGATE_ATTR_DEV_LAT_EACH, &D::lat_each,
		    on_off("each", "group"))
			.sent("latency-weight").in(kDevSettings).at(3, 4)
			.shows(" latency-weight %s").key("lat_each"),
		row(VERBSGATE_ATTR_DEV_ENFORCE, &D::enforce, on_off("on", "off"))
			.sent("enforce").in(kDevSettings).at(3, 5)
			.shows(" enforce %s").key("enforce"),
		row(VERBSGATE_ATTR_DEV_USER_QPS, &D::user_qps_deny,
		    words<bool>(user_qps_name))
			.sent("user-qps").in(kDevSettings).at(3, 6)
			.shows(" user-qps %s").key("user_qps"),
		// State, but shown with the settings: `stats -s` omits it.
		row(VERBSGATE_ATTR_DEV_MAX_CHUNK, &D::max_chunk, size)
			.in(kDevSettings).at(3, 3).shows(" max-chunk %s")
			.key("max_chunk"),
		row(VERBSGATE_ATTR_DEV_SAFE_UTIL, &D::safe_util, rate)
			.in(kDevState).at(5).shows(" safe-util %s").key("safe_util"),
		row(VERBSGATE_ATTR_DEV_RMIN, &D::rmin, rate)
			.in(kDevState).at(5).shows(" rmin %s").key("rmin"),
		row(VERBSGATE_ATTR_DEV_CHUNK_SIZE, &D::chunk_size, size)
			.in(kDevState).at(5).shows(" chunk %s").key("chunk_size"),
		row(VERBSGATE_ATTR_DEV_REF_P99, &D::ref_p99_ns, none)
			.in(kDevState).at(5).shows(" ref-p99 %s").key("ref_p99_ns"),
		row(VERBSGATE_ATTR_DEV_AIMD_INCREASES, &D::aimd_increases)
			.in(kDevState).at(5).shows(" aimd-increases %s")
			.key("aimd_increases"),
		row(VERBSGATE_ATTR_DEV_AIMD_DECREASES, &D::aimd_decreases)
			.in(kDevState).at(5).shows(" aimd-decreases %s")
			.key("aimd_decreases"),
		// A line per port, after the device's own.
		entries(VERBSGATE_ATTR_DEV_PORT_TABLE, &D::port_table,
			port_table(), {"\n    ", false})
			.in(kDevPorts).at(6).shows(" %s").key("port_table"),
	};
	return t;
}

std::string dev_text(const Device &d, bool details)
{
	return text(device_table(), d, views(details));
}

void dev_json(JsonWriter &w, const Device &d, bool details)
{
	json(w, device_table(), d, views(details));
}

std::string format_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x",
		 unsigned(g >> 48) & 0xffff, unsigned(g >> 32) & 0xffff,
		 unsigned(g >> 16) & 0xffff, unsigned(g) & 0xffff);
	return buf;
}

}  // namespace vg
