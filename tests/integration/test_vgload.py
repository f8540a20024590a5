"""vgload, the RDMA traffic engine, on rxe in the test-bed guest.

Every mode runs briefly (about a second of traffic) against a server on
the same rxe device. The tests check sanity, never timings: nonzero
throughput, ordered percentiles, the error counters each RNR mode must
raise in /sys/class/infiniband/<dev>/ports/1/hw_counters, and clean
endings when peers die or are interrupted.

Guest round trips are slow under TCG, so related runs go to the guest as
one shell script (Vg.clients) and are checked one by one afterwards;
every assertion names the command line it is about.
"""
import itertools
import json
import re
import shlex
import time

import pytest

from harness.testbed import VGLOAD
from harness.traffic import client_command

# Distinct TCP ports per server so a slow teardown never collides.
_ports = itertools.count(18700)
_MARK = re.compile(r"^@@vg (\d+) (\w+)(?: (-?\d+))?$")
STORMS = ("mr-storm", "qp-storm", "cq-storm")


class Vg:
    """vgload in the guest: servers in the background, clients in front."""

    def __init__(self, guest):
        self.g = guest
        self.bin = VGLOAD
        if not self.bin.exists():
            pytest.fail(f"{self.bin} is not built; run 'make userspace'",
                        pytrace=False)
        self.ip = guest.ip
        self.counter_dir = (f"/sys/class/infiniband/{guest.rxe_dev}"
                            "/ports/1/hw_counters")
        self.pids = []
        self.nlog = 0

    def log(self, name: str) -> str:
        self.nlog += 1
        return f"/tmp/vgload-{name}-{self.nlog}.log"

    def spawn(self, args: str, name: str,
              wait_for: str = "") -> tuple[int, str]:
        """Starts vgload in the background; optionally waits (in the same
        guest command, to save round trips) until its log shows wait_for."""
        log = self.log(name)
        cmd = (f"nohup sh -c {shlex.quote(f'exec {self.bin} {args}')} "
               f">{log} 2>&1 & pid=$!; echo $pid")
        if wait_for:
            cmd += (f"; for i in $(seq 300); do "
                    f"grep -q {shlex.quote(wait_for)} {log} && break; "
                    f"{self.running('$pid')} || break; sleep 0.1; done")
        res = self.g.run(cmd, 60, check=True)
        pid = int(res.out.split()[0])
        self.pids.append(pid)
        return pid, log

    def server(self, args: str = "") -> "Server":
        port = next(_ports)
        pid, log = self.spawn(f"server --json --port {port} {args}", "server",
                              wait_for="listening on TCP port")
        srv = Server(self, pid, log, port)
        text = srv.text()
        assert "listening on TCP port" in text, f"server did not start:\n{text}"
        return srv

    def client_cmd(self, args: str, srv: "Server | None") -> str:
        target = f"{self.ip} --port {srv.port}" if srv else ""
        return client_command(f"{target} --json --interval 0.5 {args}")

    def clients(self, runs: list[str], srv: "Server | None" = None,
                counters: bool = False, timeout: float = 120) -> list[dict]:
        """Runs clients one after another in a single guest command.

        Returns their JSON reports, each with _args, _rc, _err (stderr) and,
        with counters=True, _pre/_post: rxe hw_counters around the run.
        """
        err = self.log("client-err")
        parts = []
        for i, args in enumerate(runs):
            p = f"echo '@@vg {i} out'; {self.client_cmd(args, srv)} 2>{err}; " \
                f"rc=$?; echo '@@vg {i} err'; cat {err}; echo \"@@vg {i} rc $rc\"; "
            if counters:
                p = (f"echo '@@vg {i} pre'; grep -H . {self.counter_dir}/*; " + p +
                     f"echo '@@vg {i} post'; grep -H . {self.counter_dir}/*; ")
            parts.append(p)
        res = self.g.run("".join(parts), timeout)
        sections: dict[tuple[int, str], list[str]] = {}
        rcs: dict[int, int] = {}
        cur = None
        for line in res.out.splitlines():
            m = _MARK.match(line)
            if m:
                i, kind = int(m.group(1)), m.group(2)
                if kind == "rc":
                    rcs[i] = int(m.group(3))
                    cur = None
                else:
                    cur = (i, kind)
                    sections[cur] = []
            elif cur:
                sections[cur].append(line)
        docs = []
        for i, args in enumerate(runs):
            out = "\n".join(sections.get((i, "out"), []))
            stderr = "\n".join(sections.get((i, "err"), []))
            try:
                doc = json.loads(out)
            except ValueError:
                pytest.fail(f"`vgload client {args}`: rc {rcs.get(i)}, no JSON "
                            f"report\nstdout:\n{out}\nstderr:\n{stderr}\n"
                            f"guest output:\n{res.out[-3000:]}", pytrace=False)
            doc.update(_args=args, _rc=rcs.get(i), _err=stderr)
            if counters:
                doc["_pre"] = parse_counters(sections.get((i, "pre"), []))
                doc["_post"] = parse_counters(sections.get((i, "post"), []))
            docs.append(doc)
        return docs

    def client(self, args: str, srv: "Server | None" = None,
               meanwhile: str = "", timeout: float = 60) -> dict:
        """One client. `meanwhile` is shell run while the client runs in
        the background (e.g. killing its server); its exit status is kept."""
        if not meanwhile:
            return self.clients([args], srv, timeout=timeout)[0]
        err = self.log("client-err")
        res = self.g.run(f"{self.client_cmd(args, srv)} 2>{err} & "
                         f"{meanwhile}; wait $!; rc=$?; echo '@@vg 0 err'; "
                         f"cat {err}; exit $rc", timeout)
        out, _, stderr = res.out.partition("@@vg 0 err\n")
        try:
            doc = json.loads(out)
        except ValueError:
            pytest.fail(f"`vgload client {args}`: rc {res.rc}, no JSON\n"
                        f"{res.out}", pytrace=False)
        doc.update(_args=args, _rc=res.rc, _err=stderr)
        return doc

    @staticmethod
    def running(pid: int) -> str:
        """Shell test: pid exists and is not a zombie (the guest agent, PID
        1, reaps orphans only between commands)."""
        return f"grep -qs '^State:[[:space:]]*[^Z]' /proc/{pid}/status"

    def wait_exit(self, pid: int, timeout: float) -> bool:
        res = self.g.run(f"for i in $(seq {int(timeout * 10)}); do "
                         f"{self.running(pid)} || exit 0; sleep 0.1; "
                         f"done; exit 1", timeout + 10)
        return res.ok

    def cleanup(self):
        if self.pids:
            pids = " ".join(map(str, self.pids))
            alive = " || ".join(self.running(p) for p in self.pids)
            self.g.run(f"kill -INT {pids} 2>/dev/null; for i in $(seq 20); do "
                       f"{{ {alive}; }} || break; sleep 0.1; done; "
                       f"kill -9 {pids} 2>/dev/null; true")


