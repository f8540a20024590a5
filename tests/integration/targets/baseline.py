#!/usr/bin/env python3
"""No-isolation baseline: vgload victims alone and next to each attacker.

Boots the test-bed guest (testbed.Guest: Debian 6.1 kernel, QEMU TCG, rxe
on a veth), then for each repetition, victim and attacker class: starts
the attacker against its own server, lets it settle, runs the victim
against another server, and collects both JSON reports. Repetitions are
interleaved so "alone" and "attacked" runs sample the same host load.
Writes the raw reports (JSON) and a Markdown table with medians.

    export PYTHONPATH=tests/integration
    python3 tests/integration/targets/baseline.py [--reps 5] [--duration 5]
        [--out build/baseline] [--victims latency,...] [--attackers none,...]
    python3 tests/integration/targets/baseline.py \
        --render build/baseline/results.json

This is the table verbsgate must later beat; docs/baseline.md records a
run of it. Not a test: it asserts nothing and takes ~10 minutes.
"""
import argparse
import json
import platform
import statistics
import subprocess
import time
from datetime import datetime, timezone
from pathlib import Path

from harness.testbed import VGLOAD, Guest
from harness.traffic import client_command, vgload_server

VICTIMS = {
    "latency": "--op write --size 16 --depth 1",
    "bandwidth": "--op write --size 64K --depth 4",
}

# Attacker classes. Attackers poll with completion events so that what
# they take from the victim is the RDMA work (which on rxe is CPU work in
# the kernel), not a spinning poll loop of their own.
ATTACKERS = {
    "none": None,
    "bandwidth": "--mode bw",
    "small-message": "--mode small-flood",
    "RNR (RC)": "--mode rnr --qps 16",
    "no-recv (UC)": "--mode no-recv",
    "atomics": "--mode atomic-flood",
    "MR churn": "--mode mr-storm",
    "many-QP": "--mode wide",
}

VICTIM_PORT, ATTACKER_PORT = 18900, 18901


