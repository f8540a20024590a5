// SPDX-License-Identifier: GPL-2.0-only
#include "server.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstring>
#include <list>
#include <memory>
#include <mutex>
#include <poll.h>
#include <thread>

#include "clock.h"
#include "device.h"
#include "report.h"
#include "resources.h"
#include "signals.h"
#include "start_gate.h"
#include "tcp.h"

namespace vgload {

namespace {

std::mutex out_mutex;

void emit(const Options &o, const SessionRecord &rec)
{
	std::lock_guard<std::mutex> g(out_mutex);

	if (o.json)
		printf("%s\n", to_json(rec).c_str());
	else
		printf("%s\n", human_session(rec).c_str());
	fflush(stdout);
}

// Declared in creation order; destroyed in reverse, as verbs require.
struct SessionResources {
	Device dev;
	PdPtr pd;
	CompChannelPtr channel;
	CqPtr cq;
	MrSet mrs;
	MrSet recv_buf;
	std::vector<QpPtr> qps;
};

class Session {
public:
	Session(const Options &o, Conn conn, uint64_t id, StartGate *gate)
		: o_(o), conn_(std::move(conn)), gate_(gate)
	{
		rec_.session = id;
		rec_.client = conn_.peer();
	}

	void run();
	bool done() const { return done_.load(); }

private:
	void setup(const SessionSpec &s);
	void serve();
	void drain_cq();
	void post_recv(uint32_t qi);
	void fail_qp(uint32_t qi);

