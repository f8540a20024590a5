// SPDX-License-Identifier: GPL-2.0-only
// Tenants: their configuration (selector, class, weight, rates, bounds on
// their QPs, the pace of their control verbs), their QP count and
// counters; requests and replies alike.
#pragma once

#include "counters.h"
#include "field.h"
#include "prefix.h"

#include <cstdint>
#include <optional>
#include <string>

namespace vg {

// What a tenant selects (enum verbsgate_selector): only the members of
// its type are set.
struct Selector {
	uint32_t type = 0;
	std::optional<std::string> cgroup_path;	// on the cgroup2 hierarchy
	std::optional<uint64_t> cgroup_id;	// replies
	std::optional<std::string> ulp;
	std::optional<AddrPrefix> prefix;	// LOCAL_ADDR, PEER_ADDR
};

// The QP bounds' limits (uapi: TENANT_RNR_RETRY_MAX .. RD_ATOMIC_MAX):
// the retry counts' "no bound", the longest RNR NAK timer (655.36 ms) and
// the longest local ACK timeout (4.096 us * 2^31).
constexpr uint8_t kRetryNone = 7;
constexpr uint64_t kRnrTimerMaxNs = 655360000;
constexpr uint64_t kTimeoutMaxNs = 8796093022208;

// The control verb pace's limit (uapi: TENANT_CTRL_RATE, _CTRL_BURST):
// verbs per second and verbs back to back, each 1..1000000 (a rate of 0 is
// none; a new tenant has none and a burst of 64).
constexpr uint32_t kCtrlMax = 1000000;

struct Tenant {
	uint32_t id = 0;
	std::string name;
	std::optional<Selector> sel;
	std::optional<uint32_t> cls;		// enum verbsgate_class
	std::optional<uint32_t> weight;
	std::optional<uint64_t> min_rate;	// 0: none
	std::optional<uint64_t> max_rate;	// 0: none
	// Bounds on what a modify of the tenant's QPs may ask for; each
	// has a value that means no bound.
	std::optional<uint8_t> rnr_retry_max;	// 0..7, kRetryNone: none
	std::optional<uint8_t> retry_cnt_max;	// 0..7, kRetryNone: none
	std::optional<uint64_t> rnr_timer_min_ns;	// 0: none
	std::optional<uint64_t> timeout_min_ns;	// 0: none
	std::optional<uint8_t> rd_atomic_max;	// 0: none
	// The pace of the control verbs of the tenant's processes.
	std::optional<uint32_t> ctrl_rate;	// verbs/s, 0: none
	std::optional<uint32_t> ctrl_burst;	// verbs, 1..kCtrlMax
	// Most bytes its processes may hold registered as MRs.
	std::optional<uint64_t> mr_bytes_max;	// 0: none
	uint32_t qps = 0;
	std::optional<Counters> stats;
};

// The groups of the tenant table's rows.
enum : unsigned {
	kTenantKey = 1,		// id, name
	kTenantConfig = 2,	// selector, class, weight, rates, QP bounds,
				// control verb pace, MR byte quota
	kTenantQps = 4,
	kTenantStats = 8,
};

// enum verbsgate_sel_attr
const Table<Selector> &selector_table();
const Table<Tenant> &tenant_table();

// As `tenant show` prints a tenant (and `monitor` a tenant event); the
// text without its counters and a newline.
std::string tenant_text(const Tenant &t);
void tenant_json(JsonWriter &w, const Tenant &t);

}  // namespace vg
