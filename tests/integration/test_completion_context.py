"""Completions reach a kernel owner only from the context its CQ
promises: irq_poll's softirq, the CQ's work, the owner's own polling, or,
for a CQ with a comp_handler of its own (ib_create_cq), the driver's
completion event, once per arm. Never from verbsgate's pacer timer, not
even for the WRs it held when the QP failed and reports as flushed.

vg_cqctx (tests/integration/cqctx) is the ULP: for each kind of send CQ
it posts WRITEs that verbsgate splits and queues, fails the QP at once,
and checks every callback's context and stack; insmod fails, with the
reason in the kernel log, if any check does or a WR does not complete
exactly once.
"""
from harness.testbed import REPO, Guest
from harness.vgcli import cli_json, cli_ok

CQCTX = REPO / "tests" / "integration" / "cqctx" / "vg_cqctx.ko"


def run_cqctx(g: Guest, rounds: int, size: int) -> str:
    mark = g.console_mark()
    res = g.run(f"insmod {CQCTX} dev={g.rxe_dev} wrs=16 size={size} "
                f"rounds={rounds} delay_ms=200 && rmmod vg_cqctx",
                timeout=600)
    console = g.console_since(mark)
    assert res.ok, res.out + console[-4000:]
    assert f"{rounds} rounds of every CQ kind passed" in console
    return console


def test_completion_context_without_verbsgate(guest):
    """The checks hold on the stock stack."""
    run_cqctx(guest, 2, 262144)


def test_flushed_completions_come_from_the_cq_context(guest):
    assert guest.load_verbsgate().ok
    cli_ok(guest, "tenant add ctx ulp vg_cqctx class bandwidth weight 1")
    # 4 Mbit/s and 16 KB chunks: of what each QP posts, the first 100 KB
    # or so have been sent and completed when the QP fails 200 ms later;
    # the rest is queued. WRs of 256 KB are split (the last chunk posted
    # is often unsignaled: verbsgate posts a marker), WRs of 16 KB are
    # not (the last chunk posted was signaled and has completed: nothing
    # of the QP is in the driver).
    cli_ok(guest, f"dev set {guest.rxe_dev} maxrate 4mbit chunk 16k "
                  "chunk-nolat 16k enforce on")
    run_cqctx(guest, 2, 262144)
    run_cqctx(guest, 2, 16384)
    stats = {t["name"]: t for t in cli_json(guest, "stats")["tenants"]}
    # The WRs went through the shaper, which split the large ones: more
    # chunks went to the driver than WRs ended there. Not split_wrs,
    # which counts a split WR once its last chunk is posted: at 4 Mbit/s
    # a 256 KB WR takes half a second, and the QP fails after 200 ms,
    # so in some runs none got that far.
    ctx = stats["ctx"]
    assert ctx["chunks"] > ctx["tx_wrs"], ctx
    assert ctx["queued_wrs"] == 0, ctx
    assert guest.unload_verbsgate().ok
