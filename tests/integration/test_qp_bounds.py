"""A tenant's bounds on its QPs' retries: `verbsgate tenant set T
rnr-retry-max N rnr-timer-min TIME ...` gives each later modify QP of T's
QPs the bound in place of more, so that T's RC QPs cannot retry forever
against a peer that posts no receives, nor have their peer NAK them every
10 us (Husky's RNR storm, issue #46), while other tenants keep what they
ask for. Netlink, the CLI and sysfs agree; bad values are refused and
change nothing."""
import json

from harness.counters import stats
from harness.rawgenl import raw_batch
from harness.testbed import SYSFS, VGLOAD, Guest
from harness.tenants import empty_cgroups, in_cgroup, make_cgroups
from harness.vgcli import cli_json, cli_ok

TENANT_SET, TENANT_NAME = 5, 9
RNR_RETRY_MAX, RETRY_CNT_MAX, RNR_TIMER_MIN, TIMEOUT_MIN, RD_ATOMIC_MAX = \
    57, 58, 59, 60, 61
BOUNDS = ("rnr_retry_max", "retry_cnt_max", "rnr_timer_min_ns",
          "timeout_min_ns", "rd_atomic_max")
NONE = {"rnr_retry_max": 7, "retry_cnt_max": 7, "rnr_timer_min_ns": 0,
        "timeout_min_ns": 0, "rd_atomic_max": 0}
HW = "/sys/class/infiniband/rxe0/ports/1/hw_counters"


def tenant(g: Guest, name: str) -> dict:
    (t,) = [t for t in cli_json(g, "tenant show") if t["name"] == name]
    return t


def bounds(g: Guest, name: str) -> dict:
    """The tenant's bounds as the CLI (netlink) shows them; sysfs must
    say the same."""
    t = tenant(g, name)
    files = g.run(f"cd {SYSFS}/tenants/{name} && grep . {' '.join(BOUNDS)}",
                  check=True).out.split()
    assert {k: int(v) for k, _, v in (f.partition(":") for f in files)} \
        == {k: t[k] for k in BOUNDS}, (files, t)
    return {k: t[k] for k in BOUNDS}


def clamps(g: Guest, name: str) -> int:
    (s,) = [t for t in cli_json(g, "stats")["tenants"] if t["name"] == name]
    sysfs = g.run(f"cat {SYSFS}/tenants/{name}/qp_clamps", check=True)
    assert int(sysfs.out) == s["qp_clamps"]
    return s["qp_clamps"]


class Rnr:
    """vgload's RNR storm: RC SENDs into a server that posts no receives,
    asking for rnr_retry 7 (forever) and an RNR NAK timer of 0.01 ms."""

    def __init__(self, g: Guest):
        self.g, self.port, self.pids = g, 18650, []

    def server(self, cgroup: str = "") -> int:
        self.port += 1
        cmd = f"{VGLOAD} server --port {self.port}"
        pid = self.g.spawn(in_cgroup(cgroup, cmd) if cgroup else cmd,
                           f"/tmp/rnr-server-{self.port}.log")
        self.pids.append(pid)
        self.g.run(f"for i in $(seq 100); do grep -q 'listening' "
                   f"/tmp/rnr-server-{self.port}.log && break; sleep 0.1; "
                   f"done", check=True)
        return self.port

    def client(self, port: int, cgroup: str = "", args: str = "",
               seconds: int = 1) -> dict:
        """@seconds of the storm, with more vgload @args; the report with
        _rc and the rxe counters' moves (_hw)."""
        cmd = (f"{VGLOAD} client {self.g.ip} --port {port} --json "
               f"--interval 0 --mode rnr --duration {seconds} {args}")
        cmd = in_cgroup(cgroup, cmd) if cgroup else cmd
        res = self.g.run(f"grep -H . {HW}/*; echo @@; {cmd} 2>/dev/null; "
                         f"echo \"@@ $?\"; grep -H . {HW}/*", 60)
        pre, out, post = res.out.split("@@")
        rc, _, post = post.partition("\n")
        doc = json.loads(out)
        counts = [{p.rsplit("/", 1)[-1]: int(v) for p, _, v in
                   (ln.rpartition(":") for ln in text.split())}
                  for text in (pre, post)]
        doc["_rc"] = int(rc)
        doc["_hw"] = {k: counts[1][k] - counts[0][k] for k in counts[0]}
        return doc

    def stop(self):
        if self.pids:
            self.g.run(f"kill -9 {' '.join(map(str, self.pids))}; true")


