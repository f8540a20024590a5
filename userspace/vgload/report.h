// SPDX-License-Identifier: GPL-2.0-only
// What a run reports, and its two renderings: human text and --json.
// The JSON schema is documented in README.md; bump SCHEMA_VERSION when a
// field changes meaning or disappears.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "options.h"
#include "stats.h"

namespace vgload {

constexpr int SCHEMA_VERSION = 1;
extern const char *const VGLOAD_VERSION;

// Device, port and GID actually used, with the limits that bound a run.
struct DeviceRecord {
	std::string name;
	int port = 0;
	int gid_index = -1;
	std::string gid;
	std::string gid_type;
	std::string port_state;
	int active_mtu = 0;            // bytes
	uint64_t max_msg_sz = 0;
	uint64_t max_mr_size = 0;
	int max_qp = 0, max_qp_wr = 0, max_cq = 0, max_cqe = 0, max_mr = 0,
	    max_pd = 0, max_sge = 0, max_qp_rd_atom = 0,
	    max_qp_init_rd_atom = 0;
	std::string atomic_cap;        // none | hca | global
	std::string fw_ver;
};

// The server's side of a client run (sent back at the end of the run).
struct PeerRecord {
	bool present = false;
	uint64_t recv_completions = 0;
	uint64_t recv_bytes = 0;
	std::map<std::string, uint64_t> errors;
};

struct VerbRecord {
	std::string name;
	uint64_t ops = 0;
	uint64_t errors = 0;
	double ops_per_s = 0;
	LatencySummary lat;
};

struct TotalRecord {
	double duration_s = 0;
	uint64_t ops = 0;
	uint64_t bytes = 0;
	double mops = 0;
	double gbps = 0;
	LatencySummary lat;
	std::map<std::string, uint64_t> errors;
	uint64_t error_total = 0;
	uint64_t flushed_at_stop = 0;  // WRs still outstanding when the run ended
	uint64_t recoveries = 0;       // --recover: failed QPs connected again
	std::vector<VerbRecord> verbs;
};

TotalRecord make_total(const Counters &c, double secs);

struct RunReport {
	const Options *opts = nullptr;
	bool has_device = false;
	DeviceRecord device;
	std::vector<IntervalRecord> intervals;
	TotalRecord total;
	PeerRecord peer;
	// duration | iterations | interrupted | peer_closed | peer_abort |
	// all_qps_failed | timeout | setup_failed
	std::string end_reason;
	bool ok = true;
	std::string message;
	std::vector<std::string> warnings;
};

// Server's record of one client session.
struct SessionRecord {
	uint64_t session = 0;
	std::string client;            // address:port
	std::string mode, op, qp_type;
	uint32_t qps = 0, mrs = 0;
	uint64_t size = 0;
	bool post_recv = true;
	double duration_s = 0;
	PeerRecord recv;               // what this server received
	std::string end_reason;        // fin | client_closed | interrupted | timeout | error
	bool ok = true;
	std::string message;
};

std::string to_json(const RunReport &r);
std::string to_json(const SessionRecord &s);
std::string to_json(const DeviceRecord &d);

// Prints the report to stdout as JSON (--json) or text.
void print_report(const RunReport &r);

// Prints the report of a run that ended, a failed one's reason on stderr
// too; returns the exit status.
int print_final_report(const RunReport &r);

// A run that failed before its data phase: @why on stderr, and with
// --json a report whose end_reason is "setup_failed".
void print_setup_failure(const Options &o, RunReport &rep, const std::string &why);

std::string human_interval(const IntervalRecord &iv);
std::string human_report(const RunReport &r);
std::string human_session(const SessionRecord &s);
std::string human_device(const DeviceRecord &d);

}  // namespace vgload
