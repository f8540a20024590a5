// SPDX-License-Identifier: GPL-2.0-only
#include "schema.h"

#include "device.h"
#include "qp.h"
#include "status.h"
#include "tenant.h"

#include <linux/genetlink.h>
#include <linux/netlink.h>

#include <array>

namespace vg {

namespace {

const AttrInfo *find(const std::vector<AttrInfo> &infos, int type)
{
	for (const auto &i : infos)
		if (i.attr == type)
			return &i;
	return nullptr;
}

// Searches the attributes in [head, head + len), which start at byte
// `base` of the message and are described by `infos`, for the one at
// `offset`; entries of an array are each a nest of `infos`.
std::string find_attr(const nlattr *head, int len, uint32_t base,
		      uint32_t offset, const std::vector<AttrInfo> &infos,
		      bool array)
{
	const nlattr *a;
	int rem;

	nla_for_each_attr(a, head, len, rem) {
		uint32_t at = base + uint32_t(reinterpret_cast<const char *>(a) -
					      reinterpret_cast<const char *>(head));
		uint32_t end = at + uint32_t(NLA_ALIGN(a->nla_len));

		if (offset < at || offset >= end)
			continue;
		if (array)  // an entry of a nested array: look inside it
			return find_attr(static_cast<const nlattr *>(nla_data(a)),
					 nla_len(a), at + NLA_HDRLEN, offset,
					 infos, false);
		const AttrInfo *i = find(infos, nla_type(a));
		std::string name = i && i->keyword ? i->keyword : "";
		if (offset == at || !i || !i->nested)
			return name;
		std::string inner = find_attr(
			static_cast<const nlattr *>(nla_data(a)), nla_len(a),
			at + NLA_HDRLEN, offset, *i->nested, i->array);
		return inner.empty() ? name : inner;
	}
	return "";
}

}  // namespace

const std::vector<AttrInfo> &top_attrs()
{
	static const std::vector<AttrInfo> all = [] {
		std::vector<AttrInfo> out;
		for (const auto &t : {infos(tenant_table()), infos(device_table()),
				      infos(qp_table()), infos(status_table())})
			for (const auto &i : t)
				if (!find(out, i.attr))
					out.push_back(i);
		return out;
	}();
	return all;
}

nla_policy *reply_policy()
{
	static std::array<nla_policy, VERBSGATE_ATTR_MAX + 1> p = [] {
		std::array<nla_policy, VERBSGATE_ATTR_MAX + 1> out{};
		for (const auto &i : top_attrs())
			out[size_t(i.attr)] = i.policy;
		return out;
	}();
	return p.data();
}

std::string attr_name_at(const nlmsghdr *nlh, uint32_t offset)
{
	uint32_t base = NLMSG_HDRLEN + GENL_HDRLEN;

	if (nlh->nlmsg_len <= base || offset < base)
		return "";
	auto *head = reinterpret_cast<const nlattr *>(
		reinterpret_cast<const char *>(nlh) + base);
	return find_attr(head, int(nlh->nlmsg_len - base), base, offset,
			 top_attrs(), false);
}

}  // namespace vg
