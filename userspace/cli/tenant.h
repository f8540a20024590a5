// SPDX-License-Identifier: GPL-2.0-only
// Tenants: their configuration (selector, class, weight, rates), their
// QP count and counters; requests and replies alike.
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

struct Tenant {
	uint32_t id = 0;
	std::string name;
	std::optional<Selector> sel;
	std::optional<uint32_t> cls;		// enum verbsgate_class
	std::optional<uint32_t> weight;
	std::optional<uint64_t> min_rate;	// 0: none
	std::optional<uint64_t> max_rate;	// 0: none
	uint32_t qps = 0;
	std::optional<Counters> stats;
};

// The groups of the tenant table's rows.
enum : unsigned {
	kTenantKey = 1,		// id, name
	kTenantConfig = 2,	// selector, class, weight, rates
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
