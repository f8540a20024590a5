"""A tenant's quota of registered memory: `verbsgate tenant set T
mr-bytes-max SIZE` bounds the bytes T's processes hold registered as MRs
at once, which stay pinned until deregistered (RLIMIT_MEMLOCK bounds a
process, not a tenant of many). A registration past the quota fails with
EDQUOT before the driver pins anything and is counted (mr_refused); every
deregistration gives its bytes back (mr_bytes), to the tenant charged.
The number of objects is the rdma cgroup controller's, rdma.max in the
tenant's cgroup, which works next to verbsgate. Netlink, the CLI and
sysfs agree; bad values are refused and change nothing. Emulated (rxe
in QEMU TCG), loopback."""
import json

from harness.counters import rdma_objects, stats
from harness.rawgenl import raw_batch
from harness.testbed import SYSFS, VGLOAD, Guest
from harness.tenants import empty_cgroups, in_cgroup, make_cgroups
from harness.traffic import (stop_vgload, vgload_client, vgload_result,
                             vgload_server)
from harness.vgcli import cli_json, cli_ok, eventually

TENANT_SET, TENANT_NAME, MR_BYTES_MAX = 5, 9, 64
MIB = 1 << 20


def held(g: Guest, name: str) -> int:
    """The tenant's mr_bytes in sysfs, while it may change."""
    return int(g.run(f"cat {SYSFS}/tenants/{name}/mr_bytes", check=True).out)


def tenant(g: Guest, name: str) -> dict:
    """The tenant's quota and counters, as netlink (CLI JSON) and sysfs
    give them, which must agree: read while they do not change."""
    (t,) = [t for t in cli_json(g, "tenant show") if t["name"] == name]
    s = stats(g)[name]
    keys = ("mr_bytes_max", "mr_bytes", "mr_refused")
    files = g.run(" ".join(["cat"] + [f"{SYSFS}/tenants/{name}/{k}"
                                      for k in keys]), check=True).out
    got = {**{k: t[k] for k in keys[:1]}, **{k: s[k] for k in keys[1:]}}
    assert [int(v) for v in files.split()] == [got[k] for k in keys], \
        (files, got)
    return got


def mr_storm(g: Guest, cgroup: str, mrs: int, size: str) -> dict:
    """vgload's MR storm in @cgroup for a second: each round registers
    @mrs MRs of @size, stopping at the first refusal, and deregisters
    them."""
    cmd = (f"{VGLOAD} client --json --interval 0 --mode mr-storm "
           f"--mrs {mrs} --mr-size {size} --duration 1")
    res = g.run(in_cgroup(cgroup, cmd), 120)
    assert res.ok, res
    return json.loads(res.out)


def test_registrations_past_the_quota_are_refused_and_given_back(guest):
    g = guest
    assert g.load_verbsgate().ok
    make_cgroups(g, ["hog"])
    cli_ok(g, "tenant add hog cgroup /hog class bandwidth weight 1 "
              "mr-bytes-max 1m")
    idle = rdma_objects(g)
    try:
        assert tenant(g, "hog") == {"mr_bytes_max": MIB, "mr_bytes": 0,
                                    "mr_refused": 0}
        # Eight 256 KiB MRs a round against 1 MiB: four fit, the fifth
        # is refused, every round.
        doc = mr_storm(g, "hog", 8, "256k")
        v, errors = doc["verbs"], doc["total"]["errors"]
        refused = errors.get("ibv_reg_mr:EDQUOT", 0)
        assert refused > 0 and set(errors) == {"ibv_reg_mr:EDQUOT"}, errors
        regs = v["ibv_reg_mr"]["ops"]
        assert 4 * refused <= regs <= 4 * refused + 4, (regs, refused)
        assert v["ibv_dereg_mr"]["ops"] == regs
        # Counted, and every byte given back.
        assert tenant(g, "hog") == {"mr_bytes_max": MIB, "mr_bytes": 0,
                                    "mr_refused": refused}
        assert rdma_objects(g) == idle

        # A bigger quota lets the same rounds through.
        cli_ok(g, "tenant set hog mr-bytes-max 2m")
        doc = mr_storm(g, "hog", 8, "256k")
        assert doc["total"]["errors"] == {}
        assert doc["verbs"]["ibv_reg_mr"]["ops"] > 0
        assert tenant(g, "hog")["mr_refused"] == refused

        # Held while a client runs, in its tenant's count, and a second
        # client of the same tenant past the quota is refused with a
        # clear error, its first registrations given back.
        cli_ok(g, "tenant set hog mr-bytes-max 1m")
        vgload_server(g, 18950, 0)
        vgload_client(g, "hog", 18950, "--op write --size 4K --mrs 2 "
                      "--mr-size 512K --duration 6 --poll event",
                      "/tmp/mrq-first.log")
        eventually("the first client's MRs", lambda: held(g, "hog"), MIB)
        vgload_client(g, "hog", 18950, "--op write --size 4K --mrs 2 "
                      "--mr-size 512K --duration 2", "/tmp/mrq-second.log")
        # Its error on standard error, its report on standard output.
        log = g.run("i=0; while [ $i -lt 100 ]; do grep -q '^{' "
                    "/tmp/mrq-second.log && break; sleep 0.1; "
                    "i=$((i + 1)); done; cat /tmp/mrq-second.log",
                    check=True).out
        assert "ibv_reg_mr failed: Disk quota exceeded (EDQUOT)" in log, log
        (report,) = [line for line in log.splitlines()
                     if line.startswith("{")]
        second = json.loads(report)
        assert not second["ok"] and "EDQUOT" in second["message"], second
        assert tenant(g, "hog")["mr_bytes"] == MIB
        assert vgload_result(g, "/tmp/mrq-first.log")["ok"]
        eventually("the MRs given back", lambda: held(g, "hog"), 0)
        assert tenant(g, "hog")["mr_refused"] == refused + 1

        # No quota: counted, never refused.
        cli_ok(g, "tenant set hog mr-bytes-max none")
        doc = mr_storm(g, "hog", 8, "256k")
        assert doc["total"]["errors"] == {}
        assert tenant(g, "hog") == {"mr_bytes_max": 0, "mr_bytes": 0,
                                    "mr_refused": refused + 1}
    finally:
        stop_vgload(g)
        empty_cgroups(g, ["hog"])
        cli_ok(g, "tenant del hog")
        g.run("rmdir /sys/fs/cgroup/hog")