class Server:
    def __init__(self, vg: Vg, pid: int, log: str, port: int):
        self.vg, self.pid, self.logfile, self.port = vg, pid, log, port

    def text(self) -> str:
        return self.vg.g.run(f"cat {self.logfile}").out

    def sessions(self) -> list[dict]:
        return [json.loads(line) for line in self.text().splitlines()
                if line.startswith("{")]


def parse_counters(lines: list[str]) -> dict:
    out = {}
    for line in lines:
        path, _, value = line.rpartition(":")
        if path:
            out[path.rsplit("/", 1)[-1]] = int(value)
    return out


def hw_moved(doc: dict, counter: str) -> int:
    """How much an rxe hardware counter moved over a vgload run (the
    _pre and _post snapshots of Vg.clients(counters=True))."""
    return doc["_post"][counter] - doc["_pre"][counter]


@pytest.fixture
def vg(guest):
    v = Vg(guest)
    yield v
    v.cleanup()


def check_ok(doc: dict, end_reason: str = "duration"):
    assert doc["_rc"] == 0 and doc["ok"], (doc["_args"], doc["_err"])
    assert doc["end_reason"] == end_reason, (doc["_args"], doc["end_reason"])


def check_sane(doc: dict, errors_allowed: bool = False):
    """Traffic ran, and the report is internally consistent."""
    args = doc["_args"]
    t = doc["total"]
    assert t["ops"] > 0 and t["mops"] > 0, (args, t)
    if doc["mode"] not in STORMS:
        assert t["bytes"] == t["ops"] * doc["config"]["size"], args
        assert t["gbps"] > 0, args
    check_percentiles(t["lat_us"], args)
    assert t["lat_us"]["samples"] == t["ops"], args
    assert doc["intervals"], (args, "no interval records")
    for iv in doc["intervals"]:
        if iv["lat_us"]["samples"]:
            check_percentiles(iv["lat_us"], args)
    assert sum(iv["ops"] for iv in doc["intervals"]) <= t["ops"], args
    if not errors_allowed:
        assert t["error_total"] == 0 and not t["errors"], (args, t["errors"])
    assert doc["device"]["name"], args


