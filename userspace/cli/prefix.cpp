// SPDX-License-Identifier: GPL-2.0-only
#include "prefix.h"

#include "args.h"
#include "units.h"

#include <arpa/inet.h>

namespace vg {

AddrPrefix parse_prefix(const std::string &s)
{
	AddrPrefix p;
	std::string addr = s;
	size_t slash = s.find('/');
	bool has_len = slash != std::string::npos;

	if (has_len)
		addr = s.substr(0, slash);
	if (inet_pton(AF_INET, addr.c_str(), p.addr.data()) == 1)
		p.len = 4;
	else if (inet_pton(AF_INET6, addr.c_str(), p.addr.data()) == 1)
		p.len = 16;
	else
		throw UsageError("invalid address \"" + addr +
				 "\" (IPv4, IPv6 or GID)");
	p.plen = unsigned(p.len * 8);
	if (has_len) {
		try {
			p.plen = unsigned(parse_uint(s.substr(slash + 1),
						     p.len * 8));
		} catch (const UnitError &e) {
			throw UsageError("invalid prefix length in \"" + s +
					 "\": " + e.what());
		}
	}
	for (unsigned bit = p.plen; bit < p.len * 8; bit++)
		if (p.addr[bit / 8] & (0x80 >> (bit % 8)))
			throw UsageError("\"" + s + "\" has bits set beyond "
					 "its prefix length");
	return p;
}

std::string format_prefix(const AddrPrefix &p)
{
	char buf[INET6_ADDRSTRLEN];

	if (!inet_ntop(p.len == 4 ? AF_INET : AF_INET6, p.addr.data(), buf,
		       sizeof(buf)))
		return "?";
	std::string out = buf;
	if (p.plen != p.len * 8)
		out += "/" + std::to_string(p.plen);
	return out;
}

}  // namespace vg
