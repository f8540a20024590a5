// SPDX-License-Identifier: GPL-2.0-only
// The module's status: its version and how many devices it is attached to.
#pragma once

#include "field.h"

#include <cstdint>
#include <string>

namespace vg {

struct Status {
	std::string version = "?";
	uint32_t devices = 0;
};

const Table<Status> &status_table();

}  // namespace vg