def forever(doc: dict) -> bool:
    """The storm retried until it was stopped: nothing completed."""
    return (doc["_rc"] == 0 and doc["total"]["ops"] == 0 and
            doc["total"]["flushed_at_stop"] >= 1 and
            doc["_hw"]["send_rnr_err"] > 0)


def test_rnr_retries_and_timers_keep_to_the_tenant_s_bounds(guest):
    g = guest
    assert g.load_verbsgate().ok
    make_cgroups(g, ["att"])
    cli_ok(g, "tenant add att cgroup /att class bandwidth weight 1")
    rnr = Rnr(g)
    try:
        assert bounds(g, "att") == NONE
        plain = rnr.server()
        # Without bounds the tenant's QPs retry forever.
        before = rnr.client(plain, "att")
        assert forever(before), before

        cli_ok(g, "tenant set att rnr-retry-max 2")
        assert bounds(g, "att") == {**NONE, "rnr_retry_max": 2}
        bounded = rnr.client(plain, "att")
        # Asked 7, given 2: the SEND fails with the RNR status.
        assert bounded["_rc"] == 1 and \
            bounded["end_reason"] == "all_qps_failed", bounded
        assert bounded["total"]["errors"].get(
            "IBV_WC_RNR_RETRY_EXC_ERR", 0) >= 1, bounded
        assert bounded["_hw"]["retry_rnr_exceeded_err"] >= 1
        # Three NAKs per SEND at most: the first try and two retries.
        assert bounded["_hw"]["rcvd_rnr_err"] <= \
            3 * bounded["config"]["qps"], bounded
        assert clamps(g, "att") >= 1
        # Another tenant is not bounded.
        assert forever(rnr.client(plain))
        assert clamps(g, "default") == 0

        # The responder's RNR NAK timer: a server in "att" tells its
        # peers to wait at least 40.96 ms, not 0.01 ms, so the same storm
        # (from the default tenant, retrying forever) is NAKed less often.
        cli_ok(g, "tenant set att rnr-retry-max none rnr-timer-min 40ms")
        assert bounds(g, "att") == {**NONE, "rnr_timer_min_ns": 40_000_000}
        n = clamps(g, "att")
        slow = rnr.server("att")
        fast_doc, slow_doc = rnr.client(plain), rnr.client(slow)
        assert forever(fast_doc) and forever(slow_doc)
        assert clamps(g, "att") > n
        fast_naks = fast_doc["_hw"]["rcvd_rnr_err"]
        slow_naks = slow_doc["_hw"]["rcvd_rnr_err"]
        # 0.01 ms is a jiffy in rxe's timer; 40.96 ms ten of them or more.
        assert fast_naks >= 3 * slow_naks > 0, (fast_naks, slow_naks)
    finally:
        rnr.stop()
        empty_cgroups(g, ["att"])
        cli_ok(g, "tenant del att")
        g.run("rmdir /sys/fs/cgroup/att")


def test_bad_bounds_change_nothing(guest):
    g = guest
    assert g.load_verbsgate().ok
    cli_ok(g, "tenant add b ulp nvme_rdma class bandwidth weight 1 "
              "rnr-retry-max 3 timeout-min 50ms")
    before = bounds(g, "b")
    assert before == {**NONE, "rnr_retry_max": 3, "timeout_min_ns": 50_000_000}
    for cmd in ("rnr-retry-max 8", "retry-cnt-max -1", "rd-atomic-max 0",
                "rd-atomic-max 256", "rnr-timer-min 700ms",
                "rnr-timer-min soon", "timeout-min 3h",
                # all or nothing: a good bound next to a bad one
                "retry-cnt-max 2 rnr-retry-max 9"):
        res = g.cli(f"tenant set b {cmd}")
        assert res.rc == 1 and res.out.startswith("verbsgate: "), (cmd, res)
    name = (TENANT_NAME, b"b\0")
    u8, u64 = (lambda v: bytes([v])), (lambda v: v.to_bytes(8, "little"))
    outs = raw_batch(g, [(TENANT_SET, [name, attr], False) for attr in (
        (RNR_RETRY_MAX, u8(8)), (RETRY_CNT_MAX, u8(255)),
        (RNR_TIMER_MIN, u64(655_360_001)),
        (TIMEOUT_MIN, u64((4096 << 31) + 1)),
        (RD_ATOMIC_MAX, u64(1)))])
    for out in outs[:4]:
        assert (out["error"], out["extack"]) == \
            (34, "integer out of range"), out
    assert outs[4]["error"] == 22 and \
        "invalid attribute length" in outs[4]["extack"], outs[4]
    assert bounds(g, "b") == before
    # The largest values are taken.
    cli_ok(g, "tenant set b rnr-timer-min 655.36ms timeout-min "
              "8796093022208ns rd-atomic-max 255 retry-cnt-max 0")
    assert bounds(g, "b") == {"rnr_retry_max": 3, "retry_cnt_max": 0,
                              "rnr_timer_min_ns": 655_360_000,
                              "timeout_min_ns": 8796093022208,
                              "rd_atomic_max": 255}
    cli_ok(g, "tenant del b")


