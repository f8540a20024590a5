// SPDX-License-Identifier: GPL-2.0-only
#include "genl_client.h"

#include "schema.h"

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

// State of one request while libnl runs its callbacks.
struct Exchange {
	const GenlClient::OnReply *on_reply = nullptr;
	const GenlClient::OnEvent *on_event = nullptr;
	const struct nlmsghdr *request = nullptr;
	bool done = false;
	int err = 0;  // positive errno
	std::string extack;
	std::string attr;
	std::string range;
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
	try {
		if (x->on_event)
			(*x->on_event)(genlmsg_hdr(nlmsg_hdr(msg))->cmd, attrs);
		else
			(*x->on_reply)(attrs);
	} catch (const NetlinkError &e) {
		x->parse_error = e.what();
		return NL_STOP;
	}
	return NL_OK;
}

// "1..10000" from the policy the kernel reports with a range error.
std::string policy_range(const struct nlattr *pol)
{
	struct nlattr *tb[NL_POLICY_TYPE_ATTR_MAX + 1];

	if (nla_parse_nested(tb, NL_POLICY_TYPE_ATTR_MAX,
			     const_cast<nlattr *>(pol), nullptr) < 0)
		return "";
	if (tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U] &&
	    tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U])
		return std::to_string(
			       nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MIN_VALUE_U])) +
		       ".." +
		       std::to_string(
			       nla_get_u64(tb[NL_POLICY_TYPE_ATTR_MAX_VALUE_U]));
	if (tb[NL_POLICY_TYPE_ATTR_MAX_LENGTH])
		return "at most " +
		       std::to_string(nla_get_u32(
			       tb[NL_POLICY_TYPE_ATTR_MAX_LENGTH])) +
		       " bytes";
	return "";
}

// The extended ack's TLVs (enum nlmsgerr_attrs), which start `offset`
// bytes into the payload of an NLMSG_ERROR or NLMSG_DONE message; false
// if it has none.
bool parse_ack_tlvs(const struct nlmsghdr *nlh, size_t offset,
		    struct nlattr **tb)
{
	size_t payload = nlh->nlmsg_len - NLMSG_HDRLEN;

	if (!(nlh->nlmsg_flags & NLM_F_ACK_TLVS) || offset >= payload)
		return false;
	auto *head = reinterpret_cast<struct nlattr *>(
		static_cast<char *>(nlmsg_data(nlh)) + offset);
	return nla_parse(tb, NLMSGERR_ATTR_MAX, head, int(payload - offset),
			 nullptr) == 0;
}

// The extended ack's TLVs after struct nlmsgerr (the socket asks for
// capped acks, so the request is not echoed in between).
void parse_extack(const struct nlmsghdr *nlh, const struct nlmsgerr *e,
		  Exchange *x)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	size_t offset = sizeof(*e);

	if (!(nlh->nlmsg_flags & NLM_F_CAPPED))
		offset += e->msg.nlmsg_len - NLMSG_HDRLEN;
	if (!parse_ack_tlvs(nlh, offset, tb))
		return;
	if (tb[NLMSGERR_ATTR_MSG])
		x->extack = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	if (tb[NLMSGERR_ATTR_OFFS] && x->request &&
	    nla_len(tb[NLMSGERR_ATTR_OFFS]) >= 4)
		x->attr = attr_name_at(x->request,
				       nla_get_u32(tb[NLMSGERR_ATTR_OFFS]));
	if (tb[NLMSGERR_ATTR_POLICY])
		x->range = policy_range(tb[NLMSGERR_ATTR_POLICY]);
}

int on_error(struct sockaddr_nl *, struct nlmsgerr *e, void *arg)
{
	auto *x = static_cast<Exchange *>(arg);
	auto *nlh = reinterpret_cast<struct nlmsghdr *>(
		reinterpret_cast<char *>(e) - NLMSG_HDRLEN);

	x->err = -e->error;
	parse_extack(nlh, e, x);
	x->done = true;
	return NL_STOP;
}

int on_ack(struct nl_msg *, void *arg)
{
	static_cast<Exchange *>(arg)->done = true;
	return NL_STOP;
}

// The end of a dump, which carries the error dumpit failed with, if any.
int on_done(struct nl_msg *msg, void *arg)
{
	auto *x = static_cast<Exchange *>(arg);

	x->err = dump_done_error(nlmsg_hdr(msg), &x->extack);
	x->done = true;
	return NL_STOP;
}

// Events are not answers to a request: their sequence numbers are 0.
int no_seq_check(struct nl_msg *, void *)
{
	return NL_OK;
}

}  // namespace

int dump_done_error(const struct nlmsghdr *nlh, std::string *extack)
{
	struct nlattr *tb[NLMSGERR_ATTR_MAX + 1];
	int err;

	if (nlh->nlmsg_len < NLMSG_LENGTH(sizeof(err)))
		return 0;
	memcpy(&err, nlmsg_data(nlh), sizeof(err));
	if (err >= 0)
		return 0;
	if (parse_ack_tlvs(nlh, sizeof(err), tb) && tb[NLMSGERR_ATTR_MSG])
		*extack = nla_get_string(tb[NLMSGERR_ATTR_MSG]);
	return -err;
}

void parse_nested(const nlattr *nest, int max, struct nla_policy *policy,
		  struct nlattr **tb)
{
	int ret = nla_parse_nested(tb, max, const_cast<nlattr *>(nest), policy);

	if (ret < 0)
		throw NetlinkError(EPROTO, std::string("malformed reply from "
					   "the kernel: ") + nl_geterror(ret));
}

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
	x.request = nlmsg_hdr(msg.get());
	nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb.get(), NL_CB_FINISH, NL_CB_CUSTOM, on_done, &x);
	nl_cb_set(cb.get(), NL_CB_ACK, NL_CB_CUSTOM, on_ack, &x);
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
	if (x.err) {
		NetlinkError e(x.err, strerror(x.err), x.extack);
		e.attr = x.attr;
		e.range = x.range;
		throw e;
	}
}

void GenlClient::listen(const OnEvent &on_event)
{
	int grp = genl_ctrl_resolve_grp(sock_.get(), VERBSGATE_GENL_NAME,
					VERBSGATE_MCGRP_EVENTS);
	if (grp < 0)
		throw NetlinkError(EIO, std::string("cannot resolve the events "
			"group: ") + nl_geterror(grp));
	int ret = nl_socket_add_membership(sock_.get(), grp);
	if (ret < 0)
		throw NetlinkError(EIO, std::string("cannot join the events "
			"group: ") + nl_geterror(ret));

	std::unique_ptr<nl_cb, void (*)(nl_cb *)> cb(nl_cb_alloc(NL_CB_DEFAULT),
						     nl_cb_put);
	if (!cb)
		throw NetlinkError(ENOMEM, "out of memory");
	Exchange x;
	x.on_event = &on_event;
	nl_cb_set(cb.get(), NL_CB_VALID, NL_CB_CUSTOM, on_valid, &x);
	nl_cb_set(cb.get(), NL_CB_SEQ_CHECK, NL_CB_CUSTOM, no_seq_check, nullptr);
	for (;;) {
		ret = nl_recvmsgs(sock_.get(), cb.get());
		if (!x.parse_error.empty())
			throw NetlinkError(EPROTO, "malformed event: " +
							   x.parse_error);
		if (ret < 0)
			throw NetlinkError(EIO, std::string("netlink: ") +
						nl_geterror(ret));
	}
}

}  // namespace vg
