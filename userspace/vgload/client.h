// SPDX-License-Identifier: GPL-2.0-only
// Client role: sets up QPs and MRs, asks the server to mirror them, runs
// the traffic workers and reports. Returns the process exit status.
#pragma once

#include "options.h"

namespace vgload {

int run_client(const Options &o);

}  // namespace vgload
