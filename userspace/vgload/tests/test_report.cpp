// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <vector>

#include "json_check.h"
#include "options.h"
#include "report.h"

using namespace vgload;

namespace {

Options client_opts()
{
	const char *argv[] = { "vgload", "client", "10.0.0.2", "--op", "send",
			       "--size", "4K", "--json" };

	return parse_options(8, argv).opts;
}

RunReport sample_report(const Options &o)
{
	RunReport r;
	Counters c;

	for (uint64_t i = 1; i <= 1000; i++)
		c.lat.record(i * 1000);  // 1..1000 us
	c.ops = 1000;
	c.bytes = 1000 * 4096;
	c.errors["IBV_WC_RNR_RETRY_EXC_ERR"] = 2;
	r.opts = &o;
	r.has_device = true;
	r.device.name = "rxe0";
	r.device.port = 1;
	r.device.gid_index = 1;
	r.device.gid = "::ffff:10.0.2.15";
	r.device.max_msg_sz = 8388608;
	r.device.max_cqe = 32767;
	IntervalRecord iv;

	iv.t_end_s = 1;
	iv.ops = 1000;
	iv.t_last_done_s = 0.75;
	iv.mops = 0.001;
	iv.lat = c.lat.summary();
	r.intervals.push_back(iv);
	r.total = make_total(c, 2.0);
	r.total.flushed_at_stop = 1;
	r.peer.present = true;
	r.peer.recv_completions = 1000;
	r.peer.recv_bytes = 4096000;
	r.end_reason = "duration";
	r.warnings.push_back("a \"quoted\" warning");
	return r;
}

}  // namespace

TEST(Report, TotalsAndRates)
{
	Options o = client_opts();
	RunReport r = sample_report(o);

	EXPECT_DOUBLE_EQ(r.total.mops, 1000 / 2.0 / 1e6);
	EXPECT_DOUBLE_EQ(r.total.gbps, 1000.0 * 4096 * 8 / 2.0 / 1e9);
	EXPECT_EQ(r.total.error_total, 2u);
	EXPECT_EQ(r.total.lat.samples, 1000u);
}

TEST(Report, ClientJsonSchema)
{
	Options o = client_opts();
	RunReport r = sample_report(o);
	jc::Value v = jc::parse(to_json(r));

	EXPECT_EQ(v.at("tool").str, "vgload");
	EXPECT_EQ(v.at("schema").num, SCHEMA_VERSION);
	EXPECT_EQ(v.at("role").str, "client");
	EXPECT_EQ(v.at("mode").str, "traffic");
	EXPECT_TRUE(v.at("ok").b);
	EXPECT_EQ(v.at("end_reason").str, "duration");
	EXPECT_EQ(v.at("warnings.0").str, "a \"quoted\" warning");
	EXPECT_EQ(v.at("config.op").str, "send");
	EXPECT_EQ(v.at("config.size").num, 4096);
	EXPECT_EQ(v.at("config.server").str, "10.0.0.2");
	EXPECT_EQ(v.at("device.name").str, "rxe0");
	EXPECT_EQ(v.at("device.max_msg_sz").num, 8388608);
	EXPECT_EQ(v.at("intervals.0.ops").num, 1000);
	EXPECT_EQ(v.at("intervals.0.t_last_done_s").num, 0.75);
	EXPECT_TRUE(v.has("intervals.0.lat_us.p99"));
	EXPECT_EQ(v.at("total.ops").num, 1000);
	EXPECT_EQ(v.at("total.bytes").num, 4096000);
	EXPECT_EQ(v.at("total.errors.IBV_WC_RNR_RETRY_EXC_ERR").num, 2);
	EXPECT_EQ(v.at("total.error_total").num, 2);
	EXPECT_EQ(v.at("total.flushed_at_stop").num, 1);
	EXPECT_EQ(v.at("peer.recv_completions").num, 1000);

	// Latency in microseconds, ordered, nearest-rank.
	const jc::Value &l = v.at("total.lat_us");

	EXPECT_EQ(l.at("samples").num, 1000);
	EXPECT_NEAR(l.at("p50").num, 500, 500 * 0.005);
	EXPECT_NEAR(l.at("p99").num, 990, 990 * 0.005);
	EXPECT_NEAR(l.at("p999").num, 999, 999 * 0.005);
	EXPECT_EQ(l.at("max").num, 1000);
	EXPECT_EQ(l.at("min").num, 1);
	EXPECT_LE(l.at("p50").num, l.at("p99").num);
	EXPECT_LE(l.at("p99").num, l.at("p999").num);
	EXPECT_LE(l.at("p999").num, l.at("max").num);
}

