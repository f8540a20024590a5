#!/usr/bin/env python3
"""`make testbed-modes`: what each mode of the test bed emulates (issue
#23). The same latency tenant next to the same bulk stream (wire.py's
LATENCY_TENANT and STREAM_TENANT, each tenant pinned to its own vCPU) on
rxe loopback, where the two share only the guest's vCPUs, and on the
wire, where they share a port: alone, next to the unshaped stream, and
next to the stream paced by verbsgate (wire.PACING: the latency tenant
of weight 1 and the latency class, the stream's of weight 19), each
figure the median of VG_MODES_ROUNDS rounds (default 3), both modes in
every round of one boot.

Markdown to stdout and build/testbed-modes.md; about 5 minutes. The
numbers are the emulator's: only ratios within one table mean anything
(emulated, rxe in QEMU TCG).
"""
import os
import statistics
import sys
import traceback
from contextlib import nullcontext

from harness.reports import build_report
from harness.tenants import add_tenants, make_cgroups, pin_cgroups
from harness.testbed import Guest, GuestError
from harness.vgcli import cli_ok
from harness.wire import (LATENCY_TENANT, LINE_RATE, LOCAL, PACING, PORT_QUEUE,
                          STREAM_TENANT, Wire, victim_run)

ROUNDS = int(os.environ.get("VG_MODES_ROUNDS", "3"))
MODES = ("loopback", "wire")
RUNS = ("alone", "next to the stream", "next to the stream, verbsgate")


def one_mode(g: Guest, mode: str, port: int) -> dict:
    """The three runs in @mode, verbsgate loaded for the last."""
    out = {}
    if g.verbsgate_loaded():
        assert g.unload_verbsgate().ok
    with (Wire(g, order=LOCAL) if mode == "wire" else nullcontext()) as w:
        for i, run in enumerate(RUNS):
            if run.endswith("verbsgate"):
                assert g.load_verbsgate().ok
                add_tenants(g, {"lat": "class latency weight 1",
                                "bulk": "class bandwidth weight 19"})
                cli_ok(g, f"dev set {g.rxe_dev} {PACING}")
            lat, bulk, wire = victim_run(
                g, w, port + 2 * i, LATENCY_TENANT,
                STREAM_TENANT if run != "alone" else None)
            out[run] = {"p50": lat["total"]["lat_us"]["p50"],
                        "p99": lat["total"]["lat_us"]["p99"],
                        "mbit": bulk["total"]["gbps"] * 1e3 if bulk else 0,
                        "held": wire.held if wire else None}
    return out


def median(rounds: list[dict], mode: str, run: str, key: str) -> float:
    return statistics.median(r[mode][run][key] for r in rounds)


def table(rounds: list[dict], dev: str) -> str:
    rows = [f"Latency tenant `{LATENCY_TENANT}` next to `{STREAM_TENANT}`, "
            "tenants pinned to vCPUs 0 and 1; verbsgate: "
            f"`dev set {dev} {PACING}`; wire: port {LINE_RATE}, queue "
            f"{PORT_QUEUE}; medians of {len(rounds)} rounds (emulated, rxe "
            "in QEMU TCG).", "",
            "| mode | victim | p50 µs | p99 µs | p99 / alone | "
            "stream Mbit/s | packets the port held back | p99 per round |",
            "|---|---|---|---|---|---|---|---|"]
    for mode in MODES:
        alone = median(rounds, mode, "alone", "p99")
        for run in RUNS:
            p99 = median(rounds, mode, run, "p99")
            mbit = median(rounds, mode, run, "mbit")
            held = ("—" if mode == "loopback" else
                    f"{median(rounds, mode, run, 'held'):.0f}")
            rows.append(
                f"| {mode} | {run} | {median(rounds, mode, run, 'p50'):.0f}"
                f" | {p99:.0f} | {p99 / alone:.2f} | "
                + (f"{mbit:.1f}" if mbit else "—") + f" | {held} | "
                + ", ".join(f"{r[mode][run]['p99']:.0f}" for r in rounds)
                + " |")
    return "\n".join(rows)


def main() -> int:
    print(f"testbed-modes: {ROUNDS} rounds of {MODES}", flush=True)
    rounds = []
    try:
        with Guest() as g:
            assert g.load_rxe(patched=True).ok
            dev = g.rxe_dev
            make_cgroups(g, ["lat", "bulk"])
            pin_cgroups(g, {"lat": "0", "bulk": "1"}, "1")
            for i in range(ROUNDS):
                rounds.append({m: one_mode(g, m, 19700 + 10 * j)
                               for j, m in enumerate(MODES)})
                print(f"round {i + 1}: " + "; ".join(
                    f"{m} " + ", ".join(f"{v['p99']:.0f}"
                                        for v in rounds[-1][m].values())
                    for m in MODES), flush=True)
    except (GuestError, AssertionError):
        traceback.print_exc()
        return 1
    text = table(rounds, dev)
    build_report("testbed-modes.md", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
