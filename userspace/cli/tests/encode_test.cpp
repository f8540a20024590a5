// SPDX-License-Identifier: GPL-2.0-only
// Requests as the kernel will see them: build with libnl, parse back.
#include "device.h"
#include "genl_msg.h"
#include "qp.h"
#include "requests.h"
#include "schema.h"
#include "tenant.h"

#include <linux/genetlink.h>
#include <linux/verbsgate.h>
#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <gtest/gtest.h>

using namespace vg;
using vg::test::Msg;

TEST(Encode, TenantAddWithNestedSelector)
{
	Msg msg;
	Tenant t;
	t.name = "blue";
	t.sel.emplace().type = VERBSGATE_SEL_PEER_ADDR;
	t.sel->prefix.emplace();
	t.sel->prefix->len = 4;
	t.sel->prefix->addr = {10, 77, 0, 0};
	t.sel->prefix->plen = 24;
	t.cls = VERBSGATE_CLASS_LATENCY;
	t.weight = 7;
	t.max_rate = 1000;
	encode(msg.m.get(), tenant_table(), t);

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_TENANT_NAME]), "blue");
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_CLASS]),
		  uint32_t(VERBSGATE_CLASS_LATENCY));
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_WEIGHT]), 7u);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_MAX_RATE]), 1000u);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_MIN_RATE], nullptr);
	for (int a = VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX;
	     a <= VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX; a++)
		EXPECT_EQ(tb[a], nullptr) << a;	// no bound given, none sent
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE], nullptr);	// nor pace
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CTRL_BURST], nullptr);

	nlattr *sel = tb[VERBSGATE_ATTR_TENANT_SELECTOR];
	ASSERT_NE(sel, nullptr);
	EXPECT_TRUE(sel->nla_type & NLA_F_NESTED);  // the kernel insists
	nlattr *st[VERBSGATE_SEL_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse_nested(st, VERBSGATE_SEL_ATTR_MAX, sel, nullptr), 0);
	EXPECT_EQ(nla_get_u32(st[VERBSGATE_SEL_ATTR_TYPE]),
		  uint32_t(VERBSGATE_SEL_PEER_ADDR));
	EXPECT_EQ(nla_len(st[VERBSGATE_SEL_ATTR_ADDR]), 4);
	EXPECT_EQ(nla_get_u8(st[VERBSGATE_SEL_ATTR_PREFIX_LEN]), 24);

	// Error offsets from the kernel name the attribute the CLI sent.
	EXPECT_EQ(attr_name_at(msg.hdr(),
			       msg.offset_of(tb[VERBSGATE_ATTR_TENANT_WEIGHT])),
		  "weight");
	EXPECT_EQ(attr_name_at(msg.hdr(),
			       msg.offset_of(st[VERBSGATE_SEL_ATTR_ADDR])),
		  "address");
	EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(sel)), "selector");
	EXPECT_EQ(attr_name_at(msg.hdr(), 3), "");
	EXPECT_EQ(attr_name_at(msg.hdr(), 100000), "");
}

TEST(Encode, TenantQpBounds)
{
	Msg msg;
	Args words({"blue", "rnr-retry-max", "3", "retry-cnt-max", "none",
		    "rnr-timer-min", "1.28ms", "timeout-min", "8796093022208ns",
		    "rd-atomic-max", "255"});
	encode(msg.m.get(), tenant_table(), parse_tenant_set(words));

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_TENANT_NAME]), "blue");
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CLASS], nullptr);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_WEIGHT], nullptr);
	// The kernel's policy: u8 counts, u64 times, each of its exact size.
	const std::pair<int, int> sizes[] = {
		{VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX, 1},
		{VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX, 1},
		{VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN, 8},
		{VERBSGATE_ATTR_TENANT_TIMEOUT_MIN, 8},
		{VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX, 1},
	};
	for (const auto &[a, size] : sizes) {
		ASSERT_NE(tb[a], nullptr) << a;
		EXPECT_EQ(nla_len(tb[a]), size) << a;
	}
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX]), 3);
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX]), 7);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN]),
		  1280000u);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_TIMEOUT_MIN]),
		  8796093022208u);
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX]), 255);

	// The kernel's range errors name the keyword the operator typed.
	const std::pair<int, const char *> names[] = {
		{VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX, "rnr-retry-max"},
		{VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX, "retry-cnt-max"},
		{VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN, "rnr-timer-min"},
		{VERBSGATE_ATTR_TENANT_TIMEOUT_MIN, "timeout-min"},
		{VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX, "rd-atomic-max"},
	};
	for (const auto &[a, name] : names)
		EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(tb[a])), name);

	// none is sent as each one's "no bound".
	Msg none;
	Args nones({"blue", "rnr-retry-max", "none", "rnr-timer-min", "none",
		    "timeout-min", "none", "rd-atomic-max", "none"});
	encode(none.m.get(), tenant_table(), parse_tenant_set(nones));
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, none.attrs(), none.len(),
			    nullptr), 0);
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX]), 7);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX], nullptr);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN]), 0u);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_TIMEOUT_MIN]), 0u);
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX]), 0);
}