def check_percentiles(lat: dict, args: str = ""):
    assert lat["samples"] > 0, args
    assert 0 < lat["min"] <= lat["p50"] <= lat["p90"] <= lat["p99"] \
        <= lat["p999"] <= lat["max"], (args, lat)


def test_devinfo_reports_gid_and_limits(vg):
    res = vg.g.run(f"{vg.bin} devinfo --json && {vg.bin} devinfo", check=True)
    doc, _, text = res.out.partition("\n")
    dev = json.loads(doc)["device"]
    assert dev["name"] == vg.g.rxe_dev
    assert dev["gid"] == f"::ffff:{vg.ip}" and dev["gid_type"] == "RoCE v2"
    for key in ("max_msg_sz", "max_cqe", "max_qp_wr", "max_qp", "max_mr",
                "active_mtu"):
        assert dev[key] > 0, key
    assert f"max_msg_sz {dev['max_msg_sz']}" in text


DATA_RUNS = [
    "--op write",
    "--op write-imm",
    "--op read",
    "--op send",
    "--op cas",
    "--op faa",
    "--op write --qp-type uc",
    "--op write-imm --qp-type uc",
    "--op send --qp-type uc",
    "--op send --qp-type ud --size 1K",
    "--op write --size 4K --qps 4 --threads 2 --depth 8 --post-list 4 "
    "--mrs 8 --access random",
    "--op read --poll event --depth 4 --warmup 0.3",
]


def test_every_opcode_and_transport(vg):
    srv = vg.server()
    for doc in vg.clients([f"{a} --duration 1" for a in DATA_RUNS], srv):
        check_ok(doc)
        check_sane(doc)
        if doc["config"]["op"] in ("send", "write-imm"):
            # The server really received them (UD may drop some).
            assert doc["peer"]["recv_completions"] > 0, doc["_args"]
        else:
            assert doc["peer"]["recv_completions"] == 0, doc["_args"]
        assert not doc["peer"]["errors"], doc["_args"]
    assert len(srv.sessions()) == len(DATA_RUNS)
    assert all(s["end_reason"] == "fin" for s in srv.sessions())


def test_iterations_and_offered_rate(vg):
    srv = vg.server()
    # The offered rate kept busy polling and sleeping on completion
    # events between operations due on the schedule.
    iters, *rates = vg.clients(
        ["--iters 300 --qps 2 --depth 4", "--rate 2000 --duration 2",
         "--rate 2000 --duration 2 --depth 4 --poll event "
         "--latency-from due"], srv)
    check_ok(iters, "iterations")
    check_sane(iters)
    assert iters["total"]["ops"] == 600
    for rate in rates:
        check_ok(rate)
        check_sane(rate)
        ops_per_s = rate["total"]["mops"] * 1e6
        # generous: TCG may fall short
        assert 500 < ops_per_s < 2600, (rate["_args"], ops_per_s)


