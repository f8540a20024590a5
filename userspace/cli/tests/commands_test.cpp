// SPDX-License-Identifier: GPL-2.0-only
// Every object's command words: help, and usage errors found before any
// netlink request (so these run without the kernel module).
#include "commands.h"
#include "counters.h"
#include "tenant.h"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>
#include <sstream>

using namespace vg;

namespace {

using Cmd = std::function<int(Args &, const Output &)>;

const std::vector<std::pair<const char *, Cmd>> objects = {
	{"status", cmd_status}, {"tenant", cmd_tenant}, {"dev", cmd_dev},
	{"qp", cmd_qp}, {"stats", cmd_stats}, {"monitor", cmd_monitor},
};

int run(const Cmd &cmd, std::vector<std::string> words, std::string *out)
{
	GlobalOptions opts;
	std::ostringstream s;
	Output o(opts, s);
	Args a(std::move(words));
	int ret = cmd(a, o);
	*out = s.str();
	return ret;
}

}  // namespace

TEST(Commands, EveryObjectHasHelp)
{
	for (const auto &[name, cmd] : objects) {
		std::string out;
		EXPECT_EQ(run(cmd, {"help"}, &out), 0) << name;
		EXPECT_EQ(out.rfind("Usage: verbsgate", 0), 0u) << name << out;
		EXPECT_NE(out.find(name), std::string::npos) << name << out;
	}
}

TEST(Commands, UsageErrorsComeBeforeTheKernel)
{
	const std::vector<std::pair<Cmd, std::vector<std::string>>> bad = {
		{cmd_status, {"now"}},
		{cmd_tenant, {"frobnicate"}},
		{cmd_tenant, {"show", "a", "b"}},
		{cmd_tenant, {"del"}},
		{cmd_tenant, {"del", "a", "b"}},
		{cmd_tenant, {"add", "a", "ulp", "x", "class", "latency"}},
		{cmd_tenant, {"set", "a"}},
		{cmd_tenant, {"set", "a", "rnr-retry-max", "8"}},
		{cmd_tenant, {"set", "a", "retry-cnt-max", "8"}},
		{cmd_tenant, {"set", "a", "rnr-timer-min", "656ms"}},
		{cmd_tenant, {"set", "a", "timeout-min", "9000s"}},
		{cmd_tenant, {"set", "a", "rd-atomic-max", "0"}},
		{cmd_tenant, {"set", "a", "rd-atomic-max", "256"}},
		{cmd_tenant, {"add", "a", "ulp", "x", "class", "latency", "weight",
			      "1", "rnr-timer-min", "-1us"}},
		{cmd_tenant, {"set", "a", "ctrl-rate", "0"}},
		{cmd_tenant, {"set", "a", "ctrl-rate", "1000001"}},
		{cmd_tenant, {"set", "a", "ctrl-rate", "fast"}},
		{cmd_tenant, {"set", "a", "ctrl-burst", "0"}},
		{cmd_tenant, {"set", "a", "ctrl-burst", "none"}},
		{cmd_tenant, {"set", "a", "ctrl-rate", "10", "ctrl-burst", "0"}},
		{cmd_tenant, {"add", "a", "ulp", "x", "class", "latency", "weight",
			      "1", "ctrl-burst", "1000001"}},
		{cmd_dev, {"frobnicate"}},
		{cmd_dev, {"show", "rxe0", "extra"}},
		{cmd_dev, {"set", "rxe0"}},
		{cmd_dev, {"set", "rxe0", "maxrate", "fast"}},
		{cmd_qp, {"frobnicate"}},
		{cmd_qp, {"show", "rxe0"}},
		{cmd_qp, {"show", "dev"}},
		{cmd_qp, {"show", "tenant", ""}},
		{cmd_qp, {"show", "dev", "rxe0", "dev", "rxe0"}},
		{cmd_qp, {"list", "port", "1"}},
		{cmd_stats, {"tenant"}},
		{cmd_stats, {"bogus"}},
		{cmd_monitor, {"now"}},
	};
	for (const auto &[cmd, words] : bad) {
		std::string out;
		EXPECT_THROW(run(cmd, words, &out), UsageError) << words[0];
	}
}

namespace {

std::string file(const std::string &path)
{
	std::ifstream in(path);
	std::stringstream ss;

	EXPECT_TRUE(in) << path;
	ss << in.rdbuf();
	return ss.str();
}

}  // namespace

TEST(Commands, TenantSettingsDocumented)
{
	std::string usage;
	run(cmd_tenant, {"help"}, &usage);
	std::string man = file(VG_CLI_TEST_DIR "/../verbsgate.8");
	std::string completion = file(VG_CLI_TEST_DIR "/../bash-completion/verbsgate");

	for (const char *k : {"class", "weight", "min", "max", "rnr-retry-max",
			      "retry-cnt-max", "rnr-timer-min", "timeout-min",
			      "rd-atomic-max", "ctrl-rate", "ctrl-burst",
			      "mr-bytes-max"}) {
		std::string roff;	// the man page escapes its hyphens
		for (const char *c = k; *c; c++)
			roff += *c == '-' ? std::string("\\-") : std::string(1, *c);
		EXPECT_NE(usage.find(std::string(" ") + k + " "),
			  std::string::npos) << k;
		EXPECT_NE(man.find(roff), std::string::npos) << k;
		EXPECT_NE(completion.find(k), std::string::npos) << k;
	}
}

// What tenant show and stats print in JSON, in the man page's JSON section.
TEST(Commands, TenantJsonKeysDocumented)
{
	std::string man = file(VG_CLI_TEST_DIR "/../verbsgate.8");
	size_t from = man.find("\n.SH JSON\n");
	ASSERT_NE(from, std::string::npos);
	std::string section = man.substr(from, man.find("\n.SH ", from + 1) - from);
	auto documented = [&](const std::string &key) {
		for (size_t at = section.find(key); at != std::string::npos;
		     at = section.find(key, at + 1)) {
			auto word = [](char c) { return isalnum(c) || c == '_'; };
			if (!word(section[at - 1]) &&
			    !word(section[at + key.size()]))
				return true;
		}
		return false;
	};

	std::vector<std::string> keys;
	for (const auto &f : tenant_table())
		if (f.json && *f.json)
			keys.push_back(f.json);
	for (const auto &f : selector_table())
		if (f.json)
			keys.push_back(f.json);
	for (const auto &f : counters_table())
		keys.push_back(f.json);
	for (const auto &k : keys)
		EXPECT_TRUE(documented(k)) << k;
	EXPECT_TRUE(documented("ctrl_rate"));	// the table has them
	EXPECT_TRUE(documented("ctrl_wait_ns"));
}
