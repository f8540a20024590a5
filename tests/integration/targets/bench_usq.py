#!/usr/bin/env python3
"""`make bench-usq`: what governing a user QP costs, in the emulated test
bed.

One unthrottled user-space tenant, vgload in its cgroup: 64 B RDMA WRITE
message rate (16 outstanding) and 1 MB WRITE bandwidth (8 outstanding),
under five conditions: the stock rdma_rxe; the same module loaded at
another address (a padding module, PAD_MODULE, loaded first takes its
usual place), the control: it executes the same instructions, so
whatever it changes is how the emulator's speed depends on where code
lies, and a change of that size in the other conditions is no cost of
theirs; the patched one with
verbsgate not loaded (what the series costs a host that does not use it:
the Done-when of the driver patches is "exactly like stock"); the
patched one governing the QPs with the test bed's pass-through policy,
vg_sqhold, which releases each WQE as it is offered (what rxe's side of
governing costs: the intake copy, its checks and the policy call); and
the patched one with verbsgate loaded and governing the tenant's QPs
(default device rate, which the emulator never reaches, so nothing is
held back: what is measured is rxe's side and verbsgate's accounting and
pacing decision, without waits). The conditions alternate (stock,
moved, patched, pass-through, governed, stock, ...), ROUNDS times, so
that a change in how fast the host runs the guest hits them all; each
figure is the median of its rounds, and each change is also given as the
median of the rounds' own changes (against the stock figure of the same
round), which a slow drift of the host moves less. VG_BENCH_ROUNDS sets the
number of rounds. Prints two Markdown tables: each load's throughput,
and its operations' median time (the 64 B load waits for nothing but the
CPU: rxe sends and completes each WRITE within its doorbell, so that
time is what the path costs).

VG_BENCH_BASELINE=PATH adds a fifth condition: the patched driver
governed by another build of verbsgate, PATH to its verbsgate.ko (a
worktree of an earlier commit, say), so that a change to verbsgate's
side is measured against what it replaces in the same boot.

The guest boots without SLUB debugging, which the tests keep on: it
multiplies what every packet's allocations cost and so hides what
verbsgate adds. VG_BENCH_SMP sets its number of vCPUs (default 2).

Then, in a second boot with one vCPU, the guest kernel's instructions
per 64 B WRITE under each condition, counted by QEMU (insnprof.py): a
figure that repeats to a fraction of a percent where the throughput
spreads by several, and where each condition's extra instructions go,
by function. VG_BENCH_ROUNDS=0 runs only this part (about 3 minutes).

The numbers are the emulator's, not a NIC's: only the ratios within the
table mean anything (labelled emulated, rxe in QEMU TCG).
"""
import os
import statistics
import sys
from collections import defaultdict

from harness import insnprof
from harness.tenants import add_tenants, make_cgroups
from harness.testbed import Guest, GuestError
from harness.traffic import (SQHOLD_MODULE, stop_vgload, vgload_client,
                             vgload_result, vgload_server)

LABEL = "emulated (rxe in QEMU TCG)"
ROUNDS = int(os.environ.get("VG_BENCH_ROUNDS", "8"))
SMP = int(os.environ.get("VG_BENCH_SMP", "2"))
SECONDS = 6
# name: vgload's arguments, its throughput key, the throughput's unit
LOADS = {"64 B WRITE": ("--op write --size 64 --depth 16", "mops", "Mops/s"),
         "1 MB WRITE": ("--mode bw", "gbps", "Gbit/s")}


def run(g: Guest, port: int, args: str, key: str, seconds: int = SECONDS,
        during=None) -> tuple[float, float]:
    """The load's throughput and its operations' median latency, µs;
    during(), if given, is called while the load runs."""
    vgload_server(g, port, 1)
    log = f"/tmp/bench-usq-{port}.log"
    vgload_client(g, "bench", port, f"--duration {seconds} {args}", log)
    if during:
        during()
    res = vgload_result(g, log, seconds + 60)
    assert res["ok"], res
    stop_vgload(g)
    return res["total"][key], res["total"]["lat_us"]["p50"]


BASELINE = os.environ.get("VG_BENCH_BASELINE")
CONDITIONS = ("stock", "moved", "patched", "passthrough", "governed") + \
    (("baseline",) if BASELINE else ())
# A module of the guest kernel that nothing else uses and whose loading
# does nothing but take module space: loaded before the stock rdma_rxe,
# it moves rdma_rxe's code (by 0x33000 bytes in the development guest).
PAD_MODULE = "lz4_compress"
HEADS = {"stock": "stock rdma_rxe", "moved": "stock, loaded elsewhere",
         "patched": "patched, no verbsgate",
         "passthrough": "patched + pass-through policy",
         "governed": "patched + verbsgate",
         "baseline": "patched + baseline verbsgate"}


