// SPDX-License-Identifier: GPL-2.0-only
// The tables are the one description of each object: every attribute of
// the uapi once, requests that read back as sent, text and JSON of the
// same fields.
#include "device.h"
#include "genl_msg.h"
#include "qp.h"
#include "replies.h"
#include "requests.h"
#include "schema.h"
#include "status.h"
#include "tenant.h"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <vector>

using namespace vg;
using vg::test::Msg;

namespace {

std::vector<int> range(int first, int last)
{
	std::vector<int> out;

	for (int t = first; t <= last; t++)
		out.push_back(t);
	return out;
}

template <typename Obj>
std::vector<int> attrs(const Table<Obj> &t)
{
	std::vector<int> out;

	for (const auto &f : t)
		out.push_back(f.info.attr);
	std::sort(out.begin(), out.end());
	return out;
}

std::vector<int> sorted(std::vector<int> v)
{
	std::sort(v.begin(), v.end());
	return v;
}

// The keys of rows shown in JSON but not in text.
template <typename Obj>
std::set<std::string> json_only(const Table<Obj> &t)
{
	std::set<std::string> out;

	for (const auto &f : t) {
		EXPECT_TRUE(f.text == nullptr || f.json != nullptr)
			<< f.info.attr << " shows in text only";
		if (f.json && !f.text)
			out.insert(f.json);
	}
	return out;
}

// The request's attributes as a message, and that message read back and
// encoded again: the same bytes if the table reads all it sends.
template <typename Obj>
void round_trip(const Table<Obj> &t, const Obj &o)
{
	Msg sent, again;

	encode(sent.m.get(), t, o);
	std::vector<nlattr *> tb(VERBSGATE_ATTR_MAX + 1);
	ASSERT_EQ(nla_parse(tb.data(), VERBSGATE_ATTR_MAX, sent.attrs(),
			    sent.len(), reply_policy()), 0);
	encode(again.m.get(), t, decode(t, tb.data()));
	ASSERT_GT(sent.len(), 0);
	ASSERT_EQ(again.len(), sent.len());
	EXPECT_EQ(memcmp(sent.attrs(), again.attrs(), size_t(sent.len())), 0);
}

const std::vector<Cgroup2Mount> mounts = {{"/sys/fs/cgroup", "/"}};

}  // namespace

TEST(Tables, EveryUapiAttributeOnce)
{
	using std::vector;

	auto tenant = range(VERBSGATE_ATTR_TENANT_NAME, VERBSGATE_ATTR_TENANT_STATS);
	for (int t : range(VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX,
			   VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX))
		tenant.push_back(t);
	for (int t : range(VERBSGATE_ATTR_TENANT_CTRL_RATE,
			   VERBSGATE_ATTR_TENANT_MR_BYTES_MAX))
		tenant.push_back(t);
	auto dev = range(VERBSGATE_ATTR_DEV_INDEX, VERBSGATE_ATTR_DEV_NODE_GUID);
	for (int t : range(VERBSGATE_ATTR_DEV_MAX_RATE,
			   VERBSGATE_ATTR_DEV_AIMD_DECREASES))
		dev.push_back(t);
	for (int t : range(VERBSGATE_ATTR_DEV_QPS_ENFORCED,
			   VERBSGATE_ATTR_DEV_QPS_UNTRACKED))
		dev.push_back(t);
	for (int t : range(VERBSGATE_ATTR_DEV_USER_QPS,
			   VERBSGATE_ATTR_DEV_USER_QPS_REFUSED))
		dev.push_back(t);
	for (int t : range(VERBSGATE_ATTR_DEV_PORTS_PACED,
			   VERBSGATE_ATTR_DEV_PORT_TABLE))
		dev.push_back(t);
	dev.push_back(VERBSGATE_ATTR_DEV_BURST);
	dev.push_back(VERBSGATE_ATTR_DEV_LINK_RATE);
	dev.push_back(VERBSGATE_ATTR_DEV_PKT_OVERHEAD);
	// No kernel sends QP_WEIGHT yet; the CLI has nothing to show of it.
	vector<int> qp = {VERBSGATE_ATTR_DEV_INDEX, VERBSGATE_ATTR_DEV_NAME,
			  VERBSGATE_ATTR_TENANT_NAME, VERBSGATE_ATTR_TENANT_ID};
	for (int t : range(VERBSGATE_ATTR_QP_NUM, VERBSGATE_ATTR_QP_REASON))
		if (t != VERBSGATE_ATTR_QP_WEIGHT)
			qp.push_back(t);

	EXPECT_EQ(attrs(tenant_table()), sorted(tenant));
	EXPECT_EQ(attrs(device_table()), sorted(dev));
	EXPECT_EQ(attrs(qp_table()), sorted(qp));
	EXPECT_EQ(attrs(status_table()),
		  (vector<int>{VERBSGATE_ATTR_VERSION, VERBSGATE_ATTR_DEV_COUNT}));
	EXPECT_EQ(attrs(selector_table()),
		  range(VERBSGATE_SEL_ATTR_TYPE, VERBSGATE_SEL_ATTR_MAX));
	EXPECT_EQ(attrs(counters_table()),
		  range(VERBSGATE_STAT_ATTR_TX_BYTES, VERBSGATE_STAT_ATTR_MAX));
	EXPECT_EQ(attrs(chunk_entry_table()),
		  range(VERBSGATE_CHUNK_ATTR_SIZE, VERBSGATE_CHUNK_ATTR_MAX));
	EXPECT_EQ(attrs(op_cost_table()),
		  range(VERBSGATE_OPCOST_ATTR_CLASS, VERBSGATE_OPCOST_ATTR_MAX));
	EXPECT_EQ(attrs(port_table()),
		  range(VERBSGATE_PORT_ATTR_NUM, VERBSGATE_PORT_ATTR_MAX));

	// Together they cover the uapi, but for padding and QP_WEIGHT.
	std::set<int> all;
	for (const auto &i : top_attrs())
		EXPECT_TRUE(all.insert(i.attr).second) << i.attr;
	for (int t = VERBSGATE_ATTR_VERSION; t <= VERBSGATE_ATTR_MAX; t++)
		EXPECT_EQ(all.count(t), t == VERBSGATE_ATTR_QP_WEIGHT ? 0u : 1u)
			<< t;
}

