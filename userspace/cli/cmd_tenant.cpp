// SPDX-License-Identifier: GPL-2.0-only
// verbsgate tenant: add, set, delete and show tenants.
#include "commands.h"
#include "encode.h"
#include "json.h"
#include "objects.h"
#include "requests.h"
#include "units.h"

#include <cerrno>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

namespace vg {

namespace {

std::string selector_text(const Selector &s)
{
	std::string out = selector_name(s.type);

	switch (s.type) {
	case VERBSGATE_SEL_CGROUP:
		return out + " " + s.cgroup_path;
	case VERBSGATE_SEL_ULP:
		return out + " " + s.ulp;
	case VERBSGATE_SEL_LOCAL_ADDR:
	case VERBSGATE_SEL_PEER_ADDR:
		return out + " " + format_prefix(s.prefix);
	default:
		return out;
	}
}

std::vector<Cgroup2Mount> mounts()
{
	std::ifstream in("/proc/self/mountinfo");
	std::stringstream ss;

	ss << in.rdbuf();
	return cgroup2_mounts(ss.str());
}

// The kernel's "no such tenant", with the name the operator typed.
[[noreturn]] void rethrow_unknown(const NetlinkError &e,
				  const std::string &name)
{
	if (e.err == ENOENT && e.attr.empty())
		throw NetlinkError(ENOENT, "unknown tenant \"" + name + "\"");
	throw e;
}

int tenant_add(Args &args, const Output &o)
{
	TenantAdd t = parse_tenant_add(args, mounts());

	o.nl().request(VERBSGATE_CMD_TENANT_ADD, false,
		       [&](nl_msg *m) { put_tenant_add(m, t); }, nullptr);
	return 0;
}

int tenant_set(Args &args, const Output &o)
{
	TenantSet t = parse_tenant_set(args);

	try {
		o.nl().request(VERBSGATE_CMD_TENANT_SET, false,
			       [&](nl_msg *m) { put_tenant_set(m, t); },
			       nullptr);
	} catch (const NetlinkError &e) {
		rethrow_unknown(e, t.name);
	}
	return 0;
}

int tenant_del(Args &args, const Output &o)
{
	std::string name = args.next("tenant name");

	args.done();
	try {
		o.nl().request(VERBSGATE_CMD_TENANT_DEL, false,
			       [&](nl_msg *m) { put_tenant_name(m, name); },
			       nullptr);
	} catch (const NetlinkError &e) {
		rethrow_unknown(e, name);
	}
	return 0;
}

int tenant_show(Args &args, const Output &o)
{
	std::string name;

	if (!args.empty())
		name = args.next("tenant name");
	args.done();

	std::vector<Tenant> tenants;
	auto collect = [&](const Attrs &a) {
		tenants.push_back(parse_tenant(a));
	};
	try {
		if (name.empty())
			o.nl().request(VERBSGATE_CMD_TENANT_GET, true, nullptr,
				       collect);
		else
			o.nl().request(VERBSGATE_CMD_TENANT_GET, false,
				       [&](nl_msg *m) {
					       put_tenant_name(m, name);
				       },
				       collect);
	} catch (const NetlinkError &e) {
		rethrow_unknown(e, name);
	}

	if (o.opts.json) {
		JsonWriter w;
		w.begin_array();
		for (const auto &t : tenants)
			tenant_json(w, t);
		w.end_array();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &t : tenants)
		o.out << tenant_text(t) << "\n";
	return 0;
}

}  // namespace

std::string tenant_text(const Tenant &t)
{
	std::ostringstream s;

	s << t.id << ": " << t.name << ":";
	if (t.has_config) {
		s << " selector " << selector_text(t.sel) << " class "
		  << class_name(t.cls) << " weight " << t.weight;
		if (t.min_rate)
			s << " min " << format_rate(t.min_rate);
		if (t.max_rate)
			s << " max " << format_rate(t.max_rate);
	}
	s << " qps " << t.qps;
	return s.str();
}

void tenant_json(JsonWriter &w, const Tenant &t)
{
	w.begin_object().kv("id", t.id).kv("name", t.name);
	if (t.has_config) {
		w.key("selector").begin_object().kv("type",
						    selector_name(t.sel.type));
		switch (t.sel.type) {
		case VERBSGATE_SEL_CGROUP:
			w.kv("path", t.sel.cgroup_path)
				.kv("cgroup_id", t.sel.cgroup_id);
			break;
		case VERBSGATE_SEL_ULP:
			w.kv("ulp", t.sel.ulp);
			break;
		case VERBSGATE_SEL_LOCAL_ADDR:
		case VERBSGATE_SEL_PEER_ADDR:
			w.kv("prefix", format_prefix(t.sel.prefix));
			break;
		}
		w.end_object();
		w.kv("class", class_name(t.cls)).kv("weight", t.weight)
			.kv("min_rate", t.min_rate).kv("max_rate", t.max_rate);
	}
	w.kv("qps", t.qps);
	if (t.has_stats)
		stats_json(w, t.stats);
	w.end_object();
}

void usage_tenant(std::ostream &out)
{
	out << "Usage: verbsgate tenant add NAME SELECTOR class CLASS weight N\n"
	       "                           [ min RATE ] [ max RATE ]\n"
	       "       verbsgate tenant set NAME [ class CLASS ] [ weight N ]\n"
	       "                           [ min { RATE | none } ] [ max { RATE | none } ]\n"
	       "       verbsgate tenant del NAME\n"
	       "       verbsgate [-j [-p]] tenant show [ NAME ]\n"
	       "       verbsgate tenant help\n"
	       "where  SELECTOR := { cgroup PATH | ulp NAME | local PREFIX | peer PREFIX }\n"
	       "       CLASS := { bandwidth | throughput | latency }\n"
	       "       PREFIX := { IPV4[/LEN] | IPV6-OR-GID[/LEN] }\n"
	       "       RATE := NUMBER[ bit | kbit | mbit | gbit | tbit | bps | kbps | ... ]\n"
	       "       NAME := 1..31 characters of A-Z a-z 0-9 _ . -\n";
}

int cmd_tenant(Args &args, const Output &o)
{
	if (args.empty() || args.accept("show") || args.accept("list"))
		return tenant_show(args, o);
	if (args.accept("add"))
		return tenant_add(args, o);
	if (args.accept("set"))
		return tenant_set(args, o);
	if (args.accept("delete") || args.accept("del"))
		return tenant_del(args, o);
	if (args.accept("help")) {
		usage_tenant(o.out);
		return 0;
	}
	throw UsageError("unknown tenant command \"" + args.peek() + "\"");
}

}  // namespace vg
