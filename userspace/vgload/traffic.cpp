// SPDX-License-Identifier: GPL-2.0-only
#include "traffic.h"

#include <algorithm>
#include <cstdio>
#include <endian.h>
#include <poll.h>

#include "clock.h"

namespace vgload {

TrafficWorker::TrafficWorker(WorkerPlan plan)
	: p_(std::move(plan)),
	  pacer_(p_.rate, p_.o->latency_from == LatencyFrom::Due
				  ? 0 : std::max<uint32_t>(p_.o->post_list, 1)),
	  pattern_(p_.o->access, p_.o->mrs, p_.o->mr_size, p_.o->size, p_.seed,
		   p_.index),
	  wrs_(p_.o->post_list), sges_(p_.o->post_list), wcs_(64)
{
	qs_.resize(p_.qps.size());
	for (size_t i = 0; i < qs_.size(); i++) {
		qs_[i].qp = p_.qps[i];
		qs_[i].remote_qpn = i < p_.remote_qpn.size() ? p_.remote_qpn[i] : 0;
		qs_[i].ts.assign(p_.o->depth, 0);
	}
	res_.qps = unsigned(qs_.size());
}

uint64_t TrafficWorker::outstanding() const
{
	uint64_t n = 0;

	for (const auto &q : qs_)
		n += q.outstanding;
	return n;
}

bool TrafficWorker::finished() const
{
	const Options &o = *p_.o;

	if (!o.iters && res_.failed_qps < qs_.size())
		return false;
	for (const auto &q : qs_) {
		if (q.outstanding)
			return false;
		if (!q.failed && (!o.iters || q.posted < o.iters))
			return false;
	}
	return true;
}

bool TrafficWorker::post_batch(uint32_t qi, uint32_t n, uint64_t now)
{
	const Options &o = *p_.o;
	QpState &q = qs_[qi];
	const uint32_t len = uint32_t(o.size);

	for (uint32_t i = 0; i < n; i++) {
		uint32_t mr;
		uint64_t off;
		ibv_send_wr &wr = wrs_[i];
		ibv_sge &sge = sges_[i];

		pattern_.next(mr, off);
		sge.addr = p_.local->addr(mr) + off;
		sge.length = len;
		sge.lkey = p_.local->lkey(mr);
		wr = {};
		wr.wr_id = qi;
		wr.sg_list = &sge;
		wr.num_sge = 1;
		wr.send_flags = IBV_SEND_SIGNALED;
		wr.next = i + 1 < n ? &wrs_[i + 1] : nullptr;

		const MrInfo &rm = (*p_.remote)[mr];
		uint64_t raddr = rm.addr + off;

		switch (o.op) {
		case Op::Write:
			wr.opcode = IBV_WR_RDMA_WRITE;
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rm.rkey;
			break;
		case Op::WriteImm:
			wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rm.rkey;
			wr.imm_data = htobe32(uint32_t(posted_ops_ + i));
			break;
		case Op::Read:
			wr.opcode = IBV_WR_RDMA_READ;
			wr.wr.rdma.remote_addr = raddr;
			wr.wr.rdma.rkey = rm.rkey;
			break;
		case Op::Send:
			wr.opcode = IBV_WR_SEND;
			if (o.qp_type == QpType::UD) {
				wr.wr.ud.ah = p_.ah;
				wr.wr.ud.remote_qpn = q.remote_qpn;
				wr.wr.ud.remote_qkey = p_.qkey;
			}
			break;
		case Op::Cas:
			wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = rm.rkey;
			// Alternate 0<->1 so every CAS both compares and swaps.
			wr.wr.atomic.compare_add = (posted_ops_ + i) & 1;
			wr.wr.atomic.swap = ~(posted_ops_ + i) & 1;
			break;
		case Op::Faa:
			wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
			wr.wr.atomic.remote_addr = raddr;
			wr.wr.atomic.rkey = rm.rkey;
			wr.wr.atomic.compare_add = 1;
			break;
		}
	}

	ibv_send_wr *bad = nullptr;
	int rc = ibv_post_send(q.qp, wrs_.data(), &bad);
	uint32_t k = rc ? uint32_t(bad ? bad - wrs_.data() : 0) : n;
	const uint32_t depth = o.depth;

	// Timed from when each was due: a stall that held operations back
	// counts for each of them, not only for the one it delayed.
	const bool from_due = o.latency_from == LatencyFrom::Due;

	for (uint32_t i = 0; i < k; i++)
		q.ts[(q.head + q.outstanding + i) % depth] =
			from_due ? std::min(pacer_.due(i), now) : now;
	q.outstanding += k;
	q.posted += k;
	posted_ops_ += k;
	pacer_.consume(k, now);
	if (rc) {
		char qpn[16];

		snprintf(qpn, sizeof(qpn), "0x%x", q.qp->qp_num);
		res_.fatal = SysError("ibv_post_send", verbs_errno(rc),
				      std::string("QP ") + qpn + ", " +
					      std::to_string(n) + " WRs of " +
					      std::to_string(o.size) + " bytes")
				     .what();
		return false;
	}
	return true;
}

bool TrafficWorker::post_round(uint64_t now)
{
	const Options &o = *p_.o;
	uint64_t allowed = pacer_.allowed(now);
	const uint32_t n = uint32_t(qs_.size());
	bool any = false;

	if (!allowed)
		return false;
	for (uint32_t k = 0; k < n && allowed; k++) {
		uint32_t qi = (rr_ + k) % n;
		QpState &q = qs_[qi];

		if (q.failed)
			continue;
		uint32_t free = o.depth - q.outstanding;
		uint64_t left = o.iters ? o.iters - q.posted : UINT64_MAX;

		if (!free || !left)
			continue;
		// Wait for room for a whole post list, unless fewer remain.
		uint64_t want = std::min<uint64_t>(o.post_list, left);

		if (free < want)
			continue;
		want = std::min(want, allowed);
		if (!post_batch(qi, uint32_t(want), now))
			return any;
		allowed -= want;
		any = true;
	}
	rr_ = n ? (rr_ + 1) % n : 0;
	return any;
}

int TrafficWorker::poll_once(bool measuring)
{
	int n = ibv_poll_cq(p_.cq, int(wcs_.size()), wcs_.data());

	if (n < 0) {
		res_.fatal = SysError("ibv_poll_cq", errno).what();
		return -1;
	}
	if (n == 0)
		return 0;

	const uint64_t t = now_ns();
	const uint32_t depth = p_.o->depth;
	const uint64_t size = p_.o->size;

	if (!measuring) {
		for (int i = 0; i < n; i++) {
			QpState &q = qs_[wcs_[i].wr_id];

			q.head = (q.head + 1) % depth;
			q.outstanding--;
		}
		res_.flushed += uint64_t(n);
		return n;
	}

	auto g = p_.shard->lock();

	for (int i = 0; i < n; i++) {
		const ibv_wc &wc = wcs_[i];
		QpState &q = qs_[wc.wr_id];
		uint64_t posted_at = q.ts[q.head];

		q.head = (q.head + 1) % depth;
		q.outstanding--;
		if (wc.status == IBV_WC_SUCCESS) {
			g->ops++;
			g->bytes += size;
			g->last_done_ns = t;
			g->lat.record(t > posted_at ? t - posted_at : 0);
			continue;
		}
		g->errors[wc_status_name(wc.status)]++;
		// Any error moves the QP to ERROR: stop posting on it.
		if (!q.failed) {
			q.failed = true;
			res_.failed_qps++;
		}
	}
	return n;
}

void TrafficWorker::wait_idle(uint64_t now)
{
	const Options &o = *p_.o;
	uint64_t out = outstanding();

	if (out && o.poll == PollMode::Event) {
		// Arm, then poll once more: a completion that landed before
		// arming would otherwise never raise an event.
		int rc = ibv_req_notify_cq(p_.cq, 0);

		if (rc) {
			res_.fatal = SysError("ibv_req_notify_cq", verbs_errno(rc)).what();
			return;
		}
		if (poll_once(true))
			return;
		// Wake for the next operation due to the nanosecond, not the
		// millisecond poll() rounds up to: with --latency-from due the
		// oversleep would count in that operation's latency.
		uint64_t wait_ns = 10000000ull;

		if (pacer_.limited() && pacer_.next_due() > now)
			wait_ns = std::min(wait_ns, pacer_.next_due() - now);
		const timespec ts = ns_to_timespec(wait_ns);
		pollfd pf{ p_.channel->fd, POLLIN, 0 };

		if (ppoll(&pf, 1, &ts, nullptr) == 1) {
			ibv_cq *ev_cq;
			void *ev_ctx;

			if (ibv_get_cq_event(p_.channel, &ev_cq, &ev_ctx) == 0)
				ibv_ack_cq_events(ev_cq, 1);
		}
		return;
	}
	if (!out && pacer_.limited() && pacer_.next_due() > now &&
	    o.latency_from != LatencyFrom::Due) {
		// Nothing in flight: sleep instead of spinning until the next
		// operation is due. Not when operations are timed from when
		// they are due: how late the sleep ends would count in the
		// latency of each (in a TCG guest by half a millisecond at the
		// median).
		sleep_until_ns(std::min<uint64_t>(pacer_.next_due(), now + 10000000ull));
	}
}

void TrafficWorker::drain()
{
	if (!outstanding())
		return;
	// WRs still queued (e.g. SENDs retrying RNR forever) complete only
	// when their QP moves to ERROR and flushes them.
	for (auto &q : qs_) {
		if (!q.outstanding)
			continue;
		int rc = qp_to_error(q.qp);

		if (rc && res_.warning.empty())
			res_.warning = SysError("ibv_modify_qp(ERR)", verbs_errno(rc),
						"outstanding work requests cannot be flushed")
					       .what();
	}

	const uint64_t deadline = now_ns() + 2 * NS_PER_S;

	while (outstanding() && now_ns() < deadline) {
		int n = poll_once(false);

		if (n < 0)
			break;
		if (n == 0)
			sleep_until_ns(now_ns() + 200000);
	}
	res_.stuck = outstanding();
}

// --recover: a failed QP whose WRs have all completed goes back to RTS
// towards the peer it started with, as a program that re-establishes a
// connection after an error does (the error storm). The driver may
// deliver the failed completion before it moves the QP to the error
// state; a reset in between would be undone, so a QP is reset only once
// it is in the error state, and otherwise on a later pass.
void TrafficWorker::recover()
{
	for (size_t i = 0; i < qs_.size(); i++) {
		QpState &q = qs_[i];

		if (!q.failed || q.outstanding)
			continue;
		try {
			if (qp_state(q.qp) != IBV_QPS_ERR)
				continue;
			qp_reset(q.qp);
			qp_connect(q.qp, p_.peers.at(i));
		} catch (const std::exception &e) {
			res_.fatal = e.what();
			return;
		}
		q.failed = false;
		res_.failed_qps--;
		res_.recoveries++;
	}
}

void TrafficWorker::run(RunControl &ctl)
{
	pacer_.start(now_ns());
	while (!ctl.stop.load(std::memory_order_relaxed)) {
		uint64_t now = now_ns();
		bool posted = post_round(now);

		if (!res_.fatal.empty())
			break;
		int n = poll_once(true);

		if (n >= 0 && p_.o->recover)
			recover();
		if (n < 0 || !res_.fatal.empty() || finished())
			break;
		if (!posted && n == 0) {
			wait_idle(now);
			if (!res_.fatal.empty())
				break;
		}
	}
	res_.iterations_done = p_.o->iters && !res_.failed_qps && finished();
	ctl.running.fetch_sub(1);
	drain();
}

}  // namespace vgload
