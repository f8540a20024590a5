// SPDX-License-Identifier: GPL-2.0-only
#include "resources.h"

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <random>
#include <sys/mman.h>

#include "units.h"

namespace vgload {

uint64_t round_up(uint64_t v, uint64_t a) { return (v + a - 1) / a * a; }

Memory::Memory(uint64_t len) : len_(round_up(len ? len : 1, PAGE))
{
	void *p = mmap(nullptr, len_, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		throw SysError("mmap(" + std::to_string(len_) + " bytes)", errno);
	p_ = static_cast<uint8_t *>(p);
}

Memory::~Memory()
{
	if (p_)
		munmap(p_, len_);
}

Memory::Memory(Memory &&o) noexcept : p_(o.p_), len_(o.len_)
{
	o.p_ = nullptr;
	o.len_ = 0;
}

Memory &Memory::operator=(Memory &&o) noexcept
{
	if (this != &o) {
		if (p_)
			munmap(p_, len_);
		p_ = o.p_;
		len_ = o.len_;
		o.p_ = nullptr;
		o.len_ = 0;
	}
	return *this;
}

MrSet::MrSet(ibv_pd *pd, uint32_t count, uint64_t mr_size, int access)
	: mr_size_(mr_size), stride_(round_up(mr_size, PAGE))
{
	mem_ = Memory(stride_ * count);
	mrs_.reserve(count);
	for (uint32_t i = 0; i < count; i++) {
		MrPtr mr(ibv_reg_mr(pd, mem_.data() + uint64_t(i) * stride_,
				    mr_size, access));

		if (!mr)
			throw_verb("ibv_reg_mr", errno,
				   "MR " + std::to_string(i) + " of " +
					   std::to_string(count) + ", " +
					   std::to_string(mr_size) +
					   " bytes (check `ulimit -l` and the device's max_mr)");
		mrs_.push_back(std::move(mr));
	}
}

PdPtr alloc_pd(ibv_context *ctx)
{
	PdPtr pd(ibv_alloc_pd(ctx));

	if (!pd)
		throw_verb("ibv_alloc_pd", errno);
	return pd;
}

CompChannelPtr create_comp_channel(ibv_context *ctx)
{
	CompChannelPtr ch(ibv_create_comp_channel(ctx));

	if (!ch)
		throw_verb("ibv_create_comp_channel", errno);
	int fl = fcntl(ch->fd, F_GETFL);

	// Non-blocking so ibv_get_cq_event never sleeps past our deadline.
	if (fl < 0 || fcntl(ch->fd, F_SETFL, fl | O_NONBLOCK) < 0)
		throw SysError("fcntl(comp channel, O_NONBLOCK)", errno);
	return ch;
}

CqPtr create_cq(const Device &d, int cqe, ibv_comp_channel *ch,
		const std::string &why)
{
	CqPtr cq(ibv_create_cq(d.ctx.get(), cqe, nullptr, ch, 0));

	if (!cq)
		throw_verb("ibv_create_cq(cqe=" + std::to_string(cqe) + ")",
			   errno,
			   why + "; device max_cqe " + std::to_string(d.attr.max_cqe));
	return cq;
}

ibv_qp_type to_ibv(QpType t)
{
	switch (t) {
	case QpType::RC: return IBV_QPT_RC;
	case QpType::UC: return IBV_QPT_UC;
	case QpType::UD: return IBV_QPT_UD;
	}
	return IBV_QPT_RC;
}

QpPtr create_qp(ibv_pd *pd, ibv_cq *scq, ibv_cq *rcq, QpType t,
		const QpCaps &caps)
{
	ibv_qp_init_attr a{};

	a.send_cq = scq;
	a.recv_cq = rcq;
	a.qp_type = to_ibv(t);
	a.cap.max_send_wr = caps.max_send_wr;
	a.cap.max_recv_wr = caps.max_recv_wr;
	a.cap.max_send_sge = 1;
	a.cap.max_recv_sge = 1;
	a.sq_sig_all = 0;
	QpPtr qp(ibv_create_qp(pd, &a));

	if (!qp)
		throw_verb(std::string("ibv_create_qp(") + qp_type_name(t) + ")",
			   errno,
			   "max_send_wr " + std::to_string(caps.max_send_wr) +
				   ", max_recv_wr " + std::to_string(caps.max_recv_wr));
	return qp;
}

static void modify(ibv_qp *qp, ibv_qp_attr &a, int mask, const char *to)
{
	int rc = ibv_modify_qp(qp, &a, mask);

	if (rc) {
		char qpn[16];

		snprintf(qpn, sizeof(qpn), "0x%x", qp->qp_num);
		throw_verb(std::string("ibv_modify_qp(") + to + ")",
			   verbs_errno(rc), std::string("QP ") + qpn);
	}
}

void qp_connect(ibv_qp *qp, const QpPeer &p)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_INIT;
	a.pkey_index = 0;
	a.port_num = uint8_t(p.port);
	if (p.type == QpType::UD) {
		a.qkey = UD_QKEY;
		modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_QKEY, "INIT");
	} else {
		a.qp_access_flags = unsigned(p.access);
		modify(qp, a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT |
				      IBV_QP_ACCESS_FLAGS, "INIT");
	}

