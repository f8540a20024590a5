// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <initializer_list>
#include <string>
#include <vector>

#include "error.h"
#include "modes.h"
#include "options.h"

using namespace vgload;

namespace {

ParseResult parse(std::initializer_list<const char *> args)
{
	std::vector<const char *> v{ "vgload" };

	v.insert(v.end(), args.begin(), args.end());
	return parse_options(int(v.size()), v.data());
}

Options opts(std::initializer_list<const char *> args)
{
	return parse(args).opts;
}

}  // namespace

TEST(Options, ClientDefaults)
{
	Options o = opts({ "client", "10.0.0.1" });

	EXPECT_EQ(o.role, Role::Client);
	EXPECT_EQ(o.host, "10.0.0.1");
	EXPECT_EQ(o.port, 18620);
	EXPECT_EQ(o.mode, Mode::Traffic);
	EXPECT_EQ(o.op, Op::Write);
	EXPECT_EQ(o.qp_type, QpType::RC);
	EXPECT_EQ(o.size, 16u);
	EXPECT_EQ(o.qps, 1u);
	EXPECT_EQ(o.depth, 1u);
	EXPECT_EQ(o.mr_size, 4096u);  // resolved: max(size, 4K)
	EXPECT_DOUBLE_EQ(o.duration_s, 5.0);
	EXPECT_EQ(o.poll, PollMode::Busy);
	EXPECT_TRUE(o.post_recv);
	EXPECT_FALSE(o.json);
}

TEST(Options, ServerDefaultsToEventPolling)
{
	Options o = opts({ "server", "--port", "9999", "--once", "--json" });

	EXPECT_EQ(o.role, Role::Server);
	EXPECT_EQ(o.port, 9999);
	EXPECT_EQ(o.sessions, 1u);
	EXPECT_EQ(o.poll, PollMode::Event);
	EXPECT_TRUE(o.json);
	EXPECT_EQ(opts({ "server", "--poll", "busy" }).poll, PollMode::Busy);
	EXPECT_FALSE(o.together);
	EXPECT_TRUE(opts({ "server", "--sessions", "9", "--together" }).together);
}

TEST(Options, AllWorkloadOptions)
{
	Options o = opts({ "client", "h", "--op", "read", "--qp-type", "rc",
			   "--size=64K", "--qps", "8", "--threads", "2", "--depth",
			   "16", "--post-list", "4", "--mrs", "32", "--mr-size", "1M",
			   "--access", "random", "--duration", "2.5", "--rate", "10k",
			   "--warmup", "500ms", "--interval", "0", "--poll", "event",
			   "--dev", "rxe0", "--ib-port", "1", "--gid-index", "3",
			   "--timeout", "20", "--connect-timeout", "3",
			   "--phases", "/tmp/p" });

	EXPECT_EQ(o.op, Op::Read);
	EXPECT_EQ(o.size, 65536u);
	EXPECT_EQ(o.qps, 8u);
	EXPECT_EQ(o.threads, 2u);
	EXPECT_EQ(o.depth, 16u);
	EXPECT_EQ(o.post_list, 4u);
	EXPECT_EQ(o.mrs, 32u);
	EXPECT_EQ(o.mr_size, 1u << 20);
	EXPECT_EQ(o.access, Access::Random);
	EXPECT_DOUBLE_EQ(o.duration_s, 2.5);
	EXPECT_DOUBLE_EQ(o.rate, 10000);
	EXPECT_DOUBLE_EQ(o.warmup_s, 0.5);
	EXPECT_DOUBLE_EQ(o.interval_s, 0);
	EXPECT_EQ(o.poll, PollMode::Event);
	EXPECT_EQ(o.dev, "rxe0");
	EXPECT_EQ(o.gid_index, 3);
	EXPECT_DOUBLE_EQ(effective_timeout_s(o), 20);
	EXPECT_DOUBLE_EQ(o.connect_timeout_s, 3);
	EXPECT_EQ(o.phases, "/tmp/p");
}

TEST(Options, HelpAndVersion)
{
	EXPECT_TRUE(parse({ "--help" }).help);
	EXPECT_TRUE(parse({ "client", "-h" }).help);
	EXPECT_TRUE(parse({ "--version" }).version);
	std::string u = usage();

	for (const auto &m : all_modes())
		EXPECT_NE(u.find(m.name), std::string::npos) << m.name;
	EXPECT_NE(u.find("--post-list"), std::string::npos);
}

