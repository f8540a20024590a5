// SPDX-License-Identifier: GPL-2.0-only
#include "encode.h"

#include "genl_client.h"

#include <linux/verbsgate.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <cerrno>

namespace vg {

namespace {

void check(int ret)
{
	if (ret < 0)
		throw NetlinkError(EMSGSIZE, "request too large");
}

// Nests carry NLA_F_NESTED: the kernel validates strictly.
nlattr *nest(nl_msg *m, int type)
{
	nlattr *n = nla_nest_start(m, type | NLA_F_NESTED);

	if (!n)
		throw NetlinkError(EMSGSIZE, "request too large");
	return n;
}

void put_selector(nl_msg *m, const Selector &s)
{
	nlattr *n = nest(m, VERBSGATE_ATTR_TENANT_SELECTOR);

	check(nla_put_u32(m, VERBSGATE_SEL_ATTR_TYPE, s.type));
	switch (s.type) {
	case VERBSGATE_SEL_CGROUP:
		check(nla_put_string(m, VERBSGATE_SEL_ATTR_CGROUP_PATH,
				     s.cgroup_path.c_str()));
		break;
	case VERBSGATE_SEL_ULP:
		check(nla_put_string(m, VERBSGATE_SEL_ATTR_ULP, s.ulp.c_str()));
		break;
	case VERBSGATE_SEL_LOCAL_ADDR:
	case VERBSGATE_SEL_PEER_ADDR:
		check(nla_put(m, VERBSGATE_SEL_ATTR_ADDR, int(s.prefix.len),
			      s.prefix.addr.data()));
		check(nla_put_u8(m, VERBSGATE_SEL_ATTR_PREFIX_LEN,
				 uint8_t(s.prefix.plen)));
		break;
	}
	nla_nest_end(m, n);
}

void put_rate(nl_msg *m, int type, const std::optional<uint64_t> &v)
{
	if (v)
		check(nla_put_u64(m, type, *v));
}

void put_u32(nl_msg *m, int type, const std::optional<uint32_t> &v)
{
	if (v)
		check(nla_put_u32(m, type, *v));
}

}  // namespace

void put_tenant_name(nl_msg *m, const std::string &name)
{
	check(nla_put_string(m, VERBSGATE_ATTR_TENANT_NAME, name.c_str()));
}

void put_tenant_add(nl_msg *m, const TenantAdd &t)
{
	put_tenant_name(m, t.name);
	put_selector(m, t.sel);
	check(nla_put_u32(m, VERBSGATE_ATTR_TENANT_CLASS, t.cls));
	check(nla_put_u32(m, VERBSGATE_ATTR_TENANT_WEIGHT, t.weight));
	put_rate(m, VERBSGATE_ATTR_TENANT_MIN_RATE, t.min_rate);
	put_rate(m, VERBSGATE_ATTR_TENANT_MAX_RATE, t.max_rate);
}

void put_tenant_set(nl_msg *m, const TenantSet &t)
{
	put_tenant_name(m, t.name);
	put_u32(m, VERBSGATE_ATTR_TENANT_CLASS, t.cls);
	put_u32(m, VERBSGATE_ATTR_TENANT_WEIGHT, t.weight);
	put_rate(m, VERBSGATE_ATTR_TENANT_MIN_RATE, t.min_rate);
	put_rate(m, VERBSGATE_ATTR_TENANT_MAX_RATE, t.max_rate);
}

void put_dev_name(nl_msg *m, const std::string &dev)
{
	check(nla_put_string(m, VERBSGATE_ATTR_DEV_NAME, dev.c_str()));
}

void put_dev_set(nl_msg *m, const DevSet &d)
{
	put_dev_name(m, d.dev);
	put_rate(m, VERBSGATE_ATTR_DEV_MAX_RATE, d.max_rate);
	put_rate(m, VERBSGATE_ATTR_DEV_MAX_OPS, d.max_ops);
	put_rate(m, VERBSGATE_ATTR_DEV_TARGET_P99, d.target_p99_ns);
	put_rate(m, VERBSGATE_ATTR_DEV_AIMD_STEP, d.step);
	put_rate(m, VERBSGATE_ATTR_DEV_AIMD_PERIOD, d.period_ns);
	put_u32(m, VERBSGATE_ATTR_DEV_CHUNK_NOLAT, d.chunk_nolat);
	if (d.chunk_table) {
		nlattr *table = nest(m, VERBSGATE_ATTR_DEV_CHUNK_TABLE);
		int i = 0;
		for (const auto &e : *d.chunk_table) {
			nlattr *ent = nest(m, ++i);
			check(nla_put_u32(m, VERBSGATE_CHUNK_ATTR_SIZE, e.size));
			check(nla_put_u32(m, VERBSGATE_CHUNK_ATTR_UTIL,
					  e.util_ppm));
			nla_nest_end(m, ent);
		}
		nla_nest_end(m, table);
	}
	if (!d.costs.empty()) {
		nlattr *costs = nest(m, VERBSGATE_ATTR_DEV_OP_COSTS);
		int i = 0;
		for (const auto &c : d.costs) {
			nlattr *ent = nest(m, ++i);
			check(nla_put_u32(m, VERBSGATE_OPCOST_ATTR_CLASS, c.cls));
			put_u32(m, VERBSGATE_OPCOST_ATTR_BYTES, c.bytes);
			put_u32(m, VERBSGATE_OPCOST_ATTR_UNITS, c.units);
			nla_nest_end(m, ent);
		}
		nla_nest_end(m, costs);
	}
	if (d.lat_each)
		check(nla_put_u8(m, VERBSGATE_ATTR_DEV_LAT_EACH, *d.lat_each));
	if (d.enforce)
		check(nla_put_u8(m, VERBSGATE_ATTR_DEV_ENFORCE, *d.enforce));
}

void put_qp_show(nl_msg *m, const QpShow &q)
{
	if (q.dev)
		put_dev_name(m, *q.dev);
	if (q.tenant)
		put_tenant_name(m, *q.tenant);
}

}  // namespace vg