# Husky's error storm, paced: verbs a second and the bucket of them.
STORM_RATE, STORM_BURST = 50, 10


def uptime(g: Guest) -> float:
    return float(g.run("cut -d' ' -f1 /proc/uptime", check=True).out)


def test_failed_wrs_are_counted_and_paced_with_control_verbs(rxe_kept):
    """Husky's error storm (issue #46): RNR-NAKed SENDs on 8 QPs that the
    tenant's bound lets retry once, every failed QP reset and connected
    again (vgload --mode rnr --recover). verbsgate, on the patched
    rdma_rxe, counts each WR that failed a QP to its tenant (qp_errors:
    sysfs and netlink agree) and charges it to the tenant's pace of
    control verbs like a verb that does not wait: failures and the
    modify QPs of the recoveries together stay within the pace, where
    the verbs alone would go a fifth faster. Another tenant's QPs count
    no failure."""
    g = rxe_kept
    assert g.load_verbsgate().ok
    make_cgroups(g, ["att"])
    cli_ok(g, "tenant add att cgroup /att class bandwidth weight 1 "
              f"rnr-retry-max 1 ctrl-rate {STORM_RATE} "
              f"ctrl-burst {STORM_BURST}")
    rnr = Rnr(g)
    try:
        port = rnr.server()
        before, t0 = stats(g)["att"], uptime(g)
        doc = rnr.client(port, "att", "--qps 8 --recover", 4)
        t1, after = uptime(g), stats(g)["att"]
        sysfs = int(g.run(f"cat {SYSFS}/tenants/att/qp_errors",
                          check=True).out)
        quiet = stats(g)["default"]
    finally:
        rnr.stop()
        empty_cgroups(g, ["att"])
        cli_ok(g, "tenant del att")
        g.run("rmdir /sys/fs/cgroup/att")
    total = doc["total"]
    failed = total["errors"].get("IBV_WC_RNR_RETRY_EXC_ERR", 0)
    errors = after["qp_errors"] - before["qp_errors"]
    verbs = after["ctrl_verbs"] - before["ctrl_verbs"]
    print(f"\n{t1 - t0:.1f} s: {failed} RNR failures, "
          f"{total['recoveries']} recoveries; verbsgate counted {errors} "
          f"failures, {verbs} control verbs, waited "
          f"{(after['ctrl_wait_ns'] - before['ctrl_wait_ns']) / 1e9:.2f} s")
    assert doc["_rc"] == 0 and doc["ok"], doc
    assert total["recoveries"] >= 2 and failed >= 2, total
    # Each failure vgload saw was counted once; a QP may fail after
    # vgload's last poll, at most one per QP.
    assert failed <= errors <= failed + 8, (failed, errors)
    assert sysfs == after["qp_errors"]
    assert quiet["qp_errors"] == 0, quiet
    # A recovery is 4 modify QPs (RESET, INIT, RTR, RTS) after a
    # failure: without the charge, the verbs alone would fill the pace.
    assert verbs + errors <= STORM_BURST + STORM_RATE * (t1 - t0) + 1, \
        (verbs, errors, t1 - t0)
    assert after["ctrl_wait_ns"] > before["ctrl_wait_ns"]
