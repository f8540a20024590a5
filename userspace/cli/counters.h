// SPDX-License-Identifier: GPL-2.0-only
// A tenant's or a QP's counters (TENANT_STATS, QP_STATS).
#pragma once

#include "field.h"

#include <cstdint>

namespace vg {

struct Counters {
	uint64_t tx_bytes = 0;
	uint64_t tx_wrs = 0;
	uint64_t chunks = 0;
	uint64_t split_wrs = 0;
	uint64_t throttled_ns = 0;
	uint64_t queued_wrs = 0;
	uint64_t qp_clamps = 0;		// modify QPs given a bound instead
	uint64_t ctrl_verbs = 0;	// control verbs of a tenant's processes
	uint64_t ctrl_wait_ns = 0;	// time they slept for its pace
	uint64_t mr_bytes = 0;		// bytes held registered as MRs now
	uint64_t mr_refused = 0;	// registrations over its quota
	uint64_t qp_errors = 0;		// WRs that failed their QP
	uint64_t retry_bytes = 0;	// payload of retries verbsgate paced
};

// enum verbsgate_stat_attr
const Table<Counters> &counters_table();

}  // namespace vg
