/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * verbsgate: a tenant's bounds on its QPs' retry and RDMA READ attributes.
 *
 * An RC QP that retries forever (rnr_retry 7) against a peer that posts
 * no receives, with the shortest RNR NAK timer its peer advertises, makes
 * the driver resend without end: work on the host's CPUs and its port
 * that no rate limit on the tenant's payload sees (Husky, NSDI '23). The
 * same holds for a short ACK timeout with many retries, and for deep
 * RDMA READ queues that a responder serves on its own time. So an
 * operator may bound, per tenant, what a modify QP may ask for:
 *
 *   rnr_retry      at most rnr_retry_max (7, "forever", is no bound)
 *   retry_cnt      at most retry_cnt_max (7 is no bound)
 *   min_rnr_timer  at least rnr_timer_min_ns, rounded up to the table
 *   timeout        at least timeout_min_ns, rounded up to 4.096 us * 2^n;
 *                  0 (infinite, no retransmission) is kept
 *   max_rd_atomic  at most rd_atomic_max (0 is no bound)
 *
 * The attributes are the verbs' encodings (IBTA vol. 1, 9.7.5.2.8 and
 * 9.7.6.1.3: the RNR NAK timer is a 5-bit code whose times do not grow
 * with the code; the local ACK timeout is 4.096 us * 2^code, 0 infinite).
 *
 * Pure; no locks, no allocation. The glue (kmod/datapath/interpose.c)
 * translates struct ib_qp_attr to struct vg_qp_retry_attr and back.
 */
#ifndef _VG_CORE_QPBOUNDS_H
#define _VG_CORE_QPBOUNDS_H

#include "vg_compat.h"

/* rnr_retry and retry_cnt: the largest value, and "no bound". */
#define VG_QP_RETRY_NONE	7
/* The longest RNR NAK timer (code 0) and ACK timeout (code 31), ns. */
#define VG_RNR_TIMER_MAX_NS	655360000ULL
#define VG_ACK_TIMEOUT_MAX_NS	(4096ULL << 31)

/**
 * struct vg_qp_bounds - what a tenant's QPs may ask for
 * @rnr_timer_min_ns: shortest RNR NAK timer, 0..VG_RNR_TIMER_MAX_NS;
 *	0: no bound
 * @timeout_min_ns: shortest finite local ACK timeout,
 *	0..VG_ACK_TIMEOUT_MAX_NS; 0: no bound
 * @rnr_retry_max: most RNR retries, 0..7; 7: no bound
 * @retry_cnt_max: most transport retries, 0..7; 7: no bound
 * @rd_atomic_max: most RDMA READ/atomic operations outstanding as
 *	initiator; 0: no bound
 */
struct vg_qp_bounds {
	u64 rnr_timer_min_ns;
	u64 timeout_min_ns;
	u8 rnr_retry_max;
	u8 retry_cnt_max;
	u8 rd_atomic_max;
};

/* No bound at all: what a new tenant has. */
#define VG_QP_BOUNDS_NONE ((struct vg_qp_bounds){			\
	.rnr_retry_max = VG_QP_RETRY_NONE,				\
	.retry_cnt_max = VG_QP_RETRY_NONE,				\
})

/* Which fields of a struct vg_qp_retry_attr a modify carries. */
#define VG_QPA_RNR_RETRY	BIT(0)
#define VG_QPA_RETRY_CNT	BIT(1)
#define VG_QPA_MIN_RNR_TIMER	BIT(2)
#define VG_QPA_TIMEOUT		BIT(3)
#define VG_QPA_MAX_RD_ATOMIC	BIT(4)

/**
 * struct vg_qp_retry_attr - the bounded attributes of one modify QP,
 *	in the verbs' encodings
 * @rnr_retry: 0..7, 7 forever
 * @retry_cnt: 0..7
 * @min_rnr_timer: RNR NAK timer code, 0..31
 * @timeout: local ACK timeout code, 0..31, 0 infinite
 * @max_rd_atomic: initiator depth
 */
struct vg_qp_retry_attr {
	u8 rnr_retry;
	u8 retry_cnt;
	u8 min_rnr_timer;
	u8 timeout;
	u8 max_rd_atomic;
};

/**
 * vg_qp_bounds_check() - whether bounds are in range
 * @b: bounds
 *
 * Context: any.
 * Return: 0, or -ERANGE.
 */
int vg_qp_bounds_check(const struct vg_qp_bounds *b);

/**
 * vg_qp_bounds_apply() - bring a modify's attributes within bounds
 * @b: bounds (checked)
 * @mask: VG_QPA_* fields @a carries; the others are left alone
 * @a: attributes, changed in place; codes out of the verbs' range are
 *	left for the driver to refuse
 *
 * Context: any.
 * Return: the VG_QPA_* fields changed, 0 if none.
 */
u32 vg_qp_bounds_apply(const struct vg_qp_bounds *b, u32 mask,
		       struct vg_qp_retry_attr *a);

/**
 * vg_rnr_timer_ns() - an RNR NAK timer code's time
 * @code: 0..31
 *
 * Context: any.
 * Return: nanoseconds; 0 for a code out of range.
 */
u64 vg_rnr_timer_ns(u8 code);

/**
 * vg_ack_timeout_ns() - a local ACK timeout code's time
 * @code: 0..31
 *
 * Context: any.
 * Return: nanoseconds; U64_MAX for 0 (infinite), 0 for a code out of
 *	range.
 */
u64 vg_ack_timeout_ns(u8 code);

#endif /* _VG_CORE_QPBOUNDS_H */
