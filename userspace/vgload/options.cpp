// SPDX-License-Identifier: GPL-2.0-only
#include "options.h"

#include <functional>
#include <sstream>
#include <vector>

#include "error.h"
#include "modes.h"
#include "units.h"

namespace vgload {

namespace {

enum : unsigned { SRV = 1, CLI = 2, DEV = 4 };

struct OptDef {
	const char *name;
	const char *arg;   // nullptr: flag
	unsigned roles;
	const char *help;
	std::function<void(Options &, const std::string &)> set;
};

uint32_t u32(const std::string &v, const char *what, uint32_t lo = 1)
{
	uint64_t n = parse_count(v, what);

	if (n < lo || n > 0xffffffffull)
		throw UsageError(std::string("invalid ") + what + " '" + v +
				 "': must be at least " + std::to_string(lo));
	return uint32_t(n);
}

template <typename E, size_t N>
E pick(const std::string &v, const char *what,
       const std::pair<const char *, E> (&table)[N])
{
	std::string names;

	for (const auto &kv : table) {
		if (v == kv.first)
			return kv.second;
		names += names.empty() ? "" : "|";
		names += kv.first;
	}
	throw UsageError(std::string("invalid ") + what + " '" + v +
			 "': expected " + names);
}

const std::pair<const char *, Op> op_table[] = {
	{ "write", Op::Write }, { "write-imm", Op::WriteImm },
	{ "read", Op::Read },   { "send", Op::Send },
	{ "cas", Op::Cas },     { "faa", Op::Faa },
};
const std::pair<const char *, QpType> qp_table[] = {
	{ "rc", QpType::RC }, { "uc", QpType::UC }, { "ud", QpType::UD },
};
const std::pair<const char *, Access> access_table[] = {
	{ "seq", Access::Sequential }, { "sequential", Access::Sequential },
	{ "random", Access::Random },
};
const std::pair<const char *, LatencyFrom> latency_from_table[] = {
	{ "post", LatencyFrom::Post }, { "due", LatencyFrom::Due },
};
const std::pair<const char *, PollMode> poll_table[] = {
	{ "busy", PollMode::Busy }, { "event", PollMode::Event },
};

const std::vector<OptDef> &option_table()
{
	static const std::vector<OptDef> t = {
		// Common
		{ "dev", "NAME", SRV | CLI | DEV,
		  "RDMA device (default: first with an active port)",
		  [](Options &o, const std::string &v) { o.dev = v; } },
		{ "ib-port", "N", SRV | CLI | DEV, "device port (default 1)",
		  [](Options &o, const std::string &v) {
			  o.ib_port = int(parse_int(v, "--ib-port", 1, 255));
		  } },
		{ "gid-index", "N", SRV | CLI | DEV,
		  "GID index (default: the RoCE v2 IPv4-mapped GID)",
		  [](Options &o, const std::string &v) {
			  o.gid_index = int(parse_int(v, "--gid-index", 0, 1 << 20));
		  } },
		{ "port", "P", SRV | CLI, "TCP port for connection setup (default 18620)",
		  [](Options &o, const std::string &v) {
			  o.port = uint16_t(parse_int(v, "--port", 1, 65535));
		  } },
		{ "json", nullptr, SRV | CLI | DEV,
		  "machine-readable output (one JSON document; server: one line per session)",
		  [](Options &o, const std::string &) { o.json = true; } },
		{ "quiet", nullptr, SRV | CLI, "no per-interval lines (server: no connect lines)",
		  [](Options &o, const std::string &) { o.quiet = true; } },
		{ "poll", "busy|event", SRV | CLI,
		  "completion polling: busy (inside the bounded run only) or event (completion channel); "
		  "client default busy, server default event",
		  [](Options &o, const std::string &v) {
			  o.poll = pick(v, "--poll", poll_table);
		  } },
		{ "connect-timeout", "SEC", SRV | CLI,
		  "TCP connect/handshake timeout (default 10)",
		  [](Options &o, const std::string &v) {
			  o.connect_timeout_s = parse_seconds(v, "--connect-timeout");
		  } },
		// Server
		{ "sessions", "N", SRV, "exit after N client sessions (default: run until signalled)",
		  [](Options &o, const std::string &v) {
			  o.sessions = u32(v, "--sessions");
		  } },
		{ "once", nullptr, SRV, "same as --sessions 1",
		  [](Options &o, const std::string &) { o.sessions = 1; } },
		{ "together", nullptr, SRV,
		  "start the --sessions N clients' runs together, once all are set up",
		  [](Options &o, const std::string &) { o.together = true; } },
		// Client workload
		{ "mode", "MODE", CLI, "behaviour, see MODES (default traffic)",
		  [](Options &o, const std::string &v) {
			  if (!mode_from_name(v, o.mode))
				  throw UsageError("invalid --mode '" + v +
						   "': see vgload --help for MODES");
		  } },
		{ "op", "OP", CLI, "write|write-imm|read|send|cas|faa (default write)",
		  [](Options &o, const std::string &v) {
			  o.op = pick(v, "--op", op_table);
		  } },
		{ "qp-type", "rc|uc|ud", CLI, "transport (default rc)",
		  [](Options &o, const std::string &v) {
			  o.qp_type = pick(v, "--qp-type", qp_table);
		  } },
		{ "size", "BYTES", CLI, "message size, K/M/G suffixes (default 16)",
		  [](Options &o, const std::string &v) {
			  o.size = parse_size(v, "--size");
		  } },
		{ "qps", "N", CLI, "queue pairs (default 1)",
		  [](Options &o, const std::string &v) { o.qps = u32(v, "--qps"); } },
		{ "threads", "N", CLI, "worker threads, QPs spread round-robin (default 1)",
		  [](Options &o, const std::string &v) {
			  o.threads = u32(v, "--threads");
		  } },
		{ "depth", "N", CLI, "outstanding operations per QP (default 1)",
		  [](Options &o, const std::string &v) { o.depth = u32(v, "--depth"); } },
		{ "post-list", "N", CLI, "work requests per ibv_post_send call (default 1)",
		  [](Options &o, const std::string &v) {
			  o.post_list = u32(v, "--post-list");
		  } },
		{ "mrs", "N", CLI, "memory regions per side (default 1)",
		  [](Options &o, const std::string &v) { o.mrs = u32(v, "--mrs"); } },
		{ "mr-size", "BYTES", CLI, "bytes per MR (default max(size, 4K))",
		  [](Options &o, const std::string &v) {
			  o.mr_size = parse_size(v, "--mr-size");
		  } },
		{ "access", "seq|random", CLI, "how operations pick an MR (default seq)",
		  [](Options &o, const std::string &v) {
			  o.access = pick(v, "--access", access_table);
		  } },
		{ "duration", "SEC", CLI, "measured run time (default 5)",
		  [](Options &o, const std::string &v) {
			  o.duration_s = parse_seconds(v, "--duration");
		  } },
		{ "iters", "N", CLI, "operations per QP, ends the run when all are done",
		  [](Options &o, const std::string &v) {
			  o.iters = parse_count(v, "--iters");
		  } },
		{ "rate", "OPS", CLI, "offered rate in operations/s over all threads (default: unlimited)",
		  [](Options &o, const std::string &v) {
			  o.rate = double(parse_count(v, "--rate"));
		  } },
		{ "latency-from", "post|due", CLI,
		  "time an operation from its post (default), or from when --rate made it due: "
		  "a stall then counts for every operation it held back, and missed ones are "
		  "all posted as soon as there is room",
		  [](Options &o, const std::string &v) {
			  o.latency_from = pick(v, "--latency-from", latency_from_table);
		  } },
		{ "warmup", "SEC", CLI, "unmeasured time before the run (default 0); SIGUSR1 ends it early",
		  [](Options &o, const std::string &v) {
			  o.warmup_s = parse_seconds(v, "--warmup");
		  } },
		{ "phases", "FILE", CLI,
		  "append \"run\", \"measure\" and \"end\" lines, each with the time "
		  "(CLOCK_MONOTONIC seconds), to FILE as the data phase starts, the measured "
		  "run after --warmup starts, and it ends: for scripts that time other work "
		  "by the run",
		  [](Options &o, const std::string &v) {
			  if (v.empty())
				  throw UsageError("--phases needs a file name");
			  o.phases = v;
		  } },
		{ "file", "PATH", CLI,
		  "block-read: the block device (or file) to read, with O_DIRECT",
		  [](Options &o, const std::string &v) {
			  if (v.empty())
				  throw UsageError("--file needs a path");
			  o.file = v;
		  } },
		{ "interval", "SEC", CLI, "report interval, 0 for none (default 1)",
		  [](Options &o, const std::string &v) {
			  o.interval_s = parse_seconds(v, "--interval");
		  } },
		{ "timeout", "SEC", CLI, "hard cap on the data phase (default duration+30, or 300 with --iters)",
		  [](Options &o, const std::string &v) {
			  o.timeout_s = parse_seconds(v, "--timeout");
		  } },
		{ "no-recv", nullptr, CLI, "server posts no receive WQEs (RNR / drop behaviour)",
		  [](Options &o, const std::string &) { o.post_recv = false; } },
		{ "rnr-retry", "0-7", CLI, "RC RNR retry count, 7 = forever (default 7)",
		  [](Options &o, const std::string &v) {
			  o.rnr_retry = int(parse_int(v, "--rnr-retry", 0, 7));
		  } },
		{ "recover", nullptr, CLI, "rnr: reset a QP that failed, connect it again and go on (error storm)",
		  [](Options &o, const std::string &) { o.recover = true; } },
		{ "min-rnr-timer", "0-31", CLI, "server's RNR NAK timer, IB encoding (default 12 = 0.64 ms)",
		  [](Options &o, const std::string &v) {
			  o.min_rnr_timer = int(parse_int(v, "--min-rnr-timer", 0, 31));
		  } },
		{ "retry-cnt", "0-7", CLI, "RC transport retry count (default 7)",
		  [](Options &o, const std::string &v) {
			  o.retry_cnt = int(parse_int(v, "--retry-cnt", 0, 7));
		  } },
		{ "qp-timeout", "0-31", CLI, "RC ACK timeout, 4.096us*2^N (default 14)",
		  [](Options &o, const std::string &v) {
			  o.qp_timeout = int(parse_int(v, "--qp-timeout", 0, 31));
		  } },
		{ "cqs", "N", CLI, "cq-storm: CQs per batch (default 64)",
		  [](Options &o, const std::string &v) { o.cqs = u32(v, "--cqs"); } },
		{ "cq-size", "N", CLI, "cq-storm: CQEs per CQ (default 256)",
		  [](Options &o, const std::string &v) {
			  o.cq_size = u32(v, "--cq-size");
		  } },
	};
	return t;
}

const OptDef *find_opt(const std::string &name)
{
	for (const auto &d : option_table())
		if (name == d.name)
			return &d;
	return nullptr;
}

unsigned role_bit(Role r)
{
	switch (r) {
	case Role::Server: return SRV;
	case Role::Client: return CLI;
	case Role::DevInfo: return DEV;
	}
	return 0;
}

}  // namespace

void set_option(Options &o, const std::string &name, const std::string &value)
{
	const OptDef *d = find_opt(name);

	if (!d)
		throw UsageError("unknown option --" + name);
	d->set(o, value);
}

const char *role_name(Role r)
{
	switch (r) {
	case Role::Server: return "server";
	case Role::Client: return "client";
	case Role::DevInfo: return "devinfo";
	}
	return "?";
}

const char *mode_name(Mode m) { return mode_info(m).name; }

template <typename E, size_t N>
static const char *name_of(E v, const std::pair<const char *, E> (&table)[N])
{
	for (const auto &kv : table)
		if (kv.second == v)
			return kv.first;
	return "?";
}

const char *op_name(Op o) { return name_of(o, op_table); }
const char *qp_type_name(QpType t) { return name_of(t, qp_table); }
const char *access_name(Access a) { return name_of(a, access_table); }
const char *poll_name(PollMode p) { return name_of(p, poll_table); }
const char *latency_from_name(LatencyFrom l)
{
	return name_of(l, latency_from_table);
}

bool is_storm(Mode m)
{
	return m == Mode::MrStorm || m == Mode::QpStorm || m == Mode::CqStorm;
}

bool is_local(Mode m) { return is_storm(m) || m == Mode::BlockRead; }

bool is_atomic(Op o) { return o == Op::Cas || o == Op::Faa; }

bool op_needs_recv(Op o) { return o == Op::Send || o == Op::WriteImm; }

double effective_timeout_s(const Options &o)
{
	if (o.timeout_s > 0)
		return o.timeout_s;
	if (o.iters && !o.was_given("duration"))
		return 300;
	return o.warmup_s + o.duration_s + 30;
}

ParseResult parse_options(int argc, const char *const *argv)
{
	ParseResult r;
	Options &o = r.opts;
	std::vector<std::string> positional;

	for (int i = 1; i < argc; i++) {
		std::string a = argv[i];

		if (a == "-h" || a == "--help") {
			r.help = true;
			return r;
		}
		if (a == "--version") {
			r.version = true;
			return r;
		}
		if (a.size() < 3 || a.compare(0, 2, "--") != 0) {
			if (a.size() > 1 && a[0] == '-')
				throw UsageError("unknown option " + a +
						 " (vgload takes long options only)");
			positional.push_back(a);
			continue;
		}
		std::string name = a.substr(2), value;
		bool inline_value = false;
		size_t eq = name.find('=');

		if (eq != std::string::npos) {
			value = name.substr(eq + 1);
			name = name.substr(0, eq);
			inline_value = true;
		}
		const OptDef *d = find_opt(name);

		if (!d)
			throw UsageError("unknown option --" + name);
		if (d->arg && !inline_value) {
			if (i + 1 >= argc)
				throw UsageError("option --" + name + " needs a value (" +
						 d->arg + ")");
			value = argv[++i];
		} else if (!d->arg && inline_value) {
			throw UsageError("option --" + name + " takes no value");
		}
		d->set(o, value);
		o.given.insert(name);
	}

	if (positional.empty())
		throw UsageError("missing role: server, client or devinfo");
	const std::string &role = positional[0];

	if (role == "server")
		o.role = Role::Server;
	else if (role == "client")
		o.role = Role::Client;
	else if (role == "devinfo")
		o.role = Role::DevInfo;
	else
		throw UsageError("unknown role '" + role +
				 "': expected server, client or devinfo");
	if (o.role == Role::Client && positional.size() == 2)
		o.host = positional[1];
	if (positional.size() > (o.role == Role::Client ? 2u : 1u))
		throw UsageError("unexpected argument '" + positional.back() + "'");

	for (const auto &name : o.given) {
		const OptDef *d = find_opt(name);

		if (!(d->roles & role_bit(o.role)))
			throw UsageError("option --" + name + " does not apply to " +
					 role_name(o.role));
	}
	if (o.role == Role::Server && !o.was_given("poll"))
		o.poll = PollMode::Event;  // the server waits far more than it works

	apply_mode_preset(o);
	validate(o);
	return r;
}

void validate(Options &o)
{
	if (o.role == Role::Server && o.together && !o.sessions)
		throw UsageError("--together needs --sessions N: the clients to wait for");
	if (o.role != Role::Client)
		return;

	if (is_local(o.mode)) {
		if (!o.host.empty())
			throw UsageError(std::string("--mode ") + mode_name(o.mode) +
					 " runs locally and takes no server address");
	} else if (o.host.empty()) {
		throw UsageError("client needs the server address: vgload client HOST [options]");
	}

	if (is_atomic(o.op)) {
		if (o.was_given("size") && o.size != 8)
			throw UsageError("atomic operations move exactly 8 bytes; drop --size or use --size 8");
		o.size = 8;
	}
	if (o.size == 0)
		throw UsageError("--size must be at least 1 byte");
	if (o.size > (1ull << 31))
		throw UsageError("--size exceeds 2 GiB, the largest RDMA message");

	switch (is_storm(o.mode) ? QpType::RC : o.qp_type) {
	case QpType::RC:
		break;
	case QpType::UC:
		if (o.op == Op::Read || is_atomic(o.op))
			throw UsageError(std::string("--op ") + op_name(o.op) +
					 " is not supported on UC QPs (UC allows write, write-imm, send)");
		break;
	case QpType::UD:
		if (o.op != Op::Send)
			throw UsageError(std::string("--op ") + op_name(o.op) +
					 " is not supported on UD QPs (UD allows send only)");
		break;
	}

	if (o.mode == Mode::BlockRead) {
		if (o.file.empty())
			throw UsageError("--mode block-read needs --file PATH: the block device to read");
		// Options that name RDMA resources mean nothing to it.
		for (const char *name : { "dev", "ib-port", "gid-index", "op", "qp-type",
					  "qps", "threads", "post-list", "mrs", "mr-size", "iters" })
			if (o.was_given(name))
				throw UsageError(std::string("--") + name +
						 " does not apply to --mode block-read (it reads --file, "
						 "--depth reads outstanding, one thread each)");
	} else if (!o.file.empty()) {
		throw UsageError("--file applies to --mode block-read only");
	}
	if (!is_local(o.mode) && o.threads > o.qps)
		throw UsageError("--threads " + std::to_string(o.threads) +
				 " exceeds --qps " + std::to_string(o.qps) +
				 ": every thread needs at least one QP");
	// A QP reconnects with the PSNs it started with: right only while
	// none of its requests ever completed, as in the RNR storm (RC SENDs
	// into no receives); later WRs would be taken for duplicates.
	if (o.recover && (o.mode != Mode::Rnr || o.op != Op::Send ||
			  o.qp_type != QpType::RC || o.post_recv))
		throw UsageError("--recover needs --mode rnr, RC SENDs into no receives");
	if (o.latency_from == LatencyFrom::Due && (is_storm(o.mode) || o.rate <= 0))
		throw UsageError("--latency-from due needs --rate: operations are due on its schedule");
	if (o.post_list > o.depth)
		throw UsageError("--post-list " + std::to_string(o.post_list) +
				 " exceeds --depth " + std::to_string(o.depth));
	if (o.mr_size == 0)
		o.mr_size = o.size > 4096 ? o.size : 4096;
	if (o.mr_size < o.size)
		throw UsageError("--mr-size " + std::to_string(o.mr_size) +
				 " is smaller than --size " + std::to_string(o.size));
	if (o.iters == 0 && o.duration_s <= 0)
		throw UsageError("--duration must be positive (or give --iters)");
	if (o.iters && !o.was_given("duration"))
		o.duration_s = 0;  // iterations alone end the run
}

std::string usage()
{
	std::ostringstream s;

	s << "usage: vgload server [options]\n"
	     "       vgload client HOST [options]\n"
	     "       vgload client --mode mr-storm|qp-storm|cq-storm [options]\n"
	     "       vgload client --mode block-read --file PATH [options]\n"
	     "       vgload devinfo [--dev NAME] [--json]\n"
	     "\n"
	     "RDMA traffic engine for victims and attackers (libibverbs). The client drives\n"
	     "the run and sends its configuration to the server, which mirrors its QPs and MRs.\n"
	     "Latency is post-to-completion time per operation from CLOCK_MONOTONIC\n"
	     "(with --rate and --latency-from due: from when the operation was due).\n"
	     "\nOPTIONS (roles in brackets)\n";
	for (const auto &d : option_table()) {
		std::string left = std::string("  --") + d.name;

		if (d.arg)
			left += std::string(" ") + d.arg;
		std::string roles;
		if (d.roles & SRV)
			roles += "S";
		if (d.roles & CLI)
			roles += "C";
		if (d.roles & DEV)
			roles += "D";
		s << left;
		for (size_t n = left.size(); n < 28; n++)
			s << ' ';
		s << " [" << roles << "] " << d.help << "\n";
	}
	s << "  --help, --version\n\nMODES (client --mode; preset values apply unless given)\n";
	for (const auto &m : all_modes()) {
		s << "  " << m.name;
		for (size_t n = std::string(m.name).size(); n < 13; n++)
			s << ' ';
		s << m.summary << "\n";
		if (!m.preset.empty()) {
			s << "               preset:";
			for (const auto &kv : m.preset) {
				s << " --" << kv.first;
				if (*kv.second)
					s << " " << kv.second;
			}
			s << "\n";
		}
	}
	s << "\nExit status: 0 run completed (duration, iterations or interrupted), 1 run failed\n"
	     "(setup, device limit, peer died, timeout), 2 usage error.\n";
	return s.str();
}

}  // namespace vgload
