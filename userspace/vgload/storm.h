// SPDX-License-Identifier: GPL-2.0-only
// Control-verb storms (Husky key finding #1 and other finding #3): loops of
// ibv_reg_mr/ibv_dereg_mr, ibv_create_qp/ibv_destroy_qp and
// ibv_create_cq/ibv_destroy_cq. They need no peer: the damage is done to
// the local device's caches and driver paths.
#pragma once

#include "options.h"

namespace vgload {

int run_storm(const Options &o);

}  // namespace vgload
