// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "error.h"
#include "units.h"

using namespace vgload;

TEST(Units, Sizes)
{
	EXPECT_EQ(parse_size("0", "x"), 0u);
	EXPECT_EQ(parse_size("129", "x"), 129u);
	EXPECT_EQ(parse_size("4K", "x"), 4096u);
	EXPECT_EQ(parse_size("4k", "x"), 4096u);
	EXPECT_EQ(parse_size("4KiB", "x"), 4096u);
	EXPECT_EQ(parse_size("1M", "x"), 1u << 20);
	EXPECT_EQ(parse_size("2g", "x"), 2ull << 30);
	EXPECT_EQ(parse_size("10B", "x"), 10u);
	EXPECT_THROW(parse_size("", "x"), UsageError);
	EXPECT_THROW(parse_size("1.5K", "x"), UsageError);
	EXPECT_THROW(parse_size("K", "x"), UsageError);
	EXPECT_THROW(parse_size("-1", "x"), UsageError);
	EXPECT_THROW(parse_size("4T", "x"), UsageError);
	EXPECT_THROW(parse_size("99999999999999999999", "x"), UsageError);
	EXPECT_THROW(parse_size("17179869184G", "x"), UsageError);  // overflow
}

TEST(Units, Counts)
{
	EXPECT_EQ(parse_count("100", "x"), 100u);
	EXPECT_EQ(parse_count("10k", "x"), 10000u);
	EXPECT_EQ(parse_count("2M", "x"), 2000000u);
	EXPECT_THROW(parse_count("1Ki", "x"), UsageError);
	EXPECT_THROW(parse_count("abc", "x"), UsageError);
}

TEST(Units, Seconds)
{
	EXPECT_DOUBLE_EQ(parse_seconds("5", "x"), 5);
	EXPECT_DOUBLE_EQ(parse_seconds("2.5s", "x"), 2.5);
	EXPECT_DOUBLE_EQ(parse_seconds("250ms", "x"), 0.25);
	EXPECT_DOUBLE_EQ(parse_seconds("100us", "x"), 1e-4);
	EXPECT_THROW(parse_seconds("5m", "x"), UsageError);
	EXPECT_THROW(parse_seconds("", "x"), UsageError);
	EXPECT_THROW(parse_seconds("1.2.3", "x"), UsageError);
}

TEST(Units, Ints)
{
	EXPECT_EQ(parse_int("7", "x", 0, 7), 7);
	EXPECT_THROW(parse_int("8", "x", 0, 7), UsageError);
	EXPECT_THROW(parse_int("1x", "x", 0, 7), UsageError);
}

TEST(Units, FormatSize)
{
	EXPECT_EQ(format_size(129), "129");
	EXPECT_EQ(format_size(4096), "4K");
	EXPECT_EQ(format_size(1 << 20), "1M");
	EXPECT_EQ(format_size(6144), "6K");
	EXPECT_EQ(format_size(1000), "1000");
}

TEST(Errors, NamesErrno)
{
	EXPECT_EQ(errno_name(ENOMEM), "ENOMEM");
	EXPECT_EQ(errno_name(EINVAL), "EINVAL");
	SysError e("ibv_reg_mr", ENOMEM, "MR 3");
	std::string w = e.what();

	EXPECT_NE(w.find("ibv_reg_mr failed"), std::string::npos);
	EXPECT_NE(w.find("ENOMEM"), std::string::npos);
	EXPECT_NE(w.find("MR 3"), std::string::npos);
}
