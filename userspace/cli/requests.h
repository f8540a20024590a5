// SPDX-License-Identifier: GPL-2.0-only
// The words of the commands that change state, and of the filters of
// those that show it, parsed into requests. No netlink here: tests check
// every command's grammar on its own.
#pragma once

#include "args.h"
#include "cgroup_path.h"
#include "prefix.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vg {

struct Selector {
	uint32_t type = 0;		// enum verbsgate_selector
	std::string cgroup_path;	// CGROUP: on the cgroup2 hierarchy
	uint64_t cgroup_id = 0;		// CGROUP, in replies
	std::string ulp;		// ULP
	AddrPrefix prefix;		// LOCAL_ADDR, PEER_ADDR
};

// tenant add NAME SELECTOR class CLASS weight N [min RATE] [max RATE]
struct TenantAdd {
	std::string name;
	Selector sel;
	uint32_t cls = 0;
	uint32_t weight = 0;
	std::optional<uint64_t> min_rate;
	std::optional<uint64_t> max_rate;
};

// tenant set NAME [class CLASS] [weight N] [min RATE|none] [max RATE|none]
struct TenantSet {
	std::string name;
	std::optional<uint32_t> cls;
	std::optional<uint32_t> weight;
	std::optional<uint64_t> min_rate;
	std::optional<uint64_t> max_rate;
};

struct ChunkEntry {
	uint32_t size = 0;
	uint32_t util_ppm = 0;

	bool operator==(const ChunkEntry &o) const
	{
		return size == o.size && util_ppm == o.util_ppm;
	}
};

struct OpCost {
	uint32_t cls = 0;		// enum verbsgate_op_class
	std::optional<uint32_t> bytes;
	std::optional<uint32_t> units;
};

// dev set DEV SETTING...
struct DevSet {
	std::string dev;
	std::optional<uint64_t> max_rate;
	std::optional<uint64_t> max_ops;
	std::optional<uint64_t> target_p99_ns;	// 0: none
	std::optional<uint64_t> step;		// 0: auto
	std::optional<uint64_t> period_ns;
	std::optional<uint32_t> chunk_nolat;
	std::optional<std::vector<ChunkEntry>> chunk_table;
	std::vector<OpCost> costs;
	std::optional<bool> lat_each;
	std::optional<bool> enforce;
};

// qp show [dev DEV] [tenant NAME]
struct QpShow {
	std::optional<std::string> dev;
	std::optional<std::string> tenant;
};

uint32_t parse_class(const std::string &word);
const char *class_name(uint32_t cls);
uint32_t parse_op_class(const std::string &word);
const char *op_class_name(uint32_t cls);
const char *selector_name(uint32_t type);

// "SIZE@PCT[,SIZE@PCT...]", e.g. "2k@40%,5k@100%".
std::vector<ChunkEntry> parse_chunk_table(const std::string &s);

TenantAdd parse_tenant_add(Args &args,
			   const std::vector<Cgroup2Mount> &mounts);
TenantSet parse_tenant_set(Args &args);
DevSet parse_dev_set(Args &args);
QpShow parse_qp_show(Args &args);

}  // namespace vg
