// SPDX-License-Identifier: GPL-2.0-only
// Replies as the CLI reads and prints them: attributes built with libnl,
// parsed into objects, formatted.
#include "commands.h"
#include "device.h"
#include "genl_msg.h"
#include "json.h"
#include "qp.h"
#include "replies.h"
#include "tenant.h"

#include <linux/verbsgate.h>
#include <netlink/attr.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <optional>
#include <utility>

using namespace vg;
using vg::test::Msg;

namespace {

Gid v4_mapped(uint8_t a, uint8_t b, uint8_t c, uint8_t d)
{
	return {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, a, b, c, d};
}

// fe80::<last>
Gid link_local(uint8_t last)
{
	return {0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, last};
}

// The reply's attributes, as GenlClient hands them to a command; they
// point into msg.
Attrs parse(const Msg &msg)
{
	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	Attrs a;

	EXPECT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	std::copy(std::begin(tb), std::end(tb), a.begin());
	return a;
}

void put_common(nl_msg *m, const char *tenant, uint32_t qpn, uint32_t type)
{
	nla_put_u32(m, VERBSGATE_ATTR_DEV_INDEX, 1);
	nla_put_string(m, VERBSGATE_ATTR_DEV_NAME, "rxe0");
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 3);
	nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, tenant);
	nla_put_u32(m, VERBSGATE_ATTR_QP_NUM, qpn);
	nla_put_u32(m, VERBSGATE_ATTR_QP_TYPE, type);
}

std::string json(const Qp &q)
{
	JsonWriter w;

	qp_json(w, q);
	return w.str();
}

}  // namespace

TEST(FormatGid, Ipv4MappedPrintsAsIpv4)
{
	EXPECT_EQ(format_gid(v4_mapped(10, 77, 0, 1)), "10.77.0.1");
	EXPECT_EQ(format_gid(v4_mapped(0, 0, 0, 0)), "0.0.0.0");
}

TEST(FormatGid, OthersPrintAsCompressedIpv6)
{
	EXPECT_EQ(format_gid(link_local(1)), "fe80::1");
	EXPECT_EQ(format_gid(Gid{}), "::");
	// ffff in the wrong place, or an IPv4-compatible (::a.b.c.d) address.
	EXPECT_EQ(format_gid({0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0, 0, 10,
			      77, 0, 1}),
		  "::ffff:0:a4d:1");
	EXPECT_EQ(format_gid({0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 10, 77, 0,
			      1}),
		  "::10.77.0.1");
	EXPECT_EQ(format_gid({0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0xfc, 0x12, 0xe5,
			      0xff, 0xfe, 0xa5, 0xe3, 0x93}),
		  "fe80::fc12:e5ff:fea5:e393");
}

TEST(ParseQp, UserQp)
{
	Msg msg;
	nl_msg *m = msg.m.get();
	Gid local = v4_mapped(10, 77, 0, 1), peer = v4_mapped(10, 77, 0, 2);
	put_common(m, "blue", 17, 2);
	nla_put_u32(m, VERBSGATE_ATTR_QP_PID, 1234);
	nla_put_string(m, VERBSGATE_ATTR_QP_COMM, "vgload");
	nla_put_u64(m, VERBSGATE_ATTR_QP_CGROUP_ID, 5678);
	nla_put(m, VERBSGATE_ATTR_QP_LOCAL_GID, int(local.size()), local.data());
	nla_put(m, VERBSGATE_ATTR_QP_PEER_GID, int(peer.size()), peer.data());

	Qp q = decode(qp_table(), parse(msg).data());
	EXPECT_EQ(q.dev_index, 1u);
	EXPECT_EQ(q.dev, "rxe0");
	EXPECT_EQ(q.tenant_id, 3u);
	EXPECT_EQ(q.tenant, "blue");
	EXPECT_EQ(q.qpn, 17u);
	EXPECT_EQ(q.type, 2u);
	EXPECT_EQ(q.pid, 1234u);
	EXPECT_EQ(q.comm, "vgload");
	EXPECT_EQ(q.cgroup_id, 5678u);
	EXPECT_FALSE(q.ulp);
	EXPECT_EQ(q.local_gid, local);
	EXPECT_EQ(q.peer_gid, peer);
	EXPECT_FALSE(q.stats);

	EXPECT_EQ(qp_text(q, true),
		  "rxe0 qpn 17 type RC tenant blue pid 1234 comm vgload "
		  "cgroup 5678 local 10.77.0.1 peer 10.77.0.2");
	EXPECT_EQ(json(q),
		  "{\"dev\":\"rxe0\",\"dev_index\":1,\"qpn\":17,\"type\":\"RC\","
		  "\"tenant\":\"blue\",\"tenant_id\":3,\"pid\":1234,"
		  "\"comm\":\"vgload\",\"cgroup_id\":5678,"
		  "\"local\":\"10.77.0.1\",\"peer\":\"10.77.0.2\"}");
}

