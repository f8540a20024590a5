// SPDX-License-Identifier: GPL-2.0-only
// Every command's grammar, without the kernel.
#include "requests.h"

#include <linux/verbsgate.h>

#include <gtest/gtest.h>

using namespace vg;

namespace {

const std::vector<Cgroup2Mount> mounts = {{"/sys/fs/cgroup", "/"}};

Tenant add(std::vector<std::string> words)
{
	Args a(std::move(words));
	return parse_tenant_add(a, mounts);
}

Tenant set(std::vector<std::string> words)
{
	Args a(std::move(words));
	return parse_tenant_set(a);
}

Device dev(std::vector<std::string> words)
{
	Args a(std::move(words));
	return parse_dev_set(a);
}

Qp qp(std::vector<std::string> words)
{
	Args a(std::move(words));
	return parse_qp_show(a);
}

// The usage error a tenant set gives, "" if none.
std::string set_error(std::vector<std::string> words)
{
	try {
		set(std::move(words));
	} catch (const UsageError &e) {
		return e.what();
	}
	return "";
}

}  // namespace

TEST(TenantAdd, CgroupSelector)
{
	Tenant t = add({"blue", "cgroup", "/sys/fs/cgroup/tenants/blue",
			   "class", "bandwidth", "weight", "4", "min",
			   "400mbit", "max", "25gbit"});
	EXPECT_EQ(t.name, "blue");
	EXPECT_EQ(t.sel->type, uint32_t(VERBSGATE_SEL_CGROUP));
	EXPECT_EQ(t.sel->cgroup_path, "/tenants/blue");
	EXPECT_EQ(t.cls, uint32_t(VERBSGATE_CLASS_BANDWIDTH));
	EXPECT_EQ(t.weight, 4u);
	EXPECT_EQ(t.min_rate, 50000000u);
	EXPECT_EQ(t.max_rate, 3125000000u);
}

TEST(TenantAdd, OtherSelectorsAndOrder)
{
	Tenant u = add({"nvme", "weight", "2", "class", "throughput", "ulp",
			   "nvmet_rdma"});
	EXPECT_EQ(u.sel->type, uint32_t(VERBSGATE_SEL_ULP));
	EXPECT_EQ(u.sel->ulp, "nvmet_rdma");
	EXPECT_EQ(u.cls, uint32_t(VERBSGATE_CLASS_THROUGHPUT));
	EXPECT_FALSE(u.min_rate);
	EXPECT_FALSE(u.max_rate);

	Tenant l = add({"l", "local", "10.77.0.0/24", "class", "latency",
			   "weight", "1"});
	EXPECT_EQ(l.sel->type, uint32_t(VERBSGATE_SEL_LOCAL_ADDR));
	EXPECT_EQ(l.sel->prefix->len, 4u);
	EXPECT_EQ(l.sel->prefix->plen, 24u);
	EXPECT_EQ(l.cls, uint32_t(VERBSGATE_CLASS_LATENCY));

	Tenant p = add({"p", "peer", "fd00::/64", "cl", "lat", "w", "9"});
	EXPECT_EQ(p.sel->type, uint32_t(VERBSGATE_SEL_PEER_ADDR));
	EXPECT_EQ(p.sel->prefix->len, 16u);
	EXPECT_EQ(p.weight, 9u);
}

