// SPDX-License-Identifier: GPL-2.0-only
#include "proto.h"

#include <cstring>

namespace vgload {

const char *msg_type_name(MsgType t)
{
	switch (t) {
	case MsgType::Hello: return "HELLO";
	case MsgType::Ready: return "READY";
	case MsgType::Abort: return "ABORT";
	case MsgType::Fin: return "FIN";
	case MsgType::Stats: return "STATS";
	}
	return "UNKNOWN";
}

void Encoder::u16(uint16_t v)
{
	u8(uint8_t(v));
	u8(uint8_t(v >> 8));
}

void Encoder::u32(uint32_t v)
{
	u16(uint16_t(v));
	u16(uint16_t(v >> 16));
}

void Encoder::u64(uint64_t v)
{
	u32(uint32_t(v));
	u32(uint32_t(v >> 32));
}

void Encoder::str(const std::string &s)
{
	u32(uint32_t(s.size()));
	bytes(reinterpret_cast<const uint8_t *>(s.data()), s.size());
}

void Decoder::need(size_t n) const
{
	if (b_.size() - off_ < n)
		throw ProtocolError("truncated message");
}

uint8_t Decoder::u8()
{
	need(1);
	return b_[off_++];
}

uint16_t Decoder::u16()
{
	uint16_t lo = u8();

	return uint16_t(lo | (uint16_t(u8()) << 8));
}

uint32_t Decoder::u32()
{
	uint32_t lo = u16();

	return lo | (uint32_t(u16()) << 16);
}

uint64_t Decoder::u64()
{
	uint64_t lo = u32();

	return lo | (uint64_t(u32()) << 32);
}

void Decoder::bytes(uint8_t *p, size_t n)
{
	need(n);
	memcpy(p, b_.data() + off_, n);
	off_ += n;
}

std::string Decoder::str()
{
	uint32_t n = u32();

	need(n);
	std::string s(reinterpret_cast<const char *>(b_.data() + off_), n);
	off_ += n;
	return s;
}

uint32_t Decoder::count(size_t min_elem)
{
	uint32_t n = u32();

	if (min_elem && n > (b_.size() - off_) / min_elem)
		throw ProtocolError("array length exceeds message");
	return n;
}

void Decoder::finish() const
{
	if (off_ != b_.size())
		throw ProtocolError("trailing bytes in message");
}

static void put_qps(Encoder &e, const std::vector<QpEndpoint> &v)
{
	e.u32(uint32_t(v.size()));
	for (const auto &q : v) {
		e.u32(q.qpn);
		e.u32(q.psn);
	}
}

static std::vector<QpEndpoint> get_qps(Decoder &d)
{
	std::vector<QpEndpoint> v(d.count(8));

	for (auto &q : v) {
		q.qpn = d.u32();
		q.psn = d.u32();
	}
	return v;
}

static void put_map(Encoder &e, const std::map<std::string, uint64_t> &m)
{
	e.u32(uint32_t(m.size()));
	for (const auto &kv : m) {
		e.str(kv.first);
		e.u64(kv.second);
	}
}

static std::map<std::string, uint64_t> get_map(Decoder &d)
{
	std::map<std::string, uint64_t> m;
	uint32_t n = d.count(12);

	for (uint32_t i = 0; i < n; i++) {
		std::string k = d.str();

		m[k] = d.u64();
	}
	return m;
}

std::vector<uint8_t> encode(const SessionSpec &m)
{
	Encoder e;

	e.u8(m.mode);
	e.u8(m.op);
	e.u8(m.qp_type);
	e.u8(m.post_recv);
	e.u8(m.min_rnr_timer);
	e.u32(m.size);
	e.u32(m.qps);
	e.u32(m.depth);
	e.u32(m.mrs);
	e.u64(m.mr_size);
	e.u32(m.session_timeout_ms);
	e.bytes(m.gid, 16);
	e.u32(m.mtu);
	put_qps(e, m.qp);
	return e.buf();
}

SessionSpec decode_spec(const std::vector<uint8_t> &p)
{
	Decoder d(p);
	SessionSpec m;

	m.mode = d.u8();
	m.op = d.u8();
	m.qp_type = d.u8();
	m.post_recv = d.u8();
	m.min_rnr_timer = d.u8();
	m.size = d.u32();
	m.qps = d.u32();
	m.depth = d.u32();
	m.mrs = d.u32();
	m.mr_size = d.u64();
	m.session_timeout_ms = d.u32();
	d.bytes(m.gid, 16);
	m.mtu = d.u32();
	m.qp = get_qps(d);
	d.finish();
	if (m.qp.size() != m.qps)
		throw ProtocolError("HELLO lists " + std::to_string(m.qp.size()) +
				    " QPs but asks for " + std::to_string(m.qps));
	return m;
}

std::vector<uint8_t> encode(const ReadyMsg &m)
{
	Encoder e;

	e.u8(m.ok);
	e.str(m.message);
	e.bytes(m.gid, 16);
	e.u32(m.mtu);
	e.u32(m.qkey);
	e.u32(m.max_dest_rd_atomic);
	put_qps(e, m.qp);
	e.u32(uint32_t(m.mr.size()));
	for (const auto &r : m.mr) {
		e.u64(r.addr);
		e.u64(r.len);
		e.u32(r.rkey);
	}
	return e.buf();
}

ReadyMsg decode_ready(const std::vector<uint8_t> &p)
{
	Decoder d(p);
	ReadyMsg m;

	m.ok = d.u8();
	m.message = d.str();
	d.bytes(m.gid, 16);
	m.mtu = d.u32();
	m.qkey = d.u32();
	m.max_dest_rd_atomic = d.u32();
	m.qp = get_qps(d);
	m.mr.resize(d.count(20));
	for (auto &r : m.mr) {
		r.addr = d.u64();
		r.len = d.u64();
		r.rkey = d.u32();
	}
	d.finish();
	return m;
}

std::vector<uint8_t> encode(const StatsMsg &m)
{
	Encoder e;

	e.u64(m.recv_completions);
	e.u64(m.recv_bytes);
	put_map(e, m.errors);
	return e.buf();
}

StatsMsg decode_stats(const std::vector<uint8_t> &p)
{
	Decoder d(p);
	StatsMsg m;

	m.recv_completions = d.u64();
	m.recv_bytes = d.u64();
	m.errors = get_map(d);
	d.finish();
	return m;
}

std::vector<uint8_t> encode_text(const std::string &s)
{
	Encoder e;

	e.str(s);
	return e.buf();
}

std::string decode_text(const std::vector<uint8_t> &p)
{
	Decoder d(p);
	std::string s = d.str();

	d.finish();
	return s;
}

std::vector<uint8_t> frame(MsgType t, const std::vector<uint8_t> &payload)
{
	Encoder e;

	e.u32(PROTO_MAGIC);
	e.u16(PROTO_VERSION);
	e.u16(uint16_t(t));
	e.u32(uint32_t(payload.size()));
	std::vector<uint8_t> out = e.buf();

	out.insert(out.end(), payload.begin(), payload.end());
	return out;
}

void parse_header(const uint8_t *h, MsgType &type, uint32_t &len)
{
	std::vector<uint8_t> v(h, h + FRAME_HEADER);
	Decoder d(v);
	uint32_t magic = d.u32();
	uint16_t ver = d.u16();
	uint16_t t = d.u16();

	len = d.u32();
	if (magic != PROTO_MAGIC)
		throw ProtocolError("peer is not vgload (bad magic)");
	if (ver != PROTO_VERSION)
		throw ProtocolError("peer speaks vgload protocol " +
				    std::to_string(ver) + ", this build speaks " +
				    std::to_string(PROTO_VERSION));
	if (t < uint16_t(MsgType::Hello) || t > uint16_t(MsgType::Stats))
		throw ProtocolError("unknown message type " + std::to_string(t));
	if (len > PROTO_MAX_PAYLOAD)
		throw ProtocolError("message too long (" + std::to_string(len) +
				    " bytes)");
	type = MsgType(t);
}

}  // namespace vgload
