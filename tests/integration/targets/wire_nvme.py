#!/usr/bin/env python3
"""`make wire-nvme`: NVMe-over-RDMA tenants re-measured on the wire
(issue #23), with and without verbsgate in the same boot, each figure
the median of VG_WIRE_ROUNDS rounds (default 3).

Each tenant n is a subsystem exported on the far side and connected
from the near side (wire.nvme_across()), so its read data crosses vg1's
port; verbsgate paces rxe1, the targets' device. The kernel QPs need no
driver patch: the stock rdma_rxe is loaded.

- Weighted shares: bandwidth tenants reading 256 KB at iodepth 8
  (fio.read_rates(): their block devices' counters over the middle of a
  run), unshaped, then with verbsgate pacing rxe1 at wire.PACED_MBIT,
  weights 3:1, 5:2 and 1:1:1.
- The latency tenant's frontier: test_wire.py's NVMe latency tenant (512
  B random reads, one outstanding, 200 a second) alone, next to two 1 MB
  readers unshaped, and next to them with verbsgate capping rxe1 by hand
  at each fraction of the line rate in VG_WIRE_CAPS (default 100, 90,
  75, 50 %) in each chunk size of VG_WIRE_CHUNKS (default 4k, 16k, 64k;
  the pacer's bucket set to one chunk); the readers of weight 19 each,
  the latency tenant's 1.

Markdown to stdout and build/wire-nvme.md, every round's figures to
build/wire-nvme.json. The numbers are the
emulator's, not a NIC's: only the ratios within one table mean anything
(labelled emulated, rxe in QEMU TCG, wire mode). About 30 minutes.
"""
import os
import statistics
import sys
import traceback
from contextlib import ExitStack
from dataclasses import asdict

from harness import fio, nvme
from harness.counters import delta, stats
from harness.reports import build_report
from harness.testbed import Guest, GuestError
from harness.vgcli import cli_ok
from harness.wire import (FAR_DEV, FAR_NET, FAR_NETDEV, LABEL, LINE_BYTES,
                          LINE_RATE, NVME_BULK_WEIGHT, NVME_LATENCY,
                          PACED_MBIT, PORT_QUEUE, Wire, nvme_across)

ROUNDS = int(os.environ.get("VG_WIRE_ROUNDS", "3"))
# Each run's length and its edges left out of the rates: longer than the
# tests' (harness.wire.NVME_SECONDS), as in the reports before.
NVME_SECONDS, NVME_EDGE = 15, 3
CAPS = [int(x) for x in
        os.environ.get("VG_WIRE_CAPS", "100,90,75,50").split(",")]
CHUNKS = os.environ.get("VG_WIRE_CHUNKS", "4k,16k,64k").split(",")
SHARES = {"3:1": {"a": 3, "b": 1}, "5:2": {"a": 5, "b": 2},
          "1:1:1": {"a": 1, "b": 1, "c": 1}}
TENANTS = {"a": 11, "b": 12, "c": 13, "lat": 14}


