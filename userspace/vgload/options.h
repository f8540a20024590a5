// SPDX-License-Identifier: GPL-2.0-only
// Command line of vgload: roles, modes, workload options, validation.
#pragma once

#include <cstdint>
#include <set>
#include <string>

namespace vgload {

enum class Role { Server, Client, DevInfo };

// Behaviours. Data-path attackers are presets over the traffic options
// (see modes.cpp); the *Storm modes run control verbs locally.
enum class Mode {
	Traffic,      // plain workload exactly as configured (the victim)
	Bw,           // large WRITEs: bandwidth hog
	SmallFlood,   // just-above-boundary small WRITEs (129 B, 257 B)
	AtomicFlood,  // FAA/CAS flood
	Rnr,          // RC SENDs into QPs without receives (RNR NAK storm)
	NoRecv,       // UC/UD SENDs into QPs without receives (silent drops)
	Wide,         // many QPs x many MRs, one outstanding each, random
	MrStorm,      // ibv_reg_mr / ibv_dereg_mr loop
	QpStorm,      // ibv_create_qp / ibv_destroy_qp loop
	CqStorm,      // ibv_create_cq / ibv_destroy_cq loop
	BlockRead,    // O_DIRECT reads of a block device (a kernel tenant's)
};

enum class Op { Write, WriteImm, Read, Send, Cas, Faa };
enum class QpType { RC, UC, UD };
enum class Access { Sequential, Random };
enum class PollMode { Busy, Event };
// What a traffic operation's latency is timed from.
enum class LatencyFrom { Post, Due };

struct Options {
	Role role = Role::Client;
	std::string host;               // client: server address
	uint16_t port = 18620;
	std::string dev;                // empty: first device with an active port
	int ib_port = 1;
	int gid_index = -1;             // -1: auto (RoCE v2 IPv4-mapped)

	Mode mode = Mode::Traffic;
	Op op = Op::Write;
	QpType qp_type = QpType::RC;
	uint64_t size = 16;             // bytes per operation
	uint32_t qps = 1;
	uint32_t threads = 1;
	uint32_t depth = 1;             // outstanding WRs per QP
	uint32_t post_list = 1;         // WRs per ibv_post_send call
	uint32_t mrs = 1;
	uint64_t mr_size = 0;           // 0: max(size, 4 KiB)
	Access access = Access::Sequential;
	double duration_s = 5;
	uint64_t iters = 0;             // operations per QP; 0: run for duration
	double rate = 0;                // offered ops/s over all threads; 0: max
	LatencyFrom latency_from = LatencyFrom::Post;
	double warmup_s = 0;
	std::string phases;             // client: file to note the run's phases in
	std::string file;               // block-read: the device (or file) to read
	double interval_s = 1;          // 0: no interval reports
	PollMode poll = PollMode::Busy;
	bool post_recv = true;          // server posts receives for SEND/IMM
	int rnr_retry = 7;              // 7 = retry forever
	bool recover = false;           // reset and reconnect a failed QP
	int min_rnr_timer = 12;         // IB encoding; 12 = 0.64 ms, 1 = 0.01 ms
	int retry_cnt = 7;
	int qp_timeout = 14;            // IB encoding: 4.096 us * 2^14 = 67 ms
	uint32_t cqs = 64;              // cq-storm batch
	uint32_t cq_size = 256;         // cq-storm CQE per CQ
	double connect_timeout_s = 10;
	double timeout_s = 0;           // data-phase cap; 0: duration + 30 s
	uint32_t sessions = 0;          // server: exit after N sessions; 0: never
	bool together = false;          // server: hold READY until all N are set up
	bool json = false;
	bool quiet = false;             // no interval lines (human mode)

	std::set<std::string> given;    // long options present on the line

	bool was_given(const std::string &name) const
	{
		return given.count(name) != 0;
	}
};

// Result of parsing: either options to run or a request for help/version.
struct ParseResult {
	Options opts;
	bool help = false;
	bool version = false;
};

// Parses argv (argv[0] is skipped), applies the mode preset for options not
// given explicitly, and validates. Throws UsageError.
ParseResult parse_options(int argc, const char *const *argv);

// Cross-option checks that need no device; throws UsageError.
void validate(Options &o);

std::string usage();

const char *role_name(Role r);
const char *mode_name(Mode m);
const char *op_name(Op o);
const char *qp_type_name(QpType t);
const char *access_name(Access a);
const char *poll_name(PollMode p);
const char *latency_from_name(LatencyFrom l);

bool is_storm(Mode m);
// Whether the mode runs without a server: the storms and block-read.
bool is_local(Mode m);
bool is_atomic(Op o);
// Whether the responder must consume a receive WQE for this opcode.
bool op_needs_recv(Op o);

// Data-phase cap in seconds after defaults are resolved.
double effective_timeout_s(const Options &o);

}  // namespace vgload
