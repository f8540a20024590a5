// SPDX-License-Identifier: GPL-2.0-only
// verbsgate tenant: add, set, delete and show tenants.
#include "commands.h"
#include "requests.h"
#include "tenant.h"

#include <cerrno>
#include <fstream>
#include <ostream>
#include <sstream>
#include <vector>

namespace vg {

namespace {

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

// A request that names one tenant.
GenlClient::Fill named(const std::string &name)
{
	Tenant t;

	t.name = name;
	return sends(tenant_table(), t);
}

int tenant_add(Args &args, const Output &o)
{
	Tenant t = parse_tenant_add(args, mounts());

	o.nl().request(VERBSGATE_CMD_TENANT_ADD, false,
		       sends(tenant_table(), t), nullptr);
	return 0;
}

int tenant_set(Args &args, const Output &o)
{
	Tenant t = parse_tenant_set(args);

	try {
		o.nl().request(VERBSGATE_CMD_TENANT_SET, false,
			       sends(tenant_table(), t), nullptr);
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
		o.nl().request(VERBSGATE_CMD_TENANT_DEL, false, named(name),
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
	try {
		o.nl().request(VERBSGATE_CMD_TENANT_GET, name.empty(),
			       name.empty() ? nullptr : named(name),
			       collect(tenant_table(), tenants));
	} catch (const NetlinkError &e) {
		rethrow_unknown(e, name);
	}
	print_list(o, tenants, tenant_text, tenant_json);
	return 0;
}

}  // namespace

void usage_tenant(std::ostream &out)
{
	out << "Usage: verbsgate tenant add NAME SELECTOR class CLASS weight N\n"
	       "                           [ min RATE ] [ max RATE ] [ BOUND... ] [ PACE... ]\n"
	       "                           [ QUOTA ]\n"
	       "       verbsgate tenant set NAME [ class CLASS ] [ weight N ]\n"
	       "                           [ min { RATE | none } ] [ max { RATE | none } ]\n"
	       "                           [ BOUND... ] [ PACE... ] [ QUOTA ]\n"
	       "       verbsgate tenant del NAME\n"
	       "       verbsgate [-j [-p]] tenant show [ NAME ]\n"
	       "       verbsgate tenant help\n"
	       "where  SELECTOR := { cgroup PATH | ulp NAME | local PREFIX | peer PREFIX }\n"
	       "       CLASS := { bandwidth | throughput | latency }\n"
	       "       BOUND := { rnr-retry-max { 0..7 | none } | retry-cnt-max { 0..7 | none } |\n"
	       "                  rnr-timer-min { TIME | none } | timeout-min { TIME | none } |\n"
	       "                  rd-atomic-max { 1..255 | none } }\n"
	       "       PACE := { ctrl-rate { 1..1000000 | none } | ctrl-burst 1..1000000 }\n"
	       "       QUOTA := mr-bytes-max { SIZE | none }\n"
	       "       PREFIX := { IPV4[/LEN] | IPV6-OR-GID[/LEN] }\n"
	       "       RATE := NUMBER[ bit | kbit | mbit | gbit | tbit | bps | kbps | ... ]\n"
	       "       TIME := NUMBER[ ns | us | ms | s ]\n"
	       "       SIZE := NUMBER[ b | k | m | g ]\n"
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
