// SPDX-License-Identifier: GPL-2.0-only
// A generic netlink message of the tests: requests the CLI builds, replies
// the tests build for the CLI to read.
#pragma once

#include <netlink/attr.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>

#include <memory>

namespace vg::test {

struct Msg {
	std::unique_ptr<nl_msg, void (*)(nl_msg *)> m{nlmsg_alloc(), nlmsg_free};

	Msg()
	{
		genlmsg_put(m.get(), 0, 0, 42, 0, 0, 1, 1);
	}
	nlattr *attrs() const { return genlmsg_attrdata(genlmsg_hdr(hdr()), 0); }
	int len() const { return genlmsg_attrlen(genlmsg_hdr(hdr()), 0); }
	nlmsghdr *hdr() const { return nlmsg_hdr(m.get()); }
	uint32_t offset_of(const nlattr *a) const
	{
		return uint32_t(reinterpret_cast<const char *>(a) -
				reinterpret_cast<const char *>(hdr()));
	}
};

}  // namespace vg::test