TEST(ParseQp, KernelQpWithStatsAndUnknownAttributes)
{
	Msg msg;
	nl_msg *m = msg.m.get();
	Gid local = link_local(1), peer = link_local(2);
	put_common(m, "default", 18, 2);
	nla_put_u32(m, VERBSGATE_ATTR_QP_PID, 0);  // "0: kernel" (uapi)
	nla_put_string(m, VERBSGATE_ATTR_QP_ULP, "nvme_rdma");
	nla_put(m, VERBSGATE_ATTR_QP_LOCAL_GID, int(local.size()), local.data());
	nla_put(m, VERBSGATE_ATTR_QP_PEER_GID, int(peer.size()), peer.data());
	nla_put_u32(m, VERBSGATE_ATTR_QP_WEIGHT, 5);
	nla_put_u32(m, VERBSGATE_ATTR_MAX + 1, 99);  // newer than this tool
	nlattr *stats = nla_nest_start(m, VERBSGATE_ATTR_QP_STATS | NLA_F_NESTED);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_TX_BYTES, 4096);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_TX_WRS, 2);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_THROTTLED_NS, 1500);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_MAX + 1, 7);  // newer than this tool
	nla_nest_end(m, stats);

	Qp q = decode(qp_table(), parse(msg).data());
	EXPECT_FALSE(q.pid);
	EXPECT_FALSE(q.comm);
	EXPECT_FALSE(q.cgroup_id);
	EXPECT_EQ(q.ulp, "nvme_rdma");
	ASSERT_TRUE(q.stats);
	EXPECT_EQ(q.stats->tx_bytes, 4096u);
	EXPECT_EQ(q.stats->tx_wrs, 2u);
	EXPECT_EQ(q.stats->throttled_ns, 1500u);

	EXPECT_EQ(qp_text(q, false),
		  "rxe0 qpn 18 type RC tenant default ulp nvme_rdma "
		  "local fe80::1 peer fe80::2");
	EXPECT_EQ(qp_text(q, true),
		  "rxe0 qpn 18 type RC tenant default ulp nvme_rdma "
		  "local fe80::1 peer fe80::2 tx_bytes 4096 tx_wrs 2 chunks 0 "
		  "split_wrs 0 throttled 1.5us queued_wrs 0 qp_clamps 0 "
		  "ctrl_verbs 0 ctrl_wait 0ns mr_bytes 0 mr_refused 0 "
		  "qp_errors 0 retry_bytes 0");
	EXPECT_EQ(json(q),
		  "{\"dev\":\"rxe0\",\"dev_index\":1,\"qpn\":18,\"type\":\"RC\","
		  "\"tenant\":\"default\",\"tenant_id\":3,\"ulp\":\"nvme_rdma\","
		  "\"local\":\"fe80::1\",\"peer\":\"fe80::2\",\"stats\":{"
		  "\"tx_bytes\":4096,\"tx_wrs\":2,\"chunks\":0,\"split_wrs\":0,"
		  "\"throttled_ns\":1500,\"queued_wrs\":0,\"qp_clamps\":0,"
		  "\"ctrl_verbs\":0,\"ctrl_wait_ns\":0,\"mr_bytes\":0,"
		  "\"mr_refused\":0,\"qp_errors\":0,\"retry_bytes\":0}}");
}

TEST(ParseQp, TypesAndAddresslessQps)
{
	const std::pair<uint32_t, const char *> types[] = {
		{2, "RC"}, {3, "UC"}, {4, "UD"}, {9, "XRC_INI"}, {7, "7"},
	};
	for (const auto &[type, name] : types) {
		Msg msg;
		put_common(msg.m.get(), "blue", 17, type);
		// A GID of the wrong size counts as unknown.
		uint8_t v4[4] = {10, 77, 0, 1};
		nla_put(msg.m.get(), VERBSGATE_ATTR_QP_LOCAL_GID, sizeof(v4), v4);

		Qp q = decode(qp_table(), parse(msg).data());
		EXPECT_FALSE(q.local_gid);
		EXPECT_FALSE(q.peer_gid);
		EXPECT_EQ(qp_text(q, true), std::string("rxe0 qpn 17 type ") +
						    name + " tenant blue");
		EXPECT_NE(json(q).find(std::string("\"type\":\"") + name + "\""),
			  std::string::npos);
	}
}

