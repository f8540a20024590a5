// SPDX-License-Identifier: GPL-2.0-only
// block-read: reads of --size from a block device (--file) with O_DIRECT,
// --depth of them outstanding, one thread each, on the same run clock as
// the RDMA clients (warm-up, phases, intervals, latency). An NVMe-over-RDMA
// namespace's reads are RDMA WRITEs posted by its target, a kernel tenant
// of verbsgate's: this is how a harness measures what that tenant gets.
#pragma once

#include "options.h"

namespace vgload {

int run_block_read(const Options &o);

}  // namespace vgload
