// SPDX-License-Identifier: GPL-2.0-only
// verbsgate dev: the RDMA devices the module is attached to.
#include "commands.h"
#include "genl_client.h"
#include "json.h"

#include <netlink/attr.h>

#include <cinttypes>
#include <cstdio>
#include <ostream>
#include <vector>

namespace vg {

namespace {

struct Device {
	uint32_t index = 0;
	std::string name;
	std::string driver;
	uint32_t ports = 0;
	uint64_t node_guid = 0;
};

std::string attr_string(const nlattr *a)
{
	return a ? nla_get_string(const_cast<nlattr *>(a)) : "";
}

Device parse_device(const Attrs &a)
{
	Device d;

	if (a[VERBSGATE_ATTR_DEV_INDEX])
		d.index = nla_get_u32(a[VERBSGATE_ATTR_DEV_INDEX]);
	d.name = attr_string(a[VERBSGATE_ATTR_DEV_NAME]);
	d.driver = attr_string(a[VERBSGATE_ATTR_DEV_DRIVER]);
	if (a[VERBSGATE_ATTR_DEV_PORTS])
		d.ports = nla_get_u32(a[VERBSGATE_ATTR_DEV_PORTS]);
	if (a[VERBSGATE_ATTR_DEV_NODE_GUID])
		d.node_guid = nla_get_u64(a[VERBSGATE_ATTR_DEV_NODE_GUID]);
	return d;
}

// As /sys/class/infiniband/<dev>/node_guid prints it.
std::string format_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x",
		 unsigned(g >> 48) & 0xffff, unsigned(g >> 32) & 0xffff,
		 unsigned(g >> 16) & 0xffff, unsigned(g) & 0xffff);
	return buf;
}

int dev_show(Args &args, const Output &o)
{
	std::string name;

	if (!args.empty())
		name = args.next("device name");
	args.done();

	std::vector<Device> devs;
	GenlClient nl;
	auto collect = [&](const Attrs &a) { devs.push_back(parse_device(a)); };
	if (name.empty()) {
		nl.request(VERBSGATE_CMD_DEV_GET, true, nullptr, collect);
	} else {
		nl.request(VERBSGATE_CMD_DEV_GET, false,
			   [&](nl_msg *m) {
				   nla_put_string(m, VERBSGATE_ATTR_DEV_NAME,
						  name.c_str());
			   },
			   collect);
	}

	if (o.opts.json) {
		JsonWriter w;
		w.begin_array();
		for (const auto &d : devs)
			w.begin_object().kv("index", d.index).kv("name", d.name)
				.kv("driver", d.driver).kv("ports", d.ports)
				.kv("node_guid", format_guid(d.node_guid))
				.end_object();
		w.end_array();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &d : devs)
		o.out << d.index << ": " << d.name << ": driver " << d.driver
		      << " ports " << d.ports << " node_guid "
		      << format_guid(d.node_guid) << "\n";
	return 0;
}

}  // namespace

void usage_dev(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] dev show [DEV]\n"
	       "       verbsgate dev help\n";
}

int cmd_dev(Args &args, const Output &o)
{
	if (args.empty() || args.accept("show") || args.accept("list"))
		return dev_show(args, o);
	if (args.accept("help")) {
		usage_dev(o.out);
		return 0;
	}
	throw UsageError("unknown dev command \"" + args.peek() + "\"");
}

}  // namespace vg