namespace {

Device device_with_ports(uint32_t paced)
{
	Msg msg;
	vg::test::put_device(msg.m.get(), 0);
	vg::test::put_ports(msg.m.get(), paced);
	return decode(device_table(), vg::test::attrs_of(msg).data());
}

std::string json(const Device &d, bool details)
{
	JsonWriter w;

	dev_json(w, d, details);
	return w.str();
}

}  // namespace

TEST(ParseDevice, EachPortsPacing)
{
	Device d = device_with_ports(2);
	ASSERT_EQ(d.ports_paced, 2u);
	ASSERT_EQ(d.port_table.size(), 2u);
	EXPECT_EQ(d.port_table[0].port, 1u);
	EXPECT_EQ(d.port_table[0].link_rate, 3125000000u);
	EXPECT_EQ(d.port_table[0].rate, 2500000000u);
	EXPECT_EQ(d.port_table[0].op_rate, 24000000u);
	EXPECT_EQ(d.port_table[0].qps, 3u);
	EXPECT_EQ(d.port_table[0].paced_bytes, 1048576u);
	EXPECT_EQ(d.port_table[0].paced_ops, 256u);
	EXPECT_EQ(d.port_table[1].port, 2u);

	// A line per port, after the device's own lines.
	const std::string ports =
		"\n    port 1 link 25Gbit rate 20Gbit op-rate 24000000 qps 3 "
		"paced-bytes 1048576 paced-ops 256"
		"\n    port 2 link unknown rate 20Gbit op-rate unlimited qps 0 "
		"paced-bytes 0 paced-ops 0";
	EXPECT_EQ(dev_text(d, false),
		  "2: rxe0: driver rdma_rxe ports 1 ports-paced 2 "
		  "node_guid fc12:e5ff:fea5:e393"
		  "\n    qps enforced 5 tracked 1 unsupported 2 untracked 9" +
			  ports);
	std::string details = dev_text(d, true);
	ASSERT_GT(details.size(), ports.size());
	EXPECT_EQ(details.substr(details.size() - ports.size()), ports);
	EXPECT_NE(details.find("aimd-decreases 2" + ports), std::string::npos);

	EXPECT_EQ(json(d, false),
		  "{\"index\":2,\"name\":\"rxe0\",\"driver\":\"rdma_rxe\","
		  "\"ports\":1,\"ports_paced\":2,"
		  "\"node_guid\":\"fc12:e5ff:fea5:e393\",\"qps\":{"
		  "\"enforced\":5,\"tracked\":1,\"unsupported\":2,"
		  "\"untracked\":9},\"port_table\":["
		  "{\"port\":1,\"link_rate\":3125000000,\"rate\":2500000000,"
		  "\"op_rate\":24000000,\"qps\":3,\"paced_bytes\":1048576,"
		  "\"paced_ops\":256},"
		  "{\"port\":2,\"link_rate\":0,\"rate\":2500000000,"
		  "\"op_rate\":0,\"qps\":0,\"paced_bytes\":0,"
		  "\"paced_ops\":0}]}");
	// With the settings and state, the ports still end the object.
	std::string j = json(d, true);
	EXPECT_NE(j.find("\"aimd_decreases\":2,\"port_table\":["),
		  std::string::npos);
}

TEST(ParseDevice, UnshapedDeviceHasNoPortLines)
{
	Device d = device_with_ports(0);
	EXPECT_EQ(d.ports_paced, 0u);
	EXPECT_TRUE(d.port_table.empty());
	EXPECT_EQ(dev_text(d, false),
		  "2: rxe0: driver rdma_rxe ports 1 ports-paced 0 "
		  "node_guid fc12:e5ff:fea5:e393"
		  "\n    qps enforced 5 tracked 1 unsupported 2 untracked 9");
	std::string j = json(d, false);
	EXPECT_NE(j.find("\"ports_paced\":0"), std::string::npos);
	EXPECT_EQ(j.find("port_table"), std::string::npos);
}

