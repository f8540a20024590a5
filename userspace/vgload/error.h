// SPDX-License-Identifier: GPL-2.0-only
// Error types shared by all of vgload. Every failure message names the
// operation that failed and, where there is one, the errno symbol, so a
// failed run tells the operator which verb or syscall to look at.
#pragma once

#include <stdexcept>
#include <string>

namespace vgload {

// Bad command line: main prints it with a usage hint and exits 2.
struct UsageError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// Any runtime failure (setup, device limits, peer trouble): exit 1.
struct RunError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

// A failed syscall or verb. what() reads "<op> failed: <strerror> (<ENAME>)"
// followed by the optional detail.
struct SysError : RunError {
	SysError(const std::string &op, int err, const std::string &detail = {});
	int err;
};

// "ENOMEM", "EINVAL", ... or "E<number>" for unknown values.
std::string errno_name(int err);

// "Cannot allocate memory (ENOMEM)".
std::string errno_text(int err);

}  // namespace vgload
