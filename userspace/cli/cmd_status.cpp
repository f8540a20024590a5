// SPDX-License-Identifier: GPL-2.0-only
// verbsgate status: is the module loaded, which version, how many devices.
#include "commands.h"
#include "genl_client.h"
#include "json.h"

#include <netlink/attr.h>

#include <ostream>

namespace vg {

void usage_status(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] status\n";
}

int cmd_status(Args &args, const Output &o)
{
	if (args.accept("help")) {
		usage_status(o.out);
		return 0;
	}
	args.done();

	std::string version = "?";
	uint32_t devices = 0;
	o.nl().request(VERBSGATE_CMD_GET_STATUS, false, nullptr,
		   [&](const Attrs &a) {
			   if (a[VERBSGATE_ATTR_VERSION])
				   version = nla_get_string(
					   const_cast<nlattr *>(a[VERBSGATE_ATTR_VERSION]));
			   if (a[VERBSGATE_ATTR_DEV_COUNT])
				   devices = nla_get_u32(a[VERBSGATE_ATTR_DEV_COUNT]);
		   });

	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().kv("loaded", true).kv("version", version)
			.kv("devices", devices).end_object();
		print_json(o, w.str());
	} else {
		o.out << "verbsgate " << version << " loaded, " << devices
		      << (devices == 1 ? " device\n" : " devices\n");
	}
	return 0;
}

}  // namespace vg
