// SPDX-License-Identifier: GPL-2.0-only
// verbsgate dev: the RDMA devices the module is attached to, their
// settings and their controller's state.
#include "commands.h"
#include "device.h"
#include "requests.h"

#include <ostream>
#include <vector>

namespace vg {

namespace {

int dev_show(Args &args, const Output &o)
{
	Device named;

	if (!args.empty())
		named.name = args.next("device name");
	args.done();

	std::vector<Device> devs;
	bool all = named.name.empty();
	o.nl().request(VERBSGATE_CMD_DEV_GET, all,
		       all ? nullptr : sends(device_table(), named),
		       collect(device_table(), devs));
	bool details = o.opts.details;
	print_list(o, devs,
		   [details](const Device &d) { return dev_text(d, details); },
		   [details](JsonWriter &w, const Device &d) {
			   dev_json(w, d, details);
		   });
	return 0;
}

int dev_set(Args &args, const Output &o)
{
	Device d = parse_dev_set(args);

	o.nl().request(VERBSGATE_CMD_DEV_SET, false, sends(device_table(), d),
		       nullptr);
	return 0;
}

}  // namespace

void usage_dev(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] [-d] dev show [ DEV ]\n"
	       "       verbsgate dev set DEV SETTING...\n"
	       "       verbsgate dev help\n"
	       "where  SETTING := { maxrate RATE | maxops N | target-p99 { TIME | none } |\n"
	       "                    step { RATE | auto } | period TIME | burst SIZE |\n"
	       "                    link-rate { RATE | device } | pkt-overhead { BYTES | auto } |\n"
	       "                    chunk SIZE |\n"
	       "                    chunk-table SIZE@PCT[,SIZE@PCT...] | chunk-nolat SIZE |\n"
	       "                    cost { data | atomic | mr } [ bytes N ] [ units N ] |\n"
	       "                    latency-weight { group | each } | enforce { on | off } |\n"
	       "                    user-qps { allow | deny } }\n"
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