def test_unload_with_mrs_registered_forgets_their_charge(guest):
    """MRs registered while verbsgate was loaded outlive its unload; their
    deregistration afterwards, and after a new load, charges nobody."""
    g = guest
    assert g.load_verbsgate().ok
    make_cgroups(g, ["keep"])
    cli_ok(g, "tenant add keep cgroup /keep class bandwidth weight 1 "
              "mr-bytes-max 1m")
    try:
        vgload_server(g, 18951, 0)
        pid = vgload_client(g, "keep", 18951, "--op write --size 4K --mrs 1 "
                            "--mr-size 512K --duration 8 --poll event",
                            "/tmp/mrq-keep.log")
        eventually("the client's MRs", lambda: held(g, "keep"),
                   512 * 1024)
        assert g.unload_verbsgate().ok
        assert g.load_verbsgate().ok
        cli_ok(g, "tenant add keep cgroup /keep class bandwidth weight 1 "
                  "mr-bytes-max 1m")
        assert tenant(g, "keep")["mr_bytes"] == 0
        assert g.run(f"while kill -0 {pid} 2>/dev/null; do sleep 0.2; "
                     "done", 60).ok
        assert vgload_result(g, "/tmp/mrq-keep.log")["ok"]
        assert tenant(g, "keep") == {"mr_bytes_max": MIB, "mr_bytes": 0,
                                     "mr_refused": 0}
    finally:
        stop_vgload(g)
        empty_cgroups(g, ["keep"])
        if g.verbsgate_loaded():
            cli_ok(g, "tenant del keep")
        g.run("rmdir /sys/fs/cgroup/keep")


def test_rdma_cgroup_counts_the_objects(guest):
    """rdma.max in a tenant's cgroup caps its processes' objects with
    verbsgate loaded, as without it: the controller covers the count of
    QPs, CQs, MRs and PDs together, so the module does not."""
    g = guest
    assert g.load_verbsgate().ok
    assert "rdma" in g.run("cat /sys/fs/cgroup/cgroup.controllers",
                           check=True).out.split()
    g.run("echo +rdma > /sys/fs/cgroup/cgroup.subtree_control", check=True)
    make_cgroups(g, ["few"])
    cli_ok(g, "tenant add few cgroup /few class bandwidth weight 1")
    try:
        g.run(f"echo '{g.rxe_dev} hca_object=6' > /sys/fs/cgroup/few/rdma.max",
              check=True)
        doc = mr_storm(g, "few", 16, "4k")
        # Its PD and CQ, then MRs until the sixth object.
        errors = doc["total"]["errors"]
        assert errors.get("ibv_reg_mr:EAGAIN", 0) > 0, errors
        assert doc["verbs"]["ibv_reg_mr"]["ops"] > 0
    finally:
        empty_cgroups(g, ["few"])
        # Back to no limit before the cgroup goes: the 6.1 kernel frees
        # a removed cgroup but not its rdma pools (rdmacg_css_offline
        # only raises their limits), and removing the device later
        # unlinks the pool from the freed cgroup's list: an oops in
        # free_cg_rpool_locked() at `rdma link delete`. A pool with
        # every limit at max and nothing charged is freed at once.
        g.run(f"echo '{g.rxe_dev} hca_handle=max hca_object=max' > "
              "/sys/fs/cgroup/few/rdma.max", check=True)
        cli_ok(g, "tenant del few")
        g.run("rmdir /sys/fs/cgroup/few; "
              "echo -rdma > /sys/fs/cgroup/cgroup.subtree_control")


def test_bad_quotas_change_nothing(guest):
    g = guest
    assert g.load_verbsgate().ok
    cli_ok(g, "tenant add q ulp rpcrdma class bandwidth weight 1 "
              "mr-bytes-max 64m")
    assert tenant(g, "q")["mr_bytes_max"] == 64 * MIB
    for cmd in ("mr-bytes-max 0", "mr-bytes-max -1m", "mr-bytes-max lots",
                "mr-bytes-max", "mr-bytes-max 1m weight 0"):
        res = g.cli(f"tenant set q {cmd}")
        assert res.rc == 1 and res.out.startswith("verbsgate: "), (cmd, res)
    # The kernel takes a u64, nothing shorter.
    outs = raw_batch(g, [(TENANT_SET, [(TENANT_NAME, b"q\0"),
                                       (MR_BYTES_MAX, (1).to_bytes(4,
                                                                 "little"))],
                          False)])
    assert (outs[0]["error"], outs[0]["extack"]) == \
        (22, "invalid attribute length"), outs
    assert tenant(g, "q")["mr_bytes_max"] == 64 * MIB
    cli_ok(g, "tenant set q mr-bytes-max none")
    assert tenant(g, "q")["mr_bytes_max"] == 0
    cli_ok(g, "tenant del q")
