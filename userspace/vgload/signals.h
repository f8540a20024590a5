// SPDX-License-Identifier: GPL-2.0-only
// SIGINT/SIGTERM handling: the first signal asks the run to stop cleanly
// (report what was measured, tear down, exit); a second one exits at once.
// SIGUSR1 ends the warm-up.
#pragma once

namespace vgload {

void install_signal_handlers();

// True once SIGINT or SIGTERM arrived.
bool stop_requested();
// Name of the first stop signal ("SIGINT"), or "" if none.
const char *stop_signal_name();

// True once for each SIGUSR1 that arrived since the last call: the run's
// warm-up is to end now (--warmup), so that a harness starts the
// measured run when other work is under way.
bool take_warmup_end();

// Blocks SIGINT/SIGTERM/SIGUSR1 in the calling thread; call before
// spawning workers so that signals reach the main thread and wake its
// poll().
void block_stop_signals();
void unblock_stop_signals();

}  // namespace vgload