TEST(TenantAdd, Errors)
{
	EXPECT_THROW(add({}), UsageError);
	EXPECT_THROW(add({"x", "class", "bandwidth", "weight", "1"}),
		     UsageError);  // no selector
	EXPECT_THROW(add({"x", "ulp", "a", "weight", "1"}), UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth"}), UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "cgroup", "/a", "class",
			  "bandwidth", "weight", "1"}),
		     UsageError);  // two selectors
	EXPECT_THROW(add({"x", "ulp", "a", "class", "gold", "weight", "1"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight",
			  "four"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight",
			  "4294967296"}),
		     UsageError);  // beyond u32
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "min", "400mbits"}),
		     UsageError);  // bad unit
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "max", "99999999999tbit"}),
		     UsageError);  // overflow
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "colour", "blue"}),
		     UsageError);
	EXPECT_THROW(add({"x", "local", "10.0.0.1/24", "class", "bandwidth",
			  "weight", "1"}),
		     UsageError);  // host bits
	EXPECT_THROW(add({"x", "cgroup", "tenants/blue", "class", "bandwidth",
			  "weight", "1"}),
		     UsageError);  // relative path
	EXPECT_THROW(add({"x", "cgroup"}), UsageError);
}

TEST(TenantSet, FieldsNoneAndErrors)
{
	Tenant t = set({"blue", "weight", "8", "min", "none", "max", "1gbit"});
	EXPECT_EQ(t.weight, 8u);
	EXPECT_EQ(t.min_rate, 0u);
	EXPECT_EQ(t.max_rate, 125000000u);
	EXPECT_FALSE(t.cls);

	Tenant c = set({"blue", "class", "latency"});
	EXPECT_EQ(c.cls, uint32_t(VERBSGATE_CLASS_LATENCY));
	EXPECT_FALSE(c.weight);

	EXPECT_THROW(set({"blue"}), UsageError);  // nothing to set
	EXPECT_NE(set_error({"blue"}).find("rd-atomic-max"), std::string::npos);
	EXPECT_THROW(set({"blue", "cgroup", "/x"}), UsageError);
	EXPECT_THROW(set({"blue", "weight"}), UsageError);
	EXPECT_THROW(set({"blue", "max", "fast"}), UsageError);
}

TEST(TenantAdd, QpBounds)
{
	Tenant t = add({"blue", "ulp", "a", "class", "bandwidth", "weight", "1",
			"rnr-retry-max", "3", "retry-cnt-max", "5",
			"rnr-timer-min", "1.28ms", "timeout-min", "4.194304ms",
			"rd-atomic-max", "16"});
	EXPECT_EQ(t.rnr_retry_max, 3u);
	EXPECT_EQ(t.retry_cnt_max, 5u);
	EXPECT_EQ(t.rnr_timer_min_ns, 1280000u);
	EXPECT_EQ(t.timeout_min_ns, 4194304u);
	EXPECT_EQ(t.rd_atomic_max, 16u);

	// Unset unless given; none is each one's "no bound".
	Tenant u = add({"u", "ulp", "a", "class", "latency", "weight", "1"});
	EXPECT_FALSE(u.rnr_retry_max);
	EXPECT_FALSE(u.retry_cnt_max);
	EXPECT_FALSE(u.rnr_timer_min_ns);
	EXPECT_FALSE(u.timeout_min_ns);
	EXPECT_FALSE(u.rd_atomic_max);
	Tenant n = add({"n", "ulp", "a", "class", "latency", "weight", "1",
			"rnr-retry-max", "none", "retry-cnt-max", "none",
			"rnr-timer-min", "none", "timeout-min", "none",
			"rd-atomic-max", "none"});
	EXPECT_EQ(n.rnr_retry_max, 7u);
	EXPECT_EQ(n.retry_cnt_max, 7u);
	EXPECT_EQ(n.rnr_timer_min_ns, 0u);
	EXPECT_EQ(n.timeout_min_ns, 0u);
	EXPECT_EQ(n.rd_atomic_max, 0u);

	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "rnr-retry-max", "8"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "rd-atomic-max", "0"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "timeout-min"}),
		     UsageError);
}

