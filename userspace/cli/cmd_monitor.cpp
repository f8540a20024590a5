// SPDX-License-Identifier: GPL-2.0-only
// verbsgate monitor: print change events as they happen, one line each,
// until interrupted.
#include "commands.h"
#include "json.h"
#include "objects.h"

#include <ostream>

namespace vg {

namespace {

const char *event_name(uint8_t cmd)
{
	switch (cmd) {
	case VERBSGATE_CMD_TENANT_ADD:
		return "tenant add";
	case VERBSGATE_CMD_TENANT_DEL:
		return "tenant del";
	case VERBSGATE_CMD_TENANT_SET:
		return "tenant set";
	case VERBSGATE_CMD_DEV_SET:
		return "dev set";
	case VERBSGATE_CMD_QP_CLASSIFIED:
		return "qp classified";
	default:
		return nullptr;	// newer than this tool: skipped
	}
}

void print_event(const Output &o, uint8_t cmd, const Attrs &a)
{
	const char *name = event_name(cmd);
	bool qp = cmd == VERBSGATE_CMD_QP_CLASSIFIED;
	bool dev = cmd == VERBSGATE_CMD_DEV_SET;

	if (!name)
		return;
	if (o.opts.json) {
		JsonWriter w;
		w.begin_object().kv("event", name);
		if (qp)
			qp_json(w.key("qp"), parse_qp(a));
		else if (dev)
			dev_json(w.key("dev"), parse_device(a), true);
		else
			tenant_json(w.key("tenant"), parse_tenant(a));
		w.end_object();
		print_json(o, w.str());
	} else if (qp) {
		o.out << name << " " << qp_text(parse_qp(a), false) << "\n";
	} else if (dev) {
		o.out << name << " " << dev_text(parse_device(a), false) << "\n";
	} else {
		o.out << name << " " << tenant_text(parse_tenant(a)) << "\n";
	}
	o.out.flush();
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
