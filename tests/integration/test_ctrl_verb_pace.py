"""A tenant's pace of control verbs: `verbsgate tenant set T ctrl-rate N
ctrl-burst B` lets T's processes create, modify and destroy QPs, CQs and
PDs and register and deregister MRs at N verbs a second after a burst of
B, so that a tenant looping over them (Husky's control-verb storms) does
not take the driver from the others. A verb over the pace sleeps,
interruptibly, before the driver sees it: a killed caller leaves nothing
behind, and unloading verbsgate does not wait for a paced caller. Other
tenants and kernel ULPs are not paced. Netlink, the CLI and sysfs agree;
bad values are refused and change nothing.

The rates are the tenant's own counters over vgload's own duration, in
one run; emulated (rxe in QEMU TCG)."""
import json

from harness.counters import rdma_objects
from harness.rawgenl import raw_batch
from harness.testbed import SYSFS, VGLOAD, Guest
from harness.tenants import empty_cgroups, in_cgroup, make_cgroups
from harness.vgcli import cli_json, cli_ok

TENANT_SET, TENANT_NAME = 5, 9
CTRL_RATE, CTRL_BURST = 62, 63
PACE, BURST = 50, 4


def stats(g: Guest, name: str) -> dict:
    (s,) = [t for t in cli_json(g, "stats")["tenants"] if t["name"] == name]
    for key in ("ctrl_verbs", "ctrl_wait_ns"):
        sysfs = g.run(f"cat {SYSFS}/tenants/{name}/{key}", check=True)
        assert int(sysfs.out) == s[key], (key, sysfs.out, s)
    return s


def pace(g: Guest, name: str) -> tuple[int, int]:
    (t,) = [t for t in cli_json(g, "tenant show") if t["name"] == name]
    files = g.run(f"cat {SYSFS}/tenants/{name}/ctrl_rate "
                  f"{SYSFS}/tenants/{name}/ctrl_burst", check=True).out.split()
    assert [int(f) for f in files] == [t["ctrl_rate"], t["ctrl_burst"]]
    return t["ctrl_rate"], t["ctrl_burst"]


def storm(g: Guest, cgroup: str, seconds: float = 1) -> dict:
    """vgload's QP create/destroy storm in @cgroup ("": the default
    tenant): its report, with the verbs its tenant counted meanwhile."""
    name = cgroup or "default"
    before = stats(g, name)
    cmd = (f"{VGLOAD} client --json --interval 0 --mode qp-storm --qps 8 "
           f"--duration {seconds}")
    res = g.run(in_cgroup(cgroup, cmd) if cgroup else cmd, 120)
    assert res.ok, res
    doc = json.loads(res.out)
    after = stats(g, name)
    doc["_verbs_s"] = (after["ctrl_verbs"] - before["ctrl_verbs"]) / \
        doc["total"]["duration_s"]
    doc["_wait_ns"] = after["ctrl_wait_ns"] - before["ctrl_wait_ns"]
    assert doc["verbs"]["ibv_create_qp"]["errors"] == 0, doc
    return doc


def test_control_verbs_keep_to_the_tenant_s_pace(guest):
    g = guest
    assert g.load_verbsgate().ok
    make_cgroups(g, ["storm"])
    cli_ok(g, "tenant add storm cgroup /storm class bandwidth weight 1")
    try:
        assert pace(g, "storm") == (0, 64)
        free = storm(g, "storm")
        assert free["_wait_ns"] == 0
        # The storm is far faster than the pace to come, or the test
        # would show nothing.
        assert free["_verbs_s"] >= 4 * PACE, free["_verbs_s"]

        cli_ok(g, f"tenant set storm ctrl-rate {PACE} ctrl-burst {BURST}")
        assert pace(g, "storm") == (PACE, BURST)
        paced = storm(g, "storm", 2)
        # Every create waits for its turn: the pace, and what the burst
        # adds. A destroy does not wait, and costs a turn only while the
        # next one is less than a burst ahead: at most as many again.
        creates_s = paced["verbs"]["ibv_create_qp"]["ops"] / \
            paced["total"]["duration_s"]
        assert 0.5 * PACE <= creates_s <= 1.25 * PACE + BURST / 2, creates_s
        assert paced["_verbs_s"] <= 2 * (1.25 * PACE + BURST / 2) + 4, \
            paced["_verbs_s"]
        assert paced["_wait_ns"] > 0
        # Every QP created was destroyed, none failed.
        v = paced["verbs"]
        assert v["ibv_create_qp"]["ops"] == v["ibv_destroy_qp"]["ops"] > 0
        assert v["ibv_destroy_qp"]["errors"] == 0

        # Another tenant is not paced.
        other = storm(g, "")
        assert other["_verbs_s"] >= 4 * PACE and other["_wait_ns"] == 0
    finally:
        empty_cgroups(g, ["storm"])
        cli_ok(g, "tenant del storm")
        g.run("rmdir /sys/fs/cgroup/storm")