class Bed:
    """The guest in wire mode with every tenant's subsystem connected."""

    def __init__(self, g: Guest, w: Wire, devs: dict[int, str]):
        self.g, self.w = g, w
        self.readers = {t: fio.read_job(t, devs[n])
                        for t, n in TENANTS.items() if t != "lat"}
        self.big = [fio.read_job(t, devs[TENANTS[t]], bs="1m")
                    for t in ("a", "b")]
        self.lat = [fio.latency_job("lat", devs[TENANTS["lat"]],
                                    **NVME_LATENCY)]

    def kernel_clock(self) -> float:
        """Now, in the kernel log's clock (seconds since boot)."""
        return float(self.g.run("cut -d' ' -f1 /proc/uptime",
                                check=True).out)

    def nvme_events(self, since: float) -> list[str]:
        """The host's and target's kernel messages logged after @since:
        an error recovery or reconnect in a run stalls its tenant for
        seconds, which a share alone would not show."""
        return self.g.run(
            "dmesg | awk -F'] ' "
            f"'substr($1, 2) + 0 > {since} && /nvme|rxe/' || true"
        ).out.splitlines()

    def rates(self, tenants) -> dict:
        """Each tenant's read rate (bytes/s) over the run's middle; with
        verbsgate loaded, the bytes it sent over the whole run by its
        counters (as "tx_TENANT"); the NVMe messages of the run."""
        loaded = self.g.verbsgate_loaded()
        before = stats(self.g) if loaded else {}
        mark = self.kernel_clock()
        with self.w.watch(FAR_NETDEV, peak=True) as port:
            out = fio.read_rates(self.g, [self.readers[t] for t in tenants],
                                 NVME_SECONDS, NVME_EDGE)
        out.update(asdict(port))
        if loaded:
            after = stats(self.g)
            out.update({f"tx_{t}": delta(before, after, t, "tx_bytes")
                        for t in tenants})
        out["events"] = self.nvme_events(mark)
        return out

    def latency(self, bulk: bool) -> dict:
        """The latency tenant's run, next to two 1 MB readers if asked."""
        mark = self.kernel_clock()
        with self.w.watch(FAR_NETDEV) as port:
            res = fio.run(self.g, (self.big if bulk else []) + self.lat,
                          runtime=NVME_SECONDS)
        assert res.ok, res.describe()
        return {"p50": res["lat"].lat_p50_ns / 1e3,
                "p99": res["lat"].lat_p99_ns / 1e3,
                "bulk": sum(res[t].bw_bytes for t in ("a", "b")
                            if t in res.jobs),
                **asdict(port), "events": self.nvme_events(mark)}

    def round(self) -> dict:
        g, out = self.g, {}
        if g.verbsgate_loaded():
            assert g.unload_verbsgate().ok
        for name, weights in SHARES.items():
            out[f"shares {name} unshaped"] = self.rates(weights)
        out["alone"] = self.latency(False)
        out["unshaped"] = self.latency(True)

        assert g.load_verbsgate().ok
        for t in ("a", "b", "c"):
            cli_ok(g, f"tenant add {t} local {FAR_NET}.{TENANTS[t]}/32 "
                      "class bandwidth weight 1")
        cli_ok(g, f"dev set {FAR_DEV} maxrate {PACED_MBIT}mbit enforce on")
        # QPs are shaped from their creation: reconnect.
        nvme.reset_controllers(g, [nvme.subsystem_nqn(f"{FAR_NET}.{n}")
                                   for n in TENANTS.values()])
        for name, weights in SHARES.items():
            for t, wt in weights.items():
                cli_ok(g, f"tenant set {t} weight {wt}")
            out[f"shares {name}"] = self.rates(weights)

        for t in ("a", "b"):
            cli_ok(g, f"tenant set {t} weight {NVME_BULK_WEIGHT}")
        cli_ok(g, f"tenant add lat local {FAR_NET}.{TENANTS['lat']}/32 "
                  "class latency weight 1")
        for cap in CAPS:
            for chunk in CHUNKS:
                cli_ok(g, f"dev set {FAR_DEV} maxrate "
                          f"{int(LINE_BYTES * cap / 100)}bps chunk {chunk} "
                          f"chunk-nolat {chunk} burst {chunk}")
                out[f"{cap} {chunk}"] = self.latency(True)
        return out


def median(rounds: list[dict], row: str, key) -> float:
    return statistics.median(r[row][key] for r in rounds)


# The port's figures (wire.WireCounts) in the tables: medians of the
# packets it held back and dropped, and of rxe's out-of-sequence packets.
PORT_COLUMNS = "port held back | dropped | out of sequence"


def port_cells(rounds: list[dict], row: str) -> str:
    return " | ".join(f"{median(rounds, row, k):.0f}"
                      for k in ("held", "drops", "out_of_seq"))


def over(x: float, y: float) -> float:
    """x / y, infinite for a starved y: a round's figure, not a crash
    after the run's last round."""
    return x / y if y else float("inf")


def share(rounds: list[dict], row: str, t: str, last: str) -> float:
    """The median of @t's rate over @last's."""
    return statistics.median(over(r[row][t], r[row][last]) for r in rounds)


