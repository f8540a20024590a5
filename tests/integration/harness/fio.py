"""fio in the test-bed guest, with parsed JSON results.

A job is a dict of fio options for one `--name` section; `read_job`,
`latency_job` and `verify_job` make the common ones. `run()` runs several
jobs concurrently in one fio invocation, each in its own reporting group
(`new_group`), so each device gets its own bandwidth; `spawn()` does the
same in the background, optionally over and over until stopped (a verify
workload that lasts as long as the test needs it); `read_rates()` runs
readers and measures their rates over the middle of the run only. Every
invocation uses ioengine=libaio and direct=1, creates no file (its files
are block devices) and writes JSON (`--output-format=json`).

The guest is slow (TCG, software RDMA): keep sizes at tens of MiB and
runtimes at 10-20 s.
"""
import json
import re
import shlex
from dataclasses import dataclass, field

from harness.testbed import Guest

# allow_file_create=0: every job's file is a block device. A pass that
# starts after its device went away (a repeating run across a disconnect)
# must fail, not create a regular file of that name in /dev, where it
# would stand in for the device node of the next namespace of that name.
GLOBAL = {"ioengine": "libaio", "direct": 1, "allow_file_create": 0}

# fio's stderr lines that report a failed I/O or verification.
ERROR_LINE = re.compile(r"io_u error|verify|bad magic|bad header|crc32c|"
                        r"fio: pid=\d+, err=|Input/output error", re.I)


def read_job(name: str, filename: str, bs: str = "256k", iodepth: int = 8,
             rw: str = "read", **opts) -> dict:
    """Sequential (or rw=randread) reads of filename."""
    return {"name": name, "filename": filename, "rw": rw, "bs": bs,
            "iodepth": iodepth, **opts}


def latency_job(name: str, filename: str, bs: str = "4k", iodepth: int = 1,
                **opts) -> dict:
    """Random reads at queue depth 1: what a latency-sensitive tenant does;
    with the percentiles of each I/O's whole latency (Direction)."""
    return read_job(name, filename, bs=bs, iodepth=iodepth, rw="randread",
                    lat_percentiles=1, **opts)


def verify_job(name: str, filename: str, size: str = "32m",
               bsrange: str = "64k-1m", iodepth: int = 4, rw: str = "write",
               **opts) -> dict:
    """Writes size bytes of filename in blocks of bsrange, each with a
    crc32c header, then reads all of it back and verifies it; the first
    mismatch ends fio with an error (verify_fatal)."""
    return {"name": name, "filename": filename, "rw": rw, "size": size,
            "bsrange": bsrange, "iodepth": iodepth, "verify": "crc32c",
            "do_verify": 1, "verify_fatal": 1, "verify_state_save": 0,
            **opts}


@dataclass
class Direction:
    """One direction (read or write) of one job. clat is fio's completion
    latency, from io_submit()'s return to the completion; lat is the whole
    of an I/O's time, from its submission (latency_job() asks fio for its
    percentiles). Where a driver completes an I/O inside io_submit(), as
    nvme-rdma over rxe can (rxe runs the send, and the answer may arrive,
    in the submitter's context), clat leaves most of the time out."""
    io_bytes: int = 0
    bw_bytes: float = 0.0       # bytes/s over the job's runtime
    iops: float = 0.0
    total_ios: int = 0
    short_ios: int = 0
    drop_ios: int = 0
    runtime_ms: int = 0
    clat_mean_ns: float = 0.0
    clat_p99_ns: int | None = None
    clat_percentiles: dict = field(default_factory=dict)
    lat_mean_ns: float = 0.0
    lat_p99_ns: int | None = None
    lat_percentiles: dict = field(default_factory=dict)

    @classmethod
    def parse(cls, d: dict) -> "Direction":
        clat, lat = d.get("clat_ns") or {}, d.get("lat_ns") or {}

        def percentiles(stat):
            return {float(k): v for k, v in
                    (stat.get("percentile") or {}).items()}
        pct, lat_pct = percentiles(clat), percentiles(lat)
        return cls(io_bytes=d.get("io_bytes", 0),
                   bw_bytes=float(d.get("bw_bytes", d.get("bw", 0) * 1024)),
                   iops=float(d.get("iops", 0.0)),
                   total_ios=d.get("total_ios", 0),
                   short_ios=d.get("short_ios", 0),
                   drop_ios=d.get("drop_ios", 0),
                   runtime_ms=d.get("runtime", 0),
                   clat_mean_ns=float(clat.get("mean", 0.0)),
                   clat_p99_ns=pct.get(99.0), clat_percentiles=pct,
                   lat_mean_ns=float(lat.get("mean", 0.0)),
                   lat_p99_ns=lat_pct.get(99.0), lat_percentiles=lat_pct)


