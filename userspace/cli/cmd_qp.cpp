// SPDX-License-Identifier: GPL-2.0-only
// verbsgate qp: the QPs verbsgate tracks, who created them, their tenant
// and their addresses.
#include "commands.h"
#include "encode.h"
#include "json.h"
#include "objects.h"
#include "requests.h"

#include <ostream>
#include <sstream>
#include <vector>

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

int qp_show(Args &args, const Output &o)
{
	QpShow q = parse_qp_show(args);

	std::vector<Qp> qps;
	o.nl().request(VERBSGATE_CMD_QP_GET, true,
		       [&](nl_msg *m) { put_qp_show(m, q); },
		       [&](const Attrs &a) { qps.push_back(parse_qp(a)); });

	if (o.opts.json) {
		JsonWriter w;
		w.begin_array();
		for (const auto &qp : qps)
			qp_json(w, qp);
		w.end_array();
		print_json(o, w.str());
		return 0;
	}
	for (const auto &qp : qps)
		o.out << qp_text(qp, o.opts.stats > 0) << "\n";
	return 0;
}

}  // namespace

std::string qp_text(const Qp &q, bool stats)
{
	std::ostringstream s;

	s << q.dev << " qpn " << q.qpn << " type " << qp_type_name(q.type)
	  << " tenant " << q.tenant;
	if (q.pid)
		s << " pid " << *q.pid;
	if (q.comm)
		s << " comm " << *q.comm;
	if (q.cgroup_id)
		s << " cgroup " << *q.cgroup_id;
	if (q.ulp)
		s << " ulp " << *q.ulp;
	if (q.local_gid)
		s << " local " << format_gid(*q.local_gid);
	if (q.peer_gid)
		s << " peer " << format_gid(*q.peer_gid);
	if (q.enforcement) {
		s << " enforcement " << qp_enforcement_name(*q.enforcement);
		if (q.reason)
			s << ": " << qp_reason_name(q.reason);
	}
	if (stats && q.has_stats)
		s << " " << stats_text(q.stats);
	return s.str();
}

void qp_json(JsonWriter &w, const Qp &q)
{
	w.begin_object().kv("dev", q.dev).kv("dev_index", q.dev_index)
		.kv("qpn", q.qpn).kv("type", qp_type_name(q.type))
		.kv("tenant", q.tenant).kv("tenant_id", q.tenant_id);
	if (q.pid)
		w.kv("pid", *q.pid);
	if (q.comm)
		w.kv("comm", *q.comm);
	if (q.cgroup_id)
		w.kv("cgroup_id", *q.cgroup_id);
	if (q.ulp)
		w.kv("ulp", *q.ulp);
	if (q.local_gid)
		w.kv("local", format_gid(*q.local_gid));
	if (q.peer_gid)
		w.kv("peer", format_gid(*q.peer_gid));
	if (q.enforcement) {
		w.kv("enforcement", qp_enforcement_name(*q.enforcement));
		if (q.reason)
			w.kv("reason", qp_reason_name(q.reason));
	}
	if (q.has_stats) {
		w.key("stats").begin_object();
		stats_json(w, q.stats);
		w.end_object();
	}
	w.end_object();
}

void usage_qp(std::ostream &out)
{
	out << "Usage: verbsgate [-j [-p]] [-s] qp show [ dev DEV ] [ tenant NAME ]\n"
	       "       verbsgate qp help\n"
	       "where  NAME := 1..31 characters of A-Z a-z 0-9 _ . -\n"
	       "       -s adds each QP's counters, where the kernel reports them\n";
}

int cmd_qp(Args &args, const Output &o)
{
	if (args.empty() || args.accept("show") || args.accept("list"))
		return qp_show(args, o);
	if (args.accept("help")) {
		usage_qp(o.out);
		return 0;
	}
	throw UsageError("unknown qp command \"" + args.peek() + "\"");
}

}  // namespace vg
