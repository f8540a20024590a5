// SPDX-License-Identifier: GPL-2.0-only
#include "run.h"

#include <poll.h>

#include <algorithm>
#include <cstdio>
#include <thread>

#include "clock.h"
#include "report.h"
#include "signals.h"
#include "tcp.h"

namespace vgload {

RunOutcome drive_run(const Options &o, Collector &c, RunControl &ctl,
		     const std::function<void()> &join, Conn *peer,
		     const PhaseLog &phases)
{
	RunOutcome out;
	const uint64_t t0 = now_ns();
	uint64_t start = t0 + seconds_to_ns(o.warmup_s);
	const uint64_t never = UINT64_MAX;
	uint64_t deadline =
		o.duration_s > 0 ? start + seconds_to_ns(o.duration_s) : never;
	const uint64_t hard = t0 + seconds_to_ns(effective_timeout_s(o));
	const uint64_t step = seconds_to_ns(o.interval_s);
	const bool print = !o.json && !o.quiet && step;
	bool warm = start == t0;
	uint64_t iv_start = start;
	uint64_t next_iv = step ? start + step : never;
	auto rel = [&](uint64_t t) { return double(t - start) / 1e9; };

	phases.note("run", t0);
	if (warm)
		phases.note("measure", start);
	for (;;) {
		uint64_t now = now_ns();

		if (stop_requested()) {
			out.end_reason = "interrupted";
			out.message = std::string("stopped by ") + stop_signal_name();
			break;
		}
		if (!warm && now < start && take_warmup_end()) {
			// SIGUSR1: the measured run starts now.
			start = now;
			if (deadline != never)
				deadline = start + seconds_to_ns(o.duration_s);
			iv_start = start;
			next_iv = step ? start + step : never;
		}
		if (!warm && now >= start) {
			c.discard();   // warm-up operations are not measured
			warm = true;
			phases.note("measure", start);
		}
		if (warm && now >= next_iv) {
			IntervalRecord iv = c.close_interval(rel(iv_start), rel(now),
							   start);

			out.intervals.push_back(iv);
			if (print) {
				printf("%s\n", human_interval(iv).c_str());
				fflush(stdout);
			}
			iv_start = now;
			next_iv += step;
			if (next_iv <= now)   // we overslept; don't replay intervals
				next_iv = now + step;
		}
		if (now >= deadline) {
			out.end_reason = "duration";
			break;
		}
		if (now >= hard) {
			out.end_reason = "timeout";
			out.ok = false;
			out.message = "run exceeded its time limit of " +
				      std::to_string(int(effective_timeout_s(o))) +
				      " s (--timeout)";
			break;
		}
		if (ctl.running.load() == 0) {
			out.end_reason = "workers_done";
			break;
		}

		uint64_t wake = std::min<uint64_t>({ deadline, hard, next_iv,
					   warm ? never : start,
					   now + 200000000ull });
		int ms = wake > now ? int((wake - now + 999999) / 1000000) : 0;

		if (!peer) {
			// Short naps so finishing workers end the run promptly.
			sleep_until_ns(std::min<uint64_t>(wake, now + 20000000ull));
			continue;
		}
		pollfd p{ peer->fd(), POLLIN, 0 };

		if (poll(&p, 1, std::min(ms, 20)) <= 0)
			continue;
		try {
			MsgType t;
			std::vector<uint8_t> payload;

			if (peer->recv(t, payload, 0)) {
				out.end_reason = "peer_abort";
				out.ok = false;
				out.message = "server " + peer->peer() + " ended the run: " +
					      (t == MsgType::Abort ?
						       decode_text(payload) :
						       std::string("unexpected ") +
							       msg_type_name(t));
				break;
			}
		} catch (const PeerClosed &e) {
			out.end_reason = "peer_closed";
			out.ok = false;
			out.message = std::string(e.what()) + " during the run (server died?)";
			break;
		} catch (const std::exception &e) {
			out.end_reason = "peer_closed";
			out.ok = false;
			out.message = e.what();
			break;
		}
	}

	const uint64_t stop_t = now_ns();

	ctl.stop.store(true);
	phases.note("end", stop_t);
	join();
	if (!warm) {
		c.discard();
		iv_start = start = stop_t;
	}
	if (stop_t > iv_start || out.intervals.empty()) {
		IntervalRecord iv = c.close_interval(rel(iv_start), rel(stop_t),
						   start);

		// A partial last interval is listed only if it is the only one
		// or long enough to mean something; its counts are in the
		// total either way.
		bool keep = out.intervals.empty() ||
			    (stop_t - iv_start) * 10 >= step;

		if (keep)
			out.intervals.push_back(iv);
		if (print && keep && out.intervals.size() > 1) {
			printf("%s\n", human_interval(iv).c_str());
			fflush(stdout);
		}
	}
	out.measured_s = stop_t > start ? double(stop_t - start) / 1e9 : 0;
	return out;
}

RunOutcome run_workers(const Options &o, Collector &c, RunControl &ctl,
		       size_t n, const std::function<void(size_t)> &work,
		       Conn *peer, const PhaseLog &phases)
{
	std::vector<std::thread> threads;

	block_stop_signals();
	ctl.running = unsigned(n);
	for (size_t t = 0; t < n; t++)
		threads.emplace_back(work, t);
	unblock_stop_signals();
	return drive_run(o, c, ctl, [&] {
		for (auto &th : threads)
			th.join();
	}, peer, phases);
}

void record_outcome(RunReport &rep, const RunOutcome &out, const Collector &c)
{
	rep.intervals = out.intervals;
	rep.total = make_total(c.total(), out.measured_s);
	rep.end_reason = out.end_reason;
	rep.ok = out.ok;
	rep.message = out.message;
}

}  // namespace vgload
