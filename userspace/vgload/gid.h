// SPDX-License-Identifier: GPL-2.0-only
// GID text form and classification, independent of libibverbs so it can be
// unit-tested without a device.
#pragma once

#include <cstdint>
#include <string>

namespace vgload {

// "::ffff:10.0.2.15" for IPv4-mapped GIDs, "fe80::..." otherwise.
std::string gid_to_string(const uint8_t raw[16]);

// ::ffff:a.b.c.d, the form rxe gives the netdev's IPv4 address.
bool gid_is_ipv4_mapped(const uint8_t raw[16]);

bool gid_is_zero(const uint8_t raw[16]);

}  // namespace vgload