@dataclass
class JobResult:
    name: str
    groupid: int
    error: int                  # errno of the job's first error, 0: none
    total_err: int              # errors counted with continue_on_error
    read: Direction
    write: Direction
    raw: dict

    @property
    def io_bytes(self) -> int:
        return self.read.io_bytes + self.write.io_bytes

    @property
    def bw_bytes(self) -> float:
        return self.read.bw_bytes + self.write.bw_bytes

    @property
    def iops(self) -> float:
        return self.read.iops + self.write.iops

    @property
    def _done(self) -> Direction:
        """The direction that did the I/O (reads if both did)."""
        return self.read if self.read.total_ios else self.write

    @property
    def clat_p99_ns(self) -> int | None:
        return self._done.clat_p99_ns

    @property
    def lat_p99_ns(self) -> int | None:
        return self._done.lat_p99_ns

    @property
    def lat_p50_ns(self) -> int | None:
        return self._done.lat_percentiles.get(50.0)

    @property
    def lat_mean_ns(self) -> float:
        return self._done.lat_mean_ns


@dataclass
class FioResult:
    rc: int | None
    stderr: str
    jobs: dict[str, JobResult]
    raw: dict | None
    cmd: str

    @property
    def error_lines(self) -> list[str]:
        return [x for x in self.stderr.splitlines() if ERROR_LINE.search(x)]

    @property
    def errors(self) -> int:
        """Jobs that failed plus errors fio counted, plus error lines."""
        return (sum(1 for j in self.jobs.values() if j.error) +
                sum(j.total_err for j in self.jobs.values()) +
                len(self.error_lines))

    @property
    def ok(self) -> bool:
        return self.rc == 0 and self.raw is not None and self.errors == 0

    def __getitem__(self, name: str) -> JobResult:
        return self.jobs[name]

    def describe(self) -> str:
        parts = [f"fio rc {self.rc}"]
        for j in self.jobs.values():
            parts.append(f"{j.name}: {j.io_bytes} B, {j.bw_bytes / 1e6:.2f} "
                         f"MB/s, {j.iops:.0f} IOPS, p99 {j.clat_p99_ns} ns, "
                         f"error {j.error}, total_err {j.total_err}")
        if self.error_lines or self.raw is None:
            parts.append("stderr:\n" + self.stderr[-3000:])
        return "\n".join(parts)


def parse(text: str, stderr: str = "", rc: int | None = 0,
          cmd: str = "") -> FioResult:
    """fio's JSON output (anything before the first '{' line, such as
    notes fio prints to its output file, is skipped)."""
    raw = None
    m = re.search(r"^\{", text, re.M)
    if m:
        try:
            raw, _ = json.JSONDecoder().raw_decode(text[m.start():])
        except ValueError:
            raw = None
    jobs = {}
    for j in (raw or {}).get("jobs", []):
        jobs[j["jobname"]] = JobResult(
            name=j["jobname"], groupid=j.get("groupid", 0),
            error=j.get("error", 0), total_err=j.get("total_err", 0),
            read=Direction.parse(j.get("read", {})),
            write=Direction.parse(j.get("write", {})), raw=j)
    return FioResult(rc=rc, stderr=stderr, jobs=jobs, raw=raw, cmd=cmd)


