// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "gid.h"

using namespace vgload;

TEST(Gid, Ipv4Mapped)
{
	uint8_t g[16] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 2, 15 };

	EXPECT_TRUE(gid_is_ipv4_mapped(g));
	EXPECT_EQ(gid_to_string(g), "::ffff:10.0.2.15");
	EXPECT_FALSE(gid_is_zero(g));
}

TEST(Gid, LinkLocalIsNotIpv4)
{
	uint8_t g[16] = { 0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0x02, 0x11, 0x22, 0xff,
			  0xfe, 0x33, 0x44, 0x55 };

	EXPECT_FALSE(gid_is_ipv4_mapped(g));
	EXPECT_EQ(gid_to_string(g), "fe80::211:22ff:fe33:4455");
}

TEST(Gid, Zero)
{
	uint8_t g[16] = {};

	EXPECT_TRUE(gid_is_zero(g));
	EXPECT_FALSE(gid_is_ipv4_mapped(g));
	EXPECT_EQ(gid_to_string(g), "::");
}
