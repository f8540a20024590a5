// SPDX-License-Identifier: GPL-2.0-only
// RDMA devices: what they are, their QPs by enforcement, the settings
// `dev set` changes and their controller's state; requests and replies
// alike.
#pragma once

#include "field.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vg {

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

// One entry of VERBSGATE_ATTR_DEV_PORT_TABLE: how a port is paced.
struct PortPacing {
	uint32_t port = 0;
	uint64_t link_rate = 0;		// 0: unknown
	uint64_t rate = 0;		// 0: unlimited
	uint64_t op_rate = 0;		// 0: unlimited
	uint32_t qps = 0;
	uint64_t paced_bytes = 0;
	uint64_t paced_ops = 0;
};

struct Device {
	uint32_t index = 0;
	std::string name;
	std::string driver;
	uint32_t ports = 0;
	uint64_t node_guid = 0;
	// QPs by enforcement, and those not tracked (see the uapi)
	std::optional<uint32_t> qps_enforced;
	std::optional<uint32_t> qps_tracked;
	std::optional<uint32_t> qps_unsupported;
	std::optional<uint32_t> qps_untracked;
	// user QPs: whether verbsgate shapes them here, and those refused
	std::optional<bool> user_qps_enforced;
	std::optional<uint64_t> user_qps_refused;
	// settings
	std::optional<uint64_t> max_rate;
	std::optional<uint64_t> max_ops;
	std::optional<uint64_t> target_p99_ns;	// 0: none
	std::optional<uint64_t> step;		// 0: auto
	std::optional<uint64_t> period_ns;
	std::optional<uint32_t> burst;		// token bytes, 0: none
	std::optional<uint64_t> link_rate;	// 0: as the device reports
	std::optional<uint32_t> pkt_overhead;	// bytes per packet
	std::optional<uint32_t> chunk_nolat;
	std::optional<std::vector<ChunkEntry>> chunk_table;
	std::vector<OpCost> costs;		// requests: the classes given
	std::optional<bool> lat_each;
	std::optional<bool> enforce;
	std::optional<bool> user_qps_deny;	// enum verbsgate_user_qps
	// state
	std::optional<uint32_t> max_chunk;
	std::optional<uint64_t> safe_util;
	std::optional<uint64_t> rmin;
	std::optional<uint32_t> chunk_size;
	std::optional<uint64_t> ref_p99_ns;	// 0: none yet
	std::optional<uint64_t> aimd_increases;
	std::optional<uint64_t> aimd_decreases;
	// ports: how many the shaper paces apart, and how
	std::optional<uint32_t> ports_paced;
	std::vector<PortPacing> port_table;
};

// The groups of the device table's rows.
enum : unsigned {
	kDevKey = 1,		// index, name
	kDevInfo = 2,		// driver, ports, node GUID
	kDevQps = 4,
	kDevSettings = 8,
	kDevState = 16,
	kDevPorts = 32,
};

// enum verbsgate_chunk_attr, enum verbsgate_opcost_attr,
// enum verbsgate_port_attr
const Table<ChunkEntry> &chunk_entry_table();
const Table<OpCost> &op_cost_table();
const Table<PortPacing> &port_table();
const Table<Device> &device_table();

// As `dev show` prints a device (and `monitor` a device event), with how
// each port is paced; with details its settings and state. The text
// ends without a newline.
std::string dev_text(const Device &d, bool details);
void dev_json(JsonWriter &w, const Device &d, bool details);

// As /sys/class/infiniband/<dev>/node_guid prints it.
std::string format_guid(uint64_t g);

}  // namespace vg