def _option(key: str, value) -> str:
    if value is True or value is None:
        return f"--{key}"
    return f"--{key}={shlex.quote(str(value))}"


def command(jobs: list[dict], output: str, runtime: float | None = None,
            **global_opts) -> str:
    """The fio command line: global options (GLOBAL, time_based with
    runtime, global_opts), then one section per job, each in its own
    group."""
    opts = dict(GLOBAL)
    if runtime is not None:
        opts.update(time_based=True, runtime=f"{runtime:g}")
    opts.update(global_opts)
    words = ["fio", "--output-format=json", f"--output={output}"]
    words += [_option(k, v) for k, v in opts.items()]
    for i, job in enumerate(jobs):
        job = dict(job)
        words.append(_option("name", job.pop("name")))
        if i:
            words.append("--new_group")
        words += [_option(k, v) for k, v in job.items()]
    return " ".join(words)


def run(g: Guest, jobs: list[dict], runtime: float | None = None,
        timeout: float | None = None, tag: str = "fio",
        **global_opts) -> FioResult:
    """Run jobs concurrently, wait, and return the parsed result. timeout
    defaults to runtime + 60 s (or 300 s for a run bounded by size)."""
    if timeout is None:
        timeout = runtime + 60 if runtime is not None else 300
    out, err = f"/tmp/{tag}.json", f"/tmp/{tag}.err"
    cmd = command(jobs, out, runtime, **global_opts)
    res = g.run(f"cd /tmp && rm -f {out} && {cmd} 2>{err}", timeout=timeout)
    text = g.run(f"cat {out} 2>/dev/null").out
    stderr = g.run(f"cat {err} 2>/dev/null").out
    return parse(text, stderr, res.rc, cmd)


class Background:
    """fio started by spawn(): wait() (or stop() for a repeating one)."""

    def __init__(self, g: Guest, jobs: list[dict], runtime: float | None,
                 tag: str, repeat: bool, global_opts: dict):
        self.g, self.tag, self.repeat = g, tag, repeat
        self.dir = f"/tmp/{tag}.d"
        self.stop_file = f"{self.dir}/stop"
        self.cmd = command(jobs, f"{self.dir}/out.$i.json", runtime,
                           **global_opts)
        # Each pass writes out.N.json, err.N and rc.N; a repeating run
        # goes on until the stop file exists or a pass fails.
        loop = "while [ ! -e stop ]" if repeat else "for once in 1"
        script = (f"cd {self.dir} && i=0; {loop}; do "
                  f"{self.cmd} 2>err.$i; rc=$?; echo $rc > rc.$i; "
                  "[ $rc = 0 ] || break; i=$((i + 1)); done")
        g.run(f"rm -rf {self.dir} && mkdir -p {self.dir}", check=True)
        self.pid = g.spawn(script, f"{self.dir}/log")

    def running(self) -> bool:
        return self.g.run(f"kill -0 {self.pid} 2>/dev/null").ok

    def passes(self) -> int:
        """Passes completed so far."""
        out = self.g.run(f"ls {self.dir} | grep -c '^rc\\.'").out.strip()
        return int(out or 0)

    def wait(self, timeout: float = 300) -> list[FioResult]:
        """Wait (bounded) for fio to end; the result of every pass."""
        tries = max(1, int(timeout / 0.5))
        res = self.g.run(f"for i in $(seq {tries}); do "
                         f"kill -0 {self.pid} 2>/dev/null || exit 0; "
                         "sleep 0.5; done; exit 1", timeout=timeout + 30)
        if not res.ok:
            self.kill()
            raise AssertionError(f"fio ({self.tag}) still running after "
                                 f"{timeout} s")
        return self.results()

    def stop(self, timeout: float = 300) -> list[FioResult]:
        """Let the current pass finish, start no other, wait for it."""
        self.g.run(f"touch {self.stop_file}", check=True)
        return self.wait(timeout)

    def kill(self):
        self.g.run(f"pkill -P {self.pid}; kill {self.pid}; true")

    def results(self) -> list[FioResult]:
        """Every completed pass's result, read 32 passes per guest
        command (a soak has hundreds of passes, and each command costs a
        fraction of a second in TCG; a batch stays far below what the
        agent returns of a command's output)."""
        batch, mark = 32, "--- vg-fio-pass"
        files: dict[str, list[str]] = {}
        first = 0
        while True:
            res = self.g.run(
                f"cd {self.dir} && i={first}; "
                f"while [ $i -lt {first + batch} ] && [ -e rc.$i ]; do "
                f"for f in rc.$i out.$i.json err.$i; do "
                f"echo \"{mark} $f\"; cat $f 2>/dev/null; done; "
                "i=$((i + 1)); done", check=True)
            name = None
            for line in res.out.splitlines():
                if line.startswith(mark + " "):
                    name = line[len(mark) + 1:]
                    files[name] = []
                elif name is not None:
                    files[name].append(line)
            first += batch
            if f"rc.{first - 1}" not in files:
                break
        results = []
        for i in range(sum(n.startswith("rc.") for n in files)):
            rc = "\n".join(files[f"rc.{i}"]).strip()
            text = "\n".join(files[f"out.{i}.json"])
            stderr = "\n".join(files[f"err.{i}"])
            results.append(parse(text, stderr, int(rc) if rc else None,
                                 self.cmd.replace("$i", str(i))))
        return results


