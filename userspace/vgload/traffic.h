// SPDX-License-Identifier: GPL-2.0-only
// Client data path: one worker thread drives its share of the QPs, keeps
// --depth operations outstanding on each, and times every operation from
// ibv_post_send to its completion.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "access.h"
#include "options.h"
#include "pacer.h"
#include "proto.h"
#include "resources.h"
#include "run.h"
#include "stats.h"

namespace vgload {

struct WorkerPlan {
	unsigned index = 0;
	const Options *o = nullptr;
	ibv_cq *cq = nullptr;
	ibv_comp_channel *channel = nullptr;   // event polling only
	std::vector<ibv_qp *> qps;
	std::vector<uint32_t> remote_qpn;      // UD destination per QP
	std::vector<QpPeer> peers;             // --recover: per QP
	ibv_ah *ah = nullptr;                  // UD
	uint32_t qkey = UD_QKEY;
	const MrSet *local = nullptr;
	const std::vector<MrInfo> *remote = nullptr;
	StatsShard *shard = nullptr;
	double rate = 0;                       // this worker's ops/s
	uint64_t seed = 1;
};

struct WorkerResult {
	uint64_t flushed = 0;        // completions after stop (drained)
	uint64_t stuck = 0;          // WRs that never completed in the drain
	unsigned failed_qps = 0;
	uint64_t recoveries = 0;     // --recover: failed QPs connected again
	unsigned qps = 0;
	bool iterations_done = false;
	std::string fatal;           // a verb failed: the run cannot go on
	std::string warning;         // teardown trouble worth reporting
};

class TrafficWorker {
public:
	explicit TrafficWorker(WorkerPlan plan);

	void run(RunControl &ctl);
	const WorkerResult &result() const { return res_; }

private:
	struct QpState {
		ibv_qp *qp = nullptr;
		uint32_t remote_qpn = 0;
		uint32_t outstanding = 0;
		uint64_t posted = 0;
		bool failed = false;
		std::vector<uint64_t> ts;    // post times, FIFO ring of depth
		uint32_t head = 0;
	};

	bool post_round(uint64_t now);
	bool post_batch(uint32_t qi, uint32_t n, uint64_t now);
	int poll_once(bool measuring);
	void wait_idle(uint64_t now);
	bool finished() const;
	void drain();
	void recover();
	uint64_t outstanding() const;

	WorkerPlan p_;
	WorkerResult res_;
	std::vector<QpState> qs_;
	Pacer pacer_;
	AccessPattern pattern_;
	std::vector<ibv_send_wr> wrs_;
	std::vector<ibv_sge> sges_;
	std::vector<ibv_wc> wcs_;
	uint32_t rr_ = 0;            // round-robin start QP
	uint64_t posted_ops_ = 0;
};

}  // namespace vgload