TEST(ParseDevice, PortEntriesNewerThanThisTool)
{
	Msg msg;
	nl_msg *m = msg.m.get();
	vg::test::put_device(m, 0);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_PORTS_PACED, 1);
	nlattr *table = nla_nest_start(m, VERBSGATE_ATTR_DEV_PORT_TABLE |
					      NLA_F_NESTED);
	nlattr *e = nla_nest_start(m, 1 | NLA_F_NESTED);
	nla_put_u32(m, VERBSGATE_PORT_ATTR_NUM, 1);
	nla_put_u64(m, VERBSGATE_PORT_ATTR_PACED_BYTES, 7);
	nla_put_u64(m, VERBSGATE_PORT_ATTR_MAX + 1, 9);  // newer than this tool
	nla_nest_end(m, e);
	nla_nest_end(m, table);

	Device d = decode(device_table(), vg::test::attrs_of(msg).data());
	ASSERT_EQ(d.port_table.size(), 1u);
	EXPECT_EQ(d.port_table[0].port, 1u);
	EXPECT_EQ(d.port_table[0].paced_bytes, 7u);
	EXPECT_EQ(d.port_table[0].rate, 0u);
}

namespace {

std::string json(const Tenant &t)
{
	JsonWriter w;

	tenant_json(w, t);
	return w.str();
}

// A control verb pace as TENANT_GET sends it: rate and burst.
using Pace = std::pair<uint32_t, uint32_t>;

// A tenant as TENANT_GET sends it, with the QP bounds given, and the
// control verb pace if given.
Tenant tenant_with_bounds(uint8_t rnr_retry, uint8_t retry_cnt,
			  uint64_t rnr_timer, uint64_t timeout,
			  uint8_t rd_atomic,
			  std::optional<Pace> pace = std::nullopt)
{
	Msg msg;
	nl_msg *m = msg.m.get();
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 4);
	nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, "blue");
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_QPS, 3);
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_CLASS, VERBSGATE_CLASS_BANDWIDTH);
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_WEIGHT, 2);
	nla_put_u64(m, VERBSGATE_ATTR_TENANT_MIN_RATE, 0);
	nla_put_u64(m, VERBSGATE_ATTR_TENANT_MAX_RATE, 0);
	nla_put_u8(m, VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX, rnr_retry);
	nla_put_u8(m, VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX, retry_cnt);
	nla_put_u64(m, VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN, rnr_timer);
	nla_put_u64(m, VERBSGATE_ATTR_TENANT_TIMEOUT_MIN, timeout);
	nla_put_u8(m, VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX, rd_atomic);
	if (pace) {
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_CTRL_RATE, pace->first);
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_CTRL_BURST, pace->second);
	}
	nlattr *sel = nla_nest_start(m, VERBSGATE_ATTR_TENANT_SELECTOR |
					NLA_F_NESTED);
	nla_put_u32(m, VERBSGATE_SEL_ATTR_TYPE, VERBSGATE_SEL_ULP);
	nla_put_string(m, VERBSGATE_SEL_ATTR_ULP, "rpcrdma");
	nla_nest_end(m, sel);
	return decode(tenant_table(), parse(msg).data());
}

const char *const kTenantHead =
	"4: blue: selector ulp rpcrdma class bandwidth weight 2";
const char *const kTenantJsonHead =
	"{\"id\":4,\"name\":\"blue\",\"selector\":{\"type\":\"ulp\","
	"\"ulp\":\"rpcrdma\"},\"class\":\"bandwidth\",\"weight\":2,"
	"\"min_rate\":0,\"max_rate\":0,";

}  // namespace

