"""Every byte and every completion of a governed user QP is what it would
be without verbsgate, however verbsgate splits and paces it, and while
verbsgate is unloaded and loaded again under it.

vg_usqcheck (tests/integration/sqhold) posts RDMA operations of random
sizes from 1 byte to 16 MB over up to 32 SGEs, mixed with inline,
unsignaled, fenced and atomic WRs, and checks the data at both ends, the
guard bytes around them and each completion's number, order, wr_id,
opcode, status, byte count and immediate data. It runs unprivileged, in
a paced tenant's cgroup, with verbsgate splitting the WRs in 4 KB
chunks.
"""
import json
import os
import shlex

from harness.counters import stats
from harness.tenants import add_tenants, in_cgroup, make_cgroups
from harness.testbed import CLI, MODULE, SYSFS
from harness.traffic import (FULL, UNPRIVILEGED, gid_index, stop_vgload, tool,
                             vgload_client, vgload_result, vgload_server)
from harness.vgcli import cli_ok, eventually

# verbsgate's note that its view of a governed queue parted from rxe's.
DISAGREE = "verbsgate knew of"
# The reload test's cycles (`make usq-full`: 20) and the data test's
# operations per run (`make usq-full`: three times as many).
RELOADS = int(os.environ.get("VG_USQ_RELOADS", "20" if FULL else "3"))
OPS = 3 if FULL else 1


def usqcheck(g, cgroup: str, args: str, timeout: float = 600) -> dict:
    res = g.run(in_cgroup(cgroup, f"{UNPRIVILEGED} {tool('vg_usqcheck')} "
                          f"{g.rxe_dev} {gid_index(g)} {args}"),
                timeout=timeout)
    out = json.loads(res.out.strip().splitlines()[-1])
    assert res.ok and out["ok"], res.out
    return out


def test_data_and_completions_exact_when_split_and_paced(rxe_kept):
    g = rxe_kept
    mark = g.console_mark()
    assert g.load_verbsgate().ok
    add_tenants(g, {"check": "class bandwidth weight 1",
                    "other": "class bandwidth weight 1"})
    cli_ok(g, f"dev set {g.rxe_dev} chunk-nolat 4k")
    # Another tenant's stream, so that the checked one waits its turns.
    vgload_server(g, 18820, 1)
    vgload_client(g, "other", 18820, "--mode bw --duration 300",
                  "/tmp/check-other.log")
    runs = {
        "rc 1 B-16 MB, 32 SGEs": usqcheck(
            g, "check", f"--ops {20 * OPS} --max-size 16777216 --sge 32 "
            "--seed 1"),
        "rc mixed": usqcheck(
            g, "check", f"--ops {100 * OPS} --max-size 262144 --mix "
            "--seed 2"),
        "rc reset every 2 batches": usqcheck(
            g, "check", f"--ops {70 * OPS} --max-size 65536 --reset 2 "
            "--seed 4"),
        "uc 1 B-1 MB": usqcheck(
            g, "check", f"--ops {50 * OPS} --max-size 1048576 --sge 8 "
            "--qp-type uc --seed 3"),
    }
    check = stats(g)["check"]
    stop_vgload(g)
    print("\n" + "\n".join(f"{k}: {v}" for k, v in runs.items()) +
          f"\ncheck: {check}")
    ops = sum(r["ops"] for r in runs.values())
    # Everything went through verbsgate, and the large WRs in chunks.
    assert check["tx_wrs"] >= ops, check
    assert check["split_wrs"] > 0 and check["chunks"] > check["tx_wrs"], \
        check
    assert DISAGREE not in g.console_since(mark)


def test_reload_under_verified_traffic(rxe_kept):
    """verbsgate is unloaded and loaded RELOADS times while vg_usqcheck
    runs back to back (each run a new pair of QPs, governed if verbsgate
    was loaded when it began) and a vgload stream runs in another
    tenant: no mismatch, no lost or extra completion, no kernel
    warning, and nothing of verbsgate's left behind. Fenced WRs are in
    the mix: a retry at an unload no longer hangs a fenced READ or
    atomic (driver patch 0003)."""
    g = rxe_kept
    mark = g.console_mark()
    make_cgroups(g, ["check", "other"])
    vgload_server(g, 18821, 1)
    vgload_client(g, "other", 18821, f"--mode bw --duration {RELOADS * 4}",
                  "/tmp/reload-other.log")
    loop = ("i=0; while [ ! -e /tmp/reload-stop ]; do i=$((i+1)); "
            f"{UNPRIVILEGED} {tool('vg_usqcheck')} {g.rxe_dev} {gid_index(g)} "
            "--ops 60 --max-size 1048576 --mix --seed $i "
            ">>/tmp/reload-check.log || { echo FAILED run $i; exit 1; }; "
            "done; echo done $i")
    g.run("rm -f /tmp/reload-stop /tmp/reload-check.log")
    pid = g.spawn(in_cgroup("check", f"sh -c {shlex.quote(loop)}"),
                  "/tmp/reload-loop.log")
    # WRs verbsgate governed for the checked tenant in each cycle. Its
    # queues come and go with the runs (about half the time one is
    # open), so a count of queues at one instant can miss them; the
    # tenant's counter, new with each load, cannot. A run whose QPs were
    # created before the load stays ungoverned to its end, and a run
    # lasts a second or more next to the stream (a cycle that read the
    # counter a second after the load found 0 in a CI run): each cycle
    # waits, up to 20 s, for a run that began after its load.
    governed = []
    # One command per cycle: the test bed's round trips are slow.
    cycle = " && ".join([
        f"insmod {MODULE}",
        f"{CLI} tenant add check cgroup /check class bandwidth weight 1",
        f"{CLI} tenant add other cgroup /other class bandwidth weight 1",
        f"{CLI} dev set {g.rxe_dev} chunk-nolat 4k",
        f"for i in $(seq 200); do read -r n < {SYSFS}/tenants/check/"
        "tx_wrs; [ $n -gt 0 ] && break; sleep 0.1; done; echo $n"])
    for _ in range(RELOADS):
        res = g.run(cycle)
        assert res.ok, res.out
        governed.append(int(res.out.split()[-1]))
        res = g.unload_verbsgate()
        assert res.ok, res.out
    g.run("touch /tmp/reload-stop")
    eventually("the checking loop ending",
               lambda: g.run(f"kill -0 {pid}").ok, False, tries=1200)
    loop_out = g.run("cat /tmp/reload-loop.log").out
    checks = [json.loads(line) for line in
              g.run("cat /tmp/reload-check.log").out.splitlines()]
    other = vgload_result(g, "/tmp/reload-other.log", RELOADS * 4 + 60)
    print(f"\n{RELOADS} reloads; {len(checks)} checked runs, "
          f"{sum(c['ops'] for c in checks)} ops, "
          f"{sum(c['bytes'] for c in checks)} bytes; WRs governed per cycle "
          f"{governed}; {loop_out.strip()}; other: {other['total']}")
    assert "done" in loop_out and "FAILED" not in loop_out, loop_out
    assert checks and all(c["ok"] for c in checks), checks
    assert all(governed), governed
    assert other["ok"], other
    assert DISAGREE not in g.console_since(mark)
