// SPDX-License-Identifier: GPL-2.0-only
// The objects of the verbsgate CLI; each returns the process exit code.
#pragma once

#include "args.h"
#include "field.h"
#include "genl_client.h"

#include <iosfwd>
#include <memory>
#include <ostream>
#include <string>
#include <vector>

namespace vg {

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

// A request carrying the object's fields that are set.
template <typename Obj>
GenlClient::Fill sends(const Table<Obj> &t, Obj o)
{
	return [&t, o](nl_msg *m) { encode(m, t, o); };
}

// Reads each reply into an object of the table.
template <typename Obj>
GenlClient::OnReply collect(const Table<Obj> &t, std::vector<Obj> &out)
{
	return [&t, &out](const Attrs &a) { out.push_back(decode(t, a.data())); };
}

// Objects as `show` prints them: a JSON array, or a line each.
template <typename Obj, typename Text, typename Json>
void print_list(const Output &o, const std::vector<Obj> &objs, Text text,
		Json json)
{
	if (o.opts.json) {
		JsonWriter w;
		w.begin_array();
		for (const auto &obj : objs)
			json(w, obj);
		w.end_array();
		print_json(o, w.str());
		return;
	}
	for (const auto &obj : objs)
		o.out << text(obj) << "\n";
}

}  // namespace vg
