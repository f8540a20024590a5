// SPDX-License-Identifier: GPL-2.0-only
// vgload: RDMA traffic engine for victims and attackers.
#include <cstdio>

#include "block.h"
#include "client.h"
#include "device.h"
#include "error.h"
#include "options.h"
#include "report.h"
#include "server.h"
#include "signals.h"
#include "storm.h"

using namespace vgload;

static int run_devinfo(const Options &o)
{
	try {
		Device d = open_device(o.dev, o.ib_port, o.gid_index);
		DeviceRecord r = d.record();

		if (o.json)
			printf("%s\n", to_json(r).c_str());
		else
			fputs(human_device(r).c_str(), stdout);
		return 0;
	} catch (const std::exception &e) {
		fprintf(stderr, "vgload: error: %s\n", e.what());
		return 1;
	}
}

int main(int argc, char **argv)
{
	ParseResult pr;

	try {
		pr = parse_options(argc, argv);
	} catch (const UsageError &e) {
		fprintf(stderr, "vgload: %s\nTry 'vgload --help'.\n", e.what());
		return 2;
	}
	if (pr.help) {
		fputs(usage().c_str(), stdout);
		return 0;
	}
	if (pr.version) {
		printf("vgload %s\n", VGLOAD_VERSION);
		return 0;
	}

	const Options &o = pr.opts;

	install_signal_handlers();
	try {
		switch (o.role) {
		case Role::DevInfo:
			return run_devinfo(o);
		case Role::Server:
			return run_server(o);
		case Role::Client:
			if (o.mode == Mode::BlockRead)
				return run_block_read(o);
			return is_storm(o.mode) ? run_storm(o) : run_client(o);
		}
	} catch (const std::exception &e) {
		// Roles report their own failures; this is the last resort.
		fprintf(stderr, "vgload: error: %s\n", e.what());
		return 1;
	}
	return 1;
}
