"""Kernel QPs through their whole life under verbsgate: created, errored,
reset and used again, with data checked at every step.

vg_rcpair (tests/integration/rcpair) is the ULP: loading it runs an RC QP
pair on rxe loopback and fails insmod, with the reason in the kernel log,
if a WRITE does not complete or its bytes differ. Each test runs it
without verbsgate first: what verbsgate must keep working has to work on
the stock driver.
"""
from harness.testbed import REPO, Guest
from harness.vgcli import cli_json, cli_ok

RCPAIR = REPO / "tests" / "integration" / "rcpair" / "vg_rcpair.ko"
SQCAP = REPO / "tests" / "integration" / "sqcap" / "vg_sqcap.ko"
# 256k WRITEs through 16k chunks: every WRITE is split.
SPLIT = "chunk-nolat 16k chunk 16k"


def run_pair(g: Guest, params: str):
    """Load vg_rcpair (it runs at load) and unload it; (ok, kernel log)."""
    mark = g.console_mark()
    res = g.run(f"insmod {RCPAIR} dev={g.rxe_dev} {params}", timeout=300)
    g.run("rmmod vg_rcpair")
    return res.ok, g.console_since(mark)


def shape_pair(g: Guest):
    """verbsgate loaded, splitting on, vg_rcpair's QPs in a bandwidth
    tenant."""
    assert g.load_verbsgate().ok
    cli_ok(g, f"dev set {g.rxe_dev} {SPLIT}")
    cli_ok(g, "tenant add pair ulp vg_rcpair class bandwidth weight 1")


def tenant_stats(g: Guest) -> dict:
    return {t["name"]: t for t in cli_json(g, "stats")["tenants"]}["pair"]


def run_pair_shaped(g: Guest, params: str, dev_set: str = ""):
    """vg_rcpair under verbsgate (shape_pair(), then `dev set` dev_set if
    given), which is unloaded afterwards: (ok, kernel log, the tenant's
    counters before and after)."""
    shape_pair(g)
    try:
        if dev_set:
            cli_ok(g, f"dev set {g.rxe_dev} {dev_set}")
        before = tenant_stats(g)
        ok, log = run_pair(g, params)
        after = tenant_stats(g)
    finally:
        g.unload_verbsgate()
    return ok, log, before, after


def test_reset_and_reuse(guest):
    """A QP moved to ERR and through RESET->INIT->RTR->RTS moves checked
    data again, twice: first with its WRITEs' completions polled before
    (as ULPs drain), then with the WRITEs still in flight, in the driver,
    the CQ or verbsgate's queue, so that completions from
    before the reset arrive among the new ones. verbsgate must not let
    them retire or fail anything of the reused QP, nor keep the error,
    the ring or the splitting state across the reset (kmod/datapath/
    sendq_drain.c)."""
    g = guest
    params = "len=262144 sq=16 resets=2"
    ok, log = run_pair(g, params)
    assert ok, f"without verbsgate:\n{log}"

    ok, log, before, after = run_pair_shaped(g, params)
    assert ok, f"with verbsgate:\n{log}"
    # The WRITEs were split, before and after the resets.
    split = after["split_wrs"] - before["split_wrs"]
    assert split >= 3, (before, after)


def test_reset_forgets_what_verbsgate_held(guest):
    """A QP moved straight from RTS to RESET with WRITEs still queued in
    verbsgate (a pacer at 4 Mbit/s holds most of them): the reset
    discards them as the driver discards its own, so none executes once
    the QPs are connected again; and nothing of the QP before the reset
    (completions of its chunks still in the CQ, its ring, its error) can
    retire or fail the WRITEs after it, whose data vg_rcpair checks.
    Also through ERR with the WRITEs in flight, ten times each."""
    g = guest
    params = "len=262144 sq=16 resets=10 rts_resets=10"
    ok, log = run_pair(g, params)
    assert ok, f"without verbsgate:\n{log}"

    ok, log, before, after = run_pair_shaped(g, params, "maxrate 4mbit")
    assert ok, f"with verbsgate:\n{log}"
    assert "10 resets, 10 from RTS" in log, log
    split = after["split_wrs"] - before["split_wrs"]
    assert split >= 20, (before, after)


def test_create_when_driver_refuses_headroom(guest):
    """A driver that refuses the larger send queue verbsgate asks for (its
    real limit below its max_qp_wr, as mlx5's depends on the WQE size)
    still creates the owner's QP: verbsgate tries again with the owner's
    own sizes, and the ring then has the send queue's entries (kmod/
    datapath/sendq.c). vg_sqcap makes rxe refuse send queues above what vg_rcpair
    asks for, 16 and 4 WRs (a ring of 4: two chunks per signal). The QPs are
    created, still shaped (their WRITEs are split) and move checked data,
    through a reset too."""
    g = guest
    cap_rows = []
    for sq in (16, 4):
        assert g.run(f"insmod {SQCAP} dev={g.rxe_dev} max_send_wr={sq}").ok
        try:
            params = f"len=262144 sq={sq} resets=1"
            ok, log = run_pair(g, params)
            assert ok, f"without verbsgate, send queue {sq}:\n{log}"
            ok, log, before, after = run_pair_shaped(g, params)
            refused = int(g.run("cat /sys/module/vg_sqcap/parameters/refused",
                                check=True).out)
        finally:
            g.run("rmmod vg_sqcap")
        assert ok, f"with verbsgate, send queue {sq}:\n{log}"
        # verbsgate asked for more first, and was refused.
        assert refused >= 2, refused
        split = after["split_wrs"] - before["split_wrs"]
        chunks = after["chunks"] - before["chunks"]
        # 2 checked WRITEs and 3 before the reset: all split in 16 chunks.
        assert split >= 2 and chunks >= 16 * split, (before, after)
        cap_rows.append((sq, refused, split, chunks))
    print("\nsend queue, creates refused, split WRs, chunks:", cap_rows)
