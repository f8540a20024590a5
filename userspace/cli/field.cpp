// SPDX-License-Identifier: GPL-2.0-only
#include "field.h"

namespace vg {

Style<bool> on_off(const char *on, const char *off)
{
	return {[on, off](const bool &v) { return std::string(v ? on : off); },
		[](JsonWriter &w, const bool &v) { w.value(v); }};
}

std::string fill(const char *format, const std::string &value)
{
	std::string out = format;
	size_t at = out.find("%s");

	return at == std::string::npos ? out : out.replace(at, 2, value);
}

nlattr *nest_start(nl_msg *m, int type)
{
	nlattr *n = nla_nest_start(m, type | NLA_F_NESTED);

	if (!n)
		throw NetlinkError(EMSGSIZE, "request too large");
	return n;
}

}  // namespace vg