TEST(Options, RejectsBadInput)
{
	EXPECT_THROW(parse({}), UsageError);
	EXPECT_THROW(parse({ "bogus" }), UsageError);
	EXPECT_THROW(parse({ "client" }), UsageError);             // no host
	EXPECT_THROW(parse({ "client", "h", "--phases", "" }), UsageError);
	EXPECT_THROW(parse({ "server", "--phases", "f" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--nope" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "-x" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--size" }), UsageError);  // no value
	EXPECT_THROW(parse({ "client", "h", "--size", "12Q" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--json=1" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "extra" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--qps", "0" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--port", "70000" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--rnr-retry", "8" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--op", "swap" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--mode", "nuke" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--duration", "-1" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--size", "3G" }), UsageError);  // > 2^31
	EXPECT_THROW(parse({ "client", "h", "--size", "0" }), UsageError);
	EXPECT_THROW(parse({ "server", "--size", "4K" }), UsageError);  // client option
	EXPECT_THROW(parse({ "server", "extra" }), UsageError);
	EXPECT_THROW(parse({ "server", "--together" }), UsageError);  // no --sessions
	EXPECT_THROW(parse({ "client", "h", "--together" }), UsageError);  // server option
	EXPECT_THROW(parse({ "devinfo", "--port", "1" }), UsageError);
}

TEST(Options, ErrorMessagesNameTheOption)
{
	try {
		parse({ "client", "h", "--depth", "abc" });
		FAIL();
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find("--depth"), std::string::npos);
	}
	try {
		parse({ "server", "--qps", "2" });
		FAIL();
	} catch (const UsageError &e) {
		EXPECT_NE(std::string(e.what()).find("does not apply to server"),
			  std::string::npos);
	}
}

TEST(Options, OpAndTransportCombinations)
{
	EXPECT_NO_THROW(parse({ "client", "h", "--qp-type", "uc", "--op", "write" }));
	EXPECT_NO_THROW(parse({ "client", "h", "--qp-type", "uc", "--op", "write-imm" }));
	EXPECT_NO_THROW(parse({ "client", "h", "--qp-type", "ud", "--op", "send" }));
	EXPECT_THROW(parse({ "client", "h", "--qp-type", "uc", "--op", "read" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--qp-type", "uc", "--op", "faa" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--qp-type", "ud", "--op", "write" }), UsageError);
}

TEST(Options, AtomicsAreEightBytes)
{
	EXPECT_EQ(opts({ "client", "h", "--op", "cas" }).size, 8u);
	EXPECT_EQ(opts({ "client", "h", "--op", "faa", "--size", "8" }).size, 8u);
	EXPECT_THROW(parse({ "client", "h", "--op", "faa", "--size", "16" }), UsageError);
}

TEST(Options, CrossChecks)
{
	EXPECT_THROW(parse({ "client", "h", "--threads", "3", "--qps", "2" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--post-list", "8", "--depth", "4" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--size", "8K", "--mr-size", "4K" }), UsageError);
	EXPECT_EQ(opts({ "client", "h", "--size", "1M" }).mr_size, 1u << 20);
}

TEST(Options, LatencyFromDueNeedsARate)
{
	EXPECT_EQ(opts({ "client", "h" }).latency_from, LatencyFrom::Post);
	EXPECT_EQ(opts({ "client", "h", "--rate", "500", "--latency-from", "due" })
			  .latency_from,
		  LatencyFrom::Due);
	EXPECT_STREQ(latency_from_name(LatencyFrom::Due), "due");
	// Without a schedule there is no due time to count from.
	EXPECT_THROW(parse({ "client", "h", "--latency-from", "due" }), UsageError);
	EXPECT_THROW(parse({ "client", "--mode", "mr-storm", "--rate", "10",
			     "--latency-from", "due" }),
		     UsageError);
	EXPECT_THROW(parse({ "client", "h", "--latency-from", "sched" }), UsageError);
}

TEST(Options, ItersReplaceDuration)
{
	Options o = opts({ "client", "h", "--iters", "1000" });

	EXPECT_EQ(o.iters, 1000u);
	EXPECT_DOUBLE_EQ(o.duration_s, 0);
	EXPECT_DOUBLE_EQ(effective_timeout_s(o), 300);
	o = opts({ "client", "h", "--iters", "1000", "--duration", "2" });
	EXPECT_DOUBLE_EQ(o.duration_s, 2);
	EXPECT_DOUBLE_EQ(effective_timeout_s(o), 32);
}

TEST(Modes, PresetsApply)
{
	Options o = opts({ "client", "h", "--mode", "rnr" });

	EXPECT_EQ(o.op, Op::Send);
	EXPECT_EQ(o.qp_type, QpType::RC);
	EXPECT_FALSE(o.post_recv);
	EXPECT_EQ(o.rnr_retry, 7);
	EXPECT_EQ(o.min_rnr_timer, 1);
	EXPECT_EQ(o.size, 4096u);
	EXPECT_EQ(o.depth, 1u);

	o = opts({ "client", "h", "--mode", "wide" });
	EXPECT_EQ(o.qps, 128u);
	EXPECT_EQ(o.mrs, 2048u);
	EXPECT_EQ(o.depth, 1u);
	EXPECT_EQ(o.access, Access::Random);

	o = opts({ "client", "h", "--mode", "small-flood" });
	EXPECT_EQ(o.size, 129u);
	o = opts({ "client", "h", "--mode", "bw" });
	EXPECT_EQ(o.size, 1u << 20);
	o = opts({ "client", "h", "--mode", "no-recv" });
	EXPECT_EQ(o.qp_type, QpType::UC);
	EXPECT_FALSE(o.post_recv);
	o = opts({ "client", "h", "--mode", "atomic-flood" });
	EXPECT_EQ(o.op, Op::Faa);
	EXPECT_EQ(o.size, 8u);
}

