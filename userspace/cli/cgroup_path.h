// SPDX-License-Identifier: GPL-2.0-only
// Operators name cgroups by their directory (/sys/fs/cgroup/tenants/blue);
// the kernel wants the path on the cgroup2 hierarchy (/tenants/blue).
#pragma once

#include <string>
#include <vector>

namespace vg {

// A cgroup2 mount: where it is, and which hierarchy directory it shows.
struct Cgroup2Mount {
	std::string mount_point;
	std::string root;
};

// The cgroup2 mounts listed in /proc/self/mountinfo text.
std::vector<Cgroup2Mount> cgroup2_mounts(const std::string &mountinfo);

// The hierarchy path for `path`: a directory under one of `mounts` maps to
// the mount's root plus the rest; any other absolute path is taken as a
// hierarchy path already. Trailing slashes and "." components are dropped;
// ".." is refused (UsageError), as is a relative path.
std::string cgroup_hierarchy_path(const std::string &path,
				  const std::vector<Cgroup2Mount> &mounts);

}  // namespace vg
