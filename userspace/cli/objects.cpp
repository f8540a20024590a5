// SPDX-License-Identifier: GPL-2.0-only
#include "objects.h"

#include <netlink/attr.h>

#include <cstdio>
#include <cstring>

namespace vg {

namespace {

std::string str(const nlattr *a)
{
	return a ? nla_get_string(const_cast<nlattr *>(a)) : "";
}

uint32_t u32(const nlattr *a)
{
	return a ? nla_get_u32(a) : 0;
}

uint64_t u64(const nlattr *a)
{
	return a ? nla_get_u64(a) : 0;
}

// A GID attribute of the right size; others count as absent.
std::optional<Gid> gid(const nlattr *a)
{
	Gid g;

	if (!a || nla_len(a) != int(g.size()))
		return std::nullopt;
	memcpy(g.data(), nla_data(a), g.size());
	return g;
}

Selector parse_selector(const nlattr *nest)
{
	static struct nla_policy policy[VERBSGATE_SEL_ATTR_MAX + 1];
	struct nlattr *tb[VERBSGATE_SEL_ATTR_MAX + 1];
	Selector s;

	policy[VERBSGATE_SEL_ATTR_TYPE].type = NLA_U32;
	policy[VERBSGATE_SEL_ATTR_CGROUP_PATH].type = NLA_STRING;
	policy[VERBSGATE_SEL_ATTR_CGROUP_ID].type = NLA_U64;
	policy[VERBSGATE_SEL_ATTR_ULP].type = NLA_STRING;
	policy[VERBSGATE_SEL_ATTR_PREFIX_LEN].type = NLA_U8;
	parse_nested(nest, VERBSGATE_SEL_ATTR_MAX, policy, tb);

	s.type = u32(tb[VERBSGATE_SEL_ATTR_TYPE]);
	s.cgroup_path = str(tb[VERBSGATE_SEL_ATTR_CGROUP_PATH]);
	s.cgroup_id = u64(tb[VERBSGATE_SEL_ATTR_CGROUP_ID]);
	s.ulp = str(tb[VERBSGATE_SEL_ATTR_ULP]);
	if (const nlattr *a = tb[VERBSGATE_SEL_ATTR_ADDR]) {
		int len = nla_len(a);
		if (len == 4 || len == 16) {
			s.prefix.len = size_t(len);
			memcpy(s.prefix.addr.data(), nla_data(a), size_t(len));
			s.prefix.plen = unsigned(len * 8);
		}
	}
	if (tb[VERBSGATE_SEL_ATTR_PREFIX_LEN])
		s.prefix.plen = nla_get_u8(tb[VERBSGATE_SEL_ATTR_PREFIX_LEN]);
	return s;
}

TenantStats parse_stats(const nlattr *nest)
{
	static struct nla_policy policy[VERBSGATE_STAT_ATTR_MAX + 1];
	struct nlattr *tb[VERBSGATE_STAT_ATTR_MAX + 1];
	TenantStats s;

	for (int t = VERBSGATE_STAT_ATTR_TX_BYTES; t <= VERBSGATE_STAT_ATTR_MAX; t++)
		policy[t].type = NLA_U64;
	parse_nested(nest, VERBSGATE_STAT_ATTR_MAX, policy, tb);
	s.tx_bytes = u64(tb[VERBSGATE_STAT_ATTR_TX_BYTES]);
	s.tx_wrs = u64(tb[VERBSGATE_STAT_ATTR_TX_WRS]);
	s.chunks = u64(tb[VERBSGATE_STAT_ATTR_CHUNKS]);
	s.split_wrs = u64(tb[VERBSGATE_STAT_ATTR_SPLIT_WRS]);
	s.throttled_ns = u64(tb[VERBSGATE_STAT_ATTR_THROTTLED_NS]);
	s.queued_wrs = u64(tb[VERBSGATE_STAT_ATTR_QUEUED_WRS]);
	return s;
}

std::vector<ChunkEntry> parse_chunk_entries(const nlattr *nest)
{
	static struct nla_policy policy[VERBSGATE_CHUNK_ATTR_MAX + 1];
	std::vector<ChunkEntry> out;
	const nlattr *ent;
	int rem;

	policy[VERBSGATE_CHUNK_ATTR_SIZE].type = NLA_U32;
	policy[VERBSGATE_CHUNK_ATTR_UTIL].type = NLA_U32;
	nla_for_each_nested(ent, nest, rem) {
		struct nlattr *tb[VERBSGATE_CHUNK_ATTR_MAX + 1];

		parse_nested(ent, VERBSGATE_CHUNK_ATTR_MAX, policy, tb);
		out.push_back({u32(tb[VERBSGATE_CHUNK_ATTR_SIZE]),
			       u32(tb[VERBSGATE_CHUNK_ATTR_UTIL])});
	}
	return out;
}

std::vector<OpCost> parse_costs(const nlattr *nest)
{
	static struct nla_policy policy[VERBSGATE_OPCOST_ATTR_MAX + 1];
	std::vector<OpCost> out;
	const nlattr *ent;
	int rem;

	for (int t = VERBSGATE_OPCOST_ATTR_CLASS; t <= VERBSGATE_OPCOST_ATTR_MAX; t++)
		policy[t].type = NLA_U32;
	nla_for_each_nested(ent, nest, rem) {
		struct nlattr *tb[VERBSGATE_OPCOST_ATTR_MAX + 1];
		OpCost c;

		parse_nested(ent, VERBSGATE_OPCOST_ATTR_MAX, policy, tb);
		c.cls = u32(tb[VERBSGATE_OPCOST_ATTR_CLASS]);
		c.bytes = u32(tb[VERBSGATE_OPCOST_ATTR_BYTES]);
		c.units = u32(tb[VERBSGATE_OPCOST_ATTR_UNITS]);
		out.push_back(c);
	}
	return out;
}

}  // namespace

Tenant parse_tenant(const Attrs &a)
{
	Tenant t;

	t.id = u32(a[VERBSGATE_ATTR_TENANT_ID]);
	t.name = str(a[VERBSGATE_ATTR_TENANT_NAME]);
	t.qps = u32(a[VERBSGATE_ATTR_TENANT_QPS]);
	if (a[VERBSGATE_ATTR_TENANT_SELECTOR]) {
		t.has_config = true;
		t.sel = parse_selector(a[VERBSGATE_ATTR_TENANT_SELECTOR]);
	}
	t.cls = u32(a[VERBSGATE_ATTR_TENANT_CLASS]);
	t.weight = u32(a[VERBSGATE_ATTR_TENANT_WEIGHT]);
	t.min_rate = u64(a[VERBSGATE_ATTR_TENANT_MIN_RATE]);
	t.max_rate = u64(a[VERBSGATE_ATTR_TENANT_MAX_RATE]);
	if (a[VERBSGATE_ATTR_TENANT_STATS]) {
		t.has_stats = true;
		t.stats = parse_stats(a[VERBSGATE_ATTR_TENANT_STATS]);
	}
	return t;
}

Device parse_device(const Attrs &a)
{
	Device d;

	d.index = u32(a[VERBSGATE_ATTR_DEV_INDEX]);
	d.name = str(a[VERBSGATE_ATTR_DEV_NAME]);
	d.driver = str(a[VERBSGATE_ATTR_DEV_DRIVER]);
	d.ports = u32(a[VERBSGATE_ATTR_DEV_PORTS]);
	d.node_guid = u64(a[VERBSGATE_ATTR_DEV_NODE_GUID]);
	d.has_settings = a[VERBSGATE_ATTR_DEV_MAX_RATE] != nullptr;
	d.max_rate = u64(a[VERBSGATE_ATTR_DEV_MAX_RATE]);
	d.max_ops = u64(a[VERBSGATE_ATTR_DEV_MAX_OPS]);
	d.target_p99_ns = u64(a[VERBSGATE_ATTR_DEV_TARGET_P99]);
	d.step = u64(a[VERBSGATE_ATTR_DEV_AIMD_STEP]);
	d.period_ns = u64(a[VERBSGATE_ATTR_DEV_AIMD_PERIOD]);
	d.chunk_nolat = u32(a[VERBSGATE_ATTR_DEV_CHUNK_NOLAT]);
	if (a[VERBSGATE_ATTR_DEV_CHUNK_TABLE])
		d.chunk_table = parse_chunk_entries(
			a[VERBSGATE_ATTR_DEV_CHUNK_TABLE]);
	if (a[VERBSGATE_ATTR_DEV_OP_COSTS])
		d.costs = parse_costs(a[VERBSGATE_ATTR_DEV_OP_COSTS]);
	d.lat_each = a[VERBSGATE_ATTR_DEV_LAT_EACH] &&
		     nla_get_u8(a[VERBSGATE_ATTR_DEV_LAT_EACH]);
	d.enforce = a[VERBSGATE_ATTR_DEV_ENFORCE] &&
		    nla_get_u8(a[VERBSGATE_ATTR_DEV_ENFORCE]);
	d.max_chunk = u32(a[VERBSGATE_ATTR_DEV_MAX_CHUNK]);
	d.safe_util = u64(a[VERBSGATE_ATTR_DEV_SAFE_UTIL]);
	d.rmin = u64(a[VERBSGATE_ATTR_DEV_RMIN]);
	d.chunk_size = u32(a[VERBSGATE_ATTR_DEV_CHUNK_SIZE]);
	d.ref_p99_ns = u64(a[VERBSGATE_ATTR_DEV_REF_P99]);
	d.aimd_increases = u64(a[VERBSGATE_ATTR_DEV_AIMD_INCREASES]);
	d.aimd_decreases = u64(a[VERBSGATE_ATTR_DEV_AIMD_DECREASES]);
	if (a[VERBSGATE_ATTR_DEV_QPS_ENFORCED])
		d.qps = {u32(a[VERBSGATE_ATTR_DEV_QPS_ENFORCED]),
			 u32(a[VERBSGATE_ATTR_DEV_QPS_TRACKED]),
			 u32(a[VERBSGATE_ATTR_DEV_QPS_UNSUPPORTED]),
			 u32(a[VERBSGATE_ATTR_DEV_QPS_UNTRACKED])};
	return d;
}

const char *const dev_qps_names[4] = {"enforced", "tracked", "unsupported",
				      "untracked"};

std::string qp_enforcement_name(uint32_t e)
{
	static const char *const names[] = {"enforced", "tracked",
					    "unsupported"};

	return e < std::size(names) ? names[e] : std::to_string(e);
}

std::string qp_reason_name(uint32_t r)
{
	static const char *const names[] = {
		"none", "user-qp", "qp-type", "no-shaper", "no-send-queue",
		"no-memory", "qp-limit", "no-tenant", "sge-limit",
	};

	return r < std::size(names) ? names[r] : std::to_string(r);
}

Qp parse_qp(const Attrs &a)
{
	Qp q;

	q.dev_index = u32(a[VERBSGATE_ATTR_DEV_INDEX]);
	q.dev = str(a[VERBSGATE_ATTR_DEV_NAME]);
	q.tenant_id = u32(a[VERBSGATE_ATTR_TENANT_ID]);
	q.tenant = str(a[VERBSGATE_ATTR_TENANT_NAME]);
	q.qpn = u32(a[VERBSGATE_ATTR_QP_NUM]);
	q.type = u32(a[VERBSGATE_ATTR_QP_TYPE]);
	// The uapi allows a pid of 0 for kernel QPs; show none then.
	if (uint32_t pid = u32(a[VERBSGATE_ATTR_QP_PID]))
		q.pid = pid;
	if (a[VERBSGATE_ATTR_QP_COMM])
		q.comm = str(a[VERBSGATE_ATTR_QP_COMM]);
	if (a[VERBSGATE_ATTR_QP_CGROUP_ID])
		q.cgroup_id = u64(a[VERBSGATE_ATTR_QP_CGROUP_ID]);
	if (a[VERBSGATE_ATTR_QP_ULP])
		q.ulp = str(a[VERBSGATE_ATTR_QP_ULP]);
	q.local_gid = gid(a[VERBSGATE_ATTR_QP_LOCAL_GID]);
	q.peer_gid = gid(a[VERBSGATE_ATTR_QP_PEER_GID]);
	if (a[VERBSGATE_ATTR_QP_ENFORCEMENT]) {
		q.enforcement = u32(a[VERBSGATE_ATTR_QP_ENFORCEMENT]);
		q.reason = u32(a[VERBSGATE_ATTR_QP_REASON]);
	}
	if (a[VERBSGATE_ATTR_QP_STATS]) {
		q.has_stats = true;
		q.stats = parse_stats(a[VERBSGATE_ATTR_QP_STATS]);
	}
	return q;
}

std::string format_guid(uint64_t g)
{
	char buf[24];

	snprintf(buf, sizeof(buf), "%04x:%04x:%04x:%04x",
		 unsigned(g >> 48) & 0xffff, unsigned(g >> 32) & 0xffff,
		 unsigned(g >> 16) & 0xffff, unsigned(g) & 0xffff);
	return buf;
}

std::string format_gid(const Gid &g)
{
	static const uint8_t v4_mapped[12] = {0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
					      0xff, 0xff};
	AddrPrefix p;

	if (memcmp(g.data(), v4_mapped, sizeof(v4_mapped)) == 0) {
		p.len = 4;
		memcpy(p.addr.data(), g.data() + sizeof(v4_mapped), p.len);
	} else {
		p.len = g.size();
		p.addr = g;
	}
	p.plen = unsigned(p.len * 8);
	return format_prefix(p);
}

}  // namespace vg
