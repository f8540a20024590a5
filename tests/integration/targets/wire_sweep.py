#!/usr/bin/env python3
"""`make wire-sweep`: a latency tenant next to a bulk stream on the wire,
across verbsgate's pacing settings, and how much of the victim's time
the port queue accounts for (issue #23).

The victim: 64 B RDMA WRITEs, one outstanding, tenant "lat" (latency
class, weight 1). The stream: 1 MB WRITEs, eight outstanding, tenant
"bulk" (bandwidth class, weight 19, so that it may take nearly all of
the device's rate). Each pinned to its own vCPU, the test bed's agent on
the stream's, both from rxe0 to rxe1 across the wire (tests/integration/
wire.py). In every round, in one boot: the victim alone and next to the
unshaped stream (verbsgate not loaded), then for each setting next to
the stream paced by verbsgate, first through the port at the line rate
and then through a port far faster than the stream, which never queues:
what the victim loses in the first but not the second is the time it
spent behind the stream in the port queue; what it loses in both is
spent elsewhere (the vCPUs, rxe, the emulator); the unshaped stream
through the fast port shows what the stream costs the victim there
without verbsgate.

VG_WIRE_SETTINGS: comma-separated MAXRATE/CHUNK/BURST (`dev set`
maxrate, chunk and chunk-nolat, burst), default below; VG_WIRE_ROUNDS
(default 3): each figure is the median of the rounds; VG_WIRE_LINE: the
port's line rate (default wire.LINE_RATE); VG_SLUB_DEBUG=0 boots the
guest without SLUB debugging (the tests keep it on), under which rxe
sustains a faster line. Prints a Markdown table; also written to
build/wire.md.

The numbers are the emulator's, not a NIC's: only the ratios within one
table mean anything (labelled emulated, rxe in QEMU TCG, wire mode).
"""
import os
import statistics
import sys
import traceback

from harness.reports import build_report
from harness.tenants import add_tenants, make_cgroups, pin_cgroups
from harness.testbed import Guest, GuestError
from harness.vgcli import cli_ok
from harness.wire import (LABEL, LATENCY_TENANT, LINE_RATE, LOCAL,
                          STREAM_TENANT, Wire, victim_run)

SETTINGS = os.environ.get(
    "VG_WIRE_SETTINGS",
    "21mbit/4k/256k,21mbit/4k/4k,21mbit/4k/0,21mbit/1k/1k").split(",")
ROUNDS = int(os.environ.get("VG_WIRE_ROUNDS", "3"))
LINE = os.environ.get("VG_WIRE_LINE", LINE_RATE)
SLUB_DEBUG = os.environ.get("VG_SLUB_DEBUG", "1") != "0"
# A port the stream never fills: far above what rxe reaches in the guest.
NO_QUEUE_RATE = "1gbit"


class Sweep:
    def __init__(self, g: Guest):
        self.g = g
        self.port = 19500

    def victim(self, w: Wire, stream: bool) -> dict:
        """One victim run, next to the stream if asked: the victim's p50
        and p99 (us), the stream's Mbit/s, the packets the port held
        back."""
        self.port += 2
        lat, bulk, wire = victim_run(self.g, w, self.port,
                                     LATENCY_TENANT,
                                     STREAM_TENANT if stream else None)
        return {"p50": lat["total"]["lat_us"]["p50"],
                "p99": lat["total"]["lat_us"]["p99"],
                "mbit": bulk["total"]["gbps"] * 1000 if bulk else 0.0,
                "held": wire.held}

    def paced(self, setting: str, w: Wire) -> dict:
        rate, chunk, burst = setting.split("/")
        cli_ok(self.g, f"dev set {self.g.rxe_dev} maxrate {rate} "
                       f"chunk {chunk} chunk-nolat {chunk} burst {burst}")
        return self.victim(w, True)

    def round(self) -> dict[str, dict]:
        g, out = self.g, {}
        if g.verbsgate_loaded():
            assert g.unload_verbsgate().ok
        with Wire(g, rate=LINE, order=LOCAL) as w:
            out["alone"] = self.victim(w, False)
            out["unshaped"] = self.victim(w, True)
            assert g.load_verbsgate().ok
            add_tenants(g, {"lat": "class latency weight 1",
                            "bulk": "class bandwidth weight 19"})
            for s in SETTINGS:
                out[s] = self.paced(s, w)
        with Wire(g, rate=NO_QUEUE_RATE, order=LOCAL) as w:
            for s in SETTINGS:
                out[s + " no queue"] = self.paced(s, w)
            assert g.unload_verbsgate().ok
            out["unshaped no queue"] = self.victim(w, True)
        return out


def median(rounds: list[dict], row: str, key: str) -> float:
    return statistics.median(r[row][key] for r in rounds)


def label(row: str) -> str:
    if row in ("alone", "unshaped"):
        return {"alone": "none (alone)", "unshaped": "unshaped"}[row]
    rate, chunk, burst = row.split("/")
    return f"verbsgate maxrate {rate}, chunk {chunk}, burst {burst}"


def table(rounds: list[dict]) -> str:
    alone = median(rounds, "alone", "p99")
    slub = "on" if SLUB_DEBUG else "off"
    rows = [f"Victim next to the stream, {LABEL}, line {LINE}, "
            f"SLUB debugging {slub}, "
            f"medians of {len(rounds)} rounds; \"no queue\": the same "
            f"pacing through a {NO_QUEUE_RATE} port", "",
            "| stream | victim p50 µs | victim p99 µs | p99 / alone | "
            "p99 no queue µs | stream Mbit/s | stream no queue | "
            "packets held |",
            "|---|---|---|---|---|---|---|---|"]
    for row in ["alone", "unshaped", *SETTINGS]:
        nq = f"{row} no queue"
        p99 = median(rounds, row, "p99")
        rows.append(
            f"| {label(row)} | {median(rounds, row, 'p50'):.0f} | {p99:.0f} | "
            f"{p99 / alone:.2f} | "
            + (f"{median(rounds, nq, 'p99'):.0f}" if nq in rounds[0]
               else "") +
            f" | {median(rounds, row, 'mbit'):.1f} | "
            + (f"{median(rounds, nq, 'mbit'):.1f}" if nq in rounds[0]
               else "") +
            f" | {median(rounds, row, 'held'):.0f} |")
    rows += ["", "Per round, victim p99 µs:"]
    for row in rounds[0]:
        rows.append(f"- {row}: " + ", ".join(f"{r[row]['p99']:.0f}"
                                            for r in rounds))
    return "\n".join(rows)


def main() -> int:
    print(f"wire-sweep: {LABEL}: {ROUNDS} rounds of {SETTINGS}", flush=True)
    try:
        with Guest(slub_debug=SLUB_DEBUG) as g:
            assert g.load_rxe(patched=True).ok
            make_cgroups(g, ["lat", "bulk"])
            pin_cgroups(g, {"lat": "0", "bulk": "1"}, "1")
            sweep = Sweep(g)
            rounds = []
            for i in range(ROUNDS):
                rounds.append(sweep.round())
                print(f"round {i + 1}: " + ", ".join(
                    f"{k} {v['p99']:.0f}" for k, v in rounds[-1].items()),
                    flush=True)
    except (GuestError, AssertionError):
        traceback.print_exc()
        return 1
    text = table(rounds)
    build_report("wire.md", text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
