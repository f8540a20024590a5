// SPDX-License-Identifier: GPL-2.0-only
// Verbs resources shared by client, server and storms: registered memory,
// CQs, QPs and their state transitions, plus the device-limit checks that
// turn "ibv_create_cq: EINVAL" into "--depth x --qps exceeds max_cqe".
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "device.h"
#include "options.h"
#include "verbs.h"

namespace vgload {

constexpr uint32_t UD_QKEY = 0x11111111;
constexpr uint32_t GRH_BYTES = 40;   // UD receives start with the GRH
constexpr uint64_t PAGE = 4096;

// Anonymous, page-aligned, zeroed memory (mmap/munmap).
class Memory {
public:
	Memory() = default;
	explicit Memory(uint64_t len);
	~Memory();
	Memory(Memory &&o) noexcept;
	Memory &operator=(Memory &&o) noexcept;
	Memory(const Memory &) = delete;
	Memory &operator=(const Memory &) = delete;

	uint8_t *data() const { return p_; }
	uint64_t size() const { return len_; }

private:
	uint8_t *p_ = nullptr;
	uint64_t len_ = 0;
};

// `count` MRs of `mr_size` bytes each, page-aligned, over one mapping.
class MrSet {
public:
	MrSet() = default;
	MrSet(ibv_pd *pd, uint32_t count, uint64_t mr_size, int access);
	MrSet(MrSet &&o) noexcept = default;
	// Deregisters our MRs before the memory under them goes away.
	MrSet &operator=(MrSet &&o) noexcept
	{
		mrs_.clear();
		mem_ = std::move(o.mem_);
		mrs_ = std::move(o.mrs_);
		mr_size_ = o.mr_size_;
		stride_ = o.stride_;
		return *this;
	}

	uint32_t count() const { return uint32_t(mrs_.size()); }
	uint64_t mr_size() const { return mr_size_; }
	uint64_t addr(uint32_t i) const
	{
		return uint64_t(uintptr_t(mem_.data())) + uint64_t(i) * stride_;
	}
	uint32_t lkey(uint32_t i) const { return mrs_[i]->lkey; }
	uint32_t rkey(uint32_t i) const { return mrs_[i]->rkey; }

private:
	Memory mem_;                 // declared first: outlives the MRs
	std::vector<MrPtr> mrs_;
	uint64_t mr_size_ = 0;
	uint64_t stride_ = 0;
};

uint64_t round_up(uint64_t v, uint64_t a);

PdPtr alloc_pd(ibv_context *ctx);
CompChannelPtr create_comp_channel(ibv_context *ctx);   // fd set O_NONBLOCK
CqPtr create_cq(const Device &d, int cqe, ibv_comp_channel *ch,
		const std::string &why);

struct QpCaps {
	uint32_t max_send_wr = 1;
	uint32_t max_recv_wr = 1;
};
QpPtr create_qp(ibv_pd *pd, ibv_cq *scq, ibv_cq *rcq, QpType t,
		const QpCaps &caps);

ibv_qp_type to_ibv(QpType t);

// Everything a QP needs to go INIT -> RTR -> RTS towards its peer.
struct QpPeer {
	QpType type = QpType::RC;
	int port = 1;
	int sgid_index = 0;
	ibv_gid dgid{};
	uint32_t remote_qpn = 0;
	uint32_t remote_psn = 0;
	uint32_t local_psn = 0;
	ibv_mtu mtu = IBV_MTU_1024;
	int access = 0;             // remote access flags for RC/UC
	int min_rnr_timer = 12;
	int timeout = 14;
	int retry_cnt = 7;
	int rnr_retry = 7;
	int max_rd_atomic = 1;
	int max_dest_rd_atomic = 1;
};
void qp_connect(ibv_qp *qp, const QpPeer &p);

// Moves a QP to ERROR so outstanding WRs flush; returns the verbs rc.
int qp_to_error(ibv_qp *qp);
// Moves a QP to RESET (for qp_connect() again); throws on failure.
void qp_reset(ibv_qp *qp);

// A QP's state as the driver has it; throws on failure.
ibv_qp_state qp_state(ibv_qp *qp);

AhPtr create_ah(ibv_pd *pd, const Device &d, const ibv_gid &dgid);

uint32_t random_psn();

// What a traffic run asks of one side of the device.
struct TrafficNeeds {
	uint32_t qps = 1;
	uint32_t send_wr = 1;       // per QP
	uint32_t recv_wr = 1;       // per QP
	uint64_t max_cq_entries = 1; // largest CQ
	uint32_t cqs = 1;
	uint32_t mrs = 1;
	uint64_t mr_size = 0;
	uint64_t msg_size = 0;
	QpType qp_type = QpType::RC;
	bool atomics = false;
};
// Throws RunError naming the option and the device limit it exceeds.
void check_limits(const Device &d, const TrafficNeeds &n);

}  // namespace vgload
