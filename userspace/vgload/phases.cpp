// SPDX-License-Identifier: GPL-2.0-only
#include "phases.h"

#include <cerrno>
#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

#include "error.h"

namespace vgload {

PhaseLog::PhaseLog(const std::string &path)
{
	if (path.empty())
		return;
	fd_ = Fd(open(path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
		      0644));
	if (!fd_)
		throw SysError("open", errno, "--phases " + path);
}

void PhaseLog::note(const char *phase, uint64_t at_ns) const noexcept
{
	char line[64];
	int n;

	if (!fd_)
		return;
	n = snprintf(line, sizeof(line), "%s %.6f\n", phase,
		     double(at_ns) / 1e9);
	if (n <= 0 || size_t(n) >= sizeof(line))
		return;
	if (write(fd_.get(), line, size_t(n)) != ssize_t(n))
		fprintf(stderr, "vgload: --phases: writing \"%s\" failed\n",
			phase);
}

}  // namespace vgload
