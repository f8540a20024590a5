// SPDX-License-Identifier: GPL-2.0-only
#include "args.h"
#include "cgroup_path.h"

#include <gtest/gtest.h>

using namespace vg;

namespace {

const char *mountinfo =
	"22 28 0:21 / /proc rw,nosuid - proc proc rw\n"
	"26 23 0:24 / /sys/fs/cgroup rw,nosuid shared:9 - cgroup2 cgroup2 rw\n"
	"40 23 0:24 /tenants /mnt/ten\\040ants rw - cgroup2 cgroup2 rw\n"
	"41 23 0:30 / /sys/fs/cgroup/misc rw - cgroup cgroup rw,misc\n";

}  // namespace

TEST(CgroupPath, MountinfoListsCgroup2Only)
{
	auto m = cgroup2_mounts(mountinfo);
	ASSERT_EQ(m.size(), 2u);
	EXPECT_EQ(m[0].mount_point, "/sys/fs/cgroup");
	EXPECT_EQ(m[0].root, "/");
	EXPECT_EQ(m[1].mount_point, "/mnt/ten ants");
	EXPECT_EQ(m[1].root, "/tenants");
}

TEST(CgroupPath, MapsDirectoriesToTheHierarchy)
{
	auto m = cgroup2_mounts(mountinfo);
	EXPECT_EQ(cgroup_hierarchy_path("/sys/fs/cgroup/tenants/blue", m),
		  "/tenants/blue");
	EXPECT_EQ(cgroup_hierarchy_path("/sys/fs/cgroup/tenants/blue/", m),
		  "/tenants/blue");
	EXPECT_EQ(cgroup_hierarchy_path("/sys/fs/cgroup", m), "/");
	EXPECT_EQ(cgroup_hierarchy_path("/sys/fs/cgroup/./a//b", m), "/a/b");
	EXPECT_EQ(cgroup_hierarchy_path("/mnt/ten ants/red", m),
		  "/tenants/red");
	// Not under a mount: already a hierarchy path.
	EXPECT_EQ(cgroup_hierarchy_path("/tenants/blue", m), "/tenants/blue");
	// A prefix of a mount point's last component is not inside it.
	EXPECT_EQ(cgroup_hierarchy_path("/sys/fs/cgroupx/a", m),
		  "/sys/fs/cgroupx/a");
}

TEST(CgroupPath, Errors)
{
	auto m = cgroup2_mounts(mountinfo);
	EXPECT_THROW(cgroup_hierarchy_path("tenants/blue", m), UsageError);
	EXPECT_THROW(cgroup_hierarchy_path("", m), UsageError);
	EXPECT_THROW(cgroup_hierarchy_path("/sys/fs/cgroup/../etc", m),
		     UsageError);
}
