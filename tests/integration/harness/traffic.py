"""Traffic in the guest: vgload servers and clients (the one way the
tests start, read and stop them), and the user-space tools of
tests/integration/sqhold, built once per session; the GID index they
address."""
import json
import os
import subprocess
import time

import pytest

from harness.nvme import GID_FILES, ipv4_gid
from harness.tenants import in_cgroup
from harness.testbed import BUILD_DIR, REPO, VGLOAD, Guest
from harness.vgcli import eventually

SQHOLD = REPO / "tests" / "integration" / "sqhold"
SQHOLD_MODULE = SQHOLD / "vg_sqhold.ko"
SQHOLD_PARAMS = "/sys/module/vg_sqhold/parameters"
# `make usq-full` (VG_USQ_FULL=1) runs the longer forms these tests have:
# more operations, reloads and policies; `make check` the shorter ones,
# which assert the same verdicts.
FULL = os.environ.get("VG_USQ_FULL") == "1"

# A command prefix that runs what follows as an unprivileged user, with
# the memory lock limit an RDMA host gives its tenants (the default
# would refuse to pin a 16 MB buffer): how tenants' processes, and so
# attackers, run.
UNPRIVILEGED = ("prlimit --memlock=unlimited setpriv --reuid=nobody "
                "--regid=nogroup --clear-groups --")

# Extra compiler flags per tool (vg_nodoorbell and vg_usqattack replace
# write(2), which librxe calls, so their symbols must be dynamic).
_FLAGS = {"vg_nodoorbell": ["-rdynamic"], "vg_usqattack": ["-rdynamic"]}
_built: set[str] = set()


def tool(name: str):
    """tests/integration/sqhold/<name>.c, built into BUILD_DIR/tests once
    per session (the guest sees it at the same path)."""
    out = BUILD_DIR / "tests" / name
    if name not in _built:
        out.parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["gcc", "-O2", "-Wall", *_FLAGS.get(name, []),
                        "-o", str(out), str(SQHOLD / f"{name}.c"),
                        "-libverbs"], check=True)
        _built.add(name)
    return out


def gid_index(g: Guest, addr: str | None = None, dev: str = "") -> int:
    """Index of the IPv4-mapped GID of addr (default: the guest's) in the
    port 1 table of rxe device @dev (default: the test bed's)."""
    path = f"/sys/class/infiniband/{dev or g.rxe_dev}/ports/1/gids"
    # The shell's read, not a grep per entry: a process costs a tenth of
    # a second in TCG, and this runs before most user-space runs.
    res = g.run(f"cd {path} && for i in {GID_FILES}; do "
                "{ read -r gid < $i; } 2>/dev/null && "
                f"[ \"$gid\" = {ipv4_gid(addr or g.ip)} ] && echo $i && "
                "exit 0; done; exit 1", check=True)
    return int(res.out.split()[0])


def vgload_server(g: Guest, port: int, sessions: int = 0,
                  dev: str = "", together: bool = False,
                  gid: int = -1) -> int:
    """A vgload server for @sessions sessions (0: until stopped), on
    device @dev (else the first active one) and its GID @gid (else its
    first IPv4 one), seen listening; with @together, its sessions' runs
    start at once when all are set up."""
    if not VGLOAD.exists():
        pytest.fail(f"{VGLOAD} is not built; run 'make userspace'",
                    pytrace=False)
    on = f"--dev {dev} " if dev else ""
    count = f"--sessions {sessions} " if sessions else ""
    if gid >= 0:
        on += f"--gid-index {gid} "
    if together:
        count += "--together "
    pid = g.spawn(f"exec {VGLOAD} server {on}--port {port} {count}--quiet",
                  f"/tmp/vgload-server-{port}.log")
    eventually("the vgload server listening",
               lambda: bool(g.run(f"ss -Hltn 'sport = :{port}'")
                            .out.strip()), True)
    return pid


def client_command(args: str, cgroup: str = "") -> str:
    """The shell command of a vgload client with @args, in @cgroup if
    given: for clients a test starts together in one guest command."""
    cmd = f"{VGLOAD} client {args}"
    return in_cgroup(cgroup, cmd) if cgroup else cmd


def vgload_client_command(g: Guest, cgroup: str, port: int, args: str,
                          server: str = "", interval: int = 1) -> str:
    """The shell command of a vgload client in cgroup ("" for the
    agent's), to the server at @server (default: the guest's address)
    with a report every @interval seconds (0: none), its JSON on
    standard output."""
    return client_command(f"{server or g.ip} --port {port} --json "
                          f"--interval {interval} {args}", cgroup)


def vgload_client(g: Guest, cgroup: str, port: int, args: str,
                  log: str, server: str = "", interval: int = 1,
                  status: bool = False) -> int:
    """vgload_client_command() in the background, JSON to log; with
    @status, the log ends with rc=<its exit status>. Returns the pid of
    the shell that runs it."""
    cmd = vgload_client_command(g, cgroup, port, args, server, interval)
    return g.spawn(cmd + ("; echo rc=$?" if status else ""), log)


def stop_vgload(g: Guest):
    """End every vgload process and wait until they are gone."""
    g.kill_named("vgload")


def vgload_result(g: Guest, log: str, wait_s: float = 60) -> dict:
    """A client's JSON once it has written it. One guest command waits
    for the log to fill, looking every tenth of a second (a command and
    a half-second sleep per look cost 0.65 s each time); the host parses
    its last line, and asks again while the client is still writing. A
    client that failed wrote why to stderr, the same log, before its
    JSON (a bounded RNR storm's "vgload: run failed (all_qps_failed)")."""
    deadline = time.monotonic() + wait_s
    again = ""
    while True:
        out = g.run(f"{again}i=0; while [ $i -lt 20 ]; do [ -s {log} ] && "
                    f"break; sleep 0.1; i=$((i + 1)); done; cat {log}").out
        again = "sleep 0.2; "
        try:
            return json.loads(out.strip().splitlines()[-1])
        except (ValueError, IndexError):
            if time.monotonic() > deadline:
                raise AssertionError(f"{log}: {out}")


def window_rate(result: dict, first: int, last: int
                ) -> tuple[float, float]:
    """A client's bytes/s and operations/s over its report intervals
    first..last (seconds since it started), measured from its last
    completion before the window to its last one in it (vgload's
    t_last_done_s): exact however large its messages, where bytes over
    the intervals are off by up to a message at each edge (a 1 MB WRITE
    stream completes about ten in a 6 s window on the wire, so a message
    more or less is a tenth). Without a completion before the window,
    from the window's start."""
    done = [i for i in result["intervals"]
            if i.get("t_last_done_s") is not None and i["ops"]]
    before = [i["t_last_done_s"] for i in done if i["t_start_s"] < first]
    inside = [i for i in done if first <= i["t_start_s"] < last]
    if not inside:
        return 0.0, 0.0
    start = before[-1] if before else float(first)
    seconds = inside[-1]["t_last_done_s"] - start
    assert seconds > 0, (first, last, result["intervals"])
    return (sum(i["bytes"] for i in inside) / seconds,
            sum(i["ops"] for i in inside) / seconds)


def window_bytes(result: dict, first: int, last: int) -> int:
    """Bytes a client moved in its report intervals first..last (seconds
    since it started), so that clients started together are compared
    over the same time, while both ran."""
    return sum(i["bytes"] for i in result["intervals"]
               if first <= i["t_start_s"] < last)
