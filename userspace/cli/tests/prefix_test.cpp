// SPDX-License-Identifier: GPL-2.0-only
#include "args.h"
#include "prefix.h"

#include <gtest/gtest.h>

using namespace vg;

TEST(Prefix, Ipv4)
{
	AddrPrefix p = parse_prefix("10.77.0.0/24");
	EXPECT_EQ(p.len, 4u);
	EXPECT_EQ(p.plen, 24u);
	EXPECT_EQ(p.addr[0], 10);
	EXPECT_EQ(p.addr[1], 77);
	EXPECT_EQ(format_prefix(p), "10.77.0.0/24");

	AddrPrefix host = parse_prefix("10.77.0.2");
	EXPECT_EQ(host.plen, 32u);
	EXPECT_EQ(format_prefix(host), "10.77.0.2");
	EXPECT_EQ(parse_prefix("0.0.0.0/0").plen, 0u);
}

TEST(Prefix, Ipv6AndGid)
{
	AddrPrefix p = parse_prefix("fd00::/64");
	EXPECT_EQ(p.len, 16u);
	EXPECT_EQ(p.plen, 64u);
	EXPECT_EQ(format_prefix(p), "fd00::/64");

	// A GID as ibv_devinfo prints it.
	AddrPrefix g = parse_prefix("fe80:0000:0000:0000:fc12:e5ff:fea5:e393");
	EXPECT_EQ(g.plen, 128u);
	EXPECT_EQ(g.addr[15], 0x93);
	EXPECT_EQ(format_prefix(g), "fe80::fc12:e5ff:fea5:e393");
}

TEST(Prefix, Errors)
{
	EXPECT_THROW(parse_prefix("10.0.0.1/24"), UsageError);	// host bits
	EXPECT_THROW(parse_prefix("10.0.0.0/33"), UsageError);
	EXPECT_THROW(parse_prefix("fd00::/129"), UsageError);
	EXPECT_THROW(parse_prefix("10.0.0.0/"), UsageError);
	EXPECT_THROW(parse_prefix("10.0.0.0/x"), UsageError);
	EXPECT_THROW(parse_prefix("10.0.0/8"), UsageError);
	EXPECT_THROW(parse_prefix("nvme-host"), UsageError);
	EXPECT_THROW(parse_prefix(""), UsageError);
}
