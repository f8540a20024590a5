// SPDX-License-Identifier: GPL-2.0-only
// verbsgate dev: the RDMA devices the module is attached to, their
// settings and their controller's state.
#include "commands.h"
#include "encode.h"
#include "json.h"
#include "objects.h"
#include "requests.h"
#include "units.h"

#include <netlink/attr.h>

#include <ostream>
#include <sstream>
#include <vector>

namespace vg {

namespace {

std::string chunk_table_text(const std::vector<ChunkEntry> &table)
{
	std::string out;

	for (const auto &e : table)
		out += (out.empty() ? "" : ",") + format_size(e.size) + "@" +
		       format_ppm(e.util_ppm);
	return out;
}

std::string time_or_none(uint64_t ns)
{
	return ns ? format_time(ns) : "none";
}

int dev_show(Args &args, const Output &o)
{
	std::string name;

	if (!args.empty())
		name = args.next("device name");
	args.done();

	std::vector<Device> devs;
	auto collect = [&](const Attrs &a) { devs.push_back(parse_device(a)); };
	if (name.empty())
		o.nl().request(VERBSGATE_CMD_DEV_GET, true, nullptr, collect);
	else
		o.nl().request(VERBSGATE_CMD_DEV_GET, false,
			       [&](nl_msg *m) { put_dev_name(m, name); },
			       collect);

	if (o.opts.json) {
		JsonWriter w;
		w.begin_array();
		for (const auto &d : devs)
			dev_json(w, d, o.opts.details);
		w.end_array();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &d : devs)
		o.out << dev_text(d, o.opts.details) << "\n";
	return 0;
}

int dev_set(Args &args, const Output &o)
{
	DevSet d = parse_dev_set(args);

	o.nl().request(VERBSGATE_CMD_DEV_SET, false,
		       [&](nl_msg *m) { put_dev_set(m, d); }, nullptr);
	return 0;
}

}  // namespace

std::string dev_text(const Device &d, bool details)
{
	std::ostringstream s;

	s << d.index << ": " << d.name << ": driver " << d.driver << " ports "
	  << d.ports << " node_guid " << format_guid(d.node_guid);
	if (d.qps) {
		s << "\n    qps";
		for (size_t i = 0; i < d.qps->size(); i++)
			s << " " << dev_qps_names[i] << " " << (*d.qps)[i];
	}
	if (!details || !d.has_settings)
		return s.str();
	s << "\n    maxrate " << format_rate(d.max_rate) << " maxops "
	  << d.max_ops << " target-p99 " << time_or_none(d.target_p99_ns)
	  << " step " << format_rate(d.step) << " period "
	  << format_time(d.period_ns)
	  << "\n    chunk-table " << chunk_table_text(d.chunk_table)
	  << " chunk-nolat " << format_size(d.chunk_nolat) << " max-chunk "
	  << format_size(d.max_chunk) << " latency-weight "
	  << (d.lat_each ? "each" : "group") << " enforce "
	  << (d.enforce ? "on" : "off") << "\n    cost";
	for (const auto &c : d.costs)
		s << " " << op_class_name(c.cls) << " bytes "
		  << c.bytes.value_or(0) << " units " << c.units.value_or(0);
	s << "\n    safe-util " << format_rate(d.safe_util) << " rmin "
	  << format_rate(d.rmin) << " chunk " << format_size(d.chunk_size)
	  << " ref-p99 " << time_or_none(d.ref_p99_ns) << " aimd-increases "
	  << d.aimd_increases << " aimd-decreases " << d.aimd_decreases;
	return s.str();
}

void dev_json(JsonWriter &w, const Device &d, bool details)
{
	w.begin_object().kv("index", d.index).kv("name", d.name)
		.kv("driver", d.driver).kv("ports", d.ports)
		.kv("node_guid", format_guid(d.node_guid));
	if (d.qps) {
		w.key("qps").begin_object();
		for (size_t i = 0; i < d.qps->size(); i++)
			w.kv(dev_qps_names[i], (*d.qps)[i]);
		w.end_object();
	}
	if (details && d.has_settings) {
		w.kv("max_rate", d.max_rate).kv("max_ops", d.max_ops)
			.kv("target_p99_ns", d.target_p99_ns)
			.kv("aimd_step", d.step)
			.kv("aimd_period_ns", d.period_ns)
			.kv("chunk_nolat", d.chunk_nolat);
		w.key("chunk_table").begin_array();
		for (const auto &e : d.chunk_table)
			w.begin_object().kv("size", e.size)
				.kv("util_ppm", e.util_ppm).end_object();
		w.end_array();
		w.key("op_costs").begin_object();
		for (const auto &c : d.costs)
			w.key(op_class_name(c.cls)).begin_object()
				.kv("bytes", c.bytes.value_or(0))
				.kv("units", c.units.value_or(0)).end_object();
		w.end_object();
		w.kv("lat_each", d.lat_each).kv("enforce", d.enforce)
			.kv("max_chunk", d.max_chunk)
			.kv("safe_util", d.safe_util).kv("rmin", d.rmin)
			.kv("chunk_size", d.chunk_size)
			.kv("ref_p99_ns", d.ref_p99_ns)
			.kv("aimd_increases", d.aimd_increases)
			.kv("aimd_decreases", d.aimd_decreases);
	}
	w.end_object();
}

void usage_dev(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] [-d] dev show [ DEV ]\n"
	       "       verbsgate dev set DEV SETTING...\n"
	       "       verbsgate dev help\n"
	       "where  SETTING := { maxrate RATE | maxops N | target-p99 { TIME | none } |\n"
	       "                    step { RATE | auto } | period TIME | chunk SIZE |\n"
	       "                    chunk-table SIZE@PCT[,SIZE@PCT...] | chunk-nolat SIZE |\n"
	       "                    cost { data | atomic | mr } [ bytes N ] [ units N ] |\n"
	       "                    latency-weight { group | each } | enforce { on | off } }\n"
	       "       RATE := NUMBER[ bit | kbit | mbit | gbit | tbit | bps | kbps | ... ]\n"
	       "       TIME := NUMBER[ ns | us | ms | s ]   SIZE := NUMBER[ b | k | m | g ]\n"
	       "       -d shows the settings and the controller's state\n";
}

int cmd_dev(Args &args, const Output &o)
{
	if (args.empty() || args.accept("show") || args.accept("list"))
		return dev_show(args, o);
	if (args.accept("set"))
		return dev_set(args, o);
	if (args.accept("help")) {
		usage_dev(o.out);
		return 0;
	}
	throw UsageError("unknown dev command \"" + args.peek() + "\"");
}

}  // namespace vg
