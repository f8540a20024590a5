// SPDX-License-Identifier: GPL-2.0-only
// The behaviours vgload can play, after Husky (NSDI'23) §3-5. Data-path
// attackers are presets: a list of option values applied only where the
// user did not give the option, so every attacker stays tunable.
#pragma once

#include <string>
#include <utility>
#include <vector>

#include "options.h"

namespace vgload {

struct ModeInfo {
	Mode mode;
	const char *name;
	const char *summary;
	// (long option, value) pairs; value "" for flags.
	std::vector<std::pair<const char *, const char *>> preset;
};

const std::vector<ModeInfo> &all_modes();
const ModeInfo &mode_info(Mode m);
bool mode_from_name(const std::string &name, Mode &out);

// Applies mode_info(o.mode).preset to options not in o.given.
void apply_mode_preset(Options &o);

// Sets one long option by name, exactly as the command line would.
// Defined in options.cpp; throws UsageError.
void set_option(Options &o, const std::string &name, const std::string &value);

}  // namespace vgload
