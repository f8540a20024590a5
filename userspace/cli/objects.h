// SPDX-License-Identifier: GPL-2.0-only
// Tenants, devices and QPs as the kernel describes them in replies and
// events.
// Attributes a reply lacks keep their defaults; unknown ones are ignored.
#pragma once

#include "genl_client.h"
#include "requests.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vg {

struct TenantStats {
	uint64_t tx_bytes = 0;
	uint64_t tx_wrs = 0;
	uint64_t chunks = 0;
	uint64_t split_wrs = 0;
	uint64_t throttled_ns = 0;
	uint64_t queued_wrs = 0;
};

struct Tenant {
	uint32_t id = 0;
	std::string name;
	Selector sel;
	bool has_config = false;	// class, weight, rates, selector
	uint32_t cls = 0;
	uint32_t weight = 0;
	uint64_t min_rate = 0;
	uint64_t max_rate = 0;
	uint32_t qps = 0;
	bool has_stats = false;
	TenantStats stats;
};

struct Device {
	uint32_t index = 0;
	std::string name;
	std::string driver;
	uint32_t ports = 0;
	uint64_t node_guid = 0;
	bool has_settings = false;
	// settings
	uint64_t max_rate = 0;
	uint64_t max_ops = 0;
	uint64_t target_p99_ns = 0;
	uint64_t step = 0;
	uint64_t period_ns = 0;
	uint32_t chunk_nolat = 0;
	std::vector<ChunkEntry> chunk_table;
	std::vector<OpCost> costs;	// bytes and units both set
	bool lat_each = false;
	bool enforce = false;
	// state
	uint32_t max_chunk = 0;
	uint64_t safe_util = 0;
	uint64_t rmin = 0;
	uint32_t chunk_size = 0;
	uint64_t ref_p99_ns = 0;
	uint64_t aimd_increases = 0;
	uint64_t aimd_decreases = 0;
	// QPs by enforcement, and those not tracked (see uapi)
	std::optional<std::array<uint32_t, 4>> qps;
};

using Gid = std::array<uint8_t, 16>;	// network order

// A QP: who created it (a process, or a kernel module) and, once known,
// its addresses. Optional fields are those the kernel did not send.
struct Qp {
	uint32_t dev_index = 0;
	std::string dev;
	uint32_t tenant_id = 0;
	std::string tenant;
	uint32_t qpn = 0;
	uint32_t type = 0;		// enum ib_qp_type
	std::optional<uint32_t> pid;	// user QPs
	std::optional<std::string> comm;
	std::optional<uint64_t> cgroup_id;
	std::optional<std::string> ulp;	// kernel QPs
	std::optional<Gid> local_gid;
	std::optional<Gid> peer_gid;
	std::optional<uint32_t> enforcement;	// enum verbsgate_qp_enforcement
	uint32_t reason = 0;			// enum verbsgate_qp_reason
	bool has_stats = false;
	TenantStats stats;
};

// The names of enum verbsgate_qp_enforcement and verbsgate_qp_reason
// values as the CLI prints them; unknown values print as numbers.
std::string qp_enforcement_name(uint32_t e);
std::string qp_reason_name(uint32_t r);
// The names of Device::qps' entries, in order.
extern const char *const dev_qps_names[4];

Tenant parse_tenant(const Attrs &a);
Device parse_device(const Attrs &a);
Qp parse_qp(const Attrs &a);

// As /sys/class/infiniband/<dev>/node_guid prints it.
std::string format_guid(uint64_t g);

// An IPv4-mapped GID (::ffff:a.b.c.d, RoCEv2 over IPv4) as the IPv4
// address, any other as a compressed IPv6 address.
std::string format_gid(const Gid &g);

}  // namespace vg
