// SPDX-License-Identifier: GPL-2.0-only
/*
 * verbsgate: a tenant's bounds on its QPs' retry and RDMA READ
 * attributes. See qpbounds.h.
 */
#include "qpbounds.h"

#define VG_RNR_CODES	32
#define VG_TIMEOUT_CODES	32

/* IBTA vol. 1, table 45 (RNR NAK timer field encodings), in units of 10 us. */
static const u32 vg_rnr_timer_10us[VG_RNR_CODES] = {
	65536, 1, 2, 3, 4, 6, 8, 12, 16, 24, 32, 48, 64, 96, 128, 192,
	256, 384, 512, 768, 1024, 1536, 2048, 3072, 4096, 6144, 8192,
	12288, 16384, 24576, 32768, 49152,
};

u64 vg_rnr_timer_ns(u8 code)
{
	if (code >= VG_RNR_CODES)
		return 0;
	return (u64)vg_rnr_timer_10us[code] * 10000;
}

u64 vg_ack_timeout_ns(u8 code)
{
	if (code >= VG_TIMEOUT_CODES)
		return 0;
	return code ? 4096ULL << code : U64_MAX;
}

/* The code of the shortest RNR NAK timer of at least @min_ns. */
static u8 vg_rnr_timer_code(u64 min_ns)
{
	u8 code;

	/* Codes 1..31 grow with the time; 0 is the longest of all. */
	for (code = 1; code < VG_RNR_CODES; code++)
		if (vg_rnr_timer_ns(code) >= min_ns)
			return code;
	return 0;
}

/* The code of the shortest finite ACK timeout of at least @min_ns. */
static u8 vg_ack_timeout_code(u64 min_ns)
{
	u8 code;

	for (code = 1; code < VG_TIMEOUT_CODES - 1; code++)
		if (vg_ack_timeout_ns(code) >= min_ns)
			return code;
	return VG_TIMEOUT_CODES - 1;
}

int vg_qp_bounds_check(const struct vg_qp_bounds *b)
{
	if (b->rnr_retry_max > VG_QP_RETRY_NONE ||
	    b->retry_cnt_max > VG_QP_RETRY_NONE ||
	    b->rnr_timer_min_ns > VG_RNR_TIMER_MAX_NS ||
	    b->timeout_min_ns > VG_ACK_TIMEOUT_MAX_NS)
		return -ERANGE;
	return 0;
}

u32 vg_qp_bounds_apply(const struct vg_qp_bounds *b, u32 mask,
		       struct vg_qp_retry_attr *a)
{
	u32 changed = 0;

	if ((mask & VG_QPA_RNR_RETRY) && a->rnr_retry > b->rnr_retry_max) {
		a->rnr_retry = b->rnr_retry_max;
		changed |= VG_QPA_RNR_RETRY;
	}
	if ((mask & VG_QPA_RETRY_CNT) && a->retry_cnt > b->retry_cnt_max) {
		a->retry_cnt = b->retry_cnt_max;
		changed |= VG_QPA_RETRY_CNT;
	}
	if ((mask & VG_QPA_MIN_RNR_TIMER) && b->rnr_timer_min_ns &&
	    a->min_rnr_timer < VG_RNR_CODES &&
	    vg_rnr_timer_ns(a->min_rnr_timer) < b->rnr_timer_min_ns) {
		a->min_rnr_timer = vg_rnr_timer_code(b->rnr_timer_min_ns);
		changed |= VG_QPA_MIN_RNR_TIMER;
	}
	if ((mask & VG_QPA_TIMEOUT) && b->timeout_min_ns &&
	    a->timeout && a->timeout < VG_TIMEOUT_CODES &&
	    vg_ack_timeout_ns(a->timeout) < b->timeout_min_ns) {
		a->timeout = vg_ack_timeout_code(b->timeout_min_ns);
		changed |= VG_QPA_TIMEOUT;
	}
	if ((mask & VG_QPA_MAX_RD_ATOMIC) && b->rd_atomic_max &&
	    a->max_rd_atomic > b->rd_atomic_max) {
		a->max_rd_atomic = b->rd_atomic_max;
		changed |= VG_QPA_MAX_RD_ATOMIC;
	}
	return changed;
}
