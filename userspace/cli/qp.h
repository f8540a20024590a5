// SPDX-License-Identifier: GPL-2.0-only
// QPs: who created them (a process, or a kernel module), their tenant,
// their addresses once known and how verbsgate covers them. A request
// (`qp show`) sets only the device and tenant it filters by.
#pragma once

#include "counters.h"
#include "field.h"

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace vg {

using Gid = std::array<uint8_t, 16>;	// network order

struct Qp {
	uint32_t dev_index = 0;
	std::optional<std::string> dev;
	uint32_t tenant_id = 0;
	std::optional<std::string> tenant;
	uint32_t qpn = 0;
	uint32_t type = 0;		// enum ib_qp_type
	std::optional<uint32_t> pid;	// user QPs
	std::optional<std::string> comm;
	std::optional<uint64_t> cgroup_id;
	std::optional<std::string> ulp;	// kernel QPs
	std::optional<Gid> local_gid;
	std::optional<Gid> peer_gid;
	std::optional<uint32_t> enforcement;	// enum verbsgate_qp_enforcement
	std::optional<uint32_t> reason;		// enum verbsgate_qp_reason
	std::optional<Counters> stats;
};

// The groups of the QP table's rows.
enum : unsigned {
	kQpMain = 1,
	kQpStats = 2,
};

const Table<Qp> &qp_table();

// As `qp show` prints a QP (and `monitor` a QP event); the text with its
// counters if `stats`, without a newline.
std::string qp_text(const Qp &q, bool stats);
void qp_json(JsonWriter &w, const Qp &q);

// The names of enum verbsgate_qp_enforcement and verbsgate_qp_reason
// values as the CLI prints them; unknown values print as numbers.
std::string qp_enforcement_name(uint32_t e);
std::string qp_reason_name(uint32_t r);

// An IPv4-mapped GID (::ffff:a.b.c.d, RoCEv2 over IPv4) as the IPv4
// address, any other as a compressed IPv6 address.
std::string format_gid(const Gid &g);

}  // namespace vg
