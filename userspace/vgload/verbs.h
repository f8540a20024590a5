// SPDX-License-Identifier: GPL-2.0-only
// RAII over libibverbs handles, and naming of verbs results. Destruction
// order matters to the verbs API (QPs before their CQs, MRs before their
// PD, everything before the context): owners declare members in creation
// order so C++ destroys them in reverse.
#pragma once

#include <infiniband/verbs.h>

#include <memory>
#include <string>

#include "error.h"

namespace vgload {

// Deleters report (never throw) a failed destroy: during teardown the best
// we can do is say which verb refused and why.
void report_destroy_failure(const char *verb, int rc);

struct DeviceListDeleter {
	void operator()(ibv_device **l) const { ibv_free_device_list(l); }
};
struct ContextDeleter {
	void operator()(ibv_context *c) const
	{
		report_destroy_failure("ibv_close_device", ibv_close_device(c));
	}
};
struct PdDeleter {
	void operator()(ibv_pd *p) const
	{
		report_destroy_failure("ibv_dealloc_pd", ibv_dealloc_pd(p));
	}
};
struct MrDeleter {
	void operator()(ibv_mr *m) const
	{
		report_destroy_failure("ibv_dereg_mr", ibv_dereg_mr(m));
	}
};
struct CqDeleter {
	void operator()(ibv_cq *c) const
	{
		report_destroy_failure("ibv_destroy_cq", ibv_destroy_cq(c));
	}
};
struct QpDeleter {
	void operator()(ibv_qp *q) const
	{
		report_destroy_failure("ibv_destroy_qp", ibv_destroy_qp(q));
	}
};
struct AhDeleter {
	void operator()(ibv_ah *a) const
	{
		report_destroy_failure("ibv_destroy_ah", ibv_destroy_ah(a));
	}
};
struct CompChannelDeleter {
	void operator()(ibv_comp_channel *c) const
	{
		report_destroy_failure("ibv_destroy_comp_channel",
				       ibv_destroy_comp_channel(c));
	}
};

using DeviceListPtr = std::unique_ptr<ibv_device *, DeviceListDeleter>;
using ContextPtr = std::unique_ptr<ibv_context, ContextDeleter>;
using PdPtr = std::unique_ptr<ibv_pd, PdDeleter>;
using MrPtr = std::unique_ptr<ibv_mr, MrDeleter>;
using CqPtr = std::unique_ptr<ibv_cq, CqDeleter>;
using QpPtr = std::unique_ptr<ibv_qp, QpDeleter>;
using AhPtr = std::unique_ptr<ibv_ah, AhDeleter>;
using CompChannelPtr = std::unique_ptr<ibv_comp_channel, CompChannelDeleter>;

// Verbs return 0, an errno value (>0), or -1 with errno set; normalise
// to 0 or the errno value. errno is read only for -1: after a success it
// still holds an earlier failure's.
inline int verbs_errno(int rc) { return rc > 0 ? rc : rc < 0 ? errno : 0; }

// Throws SysError("<verb>", err, detail).
[[noreturn]] void throw_verb(const std::string &verb, int err,
			     const std::string &detail = {});

// "IBV_WC_RNR_RETRY_EXC_ERR": stable names for reports.
const char *wc_status_name(ibv_wc_status s);

int mtu_bytes(ibv_mtu m);
ibv_mtu mtu_from_bytes(uint32_t bytes);   // largest enum <= bytes
const char *port_state_name(ibv_port_state s);
const char *atomic_cap_name(ibv_atomic_cap c);

}  // namespace vgload
