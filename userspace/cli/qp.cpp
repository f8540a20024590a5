// SPDX-License-Identifier: GPL-2.0-only
#include "qp.h"

#include "prefix.h"

#include <cstring>

namespace vg {

namespace {

// enum ib_qp_type (include/rdma/ib_verbs.h) values a tenant's QPs have;
// others print as the number.
std::string qp_type_name(uint32_t type)
{
	switch (type) {
	case 2:
		return "RC";
	case 3:
		return "UC";
	case 4:
		return "UD";
	case 9:
		return "XRC_INI";
	default:
		return std::to_string(type);
	}
}

// A binary GID; one of another size counts as absent.
Field<Qp> gid(int attr, std::optional<Gid> Qp::*m)
{
	Field<Qp> f = custom(attr, m, words<Gid>(format_gid),
			     nla_policy{NLA_UNSPEC, 16, 16});

	f.get = [m](const nlattr *a, Qp &q) {
		if (nla_len(a) == int(sizeof(Gid)))
			memcpy((q.*m).emplace().data(), nla_data(a), sizeof(Gid));
	};
	return f;
}

}  // namespace

const Table<Qp> &qp_table()
{
	static const Table<Qp> t = {
		row(VERBSGATE_ATTR_DEV_NAME, &Qp::dev).sent("device name")
			.in(kQpMain).always().shows("%s").key("dev"),
		row(VERBSGATE_ATTR_DEV_INDEX, &Qp::dev_index)
			.in(kQpMain).key("dev_index"),
		row(VERBSGATE_ATTR_QP_NUM, &Qp::qpn)
			.in(kQpMain).shows(" qpn %s").key("qpn"),
		row(VERBSGATE_ATTR_QP_TYPE, &Qp::type, words<uint32_t>(qp_type_name))
			.in(kQpMain).shows(" type %s").key("type"),
		row(VERBSGATE_ATTR_TENANT_NAME, &Qp::tenant).sent("tenant name")
			.in(kQpMain).always().shows(" tenant %s").key("tenant"),
		row(VERBSGATE_ATTR_TENANT_ID, &Qp::tenant_id)
			.in(kQpMain).key("tenant_id"),
		row(VERBSGATE_ATTR_QP_PID, &Qp::pid).zero_is_none()
			.in(kQpMain).shows(" pid %s").key("pid"),
		row(VERBSGATE_ATTR_QP_COMM, &Qp::comm)
			.in(kQpMain).shows(" comm %s").key("comm"),
		row(VERBSGATE_ATTR_QP_CGROUP_ID, &Qp::cgroup_id)
			.in(kQpMain).shows(" cgroup %s").key("cgroup_id"),
		row(VERBSGATE_ATTR_QP_ULP, &Qp::ulp)
			.in(kQpMain).shows(" ulp %s").key("ulp"),
		gid(VERBSGATE_ATTR_QP_LOCAL_GID, &Qp::local_gid)
			.in(kQpMain).shows(" local %s").key("local"),
		gid(VERBSGATE_ATTR_QP_PEER_GID, &Qp::peer_gid)
			.in(kQpMain).shows(" peer %s").key("peer"),
		row(VERBSGATE_ATTR_QP_ENFORCEMENT, &Qp::enforcement,
		    words<uint32_t>(qp_enforcement_name))
			.in(kQpMain).shows(" enforcement %s").key("enforcement"),
		row(VERBSGATE_ATTR_QP_REASON, &Qp::reason,
		    words<uint32_t>(qp_reason_name)).zero_is_none()
			.in(kQpMain).shows(": %s").key("reason"),
		nest(VERBSGATE_ATTR_QP_STATS, &Qp::stats, counters_table())
			.in(kQpStats).shows("%s").key("stats"),
	};
	return t;
}

std::string qp_text(const Qp &q, bool stats)
{
	return text(qp_table(), q, stats ? kQpMain | kQpStats : kQpMain);
}

void qp_json(JsonWriter &w, const Qp &q)
{
	json(w, qp_table(), q);
}

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
