// SPDX-License-Identifier: GPL-2.0-only
// Address prefixes of tenant selectors: an IPv4 or IPv6 address, or a GID
// written as an IPv6 address, with an optional prefix length.
#pragma once

#include <array>
#include <cstdint>
#include <string>

namespace vg {

struct AddrPrefix {
	size_t len = 0;			// 4 (IPv4) or 16 (IPv6/GID)
	std::array<uint8_t, 16> addr{};	// network order, first len bytes
	unsigned plen = 0;		// prefix length, 0..len * 8

	bool operator==(const AddrPrefix &o) const
	{
		return len == o.len && addr == o.addr && plen == o.plen;
	}
};

// "10.0.0.0/24", "10.0.0.1" (a /32), "fd00::/64", "fe80::1:2:3:4".
// Throws UsageError for malformed input or host bits beyond the prefix.
AddrPrefix parse_prefix(const std::string &s);

// As parse_prefix() accepts it; the length is omitted for a full prefix.
std::string format_prefix(const AddrPrefix &p);

}  // namespace vg
