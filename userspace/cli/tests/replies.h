// SPDX-License-Identifier: GPL-2.0-only
// Replies as the kernel's fill functions (kmod/netlink_*.c) build them,
// for the tests that check what the CLI prints.
#pragma once

#include "genl_msg.h"

#include <linux/verbsgate.h>
#include <netlink/attr.h>

#include <algorithm>
#include <iterator>

namespace vg::test {

// The reply's attributes as GenlClient hands them over; they point into msg.
inline std::array<const nlattr *, VERBSGATE_ATTR_MAX + 1> attrs_of(const Msg &msg)
{
	nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	std::array<const nlattr *, VERBSGATE_ATTR_MAX + 1> a;

	nla_parse(tb, VERBSGATE_ATTR_MAX, msg.attrs(), msg.len(), nullptr);
	std::copy(std::begin(tb), std::end(tb), a.begin());
	return a;
}

inline void put_stats(nl_msg *m, int type, uint64_t base)
{
	nlattr *n = nla_nest_start(m, type | NLA_F_NESTED);
	for (int t = VERBSGATE_STAT_ATTR_TX_BYTES;
	     t <= VERBSGATE_STAT_ATTR_CTRL_WAIT_NS; t++)
		nla_put_u64(m, t, base * uint64_t(t));
	nla_nest_end(m, n);
}

// selector: VERBSGATE_SEL_*; config and stats as TENANT_GET and
// STATS_GET send them; the QP bounds a new tenant has (none), or with
// `bounded` rnr-retry-max 3, retry-cnt-max 5, rnr-timer-min 1.28ms,
// timeout-min 4.096us * 2^10, rd-atomic-max 16; the control verb pace a
// new tenant has (none, burst 64), or with `paced` ctrl-rate 100,
// ctrl-burst 16.
inline void put_tenant(nl_msg *m, uint32_t sel, bool config, bool stats,
		       uint64_t min_rate, bool bounded = false,
		       bool paced = false)
{
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 4);
	nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, "blue");
	nla_put_u32(m, VERBSGATE_ATTR_TENANT_QPS, 3);
	if (config) {
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_CLASS,
			    VERBSGATE_CLASS_LATENCY);
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_WEIGHT, 7);
		nla_put_u64(m, VERBSGATE_ATTR_TENANT_MIN_RATE, min_rate);
		nla_put_u64(m, VERBSGATE_ATTR_TENANT_MAX_RATE, 3125000000u);
		nla_put_u8(m, VERBSGATE_ATTR_TENANT_RNR_RETRY_MAX,
			   bounded ? 3 : 7);
		nla_put_u8(m, VERBSGATE_ATTR_TENANT_RETRY_CNT_MAX,
			   bounded ? 5 : 7);
		nla_put_u64(m, VERBSGATE_ATTR_TENANT_RNR_TIMER_MIN,
			    bounded ? 1280000 : 0);
		nla_put_u64(m, VERBSGATE_ATTR_TENANT_TIMEOUT_MIN,
			    bounded ? 4096u << 10 : 0);
		nla_put_u8(m, VERBSGATE_ATTR_TENANT_RD_ATOMIC_MAX,
			   bounded ? 16 : 0);
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_CTRL_RATE, paced ? 100 : 0);
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_CTRL_BURST, paced ? 16 : 64);
		nlattr *n = nla_nest_start(m, VERBSGATE_ATTR_TENANT_SELECTOR |
					      NLA_F_NESTED);
		nla_put_u32(m, VERBSGATE_SEL_ATTR_TYPE, sel);
		uint8_t v4[4] = {10, 77, 0, 0};
		switch (sel) {
		case VERBSGATE_SEL_CGROUP:
			nla_put_string(m, VERBSGATE_SEL_ATTR_CGROUP_PATH,
				       "/tenants/blue");
			nla_put_u64(m, VERBSGATE_SEL_ATTR_CGROUP_ID, 5678);
			break;
		case VERBSGATE_SEL_ULP:
			nla_put_string(m, VERBSGATE_SEL_ATTR_ULP, "nvmet_rdma");
			break;
		case VERBSGATE_SEL_LOCAL_ADDR:
		case VERBSGATE_SEL_PEER_ADDR:
			nla_put(m, VERBSGATE_SEL_ATTR_ADDR, 4, v4);
			nla_put_u8(m, VERBSGATE_SEL_ATTR_PREFIX_LEN, 16);
			break;
		}
		nla_nest_end(m, n);
	}
	if (stats)
		put_stats(m, VERBSGATE_ATTR_TENANT_STATS, 1000);
}

