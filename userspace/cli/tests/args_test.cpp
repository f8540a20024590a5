// SPDX-License-Identifier: GPL-2.0-only
#include "args.h"

#include <gtest/gtest.h>

using vg::Args;
using vg::GlobalOptions;
using vg::UsageError;

TEST(Args, KeywordsMatchByPrefix)
{
	EXPECT_TRUE(vg::matches("sh", "show"));
	EXPECT_TRUE(vg::matches("show", "show"));
	EXPECT_FALSE(vg::matches("shows", "show"));
	EXPECT_FALSE(vg::matches("", "show"));
	EXPECT_FALSE(vg::matches("x", "show"));
}

TEST(Args, GlobalOptionsStandAnywhere)
{
	const char *argv[] = {"verbsgate", "dev", "-j", "show", "--pretty"};
	GlobalOptions o;
	Args a(5, argv, o);

	EXPECT_TRUE(o.json);
	EXPECT_TRUE(o.pretty);
	EXPECT_TRUE(a.accept("dev"));
	EXPECT_TRUE(a.accept("show"));
	EXPECT_TRUE(a.empty());
}

TEST(Args, UnknownOptionIsAUsageError)
{
	const char *argv[] = {"verbsgate", "-x"};
	GlobalOptions o;

	EXPECT_THROW(Args(2, argv, o), UsageError);
}

TEST(Args, MissingAndLeftoverWords)
{
	Args a({"dev"});

	EXPECT_TRUE(a.accept("dev"));
	EXPECT_THROW(a.next("device name"), UsageError);
	Args b({"status", "extra"});
	EXPECT_TRUE(b.accept("status"));
	EXPECT_THROW(b.done(), UsageError);
}
