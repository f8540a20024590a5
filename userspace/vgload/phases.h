// SPDX-License-Identifier: GPL-2.0-only
// --phases: the run notes "run", "measure" and "end", each with its time
// on vgload's clock (CLOCK_MONOTONIC seconds), so that a script can time
// other work by the run (Husky's matrix starts and stops its attacker by
// the victim's phases).
#pragma once

#include <cstdint>
#include <string>

#include "tcp.h"

namespace vgload {

class PhaseLog {
public:
	PhaseLog() = default;
	// Opens @path for appending (created if missing); "" notes nothing.
	// Throws SysError if it cannot be opened: open it before the run's
	// threads start, so that the error is reported like any setup error.
	explicit PhaseLog(const std::string &path);

	// Appends "<phase> <seconds>\n" in one write(), so that a reader
	// polling the file sees whole lines and processes may share a file.
	// Never throws: the run goes on whatever becomes of the file.
	void note(const char *phase, uint64_t at_ns) const noexcept;

private:
	Fd fd_;
};

}  // namespace vgload
