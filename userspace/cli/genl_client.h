// SPDX-License-Identifier: GPL-2.0-only
// A generic netlink client of the "verbsgate" family, on libnl-genl-3.
#pragma once

#include <linux/verbsgate.h>
#include <netlink/attr.h>

#include <array>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>

struct nl_sock;
struct nl_msg;

namespace vg {

// The kernel module is not loaded: the family is not registered.
class ModuleNotLoaded : public std::runtime_error {
public:
	ModuleNotLoaded();
};

// The kernel (or libnl) refused a request. err is a positive errno;
// extack is the kernel's extended-ack message, if it sent one; attr names
// the request attribute the kernel pointed at (its CLI keyword), and
// range the bounds its policy allows ("1..10000"), when the kernel said.
class NetlinkError : public std::runtime_error {
public:
	NetlinkError(int err, const std::string &what, std::string extack = "");
	int err;
	std::string extack;
	std::string attr;
	std::string range;
};

using Attrs = std::array<const nlattr *, VERBSGATE_ATTR_MAX + 1>;

class GenlClient {
public:
	// Connects and resolves the family; throws ModuleNotLoaded.
	GenlClient();

	using Fill = std::function<void(nl_msg *)>;
	using OnReply = std::function<void(const Attrs &)>;
	using OnEvent = std::function<void(uint8_t cmd, const Attrs &)>;

	// One request; on_reply runs for each reply message (each device of a
	// dump). Throws NetlinkError when the kernel answers with an error.
	void request(uint8_t cmd, bool dump, const Fill &fill,
		     const OnReply &on_reply);

	// Joins the events multicast group and calls on_event for every
	// message until reading fails (a signal, the socket closing).
	void listen(const OnEvent &on_event);

private:
	std::unique_ptr<nl_sock, void (*)(nl_sock *)> sock_;
	int family_ = -1;
};

// Parses a nested attribute with a policy; libnl skips types above max, so
// replies may grow. Throws NetlinkError(EPROTO) when malformed.
void parse_nested(const nlattr *nest, int max, struct nla_policy *policy,
		  struct nlattr **tb);

// The error a dump ended with, from its NLMSG_DONE message: 0, or a
// positive errno, with the kernel's extended-ack message in *extack if it
// sent one (a dumpit that fails reports so, not with NLMSG_ERROR).
int dump_done_error(const struct nlmsghdr *nlh, std::string *extack);

}  // namespace vg
