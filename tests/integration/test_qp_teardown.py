"""A kernel owner that destroys its QPs without draining them.

ib_core asks ULPs to drain a QP before destroying it; a ULP that does not
(a bug, or an abrupt teardown) leaves WRs queued in verbsgate and chunks
in the driver. Their completions carry the shaper's ring entries as
wr_id: they must never reach the owner as if they were its own (ib_core
would call wr_cqe->done on them), and the ring must outlive every
completion that points into it. vg_kqp (tests/integration/kqp) does 200
such destroys with the guest's SLUB debugging on (testbed.py), against
softirq-polled and directly polled CQs, with and without verbsgate.
"""
from harness.testbed import REPO, Guest
from harness.vgcli import cli_json, cli_ok

KQP = REPO / "tests" / "integration" / "kqp" / "vg_kqp.ko"
ROUNDS = 200


def run_kqp(g: Guest, rounds: int) -> str:
    """vg_kqp's rounds; returns the console they produced."""
    mark = g.console_mark()
    res = g.run(f"insmod {KQP} dev={g.rxe_dev} rounds={rounds} wrs=16 "
                "size=262144 && rmmod vg_kqp", timeout=600)
    console = g.console_since(mark)
    assert res.ok, res.out + console[-4000:]
    assert f"{rounds} rounds of undrained destroys passed" in console
    return console


def test_undrained_destroy_without_verbsgate(guest):
    """The scenario itself is sound on the stock stack."""
    run_kqp(guest, 40)


def test_undrained_destroy_with_queued_and_inflight_chunks(guest):
    assert guest.load_verbsgate().ok
    cli_ok(guest, "tenant add careless ulp vg_kqp class bandwidth weight 1")
    # 40 Mbit/s and 16 KB chunks: of the 4 MB each round posts, a few
    # chunks are in the driver and the rest queued when the QP goes.
    cli_ok(guest, f"dev set {guest.rxe_dev} maxrate 40mbit chunk 16k "
                  "chunk-nolat 16k enforce on")
    before = {t["name"]: t for t in cli_json(guest, "stats")["tenants"]}
    console = run_kqp(guest, ROUNDS)
    # Some QPs went with chunks in the driver, not only with queued WRs.
    assert "chunks in flight" in console
    after = {t["name"]: t for t in cli_json(guest, "stats")["tenants"]}
    # The QPs were shaped: the tenant's WRs went through the shaper.
    assert after["careless"]["tx_bytes"] > before.get(
        "careless", {}).get("tx_bytes", 0)
    assert after["careless"]["queued_wrs"] == 0
    # Nothing of the destroyed QPs keeps the module: it unloads.
    assert guest.unload_verbsgate().ok


DRAINSIM = REPO / "tests" / "integration" / "drainmod" / "vg_drainsim.ko"


def test_driver_drain_with_directly_polled_cq(guest):
    """A ULP drains its QPs before destroying them, with WRITEs still held
    by the pacer, on a driver with a drain_sq of its own (vg_drainsim,
    mlx5's kind). verbsgate first hands the QP's WRs to the driver, at
    the pacer's pace and only into room that polled completions free;
    for a CQ the ULP polls directly nobody polls during the drain but the
    drain, so verbsgate's wait must poll it. Every drain ends and every
    WR completes exactly once, on directly polled and softirq CQs."""
    g = guest
    g.run(f"insmod {DRAINSIM} dev={g.rxe_dev}", check=True)
    try:
        assert g.load_verbsgate().ok
        cli_ok(g, "tenant add careful ulp vg_kqp class bandwidth weight 1")
        # 32 WRITEs of 256 KiB in 16 KiB chunks: 512 chunks, more than
        # the ring of the QP's send queue holds in flight.
        cli_ok(g, f"dev set {g.rxe_dev} maxrate 200mbit chunk 16k "
                  "chunk-nolat 16k enforce on")
        mark = g.console_mark()
        res = g.run(f"insmod {KQP} dev={g.rxe_dev} rounds=6 wrs=32 "
                    "size=262144 drain=1 && rmmod vg_kqp", timeout=180)
        console = g.console_since(mark)
        assert res.ok, res.out + console[-4000:]
        assert "6 rounds of drained destroys passed" in console
        drains = int(g.run("cat /sys/module/vg_drainsim/parameters/drains",
                           check=True).out)
        assert drains >= 6, drains
        assert guest.unload_verbsgate().ok
    finally:
        if g.verbsgate_loaded():
            g.unload_verbsgate()
        g.run("rmmod vg_drainsim")


# verbsgate's bound on device removal (kmod/datapath/device.c).
REMOVE_BOUND = 5


def test_unload_and_link_delete_with_idle_direct_cq_owner(guest):
    """An owner of a directly polled CQ posts WRITEs that a slow pacer
    holds, with chunks in flight, and then sits idle: nobody polls its CQ,
    so the shaper can neither finish the WRs nor retire the chunks. rmmod
    must not wait for it: it fails at once, "in use". Device removal
    waits at most its bound, then leaves the wrappers until the owner,
    removed after verbsgate (it registered its ib_client first), polls
    and destroys its QPs. The owner sees each of its WRs complete once,
    successfully, and the module then unloads."""
    g = guest
    g.run(f"insmod {KQP} dev={g.rxe_dev} hold=1 wrs=16 size=262144",
          check=True)
    try:
        assert g.load_verbsgate().ok
        cli_ok(g, "tenant add idle ulp vg_kqp class bandwidth weight 1")
        # 4 MB at 10 Mbit/s: seconds of WRs held, 16 KB chunks in flight.
        cli_ok(g, f"dev set {g.rxe_dev} maxrate 10mbit chunk 16k "
                  "chunk-nolat 16k enforce on")
        g.run("echo 1 > /sys/module/vg_kqp/parameters/start", check=True)
        g.run("sleep 1", check=True)
        (idle,) = [t for t in cli_json(g, "stats")["tenants"]
                   if t["name"] == "idle"]
        assert idle["queued_wrs"] > 0, idle

        # One rmmod, not the retrying helper: it must fail at once.
        res = g.run("rmmod verbsgate 2>&1", timeout=60)
        print(f"rmmod with WRs held: {res.seconds:.1f} s: {res.out.strip()}")
        assert not res.ok and "in use" in res.out, res.out
        assert res.seconds < 5, res.seconds
        assert g.verbsgate_loaded()

        mark = g.console_mark()
        res = g.run(f"rdma link delete {g.rxe_dev}", timeout=120)
        console = g.console_since(mark)
        print(f"rdma link delete: {res.seconds:.1f} s")
        assert res.ok, res.out + console[-4000:]
        # The bound, the owner's own teardown (its poll of the CQ, at
        # most 30 s) and the grace periods of the detach.
        assert res.seconds < REMOVE_BOUND + 40, res.seconds
        assert "vg_kqp: held WRs: 16 completed once each" in console, \
            console[-4000:]
        assert "leaving its wrappers" in console, console[-4000:]
        assert g.unload_verbsgate().ok
    finally:
        if g.verbsgate_loaded():
            g.unload_verbsgate()
        g.run("rmmod vg_kqp")