TEST(TenantSet, QpBoundsAreSettings)
{
	Tenant t = set({"blue", "rnr-retry-max", "0"});
	EXPECT_EQ(t.rnr_retry_max, 0u);	// no retries: a bound, not none
	EXPECT_FALSE(t.cls);
	EXPECT_FALSE(t.weight);
	EXPECT_FALSE(t.min_rate);
	EXPECT_FALSE(t.retry_cnt_max);

	EXPECT_EQ(set({"blue", "retry-cnt-max", "7"}).retry_cnt_max, 7u);
	EXPECT_EQ(set({"blue", "retry-cnt-max", "none"}).retry_cnt_max, 7u);
	EXPECT_EQ(set({"blue", "rnr-retry-max", "none"}).rnr_retry_max, 7u);
	EXPECT_EQ(set({"blue", "rnr-timer-min", "none"}).rnr_timer_min_ns, 0u);
	EXPECT_EQ(set({"blue", "rnr-timer-min", "0"}).rnr_timer_min_ns, 0u);
	EXPECT_EQ(set({"blue", "rnr-timer-min", "10"}).rnr_timer_min_ns,
		  10000u);	// a bare number is microseconds
	EXPECT_EQ(set({"blue", "rnr-timer-min", "655.36ms"}).rnr_timer_min_ns,
		  655360000u);	// the longest
	EXPECT_EQ(set({"blue", "timeout-min", "none"}).timeout_min_ns, 0u);
	EXPECT_EQ(set({"blue", "timeout-min", "8796093022208ns"}).timeout_min_ns,
		  8796093022208u);	// the longest
	EXPECT_EQ(set({"blue", "timeout-min", "1s"}).timeout_min_ns,
		  1000000000u);
	EXPECT_EQ(set({"blue", "rd-atomic-max", "none"}).rd_atomic_max, 0u);
	EXPECT_EQ(set({"blue", "rd-atomic-max", "1"}).rd_atomic_max, 1u);
	EXPECT_EQ(set({"blue", "rd-atomic-max", "255"}).rd_atomic_max, 255u);

	// With the other settings, in any order; keywords by prefix.
	Tenant all = set({"blue", "rd-a", "4", "weight", "2", "rnr-t", "20us",
			  "re", "none", "ti", "1ms", "rnr", "1", "max",
			  "none"});
	EXPECT_EQ(all.weight, 2u);
	EXPECT_EQ(all.max_rate, 0u);
	EXPECT_EQ(all.rd_atomic_max, 4u);
	EXPECT_EQ(all.rnr_timer_min_ns, 20000u);
	EXPECT_EQ(all.retry_cnt_max, 7u);
	EXPECT_EQ(all.timeout_min_ns, 1000000u);
	EXPECT_EQ(all.rnr_retry_max, 1u);
}

TEST(TenantSet, QpBoundErrors)
{
	EXPECT_EQ(set_error({"blue", "rnr-retry-max", "8"}),
		  "rnr-retry-max: number \"8\" is above 7");
	EXPECT_EQ(set_error({"blue", "retry-cnt-max", "8"}),
		  "retry-cnt-max: number \"8\" is above 7");
	EXPECT_EQ(set_error({"blue", "rd-atomic-max", "0"}),
		  "rd-atomic-max: number \"0\" is below 1 (none: no bound)");
	EXPECT_EQ(set_error({"blue", "rd-atomic-max", "256"}),
		  "rd-atomic-max: number \"256\" is above 255");
	EXPECT_EQ(set_error({"blue", "rnr-timer-min", "656ms"}),
		  "rnr-timer-min: time \"656ms\" is above 655.36ms");
	EXPECT_EQ(set_error({"blue", "rnr-timer-min", "655360001ns"}),
		  "rnr-timer-min: time \"655360001ns\" is above 655.36ms");
	EXPECT_EQ(set_error({"blue", "timeout-min", "8796093022209ns"}),
		  "timeout-min: time \"8796093022209ns\" is above "
		  "8796093022208ns");
	EXPECT_EQ(set_error({"blue", "timeout-min", "-1us"}),
		  "timeout-min: invalid time \"-1us\"");
	EXPECT_EQ(set_error({"blue", "rnr-timer-min", "soon"}),
		  "rnr-timer-min: invalid time \"soon\"");
	EXPECT_EQ(set_error({"blue", "rnr-retry-max", "-1"}),
		  "rnr-retry-max: invalid number \"-1\"");
	EXPECT_EQ(set_error({"blue", "rnr-retry-max"}),
		  "missing rnr-retry-max");

	const std::vector<std::vector<std::string>> bad = {
		{"blue", "rnr-retry-max", "three"},
		{"blue", "rnr-retry-max", "3.5"},
		{"blue", "retry-cnt-max", "-1"},
		{"blue", "retry-cnt-max", "18446744073709551616"},
		{"blue", "retry-cnt-max"},
		{"blue", "rd-atomic-max", "-1"},
		{"blue", "rd-atomic-max", "many"},
		{"blue", "rd-atomic-max"},
		{"blue", "rnr-timer-min", "-10us"},
		{"blue", "rnr-timer-min", "1s"},
		{"blue", "rnr-timer-min", "1.5ns"},	// not whole nanoseconds
		{"blue", "rnr-timer-min"},
		{"blue", "timeout-min", "9000s"},
		{"blue", "timeout-min", "1parsec"},
		{"blue", "timeout-min"},
	};
	for (const auto &words : bad)
		EXPECT_THROW(set(words), UsageError) << words[1];
}