TEST(Report, FailedSetupJsonHasNullDeviceAndPeer)
{
	Options o = client_opts();
	RunReport r;

	r.opts = &o;
	r.ok = false;
	r.end_reason = "setup_failed";
	r.message = "connect to 10.0.0.2:18620 failed: Connection refused (ECONNREFUSED)";
	jc::Value v = jc::parse(to_json(r));

	EXPECT_FALSE(v.at("ok").b);
	EXPECT_EQ(v.at("device").kind, jc::Value::Null);
	EXPECT_EQ(v.at("peer").kind, jc::Value::Null);
	EXPECT_EQ(v.at("total.ops").num, 0);
	EXPECT_EQ(v.at("total.lat_us.samples").num, 0);
	EXPECT_EQ(v.at("intervals").arr.size(), 0u);
}

TEST(Report, StormVerbsInJson)
{
	const char *argv[] = { "vgload", "client", "--mode", "mr-storm", "--json" };
	Options o = parse_options(5, argv).opts;
	Counters c;

	c.verbs["ibv_reg_mr"].ops = 10;
	c.verbs["ibv_reg_mr"].lat.record(20000);
	c.verbs["ibv_dereg_mr"].ops = 10;
	c.verbs["ibv_dereg_mr"].errors = 1;
	c.errors["ibv_dereg_mr:EBUSY"] = 1;
	c.ops = 20;
	RunReport r;

	r.opts = &o;
	r.total = make_total(c, 1.0);
	r.end_reason = "duration";
	jc::Value v = jc::parse(to_json(r));

	EXPECT_EQ(v.at("mode").str, "mr-storm");
	EXPECT_EQ(v.at("verbs.ibv_reg_mr.ops").num, 10);
	EXPECT_EQ(v.at("verbs.ibv_reg_mr.ops_per_s").num, 10);
	EXPECT_EQ(v.at("verbs.ibv_reg_mr.lat_us.p50").num, 20);
	EXPECT_EQ(v.at("verbs.ibv_dereg_mr.errors").num, 1);
	EXPECT_EQ(v.at("total.errors.ibv_dereg_mr:EBUSY").num, 1);
}

TEST(Report, SessionAndDeviceJson)
{
	SessionRecord s;

	s.session = 3;
	s.client = "10.0.2.15:40000";
	s.mode = "rnr";
	s.op = "send";
	s.qp_type = "rc";
	s.post_recv = false;
	s.recv.errors["IBV_WC_WR_FLUSH_ERR"] = 4;
	s.end_reason = "client_closed";
	s.ok = false;
	jc::Value v = jc::parse(to_json(s));

	EXPECT_EQ(v.at("role").str, "server");
	EXPECT_EQ(v.at("session").num, 3);
	EXPECT_FALSE(v.at("post_recv").b);
	EXPECT_EQ(v.at("recv.errors.IBV_WC_WR_FLUSH_ERR").num, 4);
	EXPECT_EQ(v.at("end_reason").str, "client_closed");

	DeviceRecord d;

	d.name = "rxe0";
	d.max_msg_sz = 1u << 31;
	jc::Value dv = jc::parse(to_json(d));

	EXPECT_EQ(dv.at("role").str, "devinfo");
	EXPECT_EQ(dv.at("device.max_msg_sz").num, 2147483648.0);
}

TEST(Report, HumanOutputMentionsKeyFacts)
{
	Options o = client_opts();
	RunReport r = sample_report(o);
	std::string h = human_report(r);

	EXPECT_NE(h.find("p99.9"), std::string::npos);
	EXPECT_NE(h.find("IBV_WC_RNR_RETRY_EXC_ERR=2"), std::string::npos);
	EXPECT_NE(h.find("Gbit/s"), std::string::npos);
	EXPECT_NE(h.find("server received: 1000"), std::string::npos);
	std::string line = human_interval(r.intervals[0]);

	EXPECT_NE(line.find("ops"), std::string::npos);
	EXPECT_NE(line.find("p99"), std::string::npos);
}