def test_latency_under_competing_1mb_write_stream(vg):
    """The measurement perftest cannot make here: latency under load."""
    srv = vg.server()
    vlog, blog = vg.log("victim"), vg.log("bw")
    bw_cmd = vg.client_cmd("--mode bw --duration 4 --poll event", srv)
    victim_cmd = vg.client_cmd("--size 16 --warmup 0.5 --duration 2", srv)
    res = vg.g.run(f"{bw_cmd} >{blog} 2>&1 & bw=$!; {victim_cmd} >{vlog} 2>&1; "
                   f"vrc=$?; wait $bw; echo \"$vrc $?\"; cat {vlog} {blog}", 60)
    rcs, *lines = res.out.splitlines()
    reports = [json.loads(x) for x in lines if x.startswith("{")]
    assert len(reports) == 2, res.out
    victim, bw = reports
    victim.update(_args="16 B WRITE victim", _rc=int(rcs.split()[0]), _err=res.out)
    bw.update(_args="--mode bw", _rc=int(rcs.split()[1]), _err=res.out)
    for doc in (victim, bw):
        check_ok(doc)
        check_sane(doc)
    assert victim["config"]["size"] == 16
    assert victim["total"]["lat_us"]["samples"] > 100
    assert bw["config"]["size"] == 1 << 20


def test_rnr_and_receive_less_modes_raise_the_right_counters(vg):
    srv = vg.server()
    rnr, exhausted, uc, ud = vg.clients([
        "--mode rnr --duration 1",
        "--mode rnr --rnr-retry 0 --duration 1",
        "--mode no-recv --qp-type uc --duration 1",
        "--mode no-recv --qp-type ud --duration 1",
    ], srv, counters=True)

    # RC: the responder NAKs, the requester retries forever.
    check_ok(rnr)
    assert rnr["config"]["post_recv"] is False
    assert rnr["total"]["ops"] == 0 and rnr["total"]["flushed_at_stop"] >= 1
    assert hw_moved(rnr, "send_rnr_err") >= 10
    assert hw_moved(rnr, "rcvd_rnr_err") >= 10
    assert rnr["peer"]["recv_completions"] == 0

    # RC with rnr_retry=0: the SEND fails with the RNR status.
    assert exhausted["_rc"] == 1 and not exhausted["ok"]
    assert exhausted["end_reason"] == "all_qps_failed"
    assert exhausted["total"]["errors"].get("IBV_WC_RNR_RETRY_EXC_ERR", 0) >= 1
    assert hw_moved(exhausted, "retry_rnr_exceeded_err") >= 1
    assert "all_qps_failed" in exhausted["_err"]

    # UC/UD: requesters complete locally, the responder drops silently.
    for doc in (uc, ud):
        check_ok(doc)
        check_sane(doc)
        assert doc["peer"]["recv_completions"] == 0, doc["_args"]
        assert hw_moved(doc, "rcvd_pkts") > 0, doc["_args"]
        assert hw_moved(doc, "send_rnr_err") == 0, doc["_args"]  # no NAKs


def test_attacker_modes(vg):
    srv = vg.server()
    runs = ["--mode wide", "--mode small-flood", "--mode small-flood --size 257",
            "--mode atomic-flood", "--mode atomic-flood --op cas", "--mode bw"]
    for doc in vg.clients([f"{a} --duration 1" for a in runs], srv):
        check_ok(doc)
        check_sane(doc)
    wide = vg.clients(["--mode wide --duration 0.5"], srv)[0]["config"]
    assert wide["qps"] >= 64 and wide["mrs"] >= 1024
    assert wide["depth"] == 1 and wide["access"] == "random"