TEST(TenantAdd, CtrlPace)
{
	Tenant t = add({"blue", "cgroup", "/sys/fs/cgroup/blue", "class",
			"bandwidth", "weight", "1", "ctrl-rate", "100",
			"ctrl-burst", "16"});
	EXPECT_EQ(t.ctrl_rate, 100u);
	EXPECT_EQ(t.ctrl_burst, 16u);

	// Unset unless given (the kernel's: no pace, a burst of 64).
	Tenant u = add({"u", "ulp", "a", "class", "latency", "weight", "1"});
	EXPECT_FALSE(u.ctrl_rate);
	EXPECT_FALSE(u.ctrl_burst);
	Tenant n = add({"n", "ulp", "a", "class", "latency", "weight", "1",
			"ctrl-rate", "none"});
	EXPECT_EQ(n.ctrl_rate, 0u);
	EXPECT_FALSE(n.ctrl_burst);
	// Either alone, with the QP bounds, in any order.
	Tenant b = add({"b", "ctrl-burst", "1", "ulp", "a", "rd-atomic-max", "4",
			"class", "latency", "weight", "1"});
	EXPECT_FALSE(b.ctrl_rate);
	EXPECT_EQ(b.ctrl_burst, 1u);
	EXPECT_EQ(b.rd_atomic_max, 4u);

	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "ctrl-rate", "0"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "ctrl-burst", "1000001"}),
		     UsageError);
	EXPECT_THROW(add({"x", "ulp", "a", "class", "bandwidth", "weight", "1",
			  "ctrl-rate"}),
		     UsageError);
}

TEST(TenantSet, CtrlPaceIsASetting)
{
	Tenant t = set({"blue", "ctrl-rate", "1"});
	EXPECT_EQ(t.ctrl_rate, 1u);
	EXPECT_FALSE(t.ctrl_burst);
	EXPECT_FALSE(t.cls);
	EXPECT_FALSE(t.weight);
	EXPECT_FALSE(t.rnr_retry_max);

	Tenant b = set({"blue", "ctrl-burst", "64"});
	EXPECT_EQ(b.ctrl_burst, 64u);
	EXPECT_FALSE(b.ctrl_rate);

	EXPECT_EQ(set({"blue", "ctrl-rate", "none"}).ctrl_rate, 0u);
	EXPECT_EQ(set({"blue", "ctrl-rate", "1000000"}).ctrl_rate, 1000000u);
	EXPECT_EQ(set({"blue", "ctrl-rate", "007"}).ctrl_rate, 7u);
	EXPECT_EQ(set({"blue", "ctrl-burst", "1"}).ctrl_burst, 1u);
	EXPECT_EQ(set({"blue", "ctrl-burst", "1000000"}).ctrl_burst, 1000000u);

	// With the other settings; keywords by prefix ("ctrl" is ctrl-rate).
	Tenant all = set({"blue", "ctrl-b", "8", "weight", "2", "ctrl", "50",
			  "rnr", "3", "max", "none"});
	EXPECT_EQ(all.ctrl_burst, 8u);
	EXPECT_EQ(all.ctrl_rate, 50u);
	EXPECT_EQ(all.weight, 2u);
	EXPECT_EQ(all.rnr_retry_max, 3u);
	EXPECT_EQ(all.max_rate, 0u);

	EXPECT_NE(set_error({"blue"}).find("ctrl-burst or mr-bytes-max"),
		  std::string::npos);
}

