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

TEST(Args, DetailsStatsAndBatchOptions)
{
	const char *argv[] = {"verbsgate", "-d", "-s", "-s", "-b", "cmds.txt",
			      "-force"};
	GlobalOptions o;
	Args a(7, argv, o);

	EXPECT_TRUE(o.details);
	EXPECT_EQ(o.stats, 2);
	EXPECT_EQ(o.batch, "cmds.txt");
	EXPECT_TRUE(o.force);
	EXPECT_TRUE(a.empty());

	const char *missing[] = {"verbsgate", "-batch"};
	GlobalOptions m;
	EXPECT_THROW(Args(2, missing, m), UsageError);
}

TEST(Args, BatchLines)
{
	EXPECT_EQ(vg::split_line("  tenant add  blue ulp x  # comment"),
		  (std::vector<std::string>{"tenant", "add", "blue", "ulp",
					    "x"}));
	EXPECT_EQ(vg::split_line("tenant add \"a b\" x"),
		  (std::vector<std::string>{"tenant", "add", "a b", "x"}));
	EXPECT_TRUE(vg::split_line("# only a comment").empty());
	EXPECT_THROW(vg::split_line("tenant \"open"), UsageError);
}