def spawn(g: Guest, jobs: list[dict], runtime: float | None = None,
          tag: str = "fio-bg", repeat: bool = False,
          **global_opts) -> Background:
    """Start jobs in the background (repeat: pass after pass until
    Background.stop() or a failing pass)."""
    return Background(g, jobs, runtime, tag, repeat, global_opts)


class Rates(dict):
    """read_rates(): {job name: bytes/s over the window}; the whole run's
    FioResult is its `result`."""
    result: FioResult


def read_rates(g: Guest, jobs: list[dict], runtime: float, edge: float,
               tag: str = "fio-rates") -> Rates:
    """Run reader jobs concurrently for runtime seconds, and measure each
    job's read rate between edge seconds after the start and edge seconds
    before the end, while every job is running: {job name: bytes/s}, and
    the run's whole FioResult (Rates).

    fio's own averages include the run's edges, where the jobs do not
    compete: one job may start reading before another, and at the end,
    what each job has queued completes after it stopped submitting. A
    paced tenant with megabytes queued behind a slow port then drains
    alone for a second or more, which moves a 3:1 share measured over
    15 s by a tenth. The window is timed by fio itself (its bandwidth
    log, one average a second from the jobs' common start), not by
    commands of the agent: those run seconds late when the guest's vCPUs
    are busy, and fio takes seconds to start from the host's file system.
    Fails if fio failed or a job's log does not cover the window.
    """
    assert runtime > 2 * edge, (runtime, edge)
    logs = f"/tmp/{tag}.d"
    jobs = [{**job, "write_bw_log": f"{logs}/{job['name']}"}
            for job in jobs]
    g.run(f"rm -rf {logs} && mkdir -p {logs}", check=True)
    res = run(g, jobs, runtime, tag=tag, log_avg_msec=1000)
    assert res.ok, res.describe()
    first, last = edge * 1000, (runtime - edge) * 1000
    rates = Rates()
    rates.result = res
    for i, job in enumerate(jobs, 1):
        path = f"{logs}/{job['name']}_bw.{i}.log"
        # Each line: ms since the start, KiB/s over the second before.
        samples = [[int(w) for w in line.split(",")[:2]] for line in
                   g.run(f"cat {path}", check=True).out.splitlines()
                   if line.strip()]
        inside = [kib for ms, kib in samples if first < ms <= last]
        assert samples and samples[-1][0] >= last and inside, \
            f"{path} does not cover {first:.0f}-{last:.0f} ms: {samples}"
        rates[job["name"]] = sum(inside) * 1024 / len(inside)
    return rates