	a = {};
	a.qp_state = IBV_QPS_RTR;
	if (p.type == QpType::UD) {
		modify(qp, a, IBV_QP_STATE, "RTR");
	} else {
		a.path_mtu = p.mtu;
		a.dest_qp_num = p.remote_qpn;
		a.rq_psn = p.remote_psn;
		a.ah_attr.is_global = 1;
		a.ah_attr.grh.dgid = p.dgid;
		a.ah_attr.grh.sgid_index = uint8_t(p.sgid_index);
		a.ah_attr.grh.hop_limit = 64;
		a.ah_attr.port_num = uint8_t(p.port);
		int mask = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU |
			   IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;

		if (p.type == QpType::RC) {
			a.max_dest_rd_atomic = uint8_t(p.max_dest_rd_atomic);
			a.min_rnr_timer = uint8_t(p.min_rnr_timer);
			mask |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
		}
		modify(qp, a, mask, "RTR");
	}

	a = {};
	a.qp_state = IBV_QPS_RTS;
	a.sq_psn = p.local_psn;
	int mask = IBV_QP_STATE | IBV_QP_SQ_PSN;

	if (p.type == QpType::RC) {
		a.timeout = uint8_t(p.timeout);
		a.retry_cnt = uint8_t(p.retry_cnt);
		a.rnr_retry = uint8_t(p.rnr_retry);
		a.max_rd_atomic = uint8_t(p.max_rd_atomic);
		mask |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
			IBV_QP_MAX_QP_RD_ATOMIC;
	}
	modify(qp, a, mask, "RTS");
}

int qp_to_error(ibv_qp *qp)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_ERR;
	return ibv_modify_qp(qp, &a, IBV_QP_STATE);
}

void qp_reset(ibv_qp *qp)
{
	ibv_qp_attr a{};

	a.qp_state = IBV_QPS_RESET;
	modify(qp, a, IBV_QP_STATE, "RESET");
}

ibv_qp_state qp_state(ibv_qp *qp)
{
	ibv_qp_attr a{};
	ibv_qp_init_attr init{};
	int ret = ibv_query_qp(qp, &a, IBV_QP_STATE, &init);

	if (ret)
		throw_verb("ibv_query_qp", ret);
	return a.qp_state;
}

AhPtr create_ah(ibv_pd *pd, const Device &d, const ibv_gid &dgid)
{
	ibv_ah_attr a{};

	a.is_global = 1;
	a.grh.dgid = dgid;
	a.grh.sgid_index = uint8_t(d.gid_index);
	a.grh.hop_limit = 64;
	a.port_num = uint8_t(d.port);
	AhPtr ah(ibv_create_ah(pd, &a));

	if (!ah)
		throw_verb("ibv_create_ah", errno);
	return ah;
}

uint32_t random_psn()
{
	static thread_local std::mt19937 rng{ std::random_device{}() };

	return rng() & 0xffffff;
}

static void exceed(const std::string &what, uint64_t want,
		   const std::string &limit, uint64_t max, const Device &d)
{
	throw RunError(what + " " + std::to_string(want) + " exceeds " + limit +
		       " " + std::to_string(max) + " of " + d.name);
}

void check_limits(const Device &d, const TrafficNeeds &n)
{
	const ibv_device_attr &a = d.attr;

	if (n.msg_size > d.port_attr.max_msg_sz)
		exceed("--size", n.msg_size, "port max_msg_sz",
		       d.port_attr.max_msg_sz, d);
	if (n.qp_type == QpType::UD &&
	    n.msg_size > uint64_t(d.active_mtu_bytes()))
		exceed("UD --size", n.msg_size, "the port's active MTU",
		       uint64_t(d.active_mtu_bytes()), d);
	if (n.qps > uint64_t(a.max_qp))
		exceed("--qps", n.qps, "max_qp", uint64_t(a.max_qp), d);
	if (n.send_wr > uint64_t(a.max_qp_wr))
		exceed("--depth", n.send_wr, "max_qp_wr", uint64_t(a.max_qp_wr), d);
	if (n.recv_wr > uint64_t(a.max_qp_wr))
		exceed("receive queue depth", n.recv_wr, "max_qp_wr",
		       uint64_t(a.max_qp_wr), d);
	if (n.max_cq_entries > uint64_t(a.max_cqe))
		throw RunError("CQ entries (QPs per thread x --depth) " +
			       std::to_string(n.max_cq_entries) + " exceed max_cqe " +
			       std::to_string(a.max_cqe) + " of " + d.name +
			       "; use more --threads or a smaller --depth");
	if (n.cqs > uint64_t(a.max_cq))
		exceed("CQs", n.cqs, "max_cq", uint64_t(a.max_cq), d);
	if (n.mrs > uint64_t(a.max_mr))
		exceed("--mrs", n.mrs, "max_mr", uint64_t(a.max_mr), d);
	if (n.mr_size > a.max_mr_size)
		exceed("--mr-size", n.mr_size, "max_mr_size", a.max_mr_size, d);
	if (n.atomics && a.atomic_cap == IBV_ATOMIC_NONE)
		throw RunError(d.name + " does not support atomic operations (atomic_cap none)");
}

}  // namespace vgload
