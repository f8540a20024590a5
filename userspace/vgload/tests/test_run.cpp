// SPDX-License-Identifier: GPL-2.0-only
#include <gtest/gtest.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <unistd.h>
#include <utility>
#include <vector>

#include "error.h"
#include "options.h"
#include "run.h"
#include "signals.h"
#include "stats.h"

using namespace vgload;

namespace {

// A scratch file name that is removed again.
class TempPath {
public:
	TempPath()
	{
		char tmpl[] = "/tmp/vgload-run-XXXXXX";
		int fd = mkstemp(tmpl);

		if (fd >= 0)
			close(fd);
		path_ = tmpl;
	}
	~TempPath() { unlink(path_.c_str()); }
	const std::string &path() const { return path_; }

private:
	std::string path_;
};

// The file's lines as (first word, time), the time -1 if there is none.
std::vector<std::pair<std::string, double>> phases(const std::string &path)
{
	std::ifstream f(path);
	std::vector<std::pair<std::string, double>> out;
	std::string line;

	while (std::getline(f, line)) {
		std::istringstream words(line);
		std::string name;
		double at = -1;

		words >> name >> at;
		out.emplace_back(name, at);
	}
	return out;
}

std::vector<std::string> names(const std::string &path)
{
	std::vector<std::string> out;

	for (const auto &p : phases(path))
		out.push_back(p.first);
	return out;
}

// drive_run() with one worker that never ends on its own.
RunOutcome run(const Options &o)
{
	Collector c(1);
	RunControl ctl;

	ctl.running = 1;
	return drive_run(o, c, ctl, [] {}, nullptr, PhaseLog(o.phases));
}

}  // namespace

TEST(Run, PhasesAreNotedInOrderAfterWarmup)
{
	TempPath f;
	Options o;

	o.warmup_s = 0.05;
	o.duration_s = 0.1;
	o.phases = f.path();
	RunOutcome out = run(o);

	EXPECT_EQ(out.end_reason, "duration");
	auto p = phases(f.path());
	ASSERT_EQ(names(f.path()),
		  (std::vector<std::string>{ "run", "measure", "end" }));
	// Times on one clock: the warm-up, then the measured run.
	EXPECT_GE(p[1].second - p[0].second, 0.05 - 1e-6);
	EXPECT_GE(p[2].second - p[1].second, 0.1 - 1e-6);
}

TEST(Run, PhasesWithoutWarmupAppendToWhatIsThere)
{
	TempPath f;
	Options o;

	{
		std::ofstream w(f.path());
		w << "earlier\n";
	}
	o.duration_s = 0.05;
	o.phases = f.path();
	run(o);
	EXPECT_EQ(names(f.path()), (std::vector<std::string>{
					   "earlier", "run", "measure", "end" }));
	EXPECT_EQ(phases(f.path())[1].second, phases(f.path())[2].second);
}

TEST(Run, PhasesFileThatCannotBeOpenedIsAnError)
{
	EXPECT_THROW(PhaseLog("/nonexistent-dir/phases"), SysError);
}

TEST(Run, Sigusr1EndsTheWarmupAndTheMeasuredRunStartsThen)
{
	TempPath f;
	Options o;

	install_signal_handlers();
	o.warmup_s = 30;
	o.duration_s = 0.1;
	o.phases = f.path();
	std::thread poke([] {
		std::this_thread::sleep_for(std::chrono::milliseconds(50));
		kill(getpid(), SIGUSR1);
	});
	RunOutcome out = run(o);
	poke.join();

	EXPECT_EQ(out.end_reason, "duration");
	auto p = phases(f.path());
	ASSERT_EQ(names(f.path()),
		  (std::vector<std::string>{ "run", "measure", "end" }));
	// Measured from the signal on, for the whole --duration.
	EXPECT_LT(p[1].second - p[0].second, 20);
	EXPECT_GE(p[2].second - p[1].second, 0.1 - 1e-6);
	EXPECT_LT(p[2].second - p[1].second, 20);

	// The signal was taken: the next run keeps its whole warm-up.
	TempPath g;

	o.warmup_s = 0.05;
	o.phases = g.path();
	run(o);
	auto q = phases(g.path());
	ASSERT_EQ(q.size(), 3u);
	EXPECT_GE(q[1].second - q[0].second, 0.05 - 1e-6);
}

TEST(Run, WorkersRunUntilTheRunStopsThemAndAreJoined)
{
	Options o;
	Collector c(3);
	RunControl ctl;
	std::vector<int> rounds(3, 0);

	o.duration_s = 0.05;
	RunOutcome out = run_workers(o, c, ctl, 3, [&](size_t t) {
		while (!ctl.stop.load()) {
			rounds[t]++;
			std::this_thread::sleep_for(std::chrono::milliseconds(1));
		}
		ctl.running.fetch_sub(1);
	}, nullptr, PhaseLog());

	EXPECT_EQ(out.end_reason, "duration");
	// Joined: every worker left its loop and said so.
	EXPECT_EQ(ctl.running.load(), 0u);
	for (int r : rounds)
		EXPECT_GT(r, 0);
}