def shares_table(rounds: list[dict]) -> list[str]:
    rows = [f"Weighted shares: fio reads 256 KB, iodepth 8, {NVME_SECONDS} "
            f"s, rates over all but the first and last {NVME_EDGE} s; "
            f"verbsgate paces {FAR_DEV} at {PACED_MBIT} Mbit/s. MB/s and "
            "each tenant's rate over the last tenant's; medians of "
            f"{len(rounds)} rounds (per round in brackets).", "",
            "| weights | run | MB/s | shares | per round | "
            f"{PORT_COLUMNS} |", "|---|---|---|---|---|---|---|---|"]
    for name, weights in SHARES.items():
        last = list(weights)[-1]
        for run in ("unshaped", "verbsgate"):
            row = f"shares {name}" + (" unshaped" if run == "unshaped"
                                      else "")
            mbs = " / ".join(f"{median(rounds, row, t) / 1e6:.2f}"
                             for t in weights)
            ratio = ":".join(f"{share(rounds, row, t, last):.2f}"
                             for t in weights)
            per = ", ".join(":".join(f"{over(r[row][t], r[row][last]):.2f}"
                                     for t in weights) for r in rounds)
            rows.append(f"| {name} | {run} | {mbs} | {ratio} | {per} | "
                        f"{port_cells(rounds, row)} |")
    return rows


def frontier_table(rounds: list[dict]) -> list[str]:
    alone = median(rounds, "alone", "p99")
    rows = [f"The latency tenant (fio randread {NVME_LATENCY['bs']} B, "
            f"iodepth 1, {NVME_LATENCY['rate_iops']}/s, each read's whole "
            "latency) next to two 1 MB readers (iodepth 8, weight "
            f"{NVME_BULK_WEIGHT} each, latency tenant 1, and the share runs' "
            "third tenant idle at weight 1); verbsgate caps "
            f"{FAR_DEV} at a fraction of the line rate, chunk = bucket; "
            f"{NVME_SECONDS} s runs, medians of {len(rounds)} rounds.", "",
            "| readers | lat p50 µs | lat p99 µs | p99 / alone | "
            f"readers Mbit/s | readers / line | {PORT_COLUMNS} "
            "| p99 per round |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    names = {"alone": "none (alone)", "unshaped": "unshaped"}
    for row in ["alone", "unshaped"] + [f"{c} {k}" for c in CAPS
                                        for k in CHUNKS]:
        label = names.get(row)
        if label is None:
            cap, chunk = row.split()
            label = f"verbsgate, cap {cap} % of the line, chunk {chunk}"
        bulk = median(rounds, row, "bulk")
        p99 = median(rounds, row, "p99")
        rows.append(f"| {label} | {median(rounds, row, 'p50'):.0f} | "
                    f"{p99:.0f} | {p99 / alone:.2f} | "
                    + (f"{bulk * 8 / 1e6:.1f} | {bulk / LINE_BYTES:.0%}"
                       if bulk else "— | —")
                    + f" | {port_cells(rounds, row)} | "
                    + ", ".join(f"{r[row]['p99']:.0f}" for r in rounds)
                    + " |")
    return rows


def events(rounds: list[dict]) -> list[str]:
    """The runs during which the host or target logged anything."""
    rows = [f"- round {i + 1}, {row}: {line}"
            for i, r in enumerate(rounds) for row, v in r.items()
            for line in v["events"]]
    return ["NVMe and rxe kernel messages during the runs: "
            + ("none." if not rows else "")] + rows


def main() -> int:
    print(f"wire-nvme: {LABEL}: {ROUNDS} rounds", flush=True)
    rounds = []
    try:
        with Guest() as g, ExitStack() as stack:
            nvme.cleanup_all(g)
            w = stack.enter_context(Wire(g))
            devs = stack.enter_context(
                nvme_across(g, list(TENANTS.values())))
            bed = Bed(g, w, devs)
            for i in range(ROUNDS):
                rounds.append(bed.round())
                print(f"round {i + 1}: " + ", ".join(
                    f"{k} {v['p99']:.0f}" for k, v in rounds[-1].items()
                    if "p99" in v), flush=True)
    except (GuestError, AssertionError):
        # Report the rounds that ended, then fail.
        traceback.print_exc()
        if not rounds:
            return 1
    text = "\n".join([f"NVMe over RDMA on the wire, {LABEL}: line "
                      f"{LINE_RATE}, queue {PORT_QUEUE}.", ""]
                     + shares_table(rounds) + [""] + frontier_table(rounds)
                     + [""] + events(rounds))
    build_report("wire-nvme.md", text, {"label": LABEL, "line": LINE_RATE,
                                        "rounds": rounds})
    return 0 if len(rounds) == ROUNDS else 1


if __name__ == "__main__":
    sys.exit(main())