def condition(g: Guest, c: str) -> str:
    """Sets condition @c up; returns where rdma_rxe's code starts."""
    g.run("rmmod vg_sqhold 2>/dev/null")
    g.unload_verbsgate()
    g.run(g.delete_rdma_links() + "rmmod rdma_rxe 2>/dev/null; "
          f"rmmod {PAD_MODULE} 2>/dev/null; true")
    if c == "moved":
        g.run(f"modprobe {PAD_MODULE}", check=True)
    res = g.load_rxe(patched=c not in ("stock", "moved"))
    assert res.ok, res.out
    if c == "passthrough":
        g.run(f"insmod {SQHOLD_MODULE}", check=True)
    elif c == "governed":
        assert g.load_verbsgate().ok
    elif c == "baseline":
        g.run(f"modprobe ib_core && insmod {BASELINE}", check=True)
    if c in ("governed", "baseline"):
        add_tenants(g, {"bench": "class bandwidth weight 1"})
    return g.run("cat /sys/module/rdma_rxe/sections/.text",
                 check=True).out.strip()


def measure(g: Guest) -> tuple[dict, dict, dict]:
    """Each round's figures by (row of the table, condition): throughput
    and median operation time; and where rdma_rxe's code started under
    each condition."""
    make_cgroups(g, ["bench"])
    got, lat, where = defaultdict(list), defaultdict(list), defaultdict(set)
    port = 18900
    for _ in range(ROUNDS):
        for c in CONDITIONS:
            where[c].add(condition(g, c))
            for name, (args, key, unit) in LOADS.items():
                port += 1
                value, p50 = run(g, port, args, key)
                got[(f"{name}, {unit}", c)].append(value)
                lat[(f"{name}, p50 µs", c)].append(p50)
    condition(g, "stock")
    return got, lat, where


def change(new: float, base: float) -> str:
    return f"{(new - base) / base * 100:+.1f} %"


def table(got: dict, what: str) -> str:
    rows = [f"{what}, {LABEL}; median of {ROUNDS} alternating rounds of "
            f"{SECONDS} s each; changes against stock rdma_rxe, and in "
            "brackets the median of the rounds' own changes", "",
            "| load | " + " | ".join(HEADS[c] for c in CONDITIONS)
            + "".join(f" | change, {HEADS[c]}" for c in CONDITIONS[1:])
            + " |",
            "|---" * (2 * len(CONDITIONS)) + "|"]
    for load in dict.fromkeys(load for load, _ in got):
        med = {c: statistics.median(got[(load, c)]) for c in CONDITIONS}
        cells = [f"{med[c]:.4g}" for c in CONDITIONS]
        for c in CONDITIONS[1:]:
            per_round = statistics.median(
                (x - b) / b for b, x in zip(got[(load, "stock")],
                                            got[(load, c)]))
            cells.append(f"{change(med[c], med['stock'])} "
                         f"({per_round * 100:+.1f} %)")
        rows.append(f"| {load} | " + " | ".join(cells) + " |")
    rows.append("")
    for key, values in got.items():
        rows.append(f"- {key[0]}, {HEADS[key[1]]}: "
                    + ", ".join(f"{x:.4g}" for x in values))
    return "\n".join(rows)


def count_instructions() -> dict[str, insnprof.Profile]:
    """Each condition's kernel instructions during the 64 B load."""
    args, key, _ = LOADS["64 B WRITE"]
    got = {}
    with insnprof.InsnCounter() as counter, \
            Guest(smp=1, slub_debug=False,
                  qemu_args=counter.qemu_args()) as g:
        make_cgroups(g, ["bench"])
        for port, c in enumerate(CONDITIONS, 18950):
            def profile(c=c):
                g.run("sleep 2")
                before = counter.snapshot()
                g.run("sleep 4")
                got[c] = insnprof.Profile(before, counter.snapshot(),
                                          insnprof.kernel_symbols(g))

            condition(g, c)
            run(g, port, args, key, seconds=8, during=profile)
        condition(g, "stock")
    return got


def insn_table(got: dict[str, insnprof.Profile]) -> str:
    base = got["stock"].per_wqe()
    rows = [f"Guest kernel instructions per 64 B WRITE, {LABEL}, one vCPU, "
            "counted by QEMU over 4 s of the load", "",
            "| condition | instructions per WRITE | change |", "|---|---|---|"]
    for c, p in got.items():
        rows.append(f"| {HEADS[c]} | {p.per_wqe():.0f} | "
                    f"{change(p.per_wqe(), base)} |")
    for c in CONDITIONS[1:]:
        rows += ["", f"Where {HEADS[c]} differs from stock rdma_rxe, "
                 "instructions per WRITE:", ""]
        rows += insnprof.diff_table(got["stock"], got[c])
    return "\n".join(rows)


def main() -> int:
    print(f"bench-usq: {LABEL}: booting the test bed ...", flush=True)
    try:
        if ROUNDS:
            with Guest(smp=SMP, slub_debug=False) as g:
                got, lat, where = measure(g)
        insns = count_instructions()
    except (GuestError, AssertionError) as e:
        print(f"bench-usq: {e}", file=sys.stderr)
        return 1
    if ROUNDS:
        print()
        print(table(got, "Throughput"))
        print()
        print(table(lat, "Median latency of an operation"))
        print()
        print("rdma_rxe's code started at: " + "; ".join(
            f"{HEADS[c]} {', '.join(sorted(where[c]))}" for c in CONDITIONS))
    print()
    print(insn_table(insns))
    return 0


if __name__ == "__main__":
    sys.exit(main())