TEST(TenantSet, CtrlPaceErrors)
{
	EXPECT_EQ(set_error({"blue", "ctrl-rate", "0"}),
		  "ctrl-rate: number \"0\" is below 1 (none: no pace)");
	EXPECT_EQ(set_error({"blue", "ctrl-rate", "1000001"}),
		  "ctrl-rate: number \"1000001\" is above 1000000");
	EXPECT_EQ(set_error({"blue", "ctrl-rate", "-1"}),
		  "ctrl-rate: invalid number \"-1\"");
	EXPECT_EQ(set_error({"blue", "ctrl-rate", "fast"}),
		  "ctrl-rate: invalid number \"fast\"");
	EXPECT_EQ(set_error({"blue", "ctrl-rate"}), "missing ctrl-rate");
	EXPECT_EQ(set_error({"blue", "ctrl-burst", "0"}),
		  "ctrl-burst: number \"0\" is below 1");
	EXPECT_EQ(set_error({"blue", "ctrl-burst", "1000001"}),
		  "ctrl-burst: number \"1000001\" is above 1000000");
	EXPECT_EQ(set_error({"blue", "ctrl-burst", "none"}),
		  "ctrl-burst: invalid number \"none\"");
	EXPECT_EQ(set_error({"blue", "ctrl-burst"}), "missing ctrl-burst");
	// A good pace does not make a bad burst good.
	EXPECT_EQ(set_error({"blue", "ctrl-rate", "10", "ctrl-burst", "0"}),
		  "ctrl-burst: number \"0\" is below 1");

	const std::vector<std::vector<std::string>> bad = {
		{"blue", "ctrl-rate", "1.5"},
		{"blue", "ctrl-rate", "100/s"},
		{"blue", "ctrl-rate", "1k"},
		{"blue", "ctrl-rate", "+5"},
		{"blue", "ctrl-rate", ""},
		{"blue", "ctrl-rate", "4294967296"},
		{"blue", "ctrl-rate", "18446744073709551616"},
		{"blue", "ctrl-burst", "-1"},
		{"blue", "ctrl-burst", "2.5"},
		{"blue", "ctrl-burst", "64k"},
		{"blue", "ctrl-burst", "4294967360"},	// 64 in a u32
		{"blue", "ctrl-burst", ""},
	};
	for (const auto &words : bad)
		EXPECT_THROW(set(words), UsageError) << words[1] << " "
						     << words[2];
}

