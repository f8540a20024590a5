// SPDX-License-Identifier: GPL-2.0-only
// verbsgate(8): configure and inspect the verbsgate kernel module.
#include "commands.h"
#include "genl_client.h"
#include "json.h"

#include <cerrno>
#include <iostream>

namespace vg {

void print_json(const Output &o, const std::string &compact)
{
	o.out << (o.opts.pretty ? json_pretty(compact) : compact) << "\n";
}

namespace {

// Exit codes: 0 success, 1 error (usage or refused by the kernel),
// 2 the kernel module is not loaded.
constexpr int EXIT_ERROR = 1;
constexpr int EXIT_NOT_LOADED = 2;

void usage(std::ostream &out)
{
	out << "Usage: verbsgate [OPTIONS] OBJECT { COMMAND | help }\n"
	       "where  OBJECT := { status | dev }\n"
	       "       OPTIONS := { -j[son] | -p[retty] | -V[ersion] | "
	       "-h[elp] }\n";
}

int dispatch(Args &args, const Output &o)
{
	if (args.empty() || args.accept("help")) {
		usage(o.out);
		return 0;
	}
	if (args.accept("status"))
		return cmd_status(args, o);
	if (args.accept("dev"))
		return cmd_dev(args, o);
	throw UsageError("unknown object \"" + args.peek() + "\"");
}

}  // namespace

}  // namespace vg

int main(int argc, char *argv[])
{
	using namespace vg;
	GlobalOptions opts;

	try {
		Args args(argc, argv, opts);
		if (opts.version) {
			std::cout << "verbsgate " VG_VERSION "\n";
			return 0;
		}
		if (opts.help) {
			usage(std::cout);
			return 0;
		}
		return dispatch(args, Output{opts, std::cout});
	} catch (const UsageError &e) {
		std::cerr << "verbsgate: " << e.what()
			  << "; try 'verbsgate help'\n";
	} catch (const ModuleNotLoaded &e) {
		std::cerr << "verbsgate: " << e.what() << "\n";
		return EXIT_NOT_LOADED;
	} catch (const NetlinkError &e) {
		std::cerr << "verbsgate: ";
		if (e.err == EPERM)
			std::cerr << "permission denied: changing verbsgate "
				     "needs CAP_NET_ADMIN";
		else
			std::cerr << e.what();
		if (!e.extack.empty())
			std::cerr << ": " << e.extack;
		std::cerr << "\n";
	}
	return EXIT_ERROR;
}
