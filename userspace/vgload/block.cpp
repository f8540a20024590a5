// SPDX-License-Identifier: GPL-2.0-only
#include "block.h"

#include <fcntl.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <memory>

#include "access.h"
#include "clock.h"
#include "error.h"
#include "pacer.h"
#include "report.h"
#include "resources.h"
#include "run.h"
#include "tcp.h"

namespace vgload {

namespace {

// What --file holds: its size in bytes and the unit O_DIRECT reads must
// be aligned to (the device's logical block size; 512 for a file).
struct Target {
	Fd fd;
	uint64_t bytes = 0;
	uint64_t block = 512;
};

Target open_target(const Options &o)
{
	Target t;
	struct stat st;

	t.fd = Fd(open(o.file.c_str(), O_RDONLY | O_DIRECT | O_CLOEXEC));
	if (!t.fd)
		throw SysError("open(" + o.file + ", O_DIRECT)", errno);
	if (fstat(t.fd.get(), &st))
		throw SysError("fstat(" + o.file + ")", errno);
	if (S_ISBLK(st.st_mode)) {
		int lbs = 0;

		if (ioctl(t.fd.get(), BLKGETSIZE64, &t.bytes))
			throw SysError("BLKGETSIZE64 on " + o.file, errno);
		if (ioctl(t.fd.get(), BLKSSZGET, &lbs))
			throw SysError("BLKSSZGET on " + o.file, errno);
		t.block = uint64_t(lbs);
	} else if (S_ISREG(st.st_mode)) {
		t.bytes = uint64_t(st.st_size);
	} else {
		throw RunError(o.file + " is neither a block device nor a file");
	}
	if (o.size % t.block)
		throw RunError("--size " + std::to_string(o.size) +
			       " is not a multiple of " + o.file + "'s block size (" +
			       std::to_string(t.block) + " bytes), which O_DIRECT needs");
	if (t.bytes < o.size)
		throw RunError(o.file + " holds " + std::to_string(t.bytes) +
			       " bytes, less than one read of --size " +
			       std::to_string(o.size));
	return t;
}

class BlockReader {
public:
	BlockReader(const Options &o, int fd, uint64_t bytes, StatsShard &shard,
		    uint32_t n)
		: o_(o), fd_(fd), shard_(shard), buf_(o.size),
		  // The whole target as one "MR" of whole reads.
		  access_(o.access, 1, bytes / o.size * o.size, o.size, n + 1,
			  n * uint32_t(bytes / o.size / o.depth)),
		  pacer_(o.rate / o.depth,
			 o.latency_from == LatencyFrom::Due ? 0 : 1)
	{
	}

	void run(RunControl &ctl);

private:
	bool read_one();

	const Options &o_;
	int fd_;
	StatsShard &shard_;
	Memory buf_;                 // page-aligned, as O_DIRECT needs
	AccessPattern access_;
	Pacer pacer_;
};

// One read, timed and counted: whether it read all it asked for.
bool BlockReader::read_one()
{
	uint32_t mr;
	uint64_t off;
	uint64_t start = now_ns();
	// Timed from when it was due: a stall counts for every read it held
	// back (--latency-from due).
	uint64_t from = o_.latency_from == LatencyFrom::Due ?
		std::min(pacer_.next_due(), start) : start;
	ssize_t n;

	pacer_.consume(1, start);
	access_.next(mr, off);
	do
		n = pread(fd_, buf_.data(), o_.size, off_t(off));
	while (n < 0 && errno == EINTR);
	int err = errno;
	uint64_t end = now_ns();
	auto g = shard_.lock();

	if (n == ssize_t(o_.size)) {
		g->ops++;
		g->bytes += o_.size;
		g->last_done_ns = end;
		g->lat.record(end - from);
		return true;
	}
	g->errors[n < 0 ? "pread:" + errno_name(err) : "pread:short"]++;
	return false;
}

void BlockReader::run(RunControl &ctl)
{
	pacer_.start(now_ns());
	while (wait_turn(pacer_, ctl.stop)) {
		// A device that fails every read at once (a controller being
		// reset) must not turn the run into a tight error loop.
		if (!read_one())
			sleep_until_ns(now_ns() + 1000000);
	}
	ctl.running.fetch_sub(1);
}

}  // namespace

int run_block_read(const Options &o)
{
	RunReport rep;
	Target target;
	PhaseLog phases;

	rep.opts = &o;
	try {
		phases = PhaseLog(o.phases);
		target = open_target(o);
	} catch (const std::exception &e) {
		print_setup_failure(o, rep, e.what());
		return 1;
	}

	Collector col(o.depth);
	RunControl ctl;
	std::vector<std::unique_ptr<BlockReader>> workers;

	for (uint32_t t = 0; t < o.depth; t++)
		workers.push_back(std::make_unique<BlockReader>(
			o, target.fd.get(), target.bytes, col.shard(t), t));
	RunOutcome out = run_workers(o, col, ctl, o.depth,
				     [&](size_t t) { workers[t]->run(ctl); }, nullptr,
				     phases);

	record_outcome(rep, out, col);
	if (rep.ok && rep.total.error_total) {
		rep.ok = false;
		rep.message = "reads failed (see errors)";
	}
	return print_final_report(rep);
}

}  // namespace vgload