TEST(DevSet, EverySetting)
{
	Device d = dev({"rxe0", "maxrate", "25gbit", "maxops", "30000000",
			"target-p99", "8us", "step", "100mbit", "period",
			"200us", "burst", "16k", "chunk-table", "2k@40%,5k@100%",
			"chunk-nolat", "1m", "cost", "atomic", "bytes", "800",
			"units", "3", "cost", "mr", "units", "16",
			"latency-weight", "each", "enforce", "off", "user-qps",
			"deny"});
	EXPECT_EQ(d.name, "rxe0");
	EXPECT_EQ(d.max_rate, 3125000000u);
	EXPECT_EQ(d.max_ops, 30000000u);
	EXPECT_EQ(d.target_p99_ns, 8000u);
	EXPECT_EQ(d.step, 12500000u);
	EXPECT_EQ(d.period_ns, 200000u);
	EXPECT_EQ(d.burst, 16384u);
	ASSERT_TRUE(d.chunk_table);
	EXPECT_EQ(*d.chunk_table,
		  (std::vector<ChunkEntry>{{2048, 400000}, {5120, 1000000}}));
	EXPECT_EQ(d.chunk_nolat, 1048576u);
	ASSERT_EQ(d.costs.size(), 2u);
	EXPECT_EQ(d.costs[0].cls, uint32_t(VERBSGATE_OP_CLASS_ATOMIC));
	EXPECT_EQ(d.costs[0].bytes, 800u);
	EXPECT_EQ(d.costs[0].units, 3u);
	EXPECT_EQ(d.costs[1].cls, uint32_t(VERBSGATE_OP_CLASS_MR));
	EXPECT_FALSE(d.costs[1].bytes);
	EXPECT_EQ(d.costs[1].units, 16u);
	EXPECT_EQ(d.lat_each, true);
	EXPECT_EQ(d.enforce, false);
	EXPECT_EQ(d.user_qps_deny, true);
}

TEST(DevSet, BurstZeroIsASetting)
{
	EXPECT_EQ(dev({"rxe0", "burst", "0"}).burst, 0u);
}

TEST(DevSet, TheLine)
{
	Device d = dev({"rxe0", "link-rate", "25mbit", "pkt-overhead", "58"});
	EXPECT_EQ(d.link_rate, 3125000u);
	EXPECT_EQ(d.pkt_overhead, 58u);
	// The device's own rate again, and payload alone: settings too.
	d = dev({"rxe0", "link-rate", "device", "pkt-overhead", "0"});
	EXPECT_EQ(d.link_rate, 0u);
	EXPECT_EQ(d.pkt_overhead, 0u);
	EXPECT_EQ(dev({"rxe0", "pkt-overhead", "auto"}).pkt_overhead,
		  VERBSGATE_PKT_OVERHEAD_AUTO);
	// The older keywords keep their abbreviations.
	EXPECT_EQ(dev({"rxe0", "l", "each"}).lat_each, true);
	EXPECT_THROW(dev({"rxe0", "link-rate"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "link-rate", "fast"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "pkt-overhead", "-1"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "pkt-overhead", "4294967296"}), UsageError);
}

TEST(DevSet, UserQpsAloneAndBadWord)
{
	EXPECT_EQ(dev({"rxe0", "user-qps", "allow"}).user_qps_deny, false);
	EXPECT_EQ(dev({"rxe0", "user-qps", "deny"}).user_qps_deny, true);
	EXPECT_THROW(dev({"rxe0", "user-qps", "refuse"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "user-qps"}), UsageError);
}

TEST(DevSet, ChunkNoneAutoAndOn)
{
	Device d = dev({"rxe0", "chunk", "5k", "target-p99", "none", "step",
			"auto", "enforce", "on", "latency-weight", "group"});
	EXPECT_EQ(*d.chunk_table, (std::vector<ChunkEntry>{{5120, 1000000}}));
	EXPECT_EQ(d.target_p99_ns, 0u);
	EXPECT_EQ(d.step, 0u);
	EXPECT_EQ(d.enforce, true);
	EXPECT_EQ(d.lat_each, false);
}

