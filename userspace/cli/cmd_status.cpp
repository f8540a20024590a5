// SPDX-License-Identifier: GPL-2.0-only
// verbsgate status: is the module loaded, which version, how many devices.
#include "commands.h"
#include "json.h"
#include "status.h"

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

	std::vector<Status> status;
	o.nl().request(VERBSGATE_CMD_GET_STATUS, false, nullptr,
		       collect(status_table(), status));
	Status st = status.empty() ? Status{} : status.back();

	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().kv("loaded", true);
		json_members(w, status_table(), st);
		w.end_object();
		print_json(o, w.str());
	} else {
		o.out << "verbsgate " << st.version << " loaded, " << st.devices
		      << (st.devices == 1 ? " device\n" : " devices\n");
	}
	return 0;
}

}  // namespace vg
