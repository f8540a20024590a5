// SPDX-License-Identifier: GPL-2.0-only
#include "report.h"

#include <cstdio>
#include <sstream>

#include "json.h"
#include "units.h"

namespace vgload {

using vg::JsonWriter;

const char *const VGLOAD_VERSION = "0.1.0";

TotalRecord make_total(const Counters &c, double secs)
{
	TotalRecord t;

	t.duration_s = secs;
	t.ops = c.ops;
	t.bytes = c.bytes;
	t.mops = rate_mops(c.ops, secs);
	t.gbps = rate_gbps(c.bytes, secs);
	t.lat = c.lat.summary();
	t.errors = c.errors;
	t.error_total = c.error_total();
	for (const auto &kv : c.verbs) {
		VerbRecord v;

		v.name = kv.first;
		v.ops = kv.second.ops;
		v.errors = kv.second.errors;
		v.ops_per_s = secs > 0 ? double(kv.second.ops) / secs : 0;
		v.lat = kv.second.lat.summary();
		t.verbs.push_back(v);
	}
	return t;
}

static void lat_json(JsonWriter &w, const LatencySummary &l)
{
	w.begin_object();
	w.kv("samples", l.samples);
	w.kv("min", l.min_ns / 1e3);
	w.kv("mean", l.mean_ns / 1e3);
	w.kv("p50", l.p50_ns / 1e3);
	w.kv("p90", l.p90_ns / 1e3);
	w.kv("p99", l.p99_ns / 1e3);
	w.kv("p999", l.p999_ns / 1e3);
	w.kv("max", l.max_ns / 1e3);
	w.end_object();
}

static void map_json(JsonWriter &w, const std::map<std::string, uint64_t> &m)
{
	w.begin_object();
	for (const auto &kv : m)
		w.kv(kv.first, kv.second);
	w.end_object();
}

static void device_fields(JsonWriter &w, const DeviceRecord &d)
{
	w.kv("name", d.name);
	w.kv("port", d.port);
	w.kv("port_state", d.port_state);
	w.kv("gid_index", d.gid_index);
	w.kv("gid", d.gid);
	w.kv("gid_type", d.gid_type);
	w.kv("active_mtu", d.active_mtu);
	w.kv("max_msg_sz", d.max_msg_sz);
	w.kv("max_mr_size", d.max_mr_size);
	w.kv("max_qp", d.max_qp);
	w.kv("max_qp_wr", d.max_qp_wr);
	w.kv("max_cq", d.max_cq);
	w.kv("max_cqe", d.max_cqe);
	w.kv("max_mr", d.max_mr);
	w.kv("max_pd", d.max_pd);
	w.kv("max_sge", d.max_sge);
	w.kv("max_qp_rd_atom", d.max_qp_rd_atom);
	w.kv("max_qp_init_rd_atom", d.max_qp_init_rd_atom);
	w.kv("atomic_cap", d.atomic_cap);
	w.kv("fw_ver", d.fw_ver);
}

static void peer_json(JsonWriter &w, const PeerRecord &p)
{
	w.begin_object();
	w.kv("recv_completions", p.recv_completions);
	w.kv("recv_bytes", p.recv_bytes);
	w.key("errors");
	map_json(w, p.errors);
	w.end_object();
}

static void config_json(JsonWriter &w, const Options &o)
{
	w.begin_object();
	w.kv("server", o.host);
	w.kv("port", uint32_t(o.port));
	w.kv("op", op_name(o.op));
	w.kv("qp_type", qp_type_name(o.qp_type));
	w.kv("size", o.size);
	w.kv("qps", o.qps);
	w.kv("threads", o.threads);
	w.kv("depth", o.depth);
	w.kv("post_list", o.post_list);
	w.kv("mrs", o.mrs);
	w.kv("mr_size", o.mr_size);
	w.kv("access", access_name(o.access));
	w.kv("duration_s", o.duration_s);
	w.kv("iters", o.iters);
	w.kv("rate", o.rate);
	w.kv("latency_from", latency_from_name(o.latency_from));
	w.kv("warmup_s", o.warmup_s);
	w.kv("interval_s", o.interval_s);
	w.kv("timeout_s", effective_timeout_s(o));
	w.kv("poll", poll_name(o.poll));
	w.kv("post_recv", o.post_recv);
	w.kv("rnr_retry", o.rnr_retry);
	w.kv("min_rnr_timer", o.min_rnr_timer);
	w.kv("retry_cnt", o.retry_cnt);
	w.kv("qp_timeout", o.qp_timeout);
	w.kv("recover", o.recover);
	w.kv("cqs", o.cqs);
	w.kv("cq_size", o.cq_size);
	w.end_object();
}

static void interval_json(JsonWriter &w, const IntervalRecord &iv)
{
	w.begin_object();
	w.kv("t_start_s", iv.t_start_s);
	w.kv("t_end_s", iv.t_end_s);
	w.kv("ops", iv.ops);
	w.kv("bytes", iv.bytes);
	w.kv("errors", iv.errors);
	w.kv("mops", iv.mops);
	w.kv("gbps", iv.gbps);
	w.kv("t_last_done_s", iv.t_last_done_s);  // NaN: null
	w.key("lat_us");
	lat_json(w, iv.lat);
	w.end_object();
}

std::string to_json(const RunReport &r)
{
	JsonWriter w;
	const Options &o = *r.opts;

	w.begin_object();
	w.kv("tool", "vgload");
	w.kv("schema", SCHEMA_VERSION);
	w.kv("version", VGLOAD_VERSION);
	w.kv("role", "client");
	w.kv("mode", mode_name(o.mode));
	w.kv("ok", r.ok);
	w.kv("end_reason", r.end_reason);
	w.kv("message", r.message);
	w.key("warnings").begin_array();
	for (const auto &s : r.warnings)
		w.value(s);
	w.end_array();
	w.key("config");
	config_json(w, o);
	w.key("device");
	if (r.has_device) {
		w.begin_object();
		device_fields(w, r.device);
		w.end_object();
	} else {
		w.null();
	}
	w.key("intervals").begin_array();
	for (const auto &iv : r.intervals)
		interval_json(w, iv);
	w.end_array();

	const TotalRecord &t = r.total;
	w.key("total").begin_object();
	w.kv("duration_s", t.duration_s);
	w.kv("ops", t.ops);
	w.kv("bytes", t.bytes);
	w.kv("mops", t.mops);
	w.kv("gbps", t.gbps);
	w.key("lat_us");
	lat_json(w, t.lat);
	w.key("errors");
	map_json(w, t.errors);
	w.kv("error_total", t.error_total);
	w.kv("flushed_at_stop", t.flushed_at_stop);
	if (o.recover)
		w.kv("recoveries", t.recoveries);
	w.end_object();

	w.key("verbs").begin_object();
	for (const auto &v : t.verbs) {
		w.key(v.name).begin_object();
		w.kv("ops", v.ops);
		w.kv("errors", v.errors);
		w.kv("ops_per_s", v.ops_per_s);
		w.key("lat_us");
		lat_json(w, v.lat);
		w.end_object();
	}
	w.end_object();

	w.key("peer");
	if (r.peer.present)
		peer_json(w, r.peer);
	else
		w.null();
	w.end_object();
	return w.str();
}

std::string to_json(const SessionRecord &s)
{
	JsonWriter w;

	w.begin_object();
	w.kv("tool", "vgload");
	w.kv("schema", SCHEMA_VERSION);
	w.kv("version", VGLOAD_VERSION);
	w.kv("role", "server");
	w.kv("session", s.session);
	w.kv("client", s.client);
	w.kv("mode", s.mode);
	w.kv("op", s.op);
	w.kv("qp_type", s.qp_type);
	w.kv("qps", s.qps);
	w.kv("mrs", s.mrs);
	w.kv("size", s.size);
	w.kv("post_recv", s.post_recv);
	w.kv("duration_s", s.duration_s);
	w.key("recv");
	peer_json(w, s.recv);
	w.kv("ok", s.ok);
	w.kv("end_reason", s.end_reason);
	w.kv("message", s.message);
	w.end_object();
	return w.str();
}

std::string to_json(const DeviceRecord &d)
{
	JsonWriter w;

	w.begin_object();
	w.kv("tool", "vgload");
	w.kv("schema", SCHEMA_VERSION);
	w.kv("version", VGLOAD_VERSION);
	w.kv("role", "devinfo");
	w.key("device").begin_object();
	device_fields(w, d);
	w.end_object();
	w.end_object();
	return w.str();
}

static std::string fmt(const char *f, double v)
{
	char buf[64];

	snprintf(buf, sizeof(buf), f, v);
	return buf;
}

static std::string lat_line(const LatencySummary &l)
{
	if (!l.samples)
		return "lat(us) -";
	return "lat(us) p50 " + fmt("%.1f", l.p50_ns / 1e3) + " p99 " +
	       fmt("%.1f", l.p99_ns / 1e3) + " p99.9 " +
	       fmt("%.1f", l.p999_ns / 1e3) + " max " +
	       fmt("%.1f", l.max_ns / 1e3);
}

std::string human_interval(const IntervalRecord &iv)
{
	char buf[160];

	snprintf(buf, sizeof(buf),
		 "[%6.1f-%6.1fs] %10llu ops %9.4f Mops %8.4f Gbit/s ",
		 iv.t_start_s, iv.t_end_s, (unsigned long long)iv.ops, iv.mops,
		 iv.gbps);
	std::string s = buf + lat_line(iv.lat);

	if (iv.errors)
		s += "  errors " + std::to_string(iv.errors);
	return s;
}

std::string human_report(const RunReport &r)
{
	std::ostringstream s;
	const Options &o = *r.opts;
	const TotalRecord &t = r.total;

	s << "vgload " << mode_name(o.mode);
	if (o.mode == Mode::BlockRead)
		s << ": " << o.file << " size " << format_size(o.size) << " depth "
		  << o.depth;
	else if (!is_storm(o.mode))
		s << ": " << op_name(o.op) << " " << qp_type_name(o.qp_type)
		  << " size " << format_size(o.size) << " qps " << o.qps
		  << " threads " << o.threads << " depth " << o.depth;
	if (r.has_device)
		s << " on " << r.device.name << " port " << r.device.port
		  << " gid " << r.device.gid_index << " (" << r.device.gid << ")";
	s << "\n";
	s << "  ended: " << r.end_reason << (r.ok ? "" : " (FAILED)");
	if (!r.message.empty())
		s << ": " << r.message;
	s << "\n";
	for (const auto &w : r.warnings)
		s << "  warning: " << w << "\n";
	s << "  duration " << fmt("%.3f", t.duration_s) << " s, ops " << t.ops
	  << ", " << fmt("%.4f", t.mops) << " Mops, " << fmt("%.4f", t.gbps)
	  << " Gbit/s\n";
	if (t.lat.samples)
		s << "  latency (us): min " << fmt("%.1f", t.lat.min_ns / 1e3)
		  << " mean " << fmt("%.1f", t.lat.mean_ns / 1e3) << " p50 "
		  << fmt("%.1f", t.lat.p50_ns / 1e3) << " p90 "
		  << fmt("%.1f", t.lat.p90_ns / 1e3) << " p99 "
		  << fmt("%.1f", t.lat.p99_ns / 1e3) << " p99.9 "
		  << fmt("%.1f", t.lat.p999_ns / 1e3) << " max "
		  << fmt("%.1f", t.lat.max_ns / 1e3) << "  (" << t.lat.samples
		  << " samples)\n";
	for (const auto &v : t.verbs)
		s << "  " << v.name << ": " << v.ops << " ok, " << v.errors
		  << " failed, " << fmt("%.0f", v.ops_per_s) << "/s, "
		  << lat_line(v.lat) << "\n";
	s << "  errors: " << t.error_total;
	for (const auto &kv : t.errors)
		s << "  " << kv.first << "=" << kv.second;
	s << "\n";
	if (t.flushed_at_stop)
		s << "  outstanding at stop (flushed): " << t.flushed_at_stop
		  << "\n";
	if (t.recoveries)
		s << "  failed QPs connected again: " << t.recoveries << "\n";
	if (r.peer.present) {
		s << "  server received: " << r.peer.recv_completions
		  << " completions, " << r.peer.recv_bytes << " bytes";
		for (const auto &kv : r.peer.errors)
			s << "  " << kv.first << "=" << kv.second;
		s << "\n";
	}
	return s.str();
}

std::string human_session(const SessionRecord &x)
{
	std::ostringstream s;

	s << "session " << x.session << " from " << x.client << ": "
	  << x.mode << " " << x.op << " " << x.qp_type << " qps " << x.qps
	  << " size " << format_size(x.size)
	  << (x.post_recv ? "" : " (no receives)") << ", "
	  << fmt("%.1f", x.duration_s) << " s, received "
	  << x.recv.recv_completions << " completions / "
	  << x.recv.recv_bytes << " bytes";
	for (const auto &kv : x.recv.errors)
		s << " " << kv.first << "=" << kv.second;
	s << "; ended: " << x.end_reason;
	if (!x.message.empty())
		s << " (" << x.message << ")";
	return s.str();
}

void print_report(const RunReport &r)
{
	std::string s = r.opts->json ? to_json(r) + "\n" : human_report(r);

	fputs(s.c_str(), stdout);
	fflush(stdout);
}

std::string human_device(const DeviceRecord &d)
{
	std::ostringstream s;

	s << d.name << " port " << d.port << " (" << d.port_state
	  << "), gid " << d.gid_index << " " << d.gid << " [" << d.gid_type
	  << "]\n"
	  << "  active_mtu " << d.active_mtu << "  max_msg_sz " << d.max_msg_sz
	  << "  max_mr_size " << d.max_mr_size << "\n"
	  << "  max_qp " << d.max_qp << "  max_qp_wr " << d.max_qp_wr
	  << "  max_cq " << d.max_cq << "  max_cqe " << d.max_cqe
	  << "  max_mr " << d.max_mr << "  max_pd " << d.max_pd << "\n"
	  << "  max_sge " << d.max_sge << "  max_qp_rd_atom "
	  << d.max_qp_rd_atom << "  max_qp_init_rd_atom "
	  << d.max_qp_init_rd_atom << "  atomic_cap " << d.atomic_cap
	  << "  fw " << d.fw_ver << "\n";
	return s.str();
}

void print_setup_failure(const Options &o, RunReport &rep, const std::string &why)
{
	fprintf(stderr, "vgload: error: %s\n", why.c_str());
	if (o.json) {
		rep.ok = false;
		rep.end_reason = "setup_failed";
		rep.message = why;
		print_report(rep);
	}
}

int print_final_report(const RunReport &r)
{
	if (!r.ok)
		fprintf(stderr, "vgload: run failed (%s): %s\n", r.end_reason.c_str(),
			r.message.c_str());
	print_report(r);
	return r.ok ? 0 : 1;
}

}  // namespace vgload
