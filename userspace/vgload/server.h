// SPDX-License-Identifier: GPL-2.0-only
// Server role: accepts client sessions over TCP, mirrors each client's QPs
// and MRs, keeps receive queues filled when asked to, and reports what it
// received. One thread per session; a session ends on the client's FIN, on
// its connection dropping, on its time limit, or on SIGINT/SIGTERM.
#pragma once

#include "options.h"

namespace vgload {

int run_server(const Options &o);

}  // namespace vgload