def test_control_verb_storms(vg):
    storms = {"mr-storm": ("ibv_reg_mr", "ibv_dereg_mr"),
              "qp-storm": ("ibv_create_qp", "ibv_destroy_qp"),
              "cq-storm": ("ibv_create_cq", "ibv_destroy_cq")}
    docs = vg.clients([f"--mode {m} --duration 1" for m in storms])
    for doc, (mode, verbs) in zip(docs, storms.items()):
        check_ok(doc)
        check_sane(doc)
        for v in verbs:
            assert doc["verbs"][v]["ops"] > 0, (mode, v)
            assert doc["verbs"][v]["errors"] == 0, (mode, v)
            check_percentiles(doc["verbs"][v]["lat_us"], mode)
        # Every object created was destroyed.
        created, destroyed = (doc["verbs"][v]["ops"] for v in verbs)
        assert created == destroyed, mode


def test_client_death_does_not_hang_server(vg):
    srv = vg.server()
    pid, _ = vg.spawn(f"client {vg.ip} --port {srv.port} --duration 30 "
                      f"--interval 0.5", "doomed", wait_for="ops")
    vg.g.run(f"kill -9 {pid}; for i in $(seq 100); do "
             f"grep -q '^{{' {srv.logfile} && break; sleep 0.1; done")
    s = srv.sessions()[0]
    assert s["end_reason"] == "client_closed" and not s["ok"], s
    assert "closed the connection" in s["message"]
    # The server keeps serving.
    doc = vg.client("--duration 1", srv)
    check_ok(doc)
    check_sane(doc)


def test_server_death_ends_client_promptly(vg):
    srv = vg.server()
    start = time.monotonic()
    doc = vg.client("--duration 30", srv,
                    meanwhile=f"sleep 1.5; kill -9 {srv.pid}")
    assert time.monotonic() - start < 25
    assert doc["_rc"] == 1 and not doc["ok"]
    assert doc["end_reason"] == "peer_closed", doc["message"]
    assert "server died" in doc["message"]
    assert doc["total"]["ops"] > 0


def test_server_sigterm_aborts_session_with_reason(vg):
    srv = vg.server()
    doc = vg.client("--duration 30", srv,
                    meanwhile=f"sleep 1.5; kill -TERM {srv.pid}")
    assert doc["_rc"] == 1 and doc["end_reason"] == "peer_abort"
    assert "SIGTERM" in doc["message"]
    assert vg.wait_exit(srv.pid, 10)
    assert srv.sessions()[0]["end_reason"] == "interrupted"


def test_ctrl_c_ends_client_cleanly(vg):
    srv = vg.server()
    doc = vg.client("--duration 30", srv,
                    meanwhile="sleep 1.5; kill -INT $!")
    assert doc["_rc"] == 0, doc["_err"]
    assert doc["end_reason"] == "interrupted" and doc["ok"]
    assert doc["total"]["ops"] > 0
    assert doc["peer"] is not None   # FIN/STATS still exchanged


def test_setup_failures_are_reported_not_crashes(vg):
    srv = vg.server()
    start = time.monotonic()
    docs = vg.clients([
        "--size 16M",
        "--op send --qp-type ud --size 2K",
        "--depth 40000",
        "--mrs 600000",
    ], srv)
    docs += vg.clients([f"{vg.ip} --port 1 --connect-timeout 1"])
    assert time.monotonic() - start < 60
    for doc, expect in zip(docs, ["max_msg_sz", "active MTU", "max_cqe",
                                  "max_mr", "ECONNREFUSED"]):
        assert doc["_rc"] == 1 and not doc["ok"], doc["_args"]
        assert doc["end_reason"] == "setup_failed", doc["_args"]
        assert expect in doc["message"], (doc["_args"], doc["message"])
        assert expect in doc["_err"], doc["_args"]


def test_usage_errors(vg):
    cases = [("client", "needs the server address"),
             ("client x --op swap", "invalid --op"),
             ("client x --qp-type ud --op read", "UD"),
             ("server --size 4K", "does not apply to server")]
    script = "".join(f"{vg.bin} {a}; echo \"@@vg {i} rc $?\"; "
                     for i, (a, _) in enumerate(cases))
    out = vg.g.run(script).out
    for i, (args, msg) in enumerate(cases):
        before, _, out = out.partition(f"@@vg {i} rc ")
        rc, _, out = out.partition("\n")
        assert rc == "2" and msg in before, (args, rc, before)
