// SPDX-License-Identifier: GPL-2.0-only
#include "tcp.h"

#include <arpa/inet.h>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>

#include "clock.h"
#include "signals.h"

namespace vgload {

void Fd::reset(int fd)
{
	if (fd_ >= 0)
		::close(fd_);
	fd_ = fd;
}

static void set_nonblock(int fd)
{
	int fl = fcntl(fd, F_GETFL);

	if (fl < 0 || fcntl(fd, F_SETFL, fl | O_NONBLOCK) < 0)
		throw SysError("fcntl(O_NONBLOCK)", errno);
}

void set_keepalive(int fd)
{
	int one = 1, idle = 5, intvl = 2, cnt = 3;

	// Best effort: a failure here only delays detecting a dead host.
	setsockopt(fd, SOL_SOCKET, SO_KEEPALIVE, &one, sizeof(one));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE, &idle, sizeof(idle));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL, &intvl, sizeof(intvl));
	setsockopt(fd, IPPROTO_TCP, TCP_KEEPCNT, &cnt, sizeof(cnt));
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
}

static std::string addr_string(const sockaddr *sa)
{
	char host[INET6_ADDRSTRLEN] = "?";
	uint16_t port = 0;

	if (sa->sa_family == AF_INET) {
		auto *in = reinterpret_cast<const sockaddr_in *>(sa);

		inet_ntop(AF_INET, &in->sin_addr, host, sizeof(host));
		port = ntohs(in->sin_port);
		return std::string(host) + ":" + std::to_string(port);
	}
	if (sa->sa_family == AF_INET6) {
		auto *in6 = reinterpret_cast<const sockaddr_in6 *>(sa);

		inet_ntop(AF_INET6, &in6->sin6_addr, host, sizeof(host));
		port = ntohs(in6->sin6_port);
	}
	return "[" + std::string(host) + "]:" + std::to_string(port);
}

static int remaining_ms(uint64_t deadline)
{
	uint64_t now = now_ns();

	return now >= deadline ? 0 : int((deadline - now + 999999) / 1000000);
}

Conn::Conn(Fd fd, std::string peer) : fd_(std::move(fd)), peer_(std::move(peer))
{
}

Conn Conn::connect_to(const std::string &host, uint16_t port, double timeout_s)
{
	uint64_t deadline = now_ns() + seconds_to_ns(timeout_s);
	std::string target = host + ":" + std::to_string(port);
	int last_err = 0;

	for (;;) {
		addrinfo hints{}, *res = nullptr;

		hints.ai_family = AF_UNSPEC;
		hints.ai_socktype = SOCK_STREAM;
		int g = getaddrinfo(host.c_str(), std::to_string(port).c_str(),
				    &hints, &res);
		if (g)
			throw RunError("cannot resolve server '" + host +
				       "': " + gai_strerror(g));
		for (addrinfo *ai = res; ai; ai = ai->ai_next) {
			Fd fd(socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC,
				     ai->ai_protocol));

			if (!fd) {
				last_err = errno;
				continue;
			}
			set_nonblock(fd.get());
			int rc = ::connect(fd.get(), ai->ai_addr, ai->ai_addrlen);

			if (rc < 0 && errno == EINPROGRESS) {
				pollfd p{ fd.get(), POLLOUT, 0 };
				int ms = remaining_ms(deadline);

				int pr = poll(&p, 1, ms ? ms : 1);

				if (pr == 1) {
					int err = 0;
					socklen_t l = sizeof(err);

					getsockopt(fd.get(), SOL_SOCKET, SO_ERROR,
						   &err, &l);
					rc = err ? -1 : 0;
					errno = err;
				} else {
					rc = -1;
					if (pr == 0)
						errno = ETIMEDOUT;
				}
			}
			if (rc == 0) {
				std::string peer = addr_string(ai->ai_addr);

				freeaddrinfo(res);
				set_keepalive(fd.get());
				return Conn(std::move(fd), peer);
			}
			last_err = errno;
		}
		freeaddrinfo(res);
		if (now_ns() >= deadline)
			break;
		if (stop_requested())
			throw RunError("interrupted while connecting to " + target);
		// The server may still be starting: retry until the deadline.
		sleep_until_ns(std::min<uint64_t>(deadline, now_ns() + 100000000ull));
	}
	throw SysError("connect to " + target, last_err ? last_err : ETIMEDOUT,
		       "gave up after " + std::to_string(int(timeout_s)) +
			       " s (--connect-timeout); is `vgload server` running there?");
}

void Conn::send(MsgType t, const std::vector<uint8_t> &payload, int timeout_ms)
{
	std::vector<uint8_t> f = frame(t, payload);
	size_t off = 0;
	uint64_t deadline = now_ns() + uint64_t(timeout_ms) * 1000000ull;

	while (off < f.size()) {
		ssize_t n = ::send(fd_.get(), f.data() + off, f.size() - off,
				   MSG_NOSIGNAL);

		if (n > 0) {
			off += size_t(n);
			continue;
		}
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
			pollfd p{ fd_.get(), POLLOUT, 0 };
			int ms = remaining_ms(deadline);

			if (!ms)
				throw TimeoutError(std::string("sending ") +
						   msg_type_name(t) + " to " + peer_ +
						   " timed out");
			poll(&p, 1, ms);
			continue;
		}
		if (errno == EPIPE || errno == ECONNRESET)
			throw PeerClosed(peer_ + " closed the connection");
		throw SysError(std::string("send ") + msg_type_name(t), errno);
	}
}