	const Options &o_;
	Conn conn_;
	StartGate *gate_;                // --together, else null
	SessionRecord rec_;
	SessionSpec spec_;
	std::unique_ptr<SessionResources> r_{ new SessionResources };
	QpType qp_type_ = QpType::RC;
	bool recv_ = false;              // keep receive queues filled
	uint32_t recv_depth_ = 1;
	std::vector<bool> dead_;         // QPs whose receive side failed
	std::vector<uint32_t> qpn_index_;
	std::atomic<bool> done_{ false };
};

void Session::setup(const SessionSpec &s)
{
	if (s.op > uint8_t(Op::Faa) || s.qp_type > uint8_t(QpType::UD) ||
	    s.mode > uint8_t(Mode::CqStorm) || !s.qps || !s.mrs || !s.depth)
		throw ProtocolError("HELLO carries an invalid session description");
	const Op op = Op(s.op);

	qp_type_ = QpType(s.qp_type);
	rec_.mode = mode_name(Mode(s.mode));
	rec_.op = op_name(op);
	rec_.qp_type = qp_type_name(qp_type_);
	rec_.qps = s.qps;
	rec_.mrs = s.mrs;
	rec_.size = s.size;
	rec_.post_recv = s.post_recv != 0;

	r_->dev = open_device(o_.dev, o_.ib_port, o_.gid_index);
	const Device &d = r_->dev;

	recv_ = s.post_recv && op_needs_recv(op);
	if (recv_) {
		// Twice the client's depth keeps the queue ahead of it while
		// completions are being handled; bounded by the device.
		recv_depth_ = std::min<uint32_t>(std::max<uint32_t>(2 * s.depth, 16),
						 uint32_t(d.attr.max_qp_wr));
		recv_depth_ = std::min<uint32_t>(recv_depth_,
						 uint32_t(d.attr.max_cqe) / s.qps);
		if (!recv_depth_)
			throw RunError(std::to_string(s.qps) +
				       " QPs with receives exceed max_cqe " +
				       std::to_string(d.attr.max_cqe) + " of " + d.name);
	}

	TrafficNeeds need;

	need.qps = s.qps;
	need.send_wr = 1;
	need.recv_wr = recv_depth_;
	need.max_cq_entries = uint64_t(s.qps) * recv_depth_;
	need.mrs = s.mrs;
	need.mr_size = s.mr_size;
	need.msg_size = s.size;
	need.qp_type = qp_type_;
	need.atomics = is_atomic(op);
	check_limits(d, need);

	r_->pd = alloc_pd(d.ctx.get());
	if (o_.poll == PollMode::Event)
		r_->channel = create_comp_channel(d.ctx.get());
	r_->cq = create_cq(d, int(std::max<uint64_t>(need.max_cq_entries, 1)),
			  r_->channel.get(),
			  std::to_string(s.qps) + " QPs x " +
				  std::to_string(recv_depth_) + " receives");

	int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
		     IBV_ACCESS_REMOTE_READ;

	if (is_atomic(op))
		access |= IBV_ACCESS_REMOTE_ATOMIC;
	r_->mrs = MrSet(r_->pd.get(), s.mrs, s.mr_size, access);
	if (recv_)
		r_->recv_buf = MrSet(r_->pd.get(), 1, s.size + GRH_BYTES,
				    IBV_ACCESS_LOCAL_WRITE);

	QpPeer p;

	p.type = qp_type_;
	p.port = d.port;
	p.sgid_index = d.gid_index;
	memcpy(p.dgid.raw, s.gid, 16);
	p.mtu = mtu_from_bytes(std::min<uint32_t>(s.mtu, uint32_t(d.active_mtu_bytes())));
	p.access = qp_type_ == QpType::UC ?
			   IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE :
			   access;
	p.min_rnr_timer = s.min_rnr_timer;
	p.max_rd_atomic = 1;
	p.max_dest_rd_atomic = std::min(16, d.attr.max_qp_rd_atom);

	ReadyMsg ready;

	dead_.assign(s.qps, false);
	for (uint32_t i = 0; i < s.qps; i++) {
		QpCaps caps;

		caps.max_send_wr = 1;
		caps.max_recv_wr = recv_depth_;
		r_->qps.push_back(create_qp(r_->pd.get(), r_->cq.get(), r_->cq.get(),
					   qp_type_, caps));
		p.remote_qpn = s.qp[i].qpn;
		p.remote_psn = s.qp[i].psn;
		p.local_psn = random_psn();
		qp_connect(r_->qps.back().get(), p);
		// Receives go in once the QP is past RESET, before READY, so
		// the client's first SEND finds them.
		if (recv_)
			for (uint32_t k = 0; k < recv_depth_ && !dead_[i]; k++)
				post_recv(i);
		ready.qp.push_back({ r_->qps.back()->qp_num, p.local_psn });
	}
	for (uint32_t i = 0; i < s.mrs; i++)
		ready.mr.push_back({ r_->mrs.addr(i), s.mr_size, r_->mrs.rkey(i) });
	ready.ok = 1;
	memcpy(ready.gid, d.gid.raw, 16);
	ready.mtu = uint32_t(d.active_mtu_bytes());
	ready.qkey = UD_QKEY;
	ready.max_dest_rd_atomic = uint32_t(p.max_dest_rd_atomic);
	// Within the clients' wait for READY (at least 30 s), else a late
	// session's client is refused rather than left to give up.
	if (gate_ && !gate_->arrive_and_wait(now_ns() + 25 * NS_PER_S, stop_requested))
		throw RunError("--together: " + std::to_string(gate_->arrived()) +
			       " of " + std::to_string(gate_->expected()) +
			       " sessions were set up within 25 s");
	conn_.send(MsgType::Ready, encode(ready), 10000);
}

void Session::post_recv(uint32_t qi)
{
	ibv_sge sge;
	ibv_recv_wr wr{}, *bad = nullptr;

	sge.addr = r_->recv_buf.addr(0);
	sge.length = uint32_t(r_->recv_buf.mr_size());
	sge.lkey = r_->recv_buf.lkey(0);
	wr.wr_id = qi;
	wr.sg_list = &sge;
	wr.num_sge = 1;
	int rc = ibv_post_recv(r_->qps[qi].get(), &wr, &bad);

	if (rc) {
		rec_.recv.errors["ibv_post_recv:" + errno_name(verbs_errno(rc))]++;
		fail_qp(qi);
	}
}

void Session::fail_qp(uint32_t qi)
{
	dead_[qi] = true;
}

void Session::drain_cq()
{
	ibv_wc wc[64];

	for (;;) {
		int n = ibv_poll_cq(r_->cq.get(), 64, wc);

		if (n < 0)
			throw SysError("ibv_poll_cq", errno);
		for (int i = 0; i < n; i++) {
			uint32_t qi = uint32_t(wc[i].wr_id);

			if (wc[i].status != IBV_WC_SUCCESS) {
				rec_.recv.errors[wc_status_name(wc[i].status)]++;
				fail_qp(qi);
				continue;
			}
			rec_.recv.recv_completions++;
			uint64_t len = wc[i].byte_len;

			if (qp_type_ == QpType::UD && len >= GRH_BYTES)
				len -= GRH_BYTES;
			if (wc[i].opcode == IBV_WC_RECV_RDMA_WITH_IMM)
				len = spec_.size;  // data went to the MR, not the WQE
			rec_.recv.recv_bytes += len;
			if (!dead_[qi])
				post_recv(qi);
		}
		if (n < 64)
			return;
	}
}

void Session::serve()
{
	const bool busy = o_.poll == PollMode::Busy;
	const uint64_t limit_ms = spec_.session_timeout_ms ? spec_.session_timeout_ms : 3600000;
	const uint64_t deadline = now_ns() + limit_ms * 1000000ull;
	uint64_t next_conn_check = 0;

	if (!busy) {
		int rc = ibv_req_notify_cq(r_->cq.get(), 0);

		if (rc)
			throw SysError("ibv_req_notify_cq", verbs_errno(rc));
	}
	for (;;) {
		const uint64_t now = now_ns();

		if (stop_requested()) {
			rec_.end_reason = "interrupted";
			rec_.ok = false;
			rec_.message = std::string("server stopped by ") + stop_signal_name();
			conn_.send(MsgType::Abort, encode_text(rec_.message), 1000);
			return;
		}
		if (now >= deadline) {
			rec_.end_reason = "timeout";
			rec_.ok = false;
			rec_.message = "session exceeded its time limit of " +
				       std::to_string(spec_.session_timeout_ms / 1000) + " s";
			conn_.send(MsgType::Abort, encode_text(rec_.message), 1000);
			return;
		}

		bool check_conn = true;

		if (busy) {
			// Spin on the CQ; look at the socket once a millisecond.
			drain_cq();
			check_conn = now >= next_conn_check;
			if (check_conn)
				next_conn_check = now + 1000000;
		} else {
			pollfd fds[2] = { { conn_.fd(), POLLIN, 0 },
					  { r_->channel->fd, POLLIN, 0 } };

			if (poll(fds, 2, 200) < 0 && errno != EINTR)
				throw SysError("poll", errno);
			if (fds[1].revents & POLLIN) {
				ibv_cq *cq;
				void *ctx;

				if (ibv_get_cq_event(r_->channel.get(), &cq, &ctx) == 0) {
					ibv_ack_cq_events(cq, 1);
					int rc = ibv_req_notify_cq(cq, 0);

					if (rc)
						throw SysError("ibv_req_notify_cq",
							       verbs_errno(rc));
				}
				drain_cq();
			}
			check_conn = fds[0].revents != 0;
		}
		if (!check_conn)
			continue;

		MsgType t;
		std::vector<uint8_t> payload;

		if (!conn_.recv(t, payload, 0))
			continue;
		if (t == MsgType::Fin) {
			drain_cq();
			StatsMsg st;

			st.recv_completions = rec_.recv.recv_completions;
			st.recv_bytes = rec_.recv.recv_bytes;
			st.errors = rec_.recv.errors;
			conn_.send(MsgType::Stats, encode(st), 5000);
			rec_.end_reason = "fin";
			return;
		}
		if (t == MsgType::Abort) {
			rec_.end_reason = "client_abort";
			rec_.ok = false;
			rec_.message = decode_text(payload);
			return;
		}
		throw ProtocolError(std::string("unexpected ") + msg_type_name(t) +
				    " from the client during the run");
	}
}

void Session::run()
{
	const uint64_t t0 = now_ns();
	bool ready_sent = false;

	try {
		spec_ = decode_spec(conn_.expect(MsgType::Hello,
						 int(o_.connect_timeout_s * 1000),
						 "during session setup"));
		setup(spec_);
		ready_sent = true;
		serve();
	} catch (const PeerClosed &e) {
		rec_.ok = false;
		rec_.end_reason = "client_closed";
		rec_.message = std::string(e.what()) +
			       (ready_sent ? " during the run (client died?)" : " during setup");
	} catch (const std::exception &e) {
		rec_.ok = false;
		rec_.end_reason = "error";
		rec_.message = e.what();
		try {
			if (!ready_sent) {
				ReadyMsg no;

				no.ok = 0;
				no.message = e.what();
				conn_.send(MsgType::Ready, encode(no), 1000);
			} else {
				conn_.send(MsgType::Abort, encode_text(e.what()), 1000);
			}
		} catch (...) {
			// The client is gone too; the record says why we stopped.
		}
	}
	rec_.duration_s = double(now_ns() - t0) / 1e9;
	if (!rec_.ok && !o_.json)
		fprintf(stderr, "vgload server: session %llu from %s: %s\n",
			(unsigned long long)rec_.session, rec_.client.c_str(),
			rec_.message.c_str());
	// Free verbs resources before reporting, so a following session
	// starts on a clean device.
	r_.reset();
	conn_.close();
	emit(o_, rec_);
	done_.store(true);
}

struct Slot {
	std::unique_ptr<Session> session;
	std::thread thread;
};

}  // namespace

int run_server(const Options &o)
{
	std::unique_ptr<Listener> listener;

	try {
		// Open the device once up front so a misconfigured server fails
		// at start, not at the first client.
		Device d = open_device(o.dev, o.ib_port, o.gid_index);

		listener = std::make_unique<Listener>(o.port);
		fprintf(stderr,
			"vgload server: listening on TCP port %u; %s port %d gid %d (%s)\n",
			unsigned(o.port), d.name.c_str(), d.port, d.gid_index,
			d.record().gid.c_str());
	} catch (const std::exception &e) {
		fprintf(stderr, "vgload: error: %s\n", e.what());
		return 1;
	}

	// Before the slots, so that it outlives the sessions that wait in it.
	std::unique_ptr<StartGate> gate;

	if (o.together)
		gate = std::make_unique<StartGate>(o.sessions);

	std::list<Slot> slots;
	uint64_t accepted = 0;
	auto reap = [&](bool all) {
		for (auto it = slots.begin(); it != slots.end();) {
			if (all || it->session->done()) {
				it->thread.join();
				it = slots.erase(it);
			} else {
				++it;
			}
		}
	};

	while (!stop_requested()) {
		reap(false);
		if (o.sessions && accepted >= o.sessions) {
			if (slots.empty())
				break;
			sleep_until_ns(now_ns() + 50000000ull);
			continue;
		}
		Conn c;

		try {
			c = listener->accept(200);
		} catch (const std::exception &e) {
			fprintf(stderr, "vgload server: %s\n", e.what());
			continue;
		}
		if (!c.valid())
			continue;
		accepted++;
		if (!o.json && !o.quiet)
			fprintf(stderr, "vgload server: session %llu: client %s connected\n",
				(unsigned long long)accepted, c.peer().c_str());
		slots.push_back({ std::make_unique<Session>(o, std::move(c), accepted,
							   gate.get()),
				  std::thread() });
		Session *s = slots.back().session.get();

		// Sessions never take SIGINT/SIGTERM: they reach this thread,
		// and sessions notice stop_requested() within 200 ms.
		block_stop_signals();
		slots.back().thread = std::thread([s] { s->run(); });
		unblock_stop_signals();
	}
	if (stop_requested()) {
		size_t live = 0;

		for (const auto &sl : slots)
			live += sl.session->done() ? 0 : 1;
		fprintf(stderr, "vgload server: %s, ending %zu running session(s)\n",
			stop_signal_name(), live);
	}
	reap(true);
	return 0;
}

}  // namespace vgload
