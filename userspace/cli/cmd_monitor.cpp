// SPDX-License-Identifier: GPL-2.0-only
// verbsgate monitor: print change events as they happen, one line each,
// until interrupted.
#include "commands.h"
#include "device.h"
#include "json.h"
#include "qp.h"
#include "tenant.h"

#include <ostream>

namespace vg {

namespace {

// One line for an event about an object of `table`.
template <typename Obj, typename Text, typename Json>
void print(const Output &o, const char *event, const char *key,
	   const Table<Obj> &table, const Attrs &a, Text text, Json json)
{
	Obj obj = decode(table, a.data());

	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().kv("event", event);
		json(w.key(key), obj);
		w.end_object();
		print_json(o, w.str());
	} else {
		o.out << event << " " << text(obj) << "\n";
	}
}

void print_tenant(const Output &o, const char *event, const Attrs &a)
{
	print(o, event, "tenant", tenant_table(), a, tenant_text, tenant_json);
}

// Device events show the settings in JSON, not in text.
void print_dev(const Output &o, const char *event, const Attrs &a)
{
	print(o, event, "dev", device_table(), a,
	      [](const Device &d) { return dev_text(d, false); },
	      [](JsonWriter &w, const Device &d) { dev_json(w, d, true); });
}

void print_qp(const Output &o, const char *event, const Attrs &a)
{
	print(o, event, "qp", qp_table(), a,
	      [](const Qp &q) { return qp_text(q, false); }, qp_json);
}

// The events this tool knows; newer ones are skipped.
const struct {
	uint8_t cmd;
	const char *name;
	void (*print)(const Output &, const char *, const Attrs &);
} events[] = {
	{VERBSGATE_CMD_TENANT_ADD, "tenant add", print_tenant},
	{VERBSGATE_CMD_TENANT_DEL, "tenant del", print_tenant},
	{VERBSGATE_CMD_TENANT_SET, "tenant set", print_tenant},
	{VERBSGATE_CMD_DEV_SET, "dev set", print_dev},
	{VERBSGATE_CMD_QP_CLASSIFIED, "qp classified", print_qp},
};

void print_event(const Output &o, uint8_t cmd, const Attrs &a)
{
	for (const auto &e : events) {
		if (e.cmd != cmd)
			continue;
		e.print(o, e.name, a);
		o.out.flush();
	}
}

}  // namespace

void usage_monitor(std::ostream &out)
{
	out << "Usage: verbsgate [-j] monitor\n"
	       "       verbsgate monitor help\n"
	       "Prints tenant add/set/del, dev set and qp classified events "
	       "until interrupted.\n";
}

int cmd_monitor(Args &args, const Output &o)
{
	if (args.accept("help")) {
		usage_monitor(o.out);
		return 0;
	}
	args.done();
	o.nl().listen([&](uint8_t cmd, const Attrs &a) {
		print_event(o, cmd, a);
	});
	return 0;
}

}  // namespace vg
