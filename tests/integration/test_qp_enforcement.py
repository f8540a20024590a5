"""No QP goes unshaped without anyone being told: `verbsgate qp show`
says of each tracked QP whether its posts are enforced, only tracked, or
cannot be shaped and why; `verbsgate dev show` and sysfs count them per
device, with the QPs verbsgate does not track at all (created before it
was loaded, or of a type it does not follow)."""
from harness.nvme import nvme_over_rdma
from harness.testbed import SYSFS
from harness.vgcli import cli_json

PINGPONG = "ibv_rc_pingpong -d rxe0 -g 1"
DEVDIR = f"{SYSFS}/devices/rxe0"
STATES = ["enforced", "tracked", "unsupported", "untracked"]


def dev_qps(g) -> dict:
    """The counts of `dev show`, checked against sysfs."""
    (dev,) = cli_json(g, "dev show rxe0")
    sysfs = {s: int(g.run(f"cat {DEVDIR}/qps_{s}", check=True).out)
             for s in STATES}
    assert dev["qps"] == sysfs, (dev, sysfs)
    return dev["qps"]


def wait_for_qps(g, pattern: str, count: int):
    g.run(f"for i in $(seq 100); do [ $(grep -c '{pattern}' "
          f"/sys/kernel/debug/verbsgate/qps) -ge {count} ] && exit 0; "
          "sleep 0.1; done; exit 1", check=True)


def test_each_qp_reports_its_enforcement(guest):
    assert guest.load_verbsgate().ok
    base = dev_qps(guest)
    assert base["enforced"] == base["tracked"] == base["unsupported"] == 0
    server = guest.spawn(f"exec {PINGPONG} -n 100000", "/tmp/server.log")
    try:
        wait_for_qps(guest, "pingpong", 1)
        with nvme_over_rdma(guest) as dev:
            guest.run(f"dd if={dev} of=/dev/null bs=64k count=4 "
                      "iflag=direct", check=True)
            qps = cli_json(guest, "qp show")
            users = [q for q in qps if "pid" in q]
            kernel = [q for q in qps if "ulp" in q]
            assert len(users) == 1 and kernel, qps
            # A process's QP posts through its own doorbell: seen, not
            # shaped (until its driver is patched), and said so.
            assert (users[0]["enforcement"], users[0]["reason"]) == \
                ("tracked", "user-qp"), users
            # NVMe's RC QPs go through the shaper.
            assert {(q["type"], q["enforcement"], q.get("reason"))
                    for q in kernel} == {("RC", "enforced", None)}, kernel
            text = guest.cli("qp show").out
            assert "enforcement tracked: user-qp" in text, text
            assert "enforcement enforced" in text, text
            counts = dev_qps(guest)
            assert counts == {**base, "enforced": len(kernel),
                              "tracked": 1}, (counts, qps)
    finally:
        guest.run(f"kill {server}; sleep 0.5")


def test_qps_created_before_load_are_counted(guest):
    # What ib_core itself keeps (the GSI QP) is never tracked.
    assert guest.load_verbsgate().ok
    base = dev_qps(guest)["untracked"]
    assert guest.unload_verbsgate().ok
    server = guest.spawn(f"exec {PINGPONG} -n 100000", "/tmp/server.log")
    try:
        guest.run("for i in $(seq 50); do rdma res show qp | "
                  "grep -q pingpong && exit 0; sleep 0.1; done; exit 1",
                  check=True)
        assert guest.load_verbsgate().ok
        counts = dev_qps(guest)
        assert counts == {"enforced": 0, "tracked": 0, "unsupported": 0,
                          "untracked": base + 1}, counts
    finally:
        # The process has closed its files, and so destroyed its QP,
        # before it can be reaped.
        guest.run(f"kill {server}; while kill -0 {server} 2>/dev/null; "
                  "do sleep 0.1; done", check=True)
    # Once it is gone, so is the count.
    assert "pingpong" not in guest.run("rdma res show qp", check=True).out
    assert dev_qps(guest)["untracked"] == base