TEST(ParseTenant, QpBoundsShowWhileTheyBound)
{
	// None: nothing in text; JSON has the raw values.
	Tenant none = tenant_with_bounds(7, 7, 0, 0, 0);
	EXPECT_EQ(none.rnr_retry_max, 7u);
	EXPECT_EQ(tenant_text(none), std::string(kTenantHead) + " qps 3");
	EXPECT_EQ(json(none), std::string(kTenantJsonHead) +
		  "\"rnr_retry_max\":7,\"retry_cnt_max\":7,"
		  "\"rnr_timer_min_ns\":0,\"timeout_min_ns\":0,"
		  "\"rd_atomic_max\":0,\"qps\":3}");

	// Every one set: the times as times in text, nanoseconds in JSON.
	Tenant all = tenant_with_bounds(3, 5, 1280000, 4096u << 10, 16);
	EXPECT_EQ(tenant_text(all), std::string(kTenantHead) +
		  " rnr-retry-max 3 retry-cnt-max 5 rnr-timer-min 1.28ms "
		  "timeout-min 4.194ms rd-atomic-max 16 qps 3");
	EXPECT_EQ(json(all), std::string(kTenantJsonHead) +
		  "\"rnr_retry_max\":3,\"retry_cnt_max\":5,"
		  "\"rnr_timer_min_ns\":1280000,\"timeout_min_ns\":4194304,"
		  "\"rd_atomic_max\":16,\"qps\":3}");

	// 0 retries bounds (unlike 0 for the others); 7 does not.
	Tenant some = tenant_with_bounds(0, 7, 0, 4096ull << 31, 0);
	EXPECT_EQ(tenant_text(some), std::string(kTenantHead) +
		  " rnr-retry-max 0 timeout-min 8796.093s qps 3");
	EXPECT_EQ(json(some), std::string(kTenantJsonHead) +
		  "\"rnr_retry_max\":0,\"retry_cnt_max\":7,"
		  "\"rnr_timer_min_ns\":0,\"timeout_min_ns\":8796093022208,"
		  "\"rd_atomic_max\":0,\"qps\":3}");
	Tenant other = tenant_with_bounds(7, 0, 10000, 0, 1);
	EXPECT_EQ(tenant_text(other), std::string(kTenantHead) +
		  " retry-cnt-max 0 rnr-timer-min 10us rd-atomic-max 1 qps 3");
}

TEST(ParseTenant, StatsWithQpClamps)
{
	// As STATS_GET sends a tenant: no configuration, its counters.
	Msg msg;
	nl_msg *m = msg.m.get();
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 4);
	nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, "blue");
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_QPS, 3);
	nlattr *stats = nla_nest_start(m, VERBSGATE_ATTR_TENANT_STATS |
					  NLA_F_NESTED);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_TX_BYTES, 4096);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_TX_WRS, 2);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_QP_CLAMPS, 12);
	nla_nest_end(m, stats);

	Tenant t = decode(tenant_table(), parse(msg).data());
	ASSERT_TRUE(t.stats);
	EXPECT_EQ(t.stats->qp_clamps, 12u);
	EXPECT_FALSE(t.rnr_retry_max);
	// As `stats` prints it, and its JSON: no bounds, which it lacks.
	EXPECT_EQ("tenant " + t.name + ":" +
			  text(tenant_table(), t, kTenantQps | kTenantStats),
		  "tenant blue: qps 3 tx_bytes 4096 tx_wrs 2 chunks 0 "
		  "split_wrs 0 throttled 0ns queued_wrs 0 qp_clamps 12 "
		  "ctrl_verbs 0 ctrl_wait 0ns mr_bytes 0 mr_refused 0 "
		  "qp_errors 0 retry_bytes 0");
	EXPECT_EQ(json(t),
		  "{\"id\":4,\"name\":\"blue\",\"qps\":3,\"tx_bytes\":4096,"
		  "\"tx_wrs\":2,\"chunks\":0,\"split_wrs\":0,"
		  "\"throttled_ns\":0,\"queued_wrs\":0,\"qp_clamps\":12,"
		  "\"ctrl_verbs\":0,\"ctrl_wait_ns\":0,\"mr_bytes\":0,"
		  "\"mr_refused\":0,\"qp_errors\":0,\"retry_bytes\":0}");
}