def median(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


class Bed:
    def __init__(self, guest: Guest, duration: float, warmup: float):
        self.g = guest
        self.duration, self.warmup = duration, warmup

    def victim_cmd(self, args: str) -> str:
        return client_command(
            f"{self.g.ip} --port {VICTIM_PORT} --json --warmup "
            f"{self.warmup:g} --duration {self.duration:g} {args}")

    def attacker_cmd(self, args: str) -> str:
        span = self.warmup + self.duration + 3
        target = "" if "storm" in args else f"{self.g.ip} --port {ATTACKER_PORT}"
        poll = "" if "storm" in args else "--poll event"
        return client_command(f"{target} --json --quiet --duration {span:g} "
                              f"{poll} {args}")

    def start_servers(self):
        # The guest is ours alone for the run; Guest.stop() ends them.
        for port in (VICTIM_PORT, ATTACKER_PORT):
            vgload_server(self.g, port)

    def run_pair(self, victim: str, attacker: str | None) -> dict:
        vcmd = self.victim_cmd(victim)
        acmd = self.attacker_cmd(attacker) if attacker else None
        if acmd:
            script = (f"{acmd} >/tmp/vg-att.json 2>/tmp/vg-att.err & a=$!; "
                      f"sleep 1; {vcmd} 2>/tmp/vg-vic.err; wait $a; "
                      f"echo @@attacker; cat /tmp/vg-att.json")
        else:
            script = f"{vcmd} 2>/tmp/vg-vic.err"
        res = self.g.run(script, timeout=self.warmup + self.duration + 60)
        vout, _, aout = res.out.partition("@@attacker\n")
        out = {"victim_cmd": vcmd, "attacker_cmd": acmd}
        try:
            out["victim"] = json.loads(vout)
        except ValueError:
            out["victim"] = None
            out["victim_error"] = vout + self.g.run("cat /tmp/vg-vic.err").out
        if acmd:
            try:
                out["attacker"] = json.loads(aout)
            except ValueError:
                out["attacker"] = None
                out["attacker_error"] = aout + self.g.run(
                    "cat /tmp/vg-att.err").out
        return out


def summarize(runs: list[dict]) -> dict:
    ok = [r["victim"] for r in runs if r.get("victim") and r["victim"]["ok"]]
    atts = [r["attacker"] for r in runs if r.get("attacker")]

    def victim(key):
        return median([d["total"][key] for d in ok])

    p99s = [d["total"]["lat_us"]["p99"] for d in ok]
    out = {
        "gbps": victim("gbps"), "mops": victim("mops"),
        "p50": median([d["total"]["lat_us"]["p50"] for d in ok]),
        "p99": median(p99s), "p99_min": min(p99s, default=None),
        "p99_max": max(p99s, default=None),
        "p999": median([d["total"]["lat_us"]["p999"] for d in ok]),
        "ok_runs": len(ok), "runs": len(runs), "attacker": "-",
    }
    if atts and atts[0]["mode"].endswith("storm"):
        out["attacker"] = (f"{median([a['total']['mops'] for a in atts]) * 1e6:,.0f}"
                           " verbs/s")
    elif atts:
        out["attacker"] = (
            f"{median([a['total']['gbps'] for a in atts]) * 1e3:.1f} Mbit/s, "
            f"{median([a['total']['mops'] for a in atts]) * 1e3:.2f} kops/s")
    return out


def markdown(summary: dict, reps: int) -> str:
    def f(x, fmt):
        return format(x, fmt) if x is not None else "n/a"

    lines = []
    for victim in summary:
        alone = summary[victim]["none"]
        lines.append(f"\n### Victim: {victim} (`{VICTIMS[victim]}`)\n")
        lines.append("| attacker | victim kops/s | victim Mbit/s | p50 µs | "
                     "p99 µs | p99 range µs | p99 vs alone | "
                     "throughput vs alone | attacker achieved |")
        lines.append("|---|---:|---:|---:|---:|---:|---:|---:|---|")
        for att, s in summary[victim].items():
            p99r = s["p99"] / alone["p99"] if s["p99"] and alone["p99"] else None
            tr = s["mops"] / alone["mops"] if s["mops"] and alone["mops"] else None
            note = "" if s["ok_runs"] == s["runs"] else \
                f" ({s['ok_runs']}/{s['runs']} runs ok)"
            lines.append(
                f"| {att}{note} | {f(s['mops'] and s['mops'] * 1e3, '.2f')} | "
                f"{f(s['gbps'] and s['gbps'] * 1e3, '.1f')} | "
                f"{f(s['p50'], ',.0f')} | {f(s['p99'], ',.0f')} | "
                f"{f(s['p99_min'], ',.0f')}–{f(s['p99_max'], ',.0f')} | "
                f"{f(p99r, '.2f')}× | {f(tr, '.2f')}× | {s['attacker']} |")
    lines.append(f"\nMedians of {reps} interleaved repetitions; the range "
                 "is the lowest and highest p99 of the repetitions.")
    return "\n".join(lines) + "\n"


def render(path: Path):
    """Re-renders table.md from a results.json (no guest needed)."""
    data = json.loads(path.read_text())
    summary = {v: {a: summarize(runs) for a, runs in atts.items()}
               for v, atts in data["raw"].items()}
    reps = max(len(runs) for atts in data["raw"].values()
               for runs in atts.values())
    table = markdown(summary, reps)
    (path.parent / "table.md").write_text(table)
    print(table)


def main():
    ap = argparse.ArgumentParser(description=__doc__,
                                 formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--duration", type=float, default=5)
    ap.add_argument("--warmup", type=float, default=1)
    ap.add_argument("--out", type=Path,
                    default=Path(__file__).resolve().parents[2] / "build" /
                    "baseline")
    ap.add_argument("--victims", default=",".join(VICTIMS))
    ap.add_argument("--attackers", default=",".join(ATTACKERS))
    ap.add_argument("--render", type=Path, metavar="RESULTS_JSON",
                    help="only re-render table.md from an earlier run")
    args = ap.parse_args()
    if args.render:
        render(args.render)
        return
    victims = args.victims.split(",")
    attackers = args.attackers.split(",")
    args.out.mkdir(parents=True, exist_ok=True)

    with Guest() as g:
        bed = Bed(g, args.duration, args.warmup)
        machine = {
            "date": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "host_cpu": subprocess.run(
                "lscpu | sed -n 's/^Model name: *//p'", shell=True,
                capture_output=True, text=True).stdout.strip(),
            "host_cpus": subprocess.run(["nproc"], capture_output=True,
                                        text=True).stdout.strip(),
            "host_kernel": platform.release(),
            "qemu": subprocess.run(["qemu-system-x86_64", "--version"],
                                   capture_output=True,
                                   text=True).stdout.splitlines()[0],
            "guest": f"-smp {g.smp} -m {g.memory_mb}, accel=tcg",
            "guest_kernel": g.run("uname -r").out.strip(),
            "rxe": g.run(f"rdma link show {g.rxe_dev}/1").out.strip(),
            "vgload": g.run(f"{VGLOAD} --version").out.strip(),
            "host_load_start": open("/proc/loadavg").read().split()[:3],
        }
        bed.start_servers()
        raw = {v: {a: [] for a in attackers} for v in victims}
        for rep in range(args.reps):
            for v in victims:
                for a in attackers:
                    t0 = time.monotonic()
                    r = bed.run_pair(VICTIMS[v], ATTACKERS[a])
                    raw[v][a].append(r)
                    d = r.get("victim")
                    state = (f"p50 {d['total']['lat_us']['p50']:.1f} "
                             f"p99 {d['total']['lat_us']['p99']:.1f} us, "
                             f"{d['total']['gbps']:.4f} Gbit/s"
                             if d and d["ok"] else "FAILED")
                    print(f"rep {rep + 1} {v:9s} vs {a:14s} {state} "
                          f"({time.monotonic() - t0:.0f} s)", flush=True)
        machine["host_load_end"] = open("/proc/loadavg").read().split()[:3]

    summary = {v: {a: summarize(raw[v][a]) for a in attackers}
               for v in victims}
    (args.out / "results.json").write_text(json.dumps(
        {"machine": machine, "summary": summary, "raw": raw}, indent=1))
    print(json.dumps(machine, indent=1))
    render(args.out / "results.json")


if __name__ == "__main__":
    main()
