"""What the tests of rdma_rxe's send queue policy and of verbsgate's user
send queues share: the user-space tools of tests/integration/sqhold,
built once per session; the GID index of an address; cgroup tenants and
their counters; and traffic from vgload in a tenant's cgroup."""
import json
import os
import shlex
import subprocess
import time

from nvme import GID_SLOTS, ipv4_gid
from testbed import BUILD_DIR, CLI, REPO, VGLOAD, Guest
from vgcli import cli_json, eventually

SQHOLD = REPO / "tests" / "integration" / "sqhold"
SQHOLD_MODULE = SQHOLD / "vg_sqhold.ko"
SQHOLD_PARAMS = "/sys/module/vg_sqhold/parameters"
USQ_OBJECTS = "/sys/kernel/debug/verbsgate/usq_objects"
CGROUPS = "/sys/fs/cgroup"
# `make usq-full` (VG_USQ_FULL=1) runs the longer forms these tests have:
# more operations, reloads and policies; `make check` the shorter ones,
# which assert the same verdicts.
FULL = os.environ.get("VG_USQ_FULL") == "1"

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


def gid_index(g: Guest, addr: str | None = None) -> int:
    """Index of the IPv4-mapped GID of addr (default: the guest's) in the
    rxe device's port 1 table."""
    path = f"/sys/class/infiniband/{g.rxe_dev}/ports/1/gids"
    res = g.run(f"cd {path} && for i in $(seq 0 {GID_SLOTS - 1}); do "
                f"grep -qx {ipv4_gid(addr or g.ip)} $i && echo $i && "
                "exit 0; done; exit 1", check=True)
    return int(res.out.split()[0])


def in_cgroup(cgroup: str, cmd: str) -> str:
    """A shell command that runs cmd in cgroup (a directory name under
    the cgroup root), which it enters first."""
    return "sh -c " + shlex.quote(
        f"echo $$ > {CGROUPS}/{cgroup}/cgroup.procs && exec {cmd}")


def make_cgroups(g: Guest, names):
    """cgroups directly under the root, for in_cgroup()."""
    g.run("mkdir -p " + " ".join(f"{CGROUPS}/{n}" for n in names),
          check=True)


# The cgroup of the test bed's own processes while tenants are pinned.
TESTBED_CGROUP = "testbed"


def pin_cgroups(g: Guest, cpus: dict[str, str], testbed: str = ""):
    """Each cgroup (made if missing) on its own vCPUs: cpus maps a name to
    its cpuset.cpus ("0", "1-2"; "" for the parent's set again). With
    testbed, the guest's agent, and so every command and server it starts
    outside a tenant's cgroup, moves to cgroup TESTBED_CGROUP on those
    vCPUs: otherwise, with the attacker's vCPU busy, the scheduler puts
    the test bed's own work on the victim's. The test bed's reset
    (conftest.py) unpins every cgroup and moves the agent back."""
    make_cgroups(g, [*cpus, TESTBED_CGROUP])
    g.run(f"echo +cpuset > {CGROUPS}/cgroup.subtree_control", check=True)
    # The shell's parent is the agent; a populated cgroup refuses "".
    home = f"{CGROUPS}/{TESTBED_CGROUP}" if testbed else CGROUPS
    g.run(f"echo $PPID > {home}/cgroup.procs", check=True)
    for name, c in {**cpus, TESTBED_CGROUP: testbed}.items():
        g.run(f"echo '{c}' > {CGROUPS}/{name}/cpuset.cpus", check=True)


def empty_cgroups(g: Guest, names):
    """Kill every process in the cgroups and wait until they are empty
    (a populated cgroup refuses to be unpinned)."""
    if not names:
        return
    paths = " ".join(f"{CGROUPS}/{n}" for n in names)
    g.run(f"for d in {paths}; do [ -d $d ] || continue; "
          "kill -9 $(cat $d/cgroup.procs) 2>/dev/null; "
          "for i in $(seq 100); do "
          "grep -qx 'populated 0' $d/cgroup.events && break; sleep 0.1; "
          "done; grep -qx 'populated 0' $d/cgroup.events || "
          "{ echo $d is still populated; exit 1; }; done", check=True)


# The CLI's tenant selectors (`verbsgate tenant help`).
SELECTORS = ("cgroup", "ulp", "local", "peer")


def add_tenants(g: Guest, spec: dict[str, str]):
    """`tenant add NAME REST` for each NAME: REST in @spec. A REST that
    starts with no selector (class, weight) selects the cgroup /NAME,
    made if missing: a tenant named after its cgroup."""
    for name, rest in spec.items():
        if rest.split()[0] not in SELECTORS:
            make_cgroups(g, [name])
            rest = f"cgroup /{name} {rest}"
        res = g.cli(f"tenant add {name} {rest}")
        assert res.ok, f"tenant add {name} {rest}: {res.out}"