// A device as DEV_GET sends it; target_p99 0 prints as none.
inline void put_device(nl_msg *m, uint64_t target_p99)
{
	nla_put_u32(m, VERBSGATE_ATTR_DEV_INDEX, 2);
	nla_put_string(m, VERBSGATE_ATTR_DEV_NAME, "rxe0");
	nla_put_string(m, VERBSGATE_ATTR_DEV_DRIVER, "rdma_rxe");
	nla_put_u32(m, VERBSGATE_ATTR_DEV_PORTS, 1);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_NODE_GUID, 0xfc12e5fffea5e393ull);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_MAX_RATE, 3125000000u);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_MAX_OPS, 30000000);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_TARGET_P99, target_p99);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_AIMD_STEP, 12500000);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_AIMD_PERIOD, 200000);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_BURST, 16384);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_CHUNK_NOLAT, 1048576);
	nlattr *table = nla_nest_start(m, VERBSGATE_ATTR_DEV_CHUNK_TABLE |
					      NLA_F_NESTED);
	const uint32_t chunks[][2] = {{2048, 400000}, {5120, 1000000}};
	for (int i = 0; i < 2; i++) {
		nlattr *e = nla_nest_start(m, (i + 1) | NLA_F_NESTED);
		nla_put_u32(m, VERBSGATE_CHUNK_ATTR_SIZE, chunks[i][0]);
		nla_put_u32(m, VERBSGATE_CHUNK_ATTR_UTIL, chunks[i][1]);
		nla_nest_end(m, e);
	}
	nla_nest_end(m, table);
	nlattr *costs = nla_nest_start(m, VERBSGATE_ATTR_DEV_OP_COSTS |
					      NLA_F_NESTED);
	for (uint32_t i = 0; i < 3; i++) {
		nlattr *e = nla_nest_start(m, int(i + 1) | NLA_F_NESTED);
		nla_put_u32(m, VERBSGATE_OPCOST_ATTR_CLASS, i);
		nla_put_u32(m, VERBSGATE_OPCOST_ATTR_BYTES, 100 * i);
		nla_put_u32(m, VERBSGATE_OPCOST_ATTR_UNITS, i + 1);
		nla_nest_end(m, e);
	}
	nla_nest_end(m, costs);
	nla_put_u8(m, VERBSGATE_ATTR_DEV_LAT_EACH, 1);
	nla_put_u8(m, VERBSGATE_ATTR_DEV_ENFORCE, 0);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_MAX_CHUNK, 4096);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_SAFE_UTIL, 2500000000u);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_RMIN, 125000000);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_CHUNK_SIZE, 5120);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_REF_P99, target_p99 ? 7500 : 0);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_AIMD_INCREASES, 11);
	nla_put_u64(m, VERBSGATE_ATTR_DEV_AIMD_DECREASES, 2);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_QPS_ENFORCED, 5);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_QPS_TRACKED, 1);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_QPS_UNSUPPORTED, 2);
	nla_put_u32(m, VERBSGATE_ATTR_DEV_QPS_UNTRACKED, 9);
}

// How a device's ports are paced, as DEV_GET sends it after the rest:
// `paced` ports; the first runs at 20 Gbit/s of a 25 Gbit/s link, the
// others at the same fraction of a link of unknown rate, unlimited ops.
inline void put_ports(nl_msg *m, uint32_t paced)
{
	nla_put_u32(m, VERBSGATE_ATTR_DEV_PORTS_PACED, paced);
	if (!paced)
		return;
	nlattr *table = nla_nest_start(m, VERBSGATE_ATTR_DEV_PORT_TABLE |
					      NLA_F_NESTED);
	for (uint32_t i = 0; i < paced; i++) {
		nlattr *e = nla_nest_start(m, int(i + 1) | NLA_F_NESTED);
		nla_put_u32(m, VERBSGATE_PORT_ATTR_NUM, i + 1);
		nla_put_u64(m, VERBSGATE_PORT_ATTR_LINK_RATE,
			    i ? 0 : 3125000000u);
		nla_put_u64(m, VERBSGATE_PORT_ATTR_RATE, 2500000000u);
		nla_put_u64(m, VERBSGATE_PORT_ATTR_OP_RATE, i ? 0 : 24000000);
		nla_put_u32(m, VERBSGATE_PORT_ATTR_QPS, i ? 0 : 3);
		nla_put_u64(m, VERBSGATE_PORT_ATTR_PACED_BYTES,
			    i ? 0 : 1048576);
		nla_put_u64(m, VERBSGATE_PORT_ATTR_PACED_OPS, i ? 0 : 256);
		nla_nest_end(m, e);
	}
	nla_nest_end(m, table);
}

// A QP as QP_GET sends it, with enforcement `e` and reason `r`.
inline void put_qp(nl_msg *m, uint32_t e, uint32_t r, bool tenant)
{
	nla_put_u32(m, VERBSGATE_ATTR_DEV_INDEX, 2);
	nla_put_string(m, VERBSGATE_ATTR_DEV_NAME, "rxe0");
	nla_put_u32(m, VERBSGATE_ATTR_QP_NUM, 17);
	nla_put_u32(m, VERBSGATE_ATTR_QP_TYPE, 2);
	nla_put_u32(m, VERBSGATE_ATTR_QP_ENFORCEMENT, e);
	nla_put_u32(m, VERBSGATE_ATTR_QP_REASON, r);
	if (tenant) {
		nla_put_u32(m, VERBSGATE_ATTR_TENANT_ID, 4);
		nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, "blue");
	}
	nla_put_u32(m, VERBSGATE_ATTR_QP_PID, 1234);
	nla_put_string(m, VERBSGATE_ATTR_QP_COMM, "vgload");
	nla_put_u64(m, VERBSGATE_ATTR_QP_CGROUP_ID, 5678);
	put_stats(m, VERBSGATE_ATTR_QP_STATS, 7);
}

}  // namespace vg::test