TEST(ParseTenant, CtrlPaceShowsWhilePaced)
{
	const std::string none_bounds =
		"\"rnr_retry_max\":7,\"retry_cnt_max\":7,"
		"\"rnr_timer_min_ns\":0,\"timeout_min_ns\":0,"
		"\"rd_atomic_max\":0,";

	// A new tenant's: no pace, nothing in text, not even the burst;
	// JSON has both as the kernel has them.
	Tenant fresh = tenant_with_bounds(7, 7, 0, 0, 0, Pace{0, 64});
	EXPECT_EQ(fresh.ctrl_rate, 0u);
	EXPECT_EQ(fresh.ctrl_burst, 64u);
	EXPECT_EQ(tenant_text(fresh), std::string(kTenantHead) + " qps 3");
	EXPECT_EQ(json(fresh), std::string(kTenantJsonHead) + none_bounds +
		  "\"ctrl_rate\":0,\"ctrl_burst\":64,\"qps\":3}");

	// A burst without a pace means nothing: not shown either.
	Tenant burst = tenant_with_bounds(7, 7, 0, 0, 0, Pace{0, 1000});
	EXPECT_EQ(tenant_text(burst), std::string(kTenantHead) + " qps 3");
	EXPECT_EQ(json(burst), std::string(kTenantJsonHead) + none_bounds +
		  "\"ctrl_rate\":0,\"ctrl_burst\":1000,\"qps\":3}");

	// With a pace, its burst too, the default one as well.
	Tenant paced = tenant_with_bounds(7, 7, 0, 0, 0, Pace{100, 64});
	EXPECT_EQ(tenant_text(paced), std::string(kTenantHead) +
		  " ctrl-rate 100 ctrl-burst 64 qps 3");
	EXPECT_EQ(json(paced), std::string(kTenantJsonHead) + none_bounds +
		  "\"ctrl_rate\":100,\"ctrl_burst\":64,\"qps\":3}");
	Tenant limits = tenant_with_bounds(7, 7, 0, 0, 0, Pace{1000000, 1});
	EXPECT_EQ(tenant_text(limits), std::string(kTenantHead) +
		  " ctrl-rate 1000000 ctrl-burst 1 qps 3");

	// After the QP bounds, plain numbers in text and JSON alike.
	Tenant both = tenant_with_bounds(3, 7, 0, 0, 16, Pace{50, 4});
	EXPECT_EQ(tenant_text(both), std::string(kTenantHead) +
		  " rnr-retry-max 3 rd-atomic-max 16 ctrl-rate 50 ctrl-burst 4 "
		  "qps 3");
	EXPECT_EQ(json(both), std::string(kTenantJsonHead) +
		  "\"rnr_retry_max\":3,\"retry_cnt_max\":7,"
		  "\"rnr_timer_min_ns\":0,\"timeout_min_ns\":0,"
		  "\"rd_atomic_max\":16,\"ctrl_rate\":50,\"ctrl_burst\":4,"
		  "\"qps\":3}");
}

TEST(ParseTenant, StatsWithCtrlVerbs)
{
	Msg msg;
	nl_msg *m = msg.m.get();
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 4);
	nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, "blue");
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_QPS, 0);
	nlattr *stats = nla_nest_start(m, VERBSGATE_ATTR_TENANT_STATS |
					  NLA_F_NESTED);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_QP_CLAMPS, 1);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_CTRL_VERBS, 12345678901ull);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_CTRL_WAIT_NS, 2500000);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_MR_BYTES, 3ull << 20);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_MR_REFUSED, 2);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_QP_ERRORS, 7);
	nla_put_u64(m, VERBSGATE_STAT_ATTR_RETRY_BYTES, 8192);
	nla_nest_end(m, stats);

	Tenant t = decode(tenant_table(), parse(msg).data());
	ASSERT_TRUE(t.stats);
	EXPECT_EQ(t.stats->ctrl_verbs, 12345678901u);
	EXPECT_EQ(t.stats->ctrl_wait_ns, 2500000u);
	EXPECT_EQ(t.stats->mr_bytes, 3ull << 20);
	EXPECT_EQ(t.stats->mr_refused, 2u);
	EXPECT_EQ(t.stats->qp_errors, 7u);
	EXPECT_EQ(t.stats->retry_bytes, 8192u);
	EXPECT_FALSE(t.ctrl_rate);	// STATS_GET sends no configuration
	EXPECT_FALSE(t.ctrl_burst);
	// After qp_clamps: a count, and the wait as a time in text,
	// nanoseconds in JSON.
	EXPECT_EQ("tenant " + t.name + ":" +
			  text(tenant_table(), t, kTenantQps | kTenantStats),
		  "tenant blue: qps 0 tx_bytes 0 tx_wrs 0 chunks 0 "
		  "split_wrs 0 throttled 0ns queued_wrs 0 qp_clamps 1 "
		  "ctrl_verbs 12345678901 ctrl_wait 2.5ms mr_bytes 3145728 "
		  "mr_refused 2 qp_errors 7 retry_bytes 8192");
	EXPECT_EQ(json(t),
		  "{\"id\":4,\"name\":\"blue\",\"qps\":0,\"tx_bytes\":0,"
		  "\"tx_wrs\":0,\"chunks\":0,\"split_wrs\":0,"
		  "\"throttled_ns\":0,\"queued_wrs\":0,\"qp_clamps\":1,"
		  "\"ctrl_verbs\":12345678901,\"ctrl_wait_ns\":2500000,"
		  "\"mr_bytes\":3145728,\"mr_refused\":2,\"qp_errors\":7,"
		  "\"retry_bytes\":8192}");
}