TEST(DevSet, Errors)
{
	EXPECT_THROW(dev({"rxe0"}), UsageError);  // nothing to set
	EXPECT_THROW(dev({}), UsageError);
	EXPECT_THROW(dev({"rxe0", "target-p99", "8parsecs"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "maxrate", "1.5bps"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "maxops", "18446744073709551616"}),
		     UsageError);
	EXPECT_THROW(dev({"rxe0", "chunk", "8g"}), UsageError);  // > 4 GiB
	EXPECT_THROW(dev({"rxe0", "burst", "8g"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "burst"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "chunk-table", "5k"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "chunk-table", "5k@101%"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "cost", "data"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "cost", "vector", "bytes", "1"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "cost", "data", "bytes", "1", "cost", "data",
			  "units", "2"}),
		     UsageError);
	EXPECT_THROW(dev({"rxe0", "enforce", "maybe"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "latency-weight", "some"}), UsageError);
	EXPECT_THROW(dev({"rxe0", "turbo", "on"}), UsageError);
}

TEST(QpShow, Filters)
{
	Qp all = qp({});
	EXPECT_FALSE(all.dev);
	EXPECT_FALSE(all.tenant);

	Qp d = qp({"dev", "rxe0"});
	EXPECT_EQ(d.dev, "rxe0");
	EXPECT_FALSE(d.tenant);

	Qp t = qp({"tenant", "blue"});
	EXPECT_FALSE(t.dev);
	EXPECT_EQ(t.tenant, "blue");

	Qp both = qp({"te", "blue", "d", "mlx5_0"});  // any order, prefixes
	EXPECT_EQ(both.dev, "mlx5_0");
	EXPECT_EQ(both.tenant, "blue");
}

TEST(QpShow, Errors)
{
	EXPECT_THROW(qp({"rxe0"}), UsageError);			// no keyword
	EXPECT_THROW(qp({"port", "1"}), UsageError);		// unknown keyword
	EXPECT_THROW(qp({"dev"}), UsageError);			// missing value
	EXPECT_THROW(qp({"dev", "rxe0", "tenant"}), UsageError);
	EXPECT_THROW(qp({"tenant", ""}), UsageError);		// invalid name
	EXPECT_THROW(qp({"dev", ""}), UsageError);
	EXPECT_THROW(qp({"dev", "rxe0", "dev", "rxe1"}), UsageError);
	EXPECT_THROW(qp({"tenant", "a", "tenant", "a"}), UsageError);
}

TEST(Names, ClassesAndOpClasses)
{
	EXPECT_EQ(parse_class("band"), uint32_t(VERBSGATE_CLASS_BANDWIDTH));
	EXPECT_STREQ(class_name(VERBSGATE_CLASS_THROUGHPUT), "throughput");
	EXPECT_STREQ(class_name(77), "?");
	EXPECT_EQ(parse_op_class("mr"), uint32_t(VERBSGATE_OP_CLASS_MR));
	EXPECT_STREQ(selector_name(VERBSGATE_SEL_PEER_ADDR), "peer");
}

TEST(TenantSet, MrBytesQuota)
{
	Tenant t = set({"blue", "mr-bytes-max", "64m"});
	EXPECT_EQ(t.mr_bytes_max, 64ull << 20);
	EXPECT_EQ(set({"blue", "mr-bytes-max", "none"}).mr_bytes_max, 0u);
	EXPECT_EQ(set({"blue", "mr-bytes-max", "4096"}).mr_bytes_max, 4096u);
	// Unset unless given.
	EXPECT_FALSE(set({"blue", "weight", "2"}).mr_bytes_max);
	Tenant a = add({"a", "ulp", "x", "class", "bandwidth", "weight", "1",
			"mr-bytes-max", "1g"});
	EXPECT_EQ(a.mr_bytes_max, 1ull << 30);

	const std::vector<std::vector<std::string>> bad = {
		{"blue", "mr-bytes-max"},
		{"blue", "mr-bytes-max", "0"},	// none says no quota
		{"blue", "mr-bytes-max", "lots"},
		{"blue", "mr-bytes-max", "-1m"},
	};
	for (const auto &words : bad)
		EXPECT_THROW(set(words), UsageError) << words.back();
}
