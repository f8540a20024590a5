// SPDX-License-Identifier: GPL-2.0-only
// verbsgate stats: the tenants' counters; with -s also each device's
// controller state.
#include "commands.h"
#include "encode.h"
#include "json.h"
#include "objects.h"
#include "units.h"

#include <cerrno>
#include <ostream>
#include <sstream>
#include <vector>

namespace vg {

std::string stats_text(const TenantStats &s)
{
	std::ostringstream out;

	out << "tx_bytes " << s.tx_bytes << " tx_wrs " << s.tx_wrs
	    << " chunks " << s.chunks << " split_wrs " << s.split_wrs
	    << " throttled " << format_time(s.throttled_ns) << " queued_wrs "
	    << s.queued_wrs;
	return out.str();
}

void stats_json(JsonWriter &w, const TenantStats &s)
{
	w.kv("tx_bytes", s.tx_bytes).kv("tx_wrs", s.tx_wrs)
		.kv("chunks", s.chunks).kv("split_wrs", s.split_wrs)
		.kv("throttled_ns", s.throttled_ns)
		.kv("queued_wrs", s.queued_wrs);
}

void usage_stats(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] [-s] stats [ tenant NAME ]\n"
	       "       verbsgate stats help\n"
	       "       -s adds each device's controller state\n";
}

int cmd_stats(Args &args, const Output &o)
{
	std::string only;

	if (args.accept("help")) {
		usage_stats(o.out);
		return 0;
	}
	if (args.accept("tenant"))
		only = args.next("tenant name");
	args.done();

	std::vector<Tenant> tenants;
	o.nl().request(VERBSGATE_CMD_STATS_GET, true,
		       [&](nl_msg *m) {
			       if (!only.empty())
				       put_tenant_name(m, only);
		       },
		       [&](const Attrs &a) { tenants.push_back(parse_tenant(a)); });
	if (!only.empty() && tenants.empty())
		throw NetlinkError(ENOENT, "unknown tenant \"" + only + "\"");
	std::vector<Device> devs;
	if (o.opts.stats)
		o.nl().request(VERBSGATE_CMD_DEV_GET, true, nullptr,
			       [&](const Attrs &a) {
				       devs.push_back(parse_device(a));
			       });

	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().key("tenants").begin_array();
		for (const auto &t : tenants)
			tenant_json(w, t);
		w.end_array();
		if (o.opts.stats) {
			w.key("devices").begin_array();
			for (const auto &d : devs)
				w.begin_object().kv("index", d.index)
					.kv("name", d.name)
					.kv("safe_util", d.safe_util)
					.kv("rmin", d.rmin)
					.kv("chunk_size", d.chunk_size)
					.kv("ref_p99_ns", d.ref_p99_ns)
					.kv("aimd_increases", d.aimd_increases)
					.kv("aimd_decreases", d.aimd_decreases)
					.end_object();
			w.end_array();
		}
		w.end_object();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &t : tenants)
		o.out << "tenant " << t.name << ": qps " << t.qps << " "
		      << stats_text(t.stats) << "\n";
	for (const auto &d : devs)
		o.out << "dev " << d.name << ": safe-util "
		      << format_rate(d.safe_util) << " rmin "
		      << format_rate(d.rmin) << " chunk "
		      << format_size(d.chunk_size) << " ref-p99 "
		      << (d.ref_p99_ns ? format_time(d.ref_p99_ns) : "none")
		      << " aimd-increases " << d.aimd_increases
		      << " aimd-decreases " << d.aimd_decreases << "\n";
	return 0;
}

}  // namespace vg