def test_a_killed_or_unloaded_wait_leaves_nothing_behind(guest):
    g = guest
    assert g.load_verbsgate().ok
    make_cgroups(g, ["slow"])
    cli_ok(g, "tenant add slow cgroup /slow class bandwidth weight 1 "
              "ctrl-rate 1 ctrl-burst 1")
    idle = rdma_objects(g)
    cmd = (f"{VGLOAD} client --json --interval 0 --mode qp-storm --qps 8 "
           f"--duration 60")
    try:
        # A caller waiting for its turn dies: nothing of it stays.
        pid = g.spawn(in_cgroup("slow", cmd), "/tmp/slow-storm.log")
        g.run(f"until [ $(cat {SYSFS}/tenants/slow/ctrl_wait_ns) -gt 0 ]; "
              "do sleep 0.2; done", 30, check=True)
        procs = "/sys/fs/cgroup/slow/cgroup.procs"
        assert g.run(f"kill -9 $(cat {procs}); while [ -s {procs} ]; "
                     "do sleep 0.1; done", 20).ok
        assert g.run(f"while kill -0 {pid} 2>/dev/null; do sleep 0.1; done",
                     20).ok
        assert rdma_objects(g) == idle

        # Unloading verbsgate ends a wait; the storm goes on unpaced.
        pid = g.spawn(in_cgroup("slow", cmd.replace("60", "4")),
                      "/tmp/slow-storm2.log")
        g.run(f"until [ $(cat {SYSFS}/tenants/slow/ctrl_verbs) -gt 12 ]; "
              "do sleep 0.2; done", 30, check=True)
        assert g.unload_verbsgate().ok
        assert g.run(f"while kill -0 {pid} 2>/dev/null; do sleep 0.2; done",
                     60).ok
        doc = json.loads(g.run("cat /tmp/slow-storm2.log", check=True).out)
        assert doc["ok"], doc
        v = doc["verbs"]
        assert v["ibv_create_qp"]["ops"] == v["ibv_destroy_qp"]["ops"]
        assert rdma_objects(g) == idle
    finally:
        if g.run("[ -d /sys/module/verbsgate ]").ok:
            empty_cgroups(g, ["slow"])
            cli_ok(g, "tenant del slow")
        g.run("rmdir /sys/fs/cgroup/slow")


def test_bad_paces_change_nothing(guest):
    g = guest
    assert g.load_verbsgate().ok
    cli_ok(g, "tenant add p ulp rpcrdma class bandwidth weight 1 "
              "ctrl-rate 100")
    assert pace(g, "p") == (100, 64)
    for cmd in ("ctrl-rate 1000001", "ctrl-rate -1", "ctrl-rate fast",
                "ctrl-burst 0", "ctrl-burst 1000001",
                "ctrl-rate 10 ctrl-burst 0"):
        res = g.cli(f"tenant set p {cmd}")
        assert res.rc == 1 and res.out.startswith("verbsgate: "), (cmd, res)
    name = (TENANT_NAME, b"p\0")
    u32 = (lambda v: v.to_bytes(4, "little"))
    outs = raw_batch(g, [(TENANT_SET, [name, attr], False) for attr in (
        (CTRL_RATE, u32(1_000_001)), (CTRL_BURST, u32(0)),
        (CTRL_BURST, u32(1_000_001)))])
    for out in outs:
        assert (out["error"], out["extack"]) == \
            (34, "integer out of range"), out
    assert pace(g, "p") == (100, 64)
    cli_ok(g, "tenant set p ctrl-rate none ctrl-burst 1000000")
    assert pace(g, "p") == (0, 1_000_000)
    cli_ok(g, "tenant del p")