bool Conn::take_frame(MsgType &t, std::vector<uint8_t> &payload)
{
	uint32_t len;

	if (rx_.size() < FRAME_HEADER)
		return false;
	parse_header(rx_.data(), t, len);
	if (rx_.size() < FRAME_HEADER + len)
		return false;
	payload.assign(rx_.begin() + FRAME_HEADER,
		       rx_.begin() + FRAME_HEADER + len);
	rx_.erase(rx_.begin(), rx_.begin() + FRAME_HEADER + len);
	return true;
}

bool Conn::recv(MsgType &t, std::vector<uint8_t> &payload, int timeout_ms)
{
	uint64_t deadline = now_ns() + uint64_t(timeout_ms) * 1000000ull;

	for (;;) {
		if (take_frame(t, payload))
			return true;
		uint8_t buf[65536];
		ssize_t n = ::recv(fd_.get(), buf, sizeof(buf), 0);

		if (n > 0) {
			rx_.insert(rx_.end(), buf, buf + n);
			continue;
		}
		if (n == 0)
			throw PeerClosed(peer_ + " closed the connection");
		if (errno == EINTR)
			return false;  // let the caller look at its stop flag
		if (errno == ECONNRESET || errno == ETIMEDOUT ||
		    errno == EHOSTUNREACH)
			throw PeerClosed(peer_ + " connection lost: " +
					 errno_text(errno));
		if (errno != EAGAIN && errno != EWOULDBLOCK)
			throw SysError("recv from " + peer_, errno);
		int ms = remaining_ms(deadline);

		if (!ms)
			return false;
		pollfd p{ fd_.get(), POLLIN, 0 };

		if (poll(&p, 1, ms) < 0 && errno == EINTR)
			return false;
	}
}

std::vector<uint8_t> Conn::expect(MsgType want, int timeout_ms,
				  const char *during)
{
	MsgType t;
	std::vector<uint8_t> p;
	uint64_t deadline = now_ns() + uint64_t(timeout_ms) * 1000000ull;

	for (;;) {
		if (recv(t, p, remaining_ms(deadline)))
			break;
		if (stop_requested())
			throw RunError(std::string("interrupted while waiting for ") +
				       msg_type_name(want) + " from " + peer_);
		if (!remaining_ms(deadline))
			throw TimeoutError(std::string("no ") + msg_type_name(want) +
					   " from " + peer_ + " within " +
					   std::to_string(timeout_ms) + " ms " +
					   during);
	}
	if (t == MsgType::Abort)
		throw RunError(peer_ + " aborted " + during + ": " +
			       decode_text(p));
	if (t != want)
		throw ProtocolError(std::string("expected ") + msg_type_name(want) +
				    " from " + peer_ + ", got " + msg_type_name(t));
	return p;
}

Listener::Listener(uint16_t port) : port_(port)
{
	// IPv6 socket with V6ONLY off accepts IPv4 too; fall back to IPv4
	// where IPv6 is disabled (common in minimal guests).
	fd_.reset(socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0));
	int one = 1, zero = 0;

	if (fd_) {
		sockaddr_in6 a{};

		a.sin6_family = AF_INET6;
		a.sin6_port = htons(port);
		a.sin6_addr = in6addr_any;
		setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		setsockopt(fd_.get(), IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof(zero));
		if (bind(fd_.get(), reinterpret_cast<sockaddr *>(&a), sizeof(a)) < 0) {
			if (errno == EADDRINUSE)
				throw SysError("bind TCP port " + std::to_string(port),
					       errno, "another server is listening; use --port");
			fd_.reset();
		}
	}
	if (!fd_) {
		fd_.reset(socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0));
		if (!fd_)
			throw SysError("socket", errno);
		sockaddr_in a{};

		a.sin_family = AF_INET;
		a.sin_port = htons(port);
		a.sin_addr.s_addr = htonl(INADDR_ANY);
		setsockopt(fd_.get(), SOL_SOCKET, SO_REUSEADDR, &one, sizeof(one));
		if (bind(fd_.get(), reinterpret_cast<sockaddr *>(&a), sizeof(a)) < 0)
			throw SysError("bind TCP port " + std::to_string(port), errno,
				       errno == EADDRINUSE ?
					       "another server is listening; use --port" :
					       "");
	}
	if (listen(fd_.get(), 16) < 0)
		throw SysError("listen", errno);
	set_nonblock(fd_.get());
}

Conn Listener::accept(int timeout_ms)
{
	pollfd p{ fd_.get(), POLLIN, 0 };

	if (poll(&p, 1, timeout_ms) <= 0)
		return Conn();
	sockaddr_storage ss{};
	socklen_t l = sizeof(ss);
	Fd fd(accept4(fd_.get(), reinterpret_cast<sockaddr *>(&ss), &l,
		      SOCK_CLOEXEC | SOCK_NONBLOCK));

	if (!fd) {
		if (errno == EAGAIN || errno == EINTR || errno == ECONNABORTED)
			return Conn();
		throw SysError("accept", errno);
	}
	set_keepalive(fd.get());
	std::string peer = addr_string(reinterpret_cast<sockaddr *>(&ss));

	// Present IPv4 clients of the dual-stack socket as plain IPv4.
	if (peer.rfind("[::ffff:", 0) == 0) {
		size_t close = peer.find(']');

		peer = peer.substr(8, close - 8) + peer.substr(close + 1);
	}
	return Conn(std::move(fd), peer);
}

}  // namespace vgload
