// SPDX-License-Identifier: GPL-2.0-only
// verbsgate qp: the QPs verbsgate tracks, who created them, their tenant
// and their addresses.
#include "commands.h"
#include "qp.h"
#include "requests.h"

#include <ostream>
#include <vector>

namespace vg {

namespace {

int qp_show(Args &args, const Output &o)
{
	Qp filter = parse_qp_show(args);

	std::vector<Qp> qps;
	o.nl().request(VERBSGATE_CMD_QP_GET, true, sends(qp_table(), filter),
		       collect(qp_table(), qps));
	bool stats = o.opts.stats > 0;
	print_list(o, qps, [stats](const Qp &q) { return qp_text(q, stats); },
		   qp_json);
	return 0;
}

}  // namespace

void usage_qp(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] [-s] qp show [ dev DEV ] [ tenant NAME ]\n"
	       "       verbsgate qp help\n"
	       "where  NAME := 1..31 characters of A-Z a-z 0-9 _ . -\n"
	       "       -s adds each QP's counters, where the kernel reports them\n";
}

int cmd_qp(Args &args, const Output &o)
{
	if (args.empty() || args.accept("show") || args.accept("list"))
		return qp_show(args, o);
	if (args.accept("help")) {
		usage_qp(o.out);
		return 0;
	}
	throw UsageError("unknown qp command \"" + args.peek() + "\"");
}

}  // namespace vg
