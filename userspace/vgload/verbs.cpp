// SPDX-License-Identifier: GPL-2.0-only
#include "verbs.h"

#include <cstdio>

namespace vgload {

void report_destroy_failure(const char *verb, int rc)
{
	if (rc)
		fprintf(stderr, "vgload: warning: %s failed: %s\n", verb,
			errno_text(verbs_errno(rc)).c_str());
}

void throw_verb(const std::string &verb, int err, const std::string &detail)
{
	throw SysError(verb, err, detail);
}

const char *wc_status_name(ibv_wc_status s)
{
	switch (s) {
	case IBV_WC_SUCCESS: return "IBV_WC_SUCCESS";
	case IBV_WC_LOC_LEN_ERR: return "IBV_WC_LOC_LEN_ERR";
	case IBV_WC_LOC_QP_OP_ERR: return "IBV_WC_LOC_QP_OP_ERR";
	case IBV_WC_LOC_EEC_OP_ERR: return "IBV_WC_LOC_EEC_OP_ERR";
	case IBV_WC_LOC_PROT_ERR: return "IBV_WC_LOC_PROT_ERR";
	case IBV_WC_WR_FLUSH_ERR: return "IBV_WC_WR_FLUSH_ERR";
	case IBV_WC_MW_BIND_ERR: return "IBV_WC_MW_BIND_ERR";
	case IBV_WC_BAD_RESP_ERR: return "IBV_WC_BAD_RESP_ERR";
	case IBV_WC_LOC_ACCESS_ERR: return "IBV_WC_LOC_ACCESS_ERR";
	case IBV_WC_REM_INV_REQ_ERR: return "IBV_WC_REM_INV_REQ_ERR";
	case IBV_WC_REM_ACCESS_ERR: return "IBV_WC_REM_ACCESS_ERR";
	case IBV_WC_REM_OP_ERR: return "IBV_WC_REM_OP_ERR";
	case IBV_WC_RETRY_EXC_ERR: return "IBV_WC_RETRY_EXC_ERR";
	case IBV_WC_RNR_RETRY_EXC_ERR: return "IBV_WC_RNR_RETRY_EXC_ERR";
	case IBV_WC_LOC_RDD_VIOL_ERR: return "IBV_WC_LOC_RDD_VIOL_ERR";
	case IBV_WC_REM_INV_RD_REQ_ERR: return "IBV_WC_REM_INV_RD_REQ_ERR";
	case IBV_WC_REM_ABORT_ERR: return "IBV_WC_REM_ABORT_ERR";
	case IBV_WC_INV_EECN_ERR: return "IBV_WC_INV_EECN_ERR";
	case IBV_WC_INV_EEC_STATE_ERR: return "IBV_WC_INV_EEC_STATE_ERR";
	case IBV_WC_FATAL_ERR: return "IBV_WC_FATAL_ERR";
	case IBV_WC_RESP_TIMEOUT_ERR: return "IBV_WC_RESP_TIMEOUT_ERR";
	case IBV_WC_GENERAL_ERR: return "IBV_WC_GENERAL_ERR";
	case IBV_WC_TM_ERR: return "IBV_WC_TM_ERR";
	case IBV_WC_TM_RNDV_INCOMPLETE: return "IBV_WC_TM_RNDV_INCOMPLETE";
	}
	return "IBV_WC_UNKNOWN";
}

int mtu_bytes(ibv_mtu m)
{
	switch (m) {
	case IBV_MTU_256: return 256;
	case IBV_MTU_512: return 512;
	case IBV_MTU_1024: return 1024;
	case IBV_MTU_2048: return 2048;
	case IBV_MTU_4096: return 4096;
	}
	return 0;
}

ibv_mtu mtu_from_bytes(uint32_t b)
{
	if (b >= 4096)
		return IBV_MTU_4096;
	if (b >= 2048)
		return IBV_MTU_2048;
	if (b >= 1024)
		return IBV_MTU_1024;
	if (b >= 512)
		return IBV_MTU_512;
	return IBV_MTU_256;
}

const char *port_state_name(ibv_port_state s)
{
	return ibv_port_state_str(s);
}

const char *atomic_cap_name(ibv_atomic_cap c)
{
	switch (c) {
	case IBV_ATOMIC_NONE: return "none";
	case IBV_ATOMIC_HCA: return "hca";
	case IBV_ATOMIC_GLOB: return "global";
	}
	return "?";
}

}  // namespace vgload
