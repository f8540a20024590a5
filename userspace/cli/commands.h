// SPDX-License-Identifier: GPL-2.0-only
// The objects of the verbsgate CLI; each returns the process exit code.
#pragma once

#include "args.h"

#include <iosfwd>

namespace vg {

struct Output {
	const GlobalOptions &opts;
	std::ostream &out;
};

int cmd_status(Args &args, const Output &o);
int cmd_dev(Args &args, const Output &o);

void usage_status(std::ostream &out);
void usage_dev(std::ostream &out);

// Prints a JSON document (compact or, with -p, indented) and a newline.
void print_json(const Output &o, const std::string &compact);

}  // namespace vg
