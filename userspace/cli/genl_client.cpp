// SPDX-License-Identifier: GPL-2.0-only
#include "genl_client.h"

#include <linux/netlink.h>
#include <netlink/genl/ctrl.h>
#include <netlink/genl/genl.h>
#include <netlink/msg.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>

namespace vg {

ModuleNotLoaded::ModuleNotLoaded()
	: std::runtime_error("the verbsgate kernel module is not loaded "
			     "(no generic netlink family \"" VERBSGATE_GENL_NAME
			     "\"); load it with 'modprobe verbsgate'")
{
}

NetlinkError::NetlinkError(int e, const std::string &what, std::string ack)
	: std::runtime_error(what), err(e), extack(std::move(ack))
{
}

namespace {

// Types of the reply attributes; libnl checks each against it. Attributes
// newer than this header are skipped (replies may grow, see the uapi).
struct nla_policy *reply_policy()
{
	static struct nla_policy p[VERBSGATE_ATTR_MAX + 1];
	static bool ready;

	if (!ready) {
		p[VERBSGATE_ATTR_VERSION].type = NLA_STRING;
		p[VERBSGATE_ATTR_DEV_COUNT].type = NLA_U32;
		p[VERBSGATE_ATTR_DEV_INDEX].type = NLA_U32;
		p[VERBSGATE_ATTR_DEV_NAME].type = NLA_STRING;
		p[VERBSGATE_ATTR_DEV_DRIVER].type = NLA_STRING;
		p[VERBSGATE_ATTR_DEV_PORTS].type = NLA_U32;
		p[VERBSGATE_ATTR_DEV_NODE_GUID].type = NLA_U64;
		ready = true;
	}
	return p;
}

// State of one request while libnl runs its callbacks.
struct Exchange {
	const GenlClient::OnReply *on_reply = nullptr;
	bool done = false;
	int err = 0;  // positive errno
	std::string extack;
	std::string parse_error;
};

int on_valid(struct nl_msg *msg, void *arg)
{
	auto *x = static_cast<Exchange *>(arg);
	struct nlattr *tb[VERBSGATE_ATTR_MAX + 1];
	int ret;

	ret = genlmsg_parse(nlmsg_hdr(msg), 0, tb, VERBSGATE_ATTR_MAX,
			    reply_policy());
	if (ret < 0) {
		x->parse_error = nl_geterror(ret);
		return NL_STOP;
	}
	Attrs attrs;
	for (size_t i = 0; i < attrs.size(); i++)
		attrs[i] = tb[i];
	(*x->on_reply)(attrs);
	return NL_OK;
}

// The extended ack's message: TLVs after struct nlmsgerr (the socket asks
// for capped acks, so the request is not echoed in between).
std::string extack_message(const struct nlmsghdr *nlh,
			   const struct nlmsgerr *e)
{
	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS))
		return "";
	size_t offset = sizeof(*e);
	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += e->msg.nlmsg_len - NLMSG_HDRLEN;
	size_t payload = nlh->nlmsg_len - NLMSG_HDRLEN;
	if (offset >= payload)
		return "";

	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	auto *head = reinterpret_cast<struct nlattr *>(
		reinterpret_cast<char *>(const_cast<nlmsgerr *>(e)) + offset);
	if (nla_parse(tb, NLMSGERR_ATTR_MAX, head, int(payload - offset),
		      nullptr) < 0 || !tb[NLMSGERR_ATTR_MSG])
		return "";
	return nla_get_string(tb[NLMSGERR_ATTR_MSG]);
}

int on_error(struct sockaddr_nl *, struct nlmsgerr *e, void *arg)
{
	auto *x = static_cast<Exchange *>(arg);
	auto *nlh = reinterpret_cast<struct nlmsghdr *>(
		reinterpret_cast<char *>(e) - NLMSG_HDRLEN);

	x->err = -e->error;
	x->extack = extack_message(nlh, e);
	x->done = true;
	return NL_STOP;
}

int on_done(struct nl_msg *, void *arg)
{
	static_cast<Exchange *>(arg)->done = true;
	return NL_STOP;
}

}  // namespace

GenlClient::GenlClient() : sock_(nl_socket_alloc(), nl_socket_free)
{
	if (!sock_)
		throw NetlinkError(ENOMEM, "cannot allocate a netlink socket");
	int ret = genl_connect(sock_.get());
	if (ret < 0)
		throw NetlinkError(EIO, std::string("cannot open a generic "
			"netlink socket: ") + nl_geterror(ret));

	int one = 1;
	int fd = nl_socket_get_fd(sock_.get());
	setsockopt(fd, SOL_NETLINK, NETLINK_EXT_ACK, &one, sizeof(one));
	setsockopt(fd, SOL_NETLINK, NETLINK_CAP_ACK, &one, sizeof(one));

	family_ = genl_ctrl_resolve(sock_.get(), VERBSGATE_GENL_NAME);
	if (family_ == -NLE_OBJ_NOTFOUND)
		throw ModuleNotLoaded();
	if (family_ < 0)
		throw NetlinkError(EIO, std::string("cannot resolve the "
			"verbsgate netlink family: ") + nl_geterror(family_));
}

void GenlClient::request(uint8_t cmd, bool dump, const Fill &fill,
			 const OnReply &on_reply)
{
	std::unique_ptr<nl_msg, void (*)(nl_msg *)> msg(nlmsg_alloc(),
							 nlmsg_free);
	std::unique_ptr<nl_cb, void (*)(nl_cb *)> cb(nl_cb_alloc(NL_CB_DEFAULT),
						     nl_cb_put);
	if (!msg || !cb)
		throw NetlinkError(ENOMEM, "out of memory");

	int flags = dump ? NLM_F_DUMP : NLM_F_ACK;
	if (!genlmsg_put(msg.get(), NL_AUTO_PORT, NL_AUTO_SEQ, family_, 0,
			 flags, cmd, VERBSGATE_GENL_VERSION))
		throw NetlinkError(ENOMEM, "cannot build a netlink message");
	if (fill)
		fill(msg.get());

	Exchange x;
	x.on_reply = &on_reply;
	nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_done, &x);
	nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_done, &x);
	nl_cb_err(cb.get(), NL_CB_CUSTOM, on_error, &x);

	int ret = nl_send_auto(sock_.get(), msg.get());
	if (ret < 0)
		throw NetlinkError(EIO, std::string("cannot send: ") +
					nl_geterror(ret));
	while (!x.done && x.parse_error.empty()) {
		ret = nl_recvmsgs(sock_.get(), cb.get());
		if (ret < 0 && !x.done)
			throw NetlinkError(EIO, std::string("netlink: ") +
						nl_geterror(ret));
	}
	if (!x.parse_error.empty())
		throw NetlinkError(EPROTO, "malformed reply from the kernel: " +
						   x.parse_error);
	if (x.err)
		throw NetlinkError(x.err, strerror(x.err), x.extack);
}

}  // namespace vg
