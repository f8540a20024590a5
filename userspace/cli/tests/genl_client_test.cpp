// SPDX-License-Identifier: GPL-2.0-only
// How the client reads the end of a dump: built with libnl as the kernel's
// netlink_dump_done() sends it.
#include "genl_client.h"

#include <linux/netlink.h>
#include <netlink/attr.h>
#include <netlink/msg.h>

#include <gtest/gtest.h>

#include <cerrno>
#include <memory>

using namespace vg;

namespace {

using MsgPtr = std::unique_ptr<nl_msg, void (*)(nl_msg *)>;

// NLMSG_DONE with `err` (none if has_err is false) and, if given, an
// extended-ack message.
MsgPtr done(bool has_err, int err, const char *msg)
{
	MsgPtr m(nlmsg_alloc_simple(NLMSG_DONE,
				    NLM_F_MULTI | (msg ? NLM_F_ACK_TLVS : 0)),
		 nlmsg_free);

	if (has_err) {
		EXPECT_EQ(nlmsg_append(m.get(), &err, sizeof(err), NLMSG_ALIGNTO),
			  0);
	}
	if (msg) {
		EXPECT_EQ(nla_put_string(m.get(), NLMSGERR_ATTR_MSG, msg), 0);
	}
	return m;
}

}  // namespace

TEST(DumpDone, SuccessCarriesNoError)
{
	std::string extack;

	EXPECT_EQ(dump_done_error(nlmsg_hdr(done(true, 0, nullptr).get()),
				  &extack), 0);
	EXPECT_EQ(dump_done_error(nlmsg_hdr(done(false, 0, nullptr).get()),
				  &extack), 0);  // no errno at all
	EXPECT_EQ(extack, "");
}

TEST(DumpDone, ErrorWithAndWithoutExtack)
{
	std::string extack;

	EXPECT_EQ(dump_done_error(nlmsg_hdr(done(true, -ENODEV,
						 "no such device").get()),
				  &extack), ENODEV);
	EXPECT_EQ(extack, "no such device");

	std::string none;
	EXPECT_EQ(dump_done_error(nlmsg_hdr(done(true, -ENOENT, nullptr).get()),
				  &none), ENOENT);
	EXPECT_EQ(none, "");
}
