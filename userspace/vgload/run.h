// SPDX-License-Identifier: GPL-2.0-only
// The measurement clock shared by traffic runs and storms: warm-up,
// interval reports, the deadline, the hard timeout, Ctrl-C, and watching
// the peer's TCP connection. Workers only look at RunControl::stop.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <vector>

#include "options.h"
#include "phases.h"
#include "report.h"
#include "stats.h"

namespace vgload {

class Conn;

struct RunControl {
	std::atomic<bool> stop{ false };
	std::atomic<unsigned> running{ 0 };   // workers still in their loop
};

struct RunOutcome {
	// duration | workers_done | interrupted | timeout | peer_closed |
	// peer_abort
	std::string end_reason;
	bool ok = true;
	std::string message;
	double measured_s = 0;
	std::vector<IntervalRecord> intervals;
};

// Runs until the duration elapses, all workers finish, a signal, the hard
// timeout, or trouble on `peer` (may be null). Then sets ctl.stop, calls
// join() and closes the last interval, so the collector's total covers
// exactly the measured window. Notes its phases in @phases (--phases);
// SIGUSR1 during --warmup starts the measured run at once.
RunOutcome drive_run(const Options &o, Collector &c, RunControl &ctl,
		     const std::function<void()> &join, Conn *peer,
		     const PhaseLog &phases);

// Runs work(0) ... work(n - 1) on threads of their own, which inherit a
// mask without the stop signals (so that those land in this thread and
// cut its poll() short), through drive_run(), and joins them. Each work
// function must leave its loop once ctl.stop is set and then decrement
// ctl.running, which starts at n.
RunOutcome run_workers(const Options &o, Collector &c, RunControl &ctl,
		       size_t n, const std::function<void(size_t)> &work,
		       Conn *peer, const PhaseLog &phases);

// Puts the run's outcome and what it measured (@c's total) in @rep.
void record_outcome(RunReport &rep, const RunOutcome &out, const Collector &c);

}  // namespace vgload
