// SPDX-License-Identifier: GPL-2.0-only
// The words of the commands that change state, and of the filters of
// those that show it, parsed into the objects they send. Nothing is sent
// here: tests check every command's grammar on its own.
#pragma once

#include "args.h"
#include "cgroup_path.h"
#include "device.h"
#include "prefix.h"
#include "qp.h"
#include "tenant.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace vg {

uint32_t parse_class(const std::string &word);
const char *class_name(uint32_t cls);
uint32_t parse_op_class(const std::string &word);
const char *op_class_name(uint32_t cls);
const char *selector_name(uint32_t type);

// "SIZE@PCT[,SIZE@PCT...]", e.g. "2k@40%,5k@100%".
std::vector<ChunkEntry> parse_chunk_table(const std::string &s);

// tenant add NAME SELECTOR class CLASS weight N [min RATE] [max RATE]
//	[BOUND...] [PACE...] [mr-bytes-max SIZE|none]
// where BOUND := rnr-retry-max N|none | retry-cnt-max N|none |
//	rnr-timer-min TIME|none | timeout-min TIME|none | rd-atomic-max N|none
// and PACE := ctrl-rate N|none | ctrl-burst N (N: 1..1000000)
Tenant parse_tenant_add(Args &args, const std::vector<Cgroup2Mount> &mounts);
// tenant set NAME [class CLASS] [weight N] [min RATE|none] [max RATE|none]
//	[BOUND...] [PACE...] [mr-bytes-max SIZE|none]
Tenant parse_tenant_set(Args &args);
// dev set DEV SETTING...
Device parse_dev_set(Args &args);
// qp show [dev DEV] [tenant NAME]: the QP request that filters so
Qp parse_qp_show(Args &args);

}  // namespace vg
