// SPDX-License-Identifier: GPL-2.0-only
// verbsgate stats: the tenants' counters; with -s also each device's
// controller state.
#include "commands.h"
#include "device.h"
#include "json.h"
#include "tenant.h"

#include <cerrno>
#include <ostream>
#include <vector>

namespace vg {

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
	Tenant named;
	named.name = only;
	o.nl().request(VERBSGATE_CMD_STATS_GET, true,
		       only.empty() ? nullptr : sends(tenant_table(), named),
		       collect(tenant_table(), tenants));
	if (!only.empty() && tenants.empty())
		throw NetlinkError(ENOENT, "unknown tenant \"" + only + "\"");
	std::vector<Device> devs;
	if (o.opts.stats)
		o.nl().request(VERBSGATE_CMD_DEV_GET, true, nullptr,
			       collect(device_table(), devs));

	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().key("tenants").begin_array();
		for (const auto &t : tenants)
			tenant_json(w, t);
		w.end_array();
		if (o.opts.stats) {
			w.key("devices").begin_array();
			for (const auto &d : devs)
				json(w, device_table(), d, kDevKey | kDevState);
			w.end_array();
		}
		w.end_object();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &t : tenants)
		o.out << "tenant " << t.name << ":"
		      << text(tenant_table(), t, kTenantQps | kTenantStats)
		      << "\n";
	for (const auto &d : devs)
		o.out << "dev " << d.name << ":"
		      << text(device_table(), d, kDevState) << "\n";
	return 0;
}

}  // namespace vg
