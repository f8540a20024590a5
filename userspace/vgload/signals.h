// SPDX-License-Identifier: GPL-2.0-only
// SIGINT/SIGTERM handling: the first signal asks the run to stop cleanly
// (report what was measured, tear down, exit); a second one exits at once.
#pragma once

namespace vgload {

void install_signal_handlers();

// True once SIGINT or SIGTERM arrived.
bool stop_requested();
// Name of the first stop signal ("SIGINT"), or "" if none.
const char *stop_signal_name();

// Blocks SIGINT/SIGTERM in the calling thread; call before spawning
// workers so that signals reach the main thread and wake its poll().
void block_stop_signals();
void unblock_stop_signals();

}  // namespace vgload
