"""A device whose user QPs verbsgate cannot enforce says so, and an operator
can refuse them: `verbsgate dev set DEV user-qps deny` makes creating a
QP fail with EPERM for every process outside a latency-class tenant, so
that no paced tenant uses the device past verbsgate; latency tenants,
which verbsgate never paces, and kernel QPs are not affected. CLI (text
and JSON), sysfs and the refusal counter agree; bad values are refused
and change nothing."""
import json

from harness.nvme import nvme_over_rdma
from harness.rawgenl import raw_batch
from harness.testbed import SYSFS, Guest
from harness.vgcli import cli_ok

DEV_SET, DEV_NAME, DEV_USER_QPS = 7, 5, 51
DEVDIR = f"{SYSFS}/devices/rxe0"
BULK, FAST = "/sys/fs/cgroup/bulk", "/sys/fs/cgroup/fast"
# A server that creates its QP and then waits for a client: alive at the
# timeout (rc 124) if the QP was created, rc 1 at once if not.
SERVER = "timeout 3 ibv_rc_pingpong -d rxe0 -g 1"


def dev(g: Guest) -> dict:
    return json.loads(cli_ok(g, "-j -d dev show rxe0"))[0]


def sysfs(g: Guest, name: str) -> str:
    return g.run(f"cat {DEVDIR}/{name}", check=True).out.strip()


def create_qp(g: Guest, cgroup: str = "") -> bool:
    """Whether a process (in @cgroup, if given) could create a user QP."""
    enter = f"echo $$ > {cgroup}/cgroup.procs; " if cgroup else ""
    res = g.run(f"sh -c '{enter}exec {SERVER}'", timeout=30)
    if res.rc == 124:
        return True
    assert res.rc == 1 and "Couldn't create QP" in res.out, res
    return False


def test_user_qps_deny_refuses_paced_tenants_only(guest):
    g = guest
    assert g.load_verbsgate().ok
    g.run(f"mkdir -p {BULK} {FAST}", check=True)
    cli_ok(g, "tenant add bulk cgroup /bulk class bandwidth weight 1")
    cli_ok(g, "tenant add fast cgroup /fast class latency weight 1")
    try:
        # Said, before anything is refused: not enforced, allowed.
        d = dev(g)
        assert (d["user_qps_enforced"], d["user_qps"],
                d["user_qps_refused"]) == (False, "allow", 0), d
        assert d["qps"] == {"enforced": 0, "tracked": 0, "unsupported": 0,
                            "untracked": d["qps"]["untracked"]}, d
        assert (sysfs(g, "user_qps"), sysfs(g, "user_qps_enforced"),
                sysfs(g, "user_qps_refused")) == ("allow", "0", "0")
        assert "user-qps not-enforced" in cli_ok(g, "dev show rxe0")
        assert create_qp(g, BULK)

        cli_ok(g, "dev set rxe0 user-qps deny")
        assert dev(g)["user_qps"] == "deny"
        assert sysfs(g, "user_qps") == "deny"
        mark = g.console_mark()
        assert not create_qp(g, BULK)       # a paced tenant
        assert not create_qp(g)             # the default tenant
        assert create_qp(g, FAST)           # a latency tenant
        assert dev(g)["user_qps_refused"] == 2
        assert sysfs(g, "user_qps_refused") == "2"
        text = cli_ok(g, "dev show rxe0")
        assert "user-qps not-enforced refused 2" in text, text
        console = g.console_since(mark)
        assert "in tenant bulk: its user QPs are not enforced here" in \
            console, console
        assert "in tenant default" in console, console

        # Kernel QPs are not user QPs: NVMe over RDMA still connects.
        with nvme_over_rdma(g) as blk:
            g.run(f"dd if={blk} of=/dev/null bs=4k count=16 iflag=direct",
                  check=True)

        cli_ok(g, "dev set rxe0 user-qps allow")
        assert create_qp(g, BULK)
        assert dev(g)["user_qps_refused"] == 2
    finally:
        cli_ok(g, "dev set rxe0 user-qps allow")
        cli_ok(g, "tenant del bulk")
        cli_ok(g, "tenant del fast")
        g.run(f"rmdir {BULK} {FAST}")


def test_user_qps_bad_values_change_nothing(guest):
    g = guest
    assert g.load_verbsgate().ok
    res = g.cli("dev set rxe0 user-qps refuse")
    assert not res.ok and "user-qps takes deny or allow" in res.out, res
    name = (DEV_NAME, b"rxe0\0")
    for out in raw_batch(g, [(DEV_SET, [name, (DEV_USER_QPS, bytes([v]))],
                              False) for v in (2, 255)]):
        # ERANGE, from the netlink policy (NLA_POLICY_MAX)
        assert (out["error"], out["extack"]) == \
            (34, "integer out of range"), out
    assert dev(g)["user_qps"] == "allow"
    assert sysfs(g, "user_qps") == "allow"
    assert create_qp(g)
