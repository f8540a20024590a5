// SPDX-License-Identifier: GPL-2.0-only
// Client/server messages exchanged over TCP during connection setup and at
// the end of a run. Encoded explicitly little-endian with a magic and a
// version so that a stray connection or a mismatched build is refused with
// a message instead of misread.
//
//   client                         server
//   HELLO (spec, QPs, GID)   ->
//                            <-    READY (status, QPs, GID, MRs) | ABORT
//   ... traffic ...
//                            <-    ABORT (server gave up, reason)
//   FIN                      ->
//                            <-    STATS (receive-side counters)
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

namespace vgload {

constexpr uint32_t PROTO_MAGIC = 0x444c4756;  // "VGLD"
constexpr uint16_t PROTO_VERSION = 1;
constexpr uint32_t PROTO_MAX_PAYLOAD = 64u << 20;

enum class MsgType : uint16_t {
	Hello = 1,
	Ready = 2,
	Abort = 3,
	Fin = 4,
	Stats = 5,
};

const char *msg_type_name(MsgType t);

struct ProtocolError : std::runtime_error {
	using std::runtime_error::runtime_error;
};

struct QpEndpoint {
	uint32_t qpn = 0;
	uint32_t psn = 0;
};

struct MrInfo {
	uint64_t addr = 0;
	uint64_t len = 0;
	uint32_t rkey = 0;
};

// What the client asks the server to mirror.
struct SessionSpec {
	uint8_t mode = 0;          // Mode, informational
	uint8_t op = 0;            // Op
	uint8_t qp_type = 0;       // QpType
	uint8_t post_recv = 1;
	uint8_t min_rnr_timer = 12;
	uint32_t size = 0;
	uint32_t qps = 0;
	uint32_t depth = 0;
	uint32_t mrs = 0;
	uint64_t mr_size = 0;
	uint32_t session_timeout_ms = 0;  // server gives up after this
	uint8_t gid[16] = {};
	uint32_t mtu = 0;                 // client's active MTU in bytes
	std::vector<QpEndpoint> qp;
};

struct ReadyMsg {
	uint8_t ok = 1;
	std::string message;
	uint8_t gid[16] = {};
	uint32_t mtu = 0;
	uint32_t qkey = 0;                // UD
	uint32_t max_dest_rd_atomic = 0;  // RC: READs/atomics it accepts in flight
	std::vector<QpEndpoint> qp;
	std::vector<MrInfo> mr;
};

struct StatsMsg {
	uint64_t recv_completions = 0;
	uint64_t recv_bytes = 0;
	std::map<std::string, uint64_t> errors;
};

// Byte-level encoding helpers.
class Encoder {
public:
	void u8(uint8_t v) { b_.push_back(v); }
	void u16(uint16_t v);
	void u32(uint32_t v);
	void u64(uint64_t v);
	void bytes(const uint8_t *p, size_t n) { b_.insert(b_.end(), p, p + n); }
	void str(const std::string &s);
	const std::vector<uint8_t> &buf() const { return b_; }

private:
	std::vector<uint8_t> b_;
};

class Decoder {
public:
	Decoder(const std::vector<uint8_t> &b) : b_(b) {}
	uint8_t u8();
	uint16_t u16();
	uint32_t u32();
	uint64_t u64();
	void bytes(uint8_t *p, size_t n);
	std::string str();
	// Element count of a following array, checked against the bytes left.
	uint32_t count(size_t min_elem_bytes);
	void finish() const;   // throws if bytes are left over

private:
	void need(size_t n) const;
	const std::vector<uint8_t> &b_;
	size_t off_ = 0;
};

std::vector<uint8_t> encode(const SessionSpec &m);
std::vector<uint8_t> encode(const ReadyMsg &m);
std::vector<uint8_t> encode(const StatsMsg &m);
std::vector<uint8_t> encode_text(const std::string &s);  // ABORT

SessionSpec decode_spec(const std::vector<uint8_t> &p);
ReadyMsg decode_ready(const std::vector<uint8_t> &p);
StatsMsg decode_stats(const std::vector<uint8_t> &p);
std::string decode_text(const std::vector<uint8_t> &p);

// Frame header: magic u32, version u16, type u16, payload length u32.
constexpr size_t FRAME_HEADER = 12;
std::vector<uint8_t> frame(MsgType t, const std::vector<uint8_t> &payload);
// Parses a header; throws ProtocolError on bad magic/version/length.
void parse_header(const uint8_t *h, MsgType &type, uint32_t &len);

}  // namespace vgload