TEST(Modes, ExplicitOptionsBeatPresets)
{
	// Order on the line does not matter.
	Options o = opts({ "client", "h", "--size", "257", "--mode", "small-flood" });

	EXPECT_EQ(o.size, 257u);
	o = opts({ "client", "h", "--mode", "no-recv", "--qp-type", "ud" });
	EXPECT_EQ(o.qp_type, QpType::UD);
	o = opts({ "client", "h", "--mode", "atomic-flood", "--op", "cas" });
	EXPECT_EQ(o.op, Op::Cas);
	o = opts({ "client", "h", "--mode", "rnr", "--rnr-retry", "2" });
	EXPECT_EQ(o.rnr_retry, 2);
}

TEST(Modes, RecoverOnlyForRnr)
{
	EXPECT_FALSE(opts({ "client", "h", "--mode", "rnr" }).recover);
	EXPECT_TRUE(opts({ "client", "h", "--mode", "rnr", "--recover" }).recover);
	EXPECT_THROW(parse({ "client", "h", "--recover" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--mode", "bw", "--recover" }), UsageError);
	EXPECT_THROW(parse({ "server", "--recover" }), UsageError);
	EXPECT_THROW(parse({ "client", "h", "--mode", "rnr", "--op", "write", "--recover" }),
		     UsageError);
	EXPECT_THROW(parse({ "client", "h", "--mode", "rnr", "--qp-type", "uc", "--recover" }),
		     UsageError);
}

TEST(Modes, StormsRunWithoutServer)
{
	Options o = opts({ "client", "--mode", "mr-storm" });

	EXPECT_EQ(o.mode, Mode::MrStorm);
	EXPECT_EQ(o.mrs, 64u);
	EXPECT_EQ(o.mr_size, 64u << 10);
	EXPECT_TRUE(is_storm(o.mode));
	EXPECT_THROW(parse({ "client", "h", "--mode", "qp-storm" }), UsageError);
	// QP storms may use any transport.
	EXPECT_EQ(opts({ "client", "--mode", "qp-storm", "--qp-type", "ud" }).qp_type,
		  QpType::UD);
	EXPECT_EQ(opts({ "client", "--mode", "cq-storm", "--cqs", "8" }).cqs, 8u);
}

TEST(Modes, BlockReadReadsAFileWithoutServer)
{
	Options o = opts({ "client", "--mode", "block-read", "--file", "/dev/nvme0n1",
			   "--depth", "8" });

	EXPECT_EQ(o.mode, Mode::BlockRead);
	EXPECT_TRUE(is_local(o.mode));
	EXPECT_FALSE(is_storm(o.mode));
	EXPECT_EQ(o.file, "/dev/nvme0n1");
	EXPECT_EQ(o.size, 4096u);               // preset
	EXPECT_EQ(o.access, Access::Random);    // preset
	EXPECT_EQ(o.depth, 8u);
	EXPECT_EQ(opts({ "client", "--mode", "block-read", "--file", "f", "--rate", "200",
			 "--latency-from", "due" }).latency_from, LatencyFrom::Due);
	// What to read, and nothing that names RDMA resources.
	EXPECT_THROW(parse({ "client", "--mode", "block-read" }), UsageError);
	EXPECT_THROW(parse({ "client", "--mode", "block-read", "--file", "" }),
		     UsageError);
	EXPECT_THROW(parse({ "client", "h", "--mode", "block-read", "--file", "f" }),
		     UsageError);
	for (const char *opt : { "--dev", "--qps", "--threads", "--mrs", "--op" })
		EXPECT_THROW(parse({ "client", "--mode", "block-read", "--file", "f", opt,
				     std::string(opt) == "--dev" ? "rxe0" :
				     std::string(opt) == "--op" ? "read" : "2" }),
			     UsageError) << opt;
	// --file belongs to block-read.
	EXPECT_THROW(parse({ "client", "h", "--file", "f" }), UsageError);
}

TEST(Modes, NamesRoundTrip)
{
	for (const auto &m : all_modes()) {
		Mode x;

		ASSERT_TRUE(mode_from_name(m.name, x));
		EXPECT_EQ(x, m.mode);
		EXPECT_STREQ(mode_name(m.mode), m.name);
	}
	EXPECT_STREQ(op_name(Op::WriteImm), "write-imm");
	EXPECT_STREQ(qp_type_name(QpType::UD), "ud");
	EXPECT_TRUE(op_needs_recv(Op::Send));
	EXPECT_TRUE(op_needs_recv(Op::WriteImm));
	EXPECT_FALSE(op_needs_recv(Op::Write));
}
