// SPDX-License-Identifier: GPL-2.0-only
#include "error.h"

#include <cstring>

namespace vgload {

std::string errno_name(int err)
{
	// strerrorname_np() exists since glibc 2.32 (Debian 12 has 2.36).
	const char *n = strerrorname_np(err);
	return n ? n : "E" + std::to_string(err);
}

std::string errno_text(int err)
{
	return std::string(strerror(err)) + " (" + errno_name(err) + ")";
}

static std::string sys_message(const std::string &op, int err,
			       const std::string &detail)
{
	std::string m = op + " failed: " + errno_text(err);
	if (!detail.empty())
		m += "; " + detail;
	return m;
}

SysError::SysError(const std::string &op, int e, const std::string &detail)
	: RunError(sys_message(op, e, detail)), err(e)
{
}

}  // namespace vgload
