// SPDX-License-Identifier: GPL-2.0-only
// Where commands print, and their shared netlink connection.
#include "commands.h"
#include "json.h"

#include <ostream>

namespace vg {

void print_json(const Output &o, const std::string &compact)
{
	o.out << (o.opts.pretty ? json_pretty(compact) : compact) << "\n";
}

GenlClient &Output::nl() const
{
	if (!nl_)
		nl_ = std::make_unique<GenlClient>();
	return *nl_;
}

}  // namespace vg
