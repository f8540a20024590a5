// SPDX-License-Identifier: GPL-2.0-only
// verbsgate(8): configure and inspect the verbsgate kernel module.
#include "commands.h"
#include "genl_client.h"

#include <cerrno>
#include <cstring>
#include <fstream>
#include <iostream>

namespace vg {

namespace {

// Exit codes: 0 success, 1 error (usage or refused by the kernel),
// 2 the kernel module is not loaded.
constexpr int EXIT_ERROR = 1;
constexpr int EXIT_NOT_LOADED = 2;

void usage(std::ostream &out)
{
	out << "Usage: verbsgate [OPTIONS] OBJECT { COMMAND | help }\n"
	       "       verbsgate [OPTIONS] [-force] -b[atch] FILE\n"
	       "where  OBJECT := { status | tenant | dev | stats | monitor | qp }\n"
	       "       OPTIONS := { -j[son] | -p[retty] | -d[etails] | "
	       "-s[tats] | -V[ersion] | -h[elp] }\n";
}

int dispatch(Args &args, const Output &o)
{
	if (args.empty() || args.accept("help")) {
		usage(o.out);
		return 0;
	}
	if (args.accept("status"))
		return cmd_status(args, o);
	if (args.accept("tenant"))
		return cmd_tenant(args, o);
	if (args.accept("dev"))
		return cmd_dev(args, o);
	if (args.accept("qp"))
		return cmd_qp(args, o);
	if (args.accept("stats"))
		return cmd_stats(args, o);
	if (args.accept("monitor"))
		return cmd_monitor(args, o);
	throw UsageError("unknown object \"" + args.peek() + "\"");
}

// What went wrong, as one line; the exit code.
int report(const std::string &where)
{
	try {
		throw;
	} catch (const UsageError &e) {
		std::cerr << "verbsgate: " << where << e.what()
			  << "; try 'verbsgate help'\n";
	} catch (const ModuleNotLoaded &e) {
		std::cerr << "verbsgate: " << e.what() << "\n";
		return EXIT_NOT_LOADED;
	} catch (const NetlinkError &e) {
		std::cerr << "verbsgate: " << where;
		if (e.err == EPERM) {
			std::cerr << "permission denied: changing verbsgate "
				     "needs CAP_NET_ADMIN";
		} else if (!e.attr.empty()) {
			std::cerr << "invalid " << e.attr << ": "
				  << (e.extack.empty() ? e.what() : e.extack);
			if (!e.range.empty())
				std::cerr << " (allowed " << e.range << ")";
		} else if (!e.extack.empty()) {
			std::cerr << e.extack << " (" << e.what() << ")";
		} else {
			std::cerr << e.what();
		}
		std::cerr << "\n";
	} catch (const std::exception &e) {
		std::cerr << "verbsgate: " << where << e.what() << "\n";
	}
	return EXIT_ERROR;
}

// Runs one command per line of `file`; stops at the first failure, or
// with -force goes on and fails at the end if any line failed.
int batch(const std::string &file, const GlobalOptions &opts)
{
	int failed = 0;

	std::ifstream f;
	std::istream *in = &std::cin;

	if (file != "-") {
		f.open(file);
		if (!f)
			throw UsageError("cannot open batch file \"" + file +
					 "\": " + strerror(errno));
		in = &f;
	}
	Output o(opts, std::cout);
	std::string line;
	for (int n = 1; std::getline(*in, line); n++) {
		std::string where = file + ":" + std::to_string(n) + ": ";
		try {
			Args args(split_line(line));
			if (args.empty())
				continue;
			int ret = dispatch(args, o);
			if (ret && !opts.force)
				return ret;
			failed = failed ? failed : ret;
		} catch (...) {
			int ret = report(where);
			if (!opts.force)
				return ret;
			failed = failed ? failed : ret;
		}
	}
	return failed;
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
		if (!opts.batch.empty()) {
			args.done();
			return batch(opts.batch, opts);
		}
		Output o(opts, std::cout);
		return dispatch(args, o);
	} catch (...) {
		return report("");
	}
}