TEST(Encode, TenantCtrlPace)
{
	Msg msg;
	Args words({"blue", "ctrl-rate", "1000000", "ctrl-burst", "64"});
	encode(msg.m.get(), tenant_table(), parse_tenant_set(words));

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_TENANT_NAME]), "blue");
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_WEIGHT], nullptr);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX], nullptr);
	// The kernel's policy: u32 each, of its exact size.
	for (int a : {VERBSGATE_ATTR_TENANT_CTRL_RATE,
		      VERBSGATE_ATTR_TENANT_CTRL_BURST}) {
		ASSERT_NE(tb[a], nullptr) << a;
		EXPECT_EQ(nla_len(tb[a]), 4) << a;
	}
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE]), 1000000u);
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_CTRL_BURST]), 64u);

	// The kernel's range errors name the keyword the operator typed.
	EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(
			       tb[VERBSGATE_ATTR_TENANT_CTRL_RATE])),
		  "ctrl-rate");
	EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(
			       tb[VERBSGATE_ATTR_TENANT_CTRL_BURST])),
		  "ctrl-burst");

	// none is sent as 0; a burst alone is sent alone.
	Msg none;
	Args nones({"blue", "ctrl-rate", "none"});
	encode(none.m.get(), tenant_table(), parse_tenant_set(nones));
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, none.attrs(), none.len(),
			    nullptr), 0);
	ASSERT_NE(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE], nullptr);
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE]), 0u);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CTRL_BURST], nullptr);

	Msg burst;
	Args bursts({"blue", "ctrl-burst", "1"});
	encode(burst.m.get(), tenant_table(), parse_tenant_set(bursts));
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, burst.attrs(), burst.len(),
			    nullptr), 0);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE], nullptr);
	ASSERT_NE(tb[VERBSGATE_ATTR_TENANT_CTRL_BURST], nullptr);
	EXPECT_EQ(nla_get_u32(tb[VERBSGATE_ATTR_TENANT_CTRL_BURST]), 1u);
}

TEST(Encode, TenantMrBytesQuota)
{
	Msg msg;
	Args words({"blue", "mr-bytes-max", "2g"});
	encode(msg.m.get(), tenant_table(), parse_tenant_set(words));

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	// The kernel's policy: a u64, of its exact size, and nothing else.
	ASSERT_NE(tb[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX], nullptr);
	EXPECT_EQ(nla_len(tb[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX]), 8);
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX]),
		  2ull << 30);
	EXPECT_EQ(tb[VERBSGATE_ATTR_TENANT_CTRL_RATE], nullptr);
	EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(
			       tb[VERBSGATE_ATTR_TENANT_MR_BYTES_MAX])),
		  "mr-bytes-max");
}

TEST(Encode, DevSetArraysAndOnlyGivenSettings)
{
	Msg msg;
	Device d;
	d.name = "rxe0";
	d.target_p99_ns = 8000;
	d.chunk_table = std::vector<ChunkEntry>{{2048, 400000}, {5120, 1000000}};
	d.costs.push_back({VERBSGATE_OP_CLASS_MR, std::nullopt, 16u});
	d.enforce = false;
	encode(msg.m.get(), device_table(), d);

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_DEV_NAME]), "rxe0");
	EXPECT_EQ(nla_get_u64(tb[VERBSGATE_ATTR_DEV_TARGET_P99]), 8000u);
	EXPECT_EQ(nla_get_u8(tb[VERBSGATE_ATTR_DEV_ENFORCE]), 0);
	EXPECT_EQ(tb[VERBSGATE_ATTR_DEV_MAX_RATE], nullptr);
	EXPECT_EQ(tb[VERBSGATE_ATTR_DEV_LAT_EACH], nullptr);

	std::vector<std::pair<uint32_t, uint32_t>> entries;
	nlattr *ent;
	int rem;
	const nlattr *second_size = nullptr;
	nla_for_each_nested(ent, tb[VERBSGATE_ATTR_DEV_CHUNK_TABLE], rem) {
		nlattr *et[VERBSGATE_CHUNK_ATTR_MAX + 1];
		ASSERT_EQ(nla_parse_nested(et, VERBSGATE_CHUNK_ATTR_MAX, ent,
					   nullptr), 0);
		entries.emplace_back(nla_get_u32(et[VERBSGATE_CHUNK_ATTR_SIZE]),
				     nla_get_u32(et[VERBSGATE_CHUNK_ATTR_UTIL]));
		second_size = et[VERBSGATE_CHUNK_ATTR_SIZE];
	}
	EXPECT_EQ(entries, (std::vector<std::pair<uint32_t, uint32_t>>{
				   {2048, 400000}, {5120, 1000000}}));
	EXPECT_EQ(attr_name_at(msg.hdr(), msg.offset_of(second_size)),
		  "chunk-table size");

	nlattr *cost = static_cast<nlattr *>(
		nla_data(tb[VERBSGATE_ATTR_DEV_OP_COSTS]));
	nlattr *ct[VERBSGATE_OPCOST_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse_nested(ct, VERBSGATE_OPCOST_ATTR_MAX, cost,
				   nullptr), 0);
	EXPECT_EQ(nla_get_u32(ct[VERBSGATE_OPCOST_ATTR_CLASS]),
		  uint32_t(VERBSGATE_OP_CLASS_MR));
	EXPECT_EQ(ct[VERBSGATE_OPCOST_ATTR_BYTES], nullptr);
	EXPECT_EQ(nla_get_u32(ct[VERBSGATE_OPCOST_ATTR_UNITS]), 16u);
}

TEST(Encode, QpShowFilters)
{
	Msg none;
	encode(none.m.get(), qp_table(), Qp{});
	EXPECT_EQ(none.len(), 0);  // a plain dump

	Msg msg;
	Qp q;
	q.dev = "rxe0";
	q.tenant = "blue";
	encode(msg.m.get(), qp_table(), q);

	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	ASSERT_EQ(nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(),
			    nullptr), 0);
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_DEV_NAME]), "rxe0");
	EXPECT_STREQ(nla_get_string(tb[VERBSGATE_ATTR_TENANT_NAME]), "blue");
	EXPECT_EQ(attr_name_at(msg.hdr(),
			       msg.offset_of(tb[VERBSGATE_ATTR_TENANT_NAME])),
		  "tenant name");
}
