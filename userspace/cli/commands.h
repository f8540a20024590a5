// SPDX-License-Identifier: GPL-2.0-only
// The objects of the verbsgate CLI; each returns the process exit code.
#pragma once

#include "args.h"
#include "genl_client.h"

#include <iosfwd>
#include <memory>
#include <string>

namespace vg {

class JsonWriter;
struct Tenant;
struct TenantStats;
struct Device;
struct Qp;

// Where a command prints, with the global options, and the netlink
// connection, made on first use and shared by the commands of a batch.
class Output {
public:
	Output(const GlobalOptions &o, std::ostream &s) : opts(o), out(s) {}

	const GlobalOptions &opts;
	std::ostream &out;

	GenlClient &nl() const;

private:
	mutable std::unique_ptr<GenlClient> nl_;
};

int cmd_status(Args &args, const Output &o);
int cmd_dev(Args &args, const Output &o);
int cmd_tenant(Args &args, const Output &o);
int cmd_qp(Args &args, const Output &o);
int cmd_stats(Args &args, const Output &o);
int cmd_monitor(Args &args, const Output &o);

void usage_status(std::ostream &out);
void usage_dev(std::ostream &out);
void usage_tenant(std::ostream &out);
void usage_qp(std::ostream &out);
void usage_stats(std::ostream &out);
void usage_monitor(std::ostream &out);

// Prints a JSON document (compact or, with -p, indented) and a newline.
void print_json(const Output &o, const std::string &compact);

// One tenant, device or QP, as `tenant show` / `dev show` / `qp show`
// print it (also used by `monitor`). The text forms end without a newline.
std::string tenant_text(const Tenant &t);
void tenant_json(JsonWriter &w, const Tenant &t);
std::string dev_text(const Device &d, bool details);
void dev_json(JsonWriter &w, const Device &d, bool details);
std::string qp_text(const Qp &q, bool stats);
void qp_json(JsonWriter &w, const Qp &q);

// Counters (a tenant's or a QP's), as `stats` prints them: the text
// without a leading blank, the JSON as members of the open object.
std::string stats_text(const TenantStats &s);
void stats_json(JsonWriter &w, const TenantStats &s);

}  // namespace vg