TEST(Tables, SharedAttributesAgree)
{
	auto same = [](const auto &table) {
		for (const auto &f : table)
			for (const auto &i : top_attrs())
				if (i.attr == f.info.attr) {
					EXPECT_EQ(i.policy.type, f.info.policy.type)
						<< i.attr;
					if (i.keyword && f.info.keyword) {
						EXPECT_STREQ(i.keyword, f.info.keyword)
							<< i.attr;
					}
				}
	};
	same(tenant_table());
	same(device_table());
	same(qp_table());
}

TEST(Tables, TextAndJsonShowTheSameFields)
{
	// JSON has always said a little more: ids beside names, the
	// cgroup's id beside its path; the status line is cmd_status's own.
	EXPECT_EQ(json_only(tenant_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(device_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(qp_table()),
		  (std::set<std::string>{"dev_index", "tenant_id"}));
	EXPECT_EQ(json_only(selector_table()),
		  std::set<std::string>{"cgroup_id"});
	EXPECT_EQ(json_only(counters_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(chunk_entry_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(op_cost_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(port_table()), std::set<std::string>{});
	EXPECT_EQ(json_only(status_table()),
		  (std::set<std::string>{"devices", "version"}));
}

TEST(Tables, EverySentRowIsReadBack)
{
	auto check = [](const auto &table) {
		for (const auto &f : table) {
			EXPECT_TRUE(f.get) << f.info.attr;
			if (f.info.keyword) {
				EXPECT_TRUE(f.put) << f.info.attr;
			}
		}
	};
	check(tenant_table());
	check(selector_table());
	check(device_table());
	check(chunk_entry_table());
	check(op_cost_table());
	check(port_table());
	check(qp_table());
}

TEST(Tables, RequestsRoundTrip)
{
	const std::vector<std::vector<std::string>> adds = {
		{"blue", "cgroup", "/sys/fs/cgroup/tenants/blue", "class",
		 "bandwidth", "weight", "4", "min", "400mbit", "max", "25gbit"},
		{"nvme", "ulp", "nvmet_rdma", "class", "throughput", "weight", "2",
		 "rnr-retry-max", "3", "retry-cnt-max", "5", "rnr-timer-min",
		 "1.28ms", "timeout-min", "4.194304ms", "rd-atomic-max", "16"},
		{"l", "local", "10.77.0.0/24", "class", "latency", "weight", "1",
		 "ctrl-rate", "100", "ctrl-burst", "16"},
		{"p", "peer", "fd00::/64", "class", "latency", "weight", "9"},
	};
	for (const auto &words : adds) {
		Args a(words);
		round_trip(tenant_table(), parse_tenant_add(a, mounts));
	}
	Args set({"blue", "weight", "8", "min", "none"});
	round_trip(tenant_table(), parse_tenant_set(set));
	Args bounds({"blue", "rnr-retry-max", "none", "retry-cnt-max", "0",
		     "rnr-timer-min", "none", "timeout-min", "none",
		     "rd-atomic-max", "none"});
	round_trip(tenant_table(), parse_tenant_set(bounds));
	Args pace({"blue", "ctrl-rate", "none", "ctrl-burst", "1000000"});
	round_trip(tenant_table(), parse_tenant_set(pace));

	Args dev({"rxe0", "maxrate", "25gbit", "maxops", "30000000",
		  "target-p99", "8us", "step", "100mbit", "period", "200us",
		  "burst", "0", "chunk-table", "2k@40%,5k@100%", "chunk-nolat", "1m", "cost",
		  "atomic", "bytes", "800", "units", "3", "cost", "mr", "units",
		  "16", "latency-weight", "each", "enforce", "off"});
	round_trip(device_table(), parse_dev_set(dev));

	Args qp({"dev", "rxe0", "tenant", "blue"});
	round_trip(qp_table(), parse_qp_show(qp));
}

TEST(Tables, RepliesDecodeAsSent)
{
	Msg msg;
	vg::test::put_tenant(msg.m.get(), VERBSGATE_SEL_PEER_ADDR, true, true,
			     50000000);
	Tenant t = decode(tenant_table(), vg::test::attrs_of(msg).data());

	EXPECT_EQ(t.id, 4u);
	EXPECT_EQ(t.name, "blue");
	ASSERT_TRUE(t.sel);
	EXPECT_EQ(t.sel->type, uint32_t(VERBSGATE_SEL_PEER_ADDR));
	ASSERT_TRUE(t.sel->prefix);
	EXPECT_EQ(t.sel->prefix->len, 4u);
	EXPECT_EQ(t.sel->prefix->plen, 16u);
	EXPECT_EQ(t.cls, uint32_t(VERBSGATE_CLASS_LATENCY));
	EXPECT_EQ(t.min_rate, 50000000u);
	EXPECT_EQ(t.rnr_retry_max, 7u);	// a new tenant's: no bounds
	EXPECT_EQ(t.retry_cnt_max, 7u);
	EXPECT_EQ(t.rnr_timer_min_ns, 0u);
	EXPECT_EQ(t.timeout_min_ns, 0u);
	EXPECT_EQ(t.rd_atomic_max, 0u);
	EXPECT_EQ(t.ctrl_rate, 0u);	// and no pace, the default burst
	EXPECT_EQ(t.ctrl_burst, 64u);
	ASSERT_TRUE(t.stats);
	EXPECT_EQ(t.stats->queued_wrs, 1000u * VERBSGATE_STAT_ATTR_QUEUED_WRS);
	EXPECT_EQ(t.stats->qp_clamps, 1000u * VERBSGATE_STAT_ATTR_QP_CLAMPS);
	EXPECT_EQ(t.stats->ctrl_verbs, 1000u * VERBSGATE_STAT_ATTR_CTRL_VERBS);
	EXPECT_EQ(t.stats->ctrl_wait_ns,
		  1000u * VERBSGATE_STAT_ATTR_CTRL_WAIT_NS);

	Msg bounded;
	vg::test::put_tenant(bounded.m.get(), VERBSGATE_SEL_ULP, true, false, 0,
			     true);
	Tenant b = decode(tenant_table(), vg::test::attrs_of(bounded).data());
	EXPECT_EQ(b.rnr_retry_max, 3u);
	EXPECT_EQ(b.retry_cnt_max, 5u);
	EXPECT_EQ(b.rnr_timer_min_ns, 1280000u);
	EXPECT_EQ(b.timeout_min_ns, 4194304u);
	EXPECT_EQ(b.rd_atomic_max, 16u);
	EXPECT_EQ(b.ctrl_rate, 0u);
	EXPECT_FALSE(b.stats);

	Msg paced;
	vg::test::put_tenant(paced.m.get(), VERBSGATE_SEL_ULP, true, false, 0,
			     false, true);
	Tenant p = decode(tenant_table(), vg::test::attrs_of(paced).data());
	EXPECT_EQ(p.ctrl_rate, 100u);
	EXPECT_EQ(p.ctrl_burst, 16u);
	EXPECT_EQ(p.rnr_retry_max, 7u);
}