def stats(g: Guest) -> dict[str, dict]:
    """Each tenant's counters, by name."""
    return {t["name"]: t for t in cli_json(g, "stats")["tenants"]}


def delta(before: dict, after: dict, name: str, key: str) -> int:
    """How much tenant @name's counter @key moved between two stats()."""
    return after[name][key] - before.get(name, {}).get(key, 0)


def deltas(before: dict, after: dict, key: str) -> dict[str, int]:
    """delta() of every tenant in @after (one added since counts from
    0)."""
    return {name: delta(before, after, name, key) for name in after}


def usq_objects(g: Guest) -> int:
    return int(g.run(f"cat {USQ_OBJECTS}", check=True).out)


def vgload_server(g: Guest, port: int, sessions: int, dev: str = "") -> int:
    """A vgload server for @sessions sessions (on device @dev, else the
    first active one), seen listening."""
    on = f"--dev {dev} " if dev else ""
    pid = g.spawn(f"exec {VGLOAD} server {on}--port {port} --sessions "
                  f"{sessions} --quiet", f"/tmp/vgload-server-{port}.log")
    eventually("the vgload server listening",
               lambda: bool(g.run(f"ss -Hltn 'sport = :{port}'")
                            .out.strip()), True)
    return pid


def vgload_client(g: Guest, cgroup: str, port: int, args: str,
                  log: str, server: str = "", interval: int = 1) -> int:
    """A vgload client in cgroup, in the background, JSON to log, to the
    server at @server (default: the guest's address) with a report every
    @interval seconds (0: none); returns the pid of the shell that runs
    it."""
    return g.spawn(in_cgroup(cgroup, f"{VGLOAD} client {server or g.ip} "
                             f"--port {port} --json --interval {interval} "
                             f"{args}"), log)


def stop_vgload(g: Guest):
    """End every vgload process and wait until they are gone."""
    g.run("pkill -x vgload; for i in $(seq 100); do "
          "pgrep -x vgload >/dev/null || break; sleep 0.1; done")


def vgload_result(g: Guest, log: str, wait_s: float = 60) -> dict:
    """A client's JSON once it has written it."""
    deadline = time.monotonic() + wait_s
    while True:
        out = g.run(f"cat {log}").out
        try:
            return json.loads(out)
        except ValueError:
            if time.monotonic() > deadline:
                raise AssertionError(f"{log}: {out}")
            g.run("sleep 0.5")


def window_bytes(result: dict, first: int, last: int) -> int:
    """Bytes a client moved in its report intervals first..last (seconds
    since it started), so that clients started together are compared
    over the same time, while both ran."""
    return sum(i["bytes"] for i in result["intervals"]
               if first <= i["t_start_s"] < last)


def append_report(text: str, source: str = ""):
    """Appends a section of measured figures to $VERBSGATE_REPORT if set
    (the CI's report), after a comment naming @source and the time."""
    path = os.environ.get("VERBSGATE_REPORT")
    if not path:
        return
    with open(path, "a") as f:
        if source:
            when = time.strftime("%Y-%m-%d %H:%M:%S")
            f.write(f"\n<!-- {source}, {when} -->")
        f.write(text)


def report(title: str, rows: list[str]):
    """Prints a Markdown section of measured figures, and appends it to
    the CI's report."""
    text = f"\n### {title}\n\n" + "\n".join(rows) + "\n"
    print(text)
    append_report(text)


def keep_report(request, tmp_path, text: str):
    """Prints a measuring test's table and keeps it: report.md in
    tmp_path, the test's user properties, and the CI's report."""
    print("\n" + text)
    (tmp_path / "report.md").write_text(text)
    request.node.user_properties.append(("report", text))
    append_report("\n" + text, request.node.nodeid)


def build_report(name: str, text: str, data=None):
    """Prints a make target's Markdown report and writes it to
    build/@name; @data, if given, (the figures behind it, for machines)
    to the same name ending in .json."""
    print("\n" + text)
    BUILD_DIR.mkdir(exist_ok=True)
    (BUILD_DIR / name).write_text(text + "\n")
    if data is not None:
        path = (BUILD_DIR / name).with_suffix(".json")
        path.write_text(json.dumps(data, indent=1) + "\n")


def device_rate(g: Guest, rate: str):
    res = g.cli(f"dev set {g.rxe_dev} maxrate {rate}")
    assert res.ok, res.out


__all__ = ["CLI", "SQHOLD", "SQHOLD_MODULE", "SQHOLD_PARAMS", "VGLOAD",
           "USQ_OBJECTS", "tool", "gid_index", "in_cgroup", "make_cgroups",
           "pin_cgroups", "empty_cgroups", "SELECTORS", "add_tenants", "stats",
           "delta", "deltas",
           "usq_objects", "vgload_server", "vgload_client", "stop_vgload",
           "vgload_result", "window_bytes", "append_report", "report",
           "keep_report", "build_report", "device_rate"]
