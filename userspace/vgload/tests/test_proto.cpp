// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include "proto.h"

using namespace vgload;

TEST(Proto, SpecRoundTrip)
{
	SessionSpec s;

	s.mode = 4;
	s.op = 3;
	s.qp_type = 1;
	s.post_recv = 0;
	s.min_rnr_timer = 1;
	s.size = 4096;
	s.qps = 2;
	s.depth = 16;
	s.mrs = 3;
	s.mr_size = 1ull << 33;
	s.session_timeout_ms = 65000;
	for (int i = 0; i < 16; i++)
		s.gid[i] = uint8_t(i * 3);
	s.mtu = 1024;
	s.qp = { { 0x11, 0xabcdef }, { 0x12, 0x1 } };
	SessionSpec d = decode_spec(encode(s));

	EXPECT_EQ(d.mode, 4);
	EXPECT_EQ(d.op, 3);
	EXPECT_EQ(d.qp_type, 1);
	EXPECT_EQ(d.post_recv, 0);
	EXPECT_EQ(d.min_rnr_timer, 1);
	EXPECT_EQ(d.size, 4096u);
	EXPECT_EQ(d.depth, 16u);
	EXPECT_EQ(d.mr_size, 1ull << 33);
	EXPECT_EQ(d.session_timeout_ms, 65000u);
	EXPECT_EQ(0, memcmp(d.gid, s.gid, 16));
	ASSERT_EQ(d.qp.size(), 2u);
	EXPECT_EQ(d.qp[1].qpn, 0x12u);
	EXPECT_EQ(d.qp[0].psn, 0xabcdefu);
}

TEST(Proto, SpecQpCountMustMatch)
{
	SessionSpec s;

	s.qps = 3;
	s.qp = { { 1, 1 } };
	EXPECT_THROW(decode_spec(encode(s)), ProtocolError);
}

TEST(Proto, ReadyAndStatsRoundTrip)
{
	ReadyMsg r;

	r.ok = 0;
	r.message = "--qps 100000 exceeds max_qp";
	r.mtu = 4096;
	r.qkey = 0x11111111;
	r.max_dest_rd_atomic = 16;
	r.qp = { { 7, 8 } };
	r.mr = { { 0x7f0000001000ull, 4096, 0x1234 }, { 2, 3, 4 } };
	ReadyMsg d = decode_ready(encode(r));

	EXPECT_EQ(d.ok, 0);
	EXPECT_EQ(d.message, r.message);
	EXPECT_EQ(d.qkey, r.qkey);
	EXPECT_EQ(d.max_dest_rd_atomic, 16u);
	ASSERT_EQ(d.mr.size(), 2u);
	EXPECT_EQ(d.mr[0].addr, 0x7f0000001000ull);
	EXPECT_EQ(d.mr[0].rkey, 0x1234u);

	StatsMsg s;

	s.recv_completions = 5;
	s.recv_bytes = 1ull << 40;
	s.errors["IBV_WC_WR_FLUSH_ERR"] = 9;
	StatsMsg sd = decode_stats(encode(s));

	EXPECT_EQ(sd.recv_completions, 5u);
	EXPECT_EQ(sd.recv_bytes, 1ull << 40);
	EXPECT_EQ(sd.errors.at("IBV_WC_WR_FLUSH_ERR"), 9u);
	EXPECT_EQ(decode_text(encode_text("bye")), "bye");
}

TEST(Proto, RejectsTruncatedAndTrailing)
{
	std::vector<uint8_t> b = encode(StatsMsg{});

	b.pop_back();
	EXPECT_THROW(decode_stats(b), ProtocolError);
	b = encode(StatsMsg{});
	b.push_back(0);
	EXPECT_THROW(decode_stats(b), ProtocolError);

	// A huge array count must not allocate: it exceeds the bytes left.
	Encoder e;

	e.u8(1);
	e.str("");
	for (int i = 0; i < 16; i++)
		e.u8(0);
	e.u32(0);
	e.u32(0);
	e.u32(0);
	e.u32(0xffffffff);  // QP count
	EXPECT_THROW(decode_ready(e.buf()), ProtocolError);
}

TEST(Proto, Framing)
{
	std::vector<uint8_t> f = frame(MsgType::Fin, { 1, 2, 3 });
	MsgType t;
	uint32_t len;

	ASSERT_EQ(f.size(), FRAME_HEADER + 3);
	parse_header(f.data(), t, len);
	EXPECT_EQ(t, MsgType::Fin);
	EXPECT_EQ(len, 3u);
	EXPECT_STREQ(msg_type_name(t), "FIN");

	std::vector<uint8_t> bad = f;
	bad[0] ^= 0xff;  // magic
	EXPECT_THROW(parse_header(bad.data(), t, len), ProtocolError);
	bad = f;
	bad[4] = 99;     // version
	EXPECT_THROW(parse_header(bad.data(), t, len), ProtocolError);
	bad = f;
	bad[6] = 42;     // type
	EXPECT_THROW(parse_header(bad.data(), t, len), ProtocolError);
	bad = f;
	bad[11] = 0x7f;  // length > 64 MiB
	EXPECT_THROW(parse_header(bad.data(), t, len), ProtocolError);
}
