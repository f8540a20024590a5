// SPDX-License-Identifier: GPL-2.0-only
#include "client.h"

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <memory>

#include "clock.h"
#include "device.h"
#include "report.h"
#include "resources.h"
#include "run.h"
#include "tcp.h"
#include "traffic.h"

namespace vgload {

namespace {

// Members in creation order: C++ destroys them in reverse, which is the
// order the verbs API requires.
struct ClientResources {
	Device dev;
	PdPtr pd;
	std::vector<CompChannelPtr> channels;
	std::vector<CqPtr> cqs;
	MrSet mrs;
	std::vector<QpPtr> qps;
	std::vector<uint32_t> psn;
	std::vector<QpPeer> peers;	// each QP's, as connect_qps() set it up
	AhPtr ah;
};

uint32_t qps_of_thread(const Options &o, unsigned t)
{
	return o.qps / o.threads + (t < o.qps % o.threads ? 1 : 0);
}

void setup_local(const Options &o, ClientResources &r)
{
	const Device &d = r.dev;
	TrafficNeeds need;

	need.qps = o.qps;
	need.send_wr = o.depth;
	need.recv_wr = 1;
	need.max_cq_entries = uint64_t(qps_of_thread(o, 0)) * o.depth;
	need.cqs = o.threads;
	need.mrs = o.mrs;
	need.mr_size = o.mr_size;
	need.msg_size = o.size;
	need.qp_type = o.qp_type;
	need.atomics = is_atomic(o.op);
	check_limits(d, need);

	r.pd = alloc_pd(d.ctx.get());
	for (unsigned t = 0; t < o.threads; t++) {
		ibv_comp_channel *ch = nullptr;

		if (o.poll == PollMode::Event) {
			r.channels.push_back(create_comp_channel(d.ctx.get()));
			ch = r.channels.back().get();
		}
		r.cqs.push_back(create_cq(d, int(qps_of_thread(o, t) * o.depth), ch,
					  "thread " + std::to_string(t) + ": " +
						  std::to_string(qps_of_thread(o, t)) +
						  " QPs x --depth " +
						  std::to_string(o.depth)));
	}
	// Local buffers are written by READ responses and atomics.
	r.mrs = MrSet(r.pd.get(), o.mrs, o.mr_size, IBV_ACCESS_LOCAL_WRITE);
	for (uint32_t i = 0; i < o.qps; i++) {
		ibv_cq *cq = r.cqs[i % o.threads].get();
		QpCaps caps;

		caps.max_send_wr = o.depth;
		caps.max_recv_wr = 1;
		r.qps.push_back(create_qp(r.pd.get(), cq, cq, o.qp_type, caps));
		r.psn.push_back(random_psn());
	}
}

SessionSpec make_spec(const Options &o, const ClientResources &r)
{
	SessionSpec s;

	s.mode = uint8_t(o.mode);
	s.op = uint8_t(o.op);
	s.qp_type = uint8_t(o.qp_type);
	s.post_recv = o.post_recv ? 1 : 0;
	s.min_rnr_timer = uint8_t(o.min_rnr_timer);
	s.size = uint32_t(o.size);
	s.qps = o.qps;
	s.depth = o.depth;
	s.mrs = o.mrs;
	s.mr_size = o.mr_size;
	s.session_timeout_ms = uint32_t((effective_timeout_s(o) + 30) * 1000);
	memcpy(s.gid, r.dev.gid.raw, 16);
	s.mtu = uint32_t(r.dev.active_mtu_bytes());
	for (size_t i = 0; i < r.qps.size(); i++)
		s.qp.push_back({ r.qps[i]->qp_num, r.psn[i] });
	return s;
}

void connect_qps(const Options &o, ClientResources &r, const ReadyMsg &ready)
{
	const Device &d = r.dev;
	QpPeer p;

	p.type = o.qp_type;
	p.port = d.port;
	p.sgid_index = d.gid_index;
	memcpy(p.dgid.raw, ready.gid, 16);
	p.mtu = mtu_from_bytes(std::min<uint32_t>(ready.mtu,
						  uint32_t(d.active_mtu_bytes())));
	p.timeout = o.qp_timeout;
	p.retry_cnt = o.retry_cnt;
	p.rnr_retry = o.rnr_retry;
	p.max_rd_atomic = int(std::min<uint32_t>(
		{ 16u, uint32_t(d.attr.max_qp_init_rd_atom), ready.max_dest_rd_atomic }));
	p.max_dest_rd_atomic = 1;
	if (o.qp_type == QpType::RC && (o.op == Op::Read || is_atomic(o.op)) &&
	    p.max_rd_atomic < 1)
		throw RunError(std::string("--op ") + op_name(o.op) +
			       " needs RDMA read/atomic resources, but " + d.name +
			       " or the server allows none in flight");
	for (size_t i = 0; i < r.qps.size(); i++) {
		p.remote_qpn = ready.qp[i].qpn;
		p.remote_psn = ready.qp[i].psn;
		p.local_psn = r.psn[i];
		qp_connect(r.qps[i].get(), p);
		r.peers.push_back(p);
	}
	if (o.qp_type == QpType::UD) {
		ibv_gid dgid;

		memcpy(dgid.raw, ready.gid, 16);
		r.ah = create_ah(r.pd.get(), d, dgid);
	}
}

}  // namespace

int run_client(const Options &o)
{
	RunReport rep;
	ClientResources r;
	Conn conn;
	ReadyMsg ready;
	PhaseLog phases;

	rep.opts = &o;
	try {
		phases = PhaseLog(o.phases);
		r.dev = open_device(o.dev, o.ib_port, o.gid_index);
		rep.has_device = true;
		rep.device = r.dev.record();
		setup_local(o, r);

		conn = Conn::connect_to(o.host, o.port, o.connect_timeout_s);
		conn.send(MsgType::Hello, encode(make_spec(o, r)));
		int wait_ms = int(std::max(30.0, o.connect_timeout_s) * 1000);

		ready = decode_ready(conn.expect(MsgType::Ready, wait_ms,
						 "during session setup"));
		if (!ready.ok)
			throw RunError("server " + conn.peer() + " refused the session: " +
				       ready.message);
		if (ready.qp.size() != o.qps || ready.mr.size() != o.mrs)
			throw ProtocolError("server answered with " +
					    std::to_string(ready.qp.size()) + " QPs and " +
					    std::to_string(ready.mr.size()) + " MRs");
		connect_qps(o, r, ready);
	} catch (const std::exception &e) {
		if (conn.valid()) {
			try {
				conn.send(MsgType::Abort, encode_text(e.what()), 1000);
			} catch (...) {
			}
		}
		print_setup_failure(o, rep, e.what());
		return 1;
	}

	Collector col(o.threads);
	RunControl ctl;
	std::vector<std::unique_ptr<TrafficWorker>> workers;

	for (unsigned t = 0; t < o.threads; t++) {
		WorkerPlan p;

		p.index = t;
		p.o = &o;
		p.cq = r.cqs[t].get();
		p.channel = o.poll == PollMode::Event ? r.channels[t].get() : nullptr;
		for (uint32_t i = t; i < o.qps; i += o.threads) {
			p.qps.push_back(r.qps[i].get());
			p.remote_qpn.push_back(ready.qp[i].qpn);
			if (o.recover)
				p.peers.push_back(r.peers[i]);
		}
		p.ah = r.ah.get();
		p.qkey = ready.qkey ? ready.qkey : UD_QKEY;
		p.local = &r.mrs;
		p.remote = &ready.mr;
		p.shard = &col.shard(t);
		p.rate = o.rate / o.threads;
		p.seed = now_ns() + t;
		workers.push_back(std::make_unique<TrafficWorker>(std::move(p)));
	}

	RunOutcome out = run_workers(o, col, ctl, o.threads,
				     [&](size_t t) { workers[t]->run(ctl); }, &conn, phases);

	record_outcome(rep, out, col);

	unsigned failed = 0;
	uint64_t stuck = 0;
	std::string fatal;

	for (const auto &w : workers) {
		const WorkerResult &wr = w->result();

		rep.total.flushed_at_stop += wr.flushed;
		failed += wr.failed_qps;
		rep.total.recoveries += wr.recoveries;
		stuck += wr.stuck;
		if (fatal.empty())
			fatal = wr.fatal;
		if (!wr.warning.empty())
			rep.warnings.push_back(wr.warning);
	}
	if (!fatal.empty()) {
		rep.end_reason = out.end_reason == "workers_done" ? "error" : out.end_reason;
		rep.ok = false;
		rep.message = fatal;
	} else if (out.end_reason == "workers_done") {
		if (failed == o.qps) {
			rep.end_reason = "all_qps_failed";
			rep.ok = false;
			rep.message = "every QP failed with a completion error (see errors)";
		} else {
			rep.end_reason = "iterations";
		}
	}
	if (failed && failed < o.qps)
		rep.warnings.push_back(std::to_string(failed) + " of " +
				       std::to_string(o.qps) +
				       " QPs failed with completion errors");
	if (stuck)
		rep.warnings.push_back(std::to_string(stuck) +
				       " work requests did not complete within 2 s of stopping");

	// End of run: collect the server's receive-side counters.
	if (out.end_reason != "peer_closed" && out.end_reason != "peer_abort") {
		try {
			conn.send(MsgType::Fin, {});
			StatsMsg st = decode_stats(conn.expect(MsgType::Stats, 5000,
							       "at the end of the run"));

			rep.peer.present = true;
			rep.peer.recv_completions = st.recv_completions;
			rep.peer.recv_bytes = st.recv_bytes;
			rep.peer.errors = st.errors;
		} catch (const std::exception &e) {
			rep.warnings.push_back(std::string("no end-of-run statistics from the server: ") +
					       e.what());
		}
	}
	return print_final_report(rep);
}

}  // namespace vgload
