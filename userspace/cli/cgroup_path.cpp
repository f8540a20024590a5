// SPDX-License-Identifier: GPL-2.0-only
#include "cgroup_path.h"

#include "args.h"

#include <sstream>

namespace vg {

namespace {

bool octal(char c)
{
	return c >= '0' && c <= '7';
}

// mountinfo escapes space, tab, newline and backslash as \ooo.
std::string unescape(const std::string &s)
{
	std::string out;

	for (size_t i = 0; i < s.size(); i++) {
		if (s[i] == '\\' && i + 3 < s.size() && octal(s[i + 1]) &&
		    octal(s[i + 2]) && octal(s[i + 3])) {
			out += char(std::stoi(s.substr(i + 1, 3), nullptr, 8));
			i += 3;
		} else {
			out += s[i];
		}
	}
	return out;
}

// Splits on '/', drops empty and "." components.
std::vector<std::string> components(const std::string &path)
{
	std::vector<std::string> parts;
	std::stringstream ss(path);
	std::string part;

	while (std::getline(ss, part, '/')) {
		if (part.empty() || part == ".")
			continue;
		if (part == "..")
			throw UsageError("cgroup path \"" + path +
					 "\" must not contain \"..\"");
		parts.push_back(part);
	}
	return parts;
}

std::string join(const std::vector<std::string> &parts, size_t from)
{
	std::string out;

	for (size_t i = from; i < parts.size(); i++)
		out += "/" + parts[i];
	return out.empty() ? "/" : out;
}

}  // namespace

std::vector<Cgroup2Mount> cgroup2_mounts(const std::string &mountinfo)
{
	std::vector<Cgroup2Mount> mounts;
	std::istringstream in(mountinfo);
	std::string line;

	// ID PARENT MAJ:MIN ROOT MOUNT_POINT OPTIONS [OPTIONAL...] - TYPE ...
	while (std::getline(in, line)) {
		std::istringstream fields(line);
		std::vector<std::string> f;
		std::string w;

		while (fields >> w)
			f.push_back(w);
		size_t dash = 6;
		while (dash < f.size() && f[dash] != "-")
			dash++;
		if (f.size() < 5 || dash + 1 >= f.size() ||
		    f[dash + 1] != "cgroup2")
			continue;
		mounts.push_back({unescape(f[4]), unescape(f[3])});
	}
	return mounts;
}

std::string cgroup_hierarchy_path(const std::string &path,
				  const std::vector<Cgroup2Mount> &mounts)
{
	if (path.empty() || path[0] != '/')
		throw UsageError("cgroup path \"" + path + "\" must be "
				 "absolute (a cgroup2 directory, e.g. "
				 "/sys/fs/cgroup/tenants/blue)");
	auto parts = components(path);
	// The longest mount point that contains the path wins.
	size_t best = 0;
	const Cgroup2Mount *found = nullptr;
	for (const auto &m : mounts) {
		auto mp = components(m.mount_point);
		if (mp.size() > parts.size() || (found && mp.size() < best))
			continue;
		bool under = true;
		for (size_t i = 0; i < mp.size() && under; i++)
			under = mp[i] == parts[i];
		if (under && (!found || mp.size() >= best)) {
			found = &m;
			best = mp.size();
		}
	}
	if (!found || best == 0)
		return join(parts, 0);
	auto root = components(found->root);
	std::vector<std::string> rest(root);
	rest.insert(rest.end(), parts.begin() + long(best), parts.end());
	return join(rest, 0);
}

}  // namespace vg
