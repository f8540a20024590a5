// SPDX-License-Identifier: GPL-2.0-only
// TCP side channel: connection setup and the end-of-run exchange. Every
// wait has a deadline; a peer that vanishes shows up as PeerClosed (EOF,
// reset, or keepalive failure), never as a hang.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "error.h"
#include "proto.h"

namespace vgload {

struct PeerClosed : RunError {
	using RunError::RunError;
};

struct TimeoutError : RunError {
	using RunError::RunError;
};

// Owns a file descriptor.
class Fd {
public:
	Fd() = default;
	explicit Fd(int fd) : fd_(fd) {}
	~Fd() { reset(); }
	Fd(Fd &&o) noexcept : fd_(o.release()) {}
	Fd &operator=(Fd &&o) noexcept
	{
		if (this != &o) {
			reset();
			fd_ = o.release();
		}
		return *this;
	}
	Fd(const Fd &) = delete;
	Fd &operator=(const Fd &) = delete;

	int get() const { return fd_; }
	explicit operator bool() const { return fd_ >= 0; }
	int release()
	{
		int f = fd_;

		fd_ = -1;
		return f;
	}
	void reset(int fd = -1);

private:
	int fd_ = -1;
};

class Conn {
public:
	Conn() = default;
	Conn(Fd fd, std::string peer);

	// Connects, retrying refused/unreachable attempts until the timeout
	// so a client may start before its server is listening.
	static Conn connect_to(const std::string &host, uint16_t port,
			       double timeout_s);

	void send(MsgType t, const std::vector<uint8_t> &payload,
		  int timeout_ms = 5000);

	// Waits up to timeout_ms (0: don't wait) for one message. Returns
	// false on timeout; throws PeerClosed on EOF/reset and
	// ProtocolError on garbage.
	bool recv(MsgType &t, std::vector<uint8_t> &payload, int timeout_ms);

	// recv() that must produce `want` within the timeout; an ABORT from
	// the peer becomes a RunError carrying the peer's reason.
	std::vector<uint8_t> expect(MsgType want, int timeout_ms,
				    const char *during);

	int fd() const { return fd_.get(); }
	const std::string &peer() const { return peer_; }
	bool valid() const { return bool(fd_); }
	void close() { fd_.reset(); }

private:
	bool take_frame(MsgType &t, std::vector<uint8_t> &payload);

	Fd fd_;
	std::string peer_;
	std::vector<uint8_t> rx_;
};

class Listener {
public:
	explicit Listener(uint16_t port);

	// Waits up to timeout_ms for a connection; returns an invalid Conn
	// on timeout or EINTR.
	Conn accept(int timeout_ms);

	int fd() const { return fd_.get(); }

private:
	Fd fd_;
	uint16_t port_;
};

// Configures keepalive so a dead peer host is noticed within seconds.
void set_keepalive(int fd);

}  // namespace vgload
