// SPDX-License-Identifier: GPL-2.0-only
#include "storm.h"

#include <cstdio>
#include <memory>

#include "clock.h"
#include "device.h"
#include "pacer.h"
#include "report.h"
#include "resources.h"
#include "run.h"

namespace vgload {

namespace {

class StormWorker {
public:
	StormWorker(const Options &o, const Device &d, ibv_pd *pd,
		    StatsShard &shard)
		: o_(o), d_(d), pd_(pd), shard_(shard),
		  pacer_(o.rate / o.threads, 1)
	{
	}

	void run(RunControl &ctl);

private:
	// Times one verb call, in its turn, and records it under `verb`:
	// whether it succeeded. A create (`release` false) is not called
	// once the run stops; a destroy is, at once, so that every object a
	// round made is released in a call that is counted.
	template <typename F>
	bool timed(RunControl &ctl, const char *verb, bool release, F &&call);
	void mr_round(RunControl &ctl);
	void qp_round(RunControl &ctl);
	void cq_round(RunControl &ctl);

	const Options &o_;
	const Device &d_;
	ibv_pd *pd_;
	StatsShard &shard_;
	Pacer pacer_;
	Memory mem_;
	CqPtr cq_;            // qp-storm: the QPs' CQ
	bool backoff_ = false;
};

template <typename F>
bool StormWorker::timed(RunControl &ctl, const char *verb, bool release,
			F &&call)
{
	if (!wait_turn(pacer_, ctl.stop) && !release)
		return false;
	uint64_t t = now_ns();
	int err = call();
	uint64_t dt = now_ns() - t;
	auto g = shard_.lock();
	VerbCounters &v = g->verbs[verb];

	pacer_.consume(1, t);
	if (err) {
		v.errors++;
		g->errors[std::string(verb) + ":" + errno_name(err)]++;
		return false;
	}
	v.ops++;
	v.lat.record(dt);
	g->ops++;
	g->last_done_ns = t + dt;
	g->lat.record(dt);
	return true;
}

// The create loops hold their objects in owning pointers, so nothing leaks
// if a round is cut short; the destroy loops release them into the timed
// verb call.
void StormWorker::mr_round(RunControl &ctl)
{
	const uint64_t stride = round_up(o_.mr_size, PAGE);
	const int access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE |
			   IBV_ACCESS_REMOTE_READ;
	std::vector<MrPtr> mrs;

	for (uint32_t i = 0; i < o_.mrs && !ctl.stop.load(); i++) {
		ibv_mr *mr = nullptr;

		if (!timed(ctl, "ibv_reg_mr", false, [&] {
			    mr = ibv_reg_mr(pd_, mem_.data() + i * stride, o_.mr_size,
					    access);
			    return mr ? 0 : errno;
		    }))
			break;
		mrs.emplace_back(mr);
	}
	backoff_ = mrs.empty();
	for (auto &mr : mrs)
		timed(ctl, "ibv_dereg_mr", true, [&] {
			return verbs_errno(ibv_dereg_mr(mr.release()));
		});
}

void StormWorker::qp_round(RunControl &ctl)
{
	std::vector<QpPtr> qps;
	ibv_qp_init_attr a{};

	a.send_cq = cq_.get();
	a.recv_cq = cq_.get();
	a.qp_type = to_ibv(o_.qp_type);
	a.cap.max_send_wr = 1;
	a.cap.max_recv_wr = 1;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	for (uint32_t i = 0; i < o_.qps && !ctl.stop.load(); i++) {
		ibv_qp *qp = nullptr;

		if (!timed(ctl, "ibv_create_qp", false, [&] {
			    qp = ibv_create_qp(pd_, &a);
			    return qp ? 0 : errno;
		    }))
			break;
		qps.emplace_back(qp);
	}
	backoff_ = qps.empty();
	for (auto &qp : qps)
		timed(ctl, "ibv_destroy_qp", true, [&] {
			return verbs_errno(ibv_destroy_qp(qp.release()));
		});
}

void StormWorker::cq_round(RunControl &ctl)
{
	std::vector<CqPtr> cqs;

	for (uint32_t i = 0; i < o_.cqs && !ctl.stop.load(); i++) {
		ibv_cq *cq = nullptr;

		if (!timed(ctl, "ibv_create_cq", false, [&] {
			    cq = ibv_create_cq(d_.ctx.get(), int(o_.cq_size), nullptr,
					       nullptr, 0);
			    return cq ? 0 : errno;
		    }))
			break;
		cqs.emplace_back(cq);
	}
	backoff_ = cqs.empty();
	for (auto &cq : cqs)
		timed(ctl, "ibv_destroy_cq", true, [&] {
			return verbs_errno(ibv_destroy_cq(cq.release()));
		});
}

void StormWorker::run(RunControl &ctl)
{
	try {
		if (o_.mode == Mode::MrStorm)
			mem_ = Memory(round_up(o_.mr_size, PAGE) * o_.mrs);
		if (o_.mode == Mode::QpStorm)
			cq_ = create_cq(d_, 2, nullptr, "qp-storm completion queue");
	} catch (const std::exception &e) {
		auto g = shard_.lock();

		g->errors[std::string("setup: ") + e.what()]++;
		ctl.running.fetch_sub(1);
		return;
	}
	pacer_.start(now_ns());
	while (!ctl.stop.load()) {
		switch (o_.mode) {
		case Mode::MrStorm: mr_round(ctl); break;
		case Mode::QpStorm: qp_round(ctl); break;
		case Mode::CqStorm: cq_round(ctl); break;
		default: break;
		}
		// A verb that fails at once (a device limit) would otherwise
		// turn the storm into a tight error loop.
		if (backoff_)
			sleep_until_ns(now_ns() + 1000000);
	}
	ctl.running.fetch_sub(1);
}

}  // namespace

int run_storm(const Options &o)
{
	RunReport rep;
	Device d;
	PdPtr pd;
	PhaseLog phases;

	rep.opts = &o;
	try {
		phases = PhaseLog(o.phases);
		d = open_device(o.dev, o.ib_port, o.gid_index);
		rep.has_device = true;
		rep.device = d.record();
		TrafficNeeds need;

		need.qps = o.mode == Mode::QpStorm ? o.qps * o.threads : 1;
		need.mrs = o.mode == Mode::MrStorm ? o.mrs * o.threads : 1;
		need.mr_size = o.mode == Mode::MrStorm ? o.mr_size : 0;
		need.cqs = o.mode == Mode::CqStorm ? o.cqs * o.threads : o.threads;
		need.max_cq_entries = o.mode == Mode::CqStorm ? o.cq_size : 2;
		check_limits(d, need);
		pd = alloc_pd(d.ctx.get());
	} catch (const std::exception &e) {
		print_setup_failure(o, rep, e.what());
		return 1;
	}

	Collector col(o.threads);
	RunControl ctl;
	std::vector<std::unique_ptr<StormWorker>> workers;

	for (unsigned t = 0; t < o.threads; t++)
		workers.push_back(std::make_unique<StormWorker>(o, d, pd.get(),
								col.shard(t)));
	RunOutcome out = run_workers(o, col, ctl, o.threads,
				     [&](size_t t) { workers[t]->run(ctl); }, nullptr,
				     phases);

	record_outcome(rep, out, col);
	if (out.end_reason == "workers_done") {
		rep.end_reason = "error";
		rep.ok = false;
		rep.message = "every storm worker failed to start (see errors)";
	}
	return print_final_report(rep);
}

}  // namespace vgload
