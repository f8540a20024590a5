// SPDX-License-Identifier: GPL-2.0-only
#include "gid.h"

#include <arpa/inet.h>

namespace vgload {

std::string gid_to_string(const uint8_t raw[16])
{
	char buf[INET6_ADDRSTRLEN];

	// inet_ntop prints IPv4-mapped addresses as ::ffff:a.b.c.d already.
	if (!inet_ntop(AF_INET6, raw, buf, sizeof(buf)))
		return "?";
	return buf;
}

bool gid_is_ipv4_mapped(const uint8_t raw[16])
{
	for (int i = 0; i < 10; i++)
		if (raw[i])
			return false;
	return raw[10] == 0xff && raw[11] == 0xff;
}

bool gid_is_zero(const uint8_t raw[16])
{
	for (int i = 0; i < 16; i++)
		if (raw[i])
			return false;
	return true;
}

}  // namespace vgload
