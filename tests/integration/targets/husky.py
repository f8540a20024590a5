#!/usr/bin/env python3
"""`make husky`: Husky's adversarial matrix on the wire (issue #46),
harness/husky.py's cells, each four ways (alone, attacked with verbsgate
unloaded, attacked with verbsgate pacing both tenants at weight 1, alone
under verbsgate), the
medians of VG_HUSKY_RUNS runs (default 3), in one boot with the patched
rdma_rxe (user QPs are governed only there).

VG_HUSKY_CELLS picks cells: "reduced" (the list `make check` is to
assert), "all" (every victim against every attacker, the default), or
"VICTIM/ATTACKER;..." by name, where ATTACKER "*" is every attacker (a
shard of the matrix: one victim's row).

Markdown to stdout and build/husky.md, every run's figures and the
run's date, command, machine and commit to build/husky.json, and a
heatmap of the verdicts to build/husky.png when python3-matplotlib is
installed (`make husky` installs it). Emulated (rxe in QEMU TCG): only
the ratios within one table mean anything. About a minute per cell and
run, and four per victim for its runs without an attacker.

`husky.py --assemble OUT.md SHARD.json... [NOTES.md...]` writes one
report (and its heatmap next to it, OUT.png) from several runs' JSON,
each named with its date, command, machine and commit, followed by the
notes: `make husky-report` assembles docs/husky.md from the shards and
the notes kept in docs/husky/.
"""
import json
import os
import platform
import subprocess
import sys
import time
from pathlib import Path

from harness import husky
from harness.reports import build_report
from harness.testbed import BUILD_DIR, REPO, Guest
from harness.wire import LABEL, LINE_RATE, PORT_QUEUE

RUNS = int(os.environ.get("VG_HUSKY_RUNS", "3"))


def cells() -> list[tuple[str, str]]:
    pick = os.environ.get("VG_HUSKY_CELLS", "all")
    if pick == "reduced":
        return list(husky.REDUCED)
    if pick == "all":
        return [(v, a) for v in husky.VICTIMS for a in husky.ATTACKERS]
    out = []
    for item in pick.split(";"):
        victim, _, attacker = item.partition("/")
        if victim not in husky.VICTIMS or (
                attacker != "*" and attacker not in husky.ATTACKERS):
            sys.exit(f"husky: no cell {item!r}; victims: "
                     f"{', '.join(husky.VICTIMS)}; attackers: "
                     f"{', '.join(husky.ATTACKERS)}, or *")
        out += [(victim, a) for a in (husky.ATTACKERS if attacker == "*"
                                      else [attacker])]
    return out


def cpu_model() -> str:
    for line in open("/proc/cpuinfo"):
        if line.startswith("model name"):
            return line.split(":", 1)[1].strip()
    return platform.machine()


def mbit(bytes_s: float) -> str:
    return f"{bytes_s * 8e-6:.1f}"


def row(s: dict) -> str:
    v = s["verdict"]
    latency = husky.VICTIMS[s["victim"]].kind == "latency"

    def fig(way):
        f = s[way]
        if latency:
            return f"p99 {f['p99_us'] / 1000:.2f} ms"
        return f"{mbit(f['bytes_s'])} Mbit/s, {f['ops_s']:.0f}/s"
    yes = {True: "pass", False: "fail"}
    off, on = s["off"]["port"], s["on"]["port"]
    benign = (f"p99 {s['benign_p99_us'] / 1000:.2f} ms" if latency
              else "—")
    if s.get("benign"):     # what the benign stream put on the port
        benign += f", port {s['benign']['port']['bytes'] / 1e6:.1f} MB"
    return (f"| {s['victim']} | {s['attacker']} | {fig('alone')} | "
            f"{fig('off')} | {fig('on')} | {fig('alone_on')} | {benign} | "
            f"{yes[v['off_alpha']]} | "
            f"{yes[v['on_alpha']]} | {yes[v['on_goal']]} | **{s['label']}**"
            f"{within(s)} "
            f"| {off['bytes'] / 1e6:.1f} / {on['bytes'] / 1e6:.1f} "
            f"| {off['drops']:.0f} / {on['drops']:.0f} "
            f"| {far_port(off)} / {far_port(on)} "
            f"| {s['off']['attacker_bytes'] / 1e6:.1f} / "
            f"{s['on']['attacker_bytes'] / 1e6:.1f} |"
            + ("" if all(s["attacker_ok"]) else " attacker failed"))


def far_port(port: dict) -> str:
    """What the far device's port (vg1) did in a run's medians: the READ
    responses and every ACK cross it. Rows measured before it was
    watched have "—"."""
    if "far_bytes" not in port:
        return "—"
    return (f"{port['far_bytes'] / 1e6:.1f} MB, {port['far_drops']:.0f} "
            f"dropped, {port['far_held']:.0f} held")


def within(s: dict) -> str:
    """What a cell worse with verbsgate adds to its verdict when its
    runs with and without verbsgate overlap (husky.beyond_spread())."""
    if s["label"] != "worse with verbsgate":
        return ""
    runs = {way: [husky.Figures(**f) for f in s["runs"][way]]
            for way in ("off", "on")}
    if husky.beyond_spread(husky.VICTIMS[s["victim"]], runs["off"],
                           runs["on"]):
        return ""
    return " (within the spread of its runs)"


def heatmap(summaries: list[dict], path) -> str:
    """The verdicts as a victims x attackers grid; returns what it wrote
    or why not."""
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        return "no heatmap: python3-matplotlib is not installed"
    victims = list(dict.fromkeys(s["victim"] for s in summaries))
    attackers = list(dict.fromkeys(s["attacker"] for s in summaries))
    shade = {"stopped": 2, "attack ineffective": 1, "not stopped": 0,
             "worse with verbsgate": 0}
    grid = [[float("nan")] * len(attackers) for _ in victims]
    for s in summaries:
        grid[victims.index(s["victim"])][attackers.index(s["attacker"])] = \
            shade[s["label"]]
    fig, ax = plt.subplots(figsize=(2 + 1.1 * len(attackers),
                                    1.5 + 0.6 * len(victims)))
    ax.imshow(grid, cmap=matplotlib.colors.ListedColormap(
        ["#d73027", "#bbbbbb", "#1a9850"]), vmin=0, vmax=2)
    ax.set_xticks(range(len(attackers)), attackers, rotation=40,
                  ha="right")
    ax.set_yticks(range(len(victims)), victims)
    for s in summaries:
        ax.text(attackers.index(s["attacker"]), victims.index(s["victim"]),
                {"stopped": "stopped", "attack ineffective": "ineff.",
                 "not stopped": "NOT", "worse with verbsgate": "WORSE"}[
                    s["label"]],
                ha="center", va="center", fontsize=7)
    ax.set_title(f"verbsgate against Husky's attacks\n{LABEL}", fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=120)
    return f"heatmap: {path.name}"


def commit() -> str:
    """The commit the run was built from, "+changes" when the tree had
    uncommitted changes to tracked files."""
    def git(*args):
        return subprocess.run(["git", "-C", str(REPO), *args],
                              capture_output=True, text=True).stdout.strip()
    head = git("rev-parse", "--short=12", "HEAD") or "unknown"
    return head + ("+changes" if git("status", "--porcelain",
                                     "--untracked-files=no") else "")


# How the runs that did not record their pacing paced the device: those
# before the line rate was stated (2026-12-07), each chunk charged its
# payload alone.
EARLIER_PACING = "maxrate 21mbit chunk 1k chunk-nolat 16k burst 16k"


def pacing(shard: dict) -> str:
    """What @shard's run set the device to (`dev set rxe0 ...`)."""
    return shard["meta"].get("pacing", EARLIER_PACING)


def shard_line(shard: dict, kept: dict) -> str:
    """@shard's run: when, how, where and what its console said, and
    which of its cells a later run measured again (not those in @kept,
    the cells the report shows)."""
    meta = shard["meta"]
    again = [f"{s['victim']} / {s['attacker']}" for s in shard["cells"]
             if kept[s["victim"], s["attacker"]] is not s]
    return (f"{meta['started']}, `VG_HUSKY_CELLS='{meta['cells']}' "
            f"VG_HUSKY_RUNS={meta['runs']} make husky` at {meta['commit']}, "
            f"paced `{pacing(shard)}`, "
            f"on a {meta['cpus']}-CPU {meta['cpu']}, "
            f"{meta['minutes']:.0f} min; the guest's console: " +
            (f"{len(meta['errors'])} kernel errors:\n\n" +
             "\n".join(f"    {e}" for e in meta["errors"]) + "\n"
             if meta["errors"] else "no warning, oops or blocked task.") +
            (f" Measured again by a later run: {'; '.join(again)}."
             if again else ""))


def latest(shards: list[dict]) -> dict:
    """Each cell of @shards from the latest run that measured it (a
    shard rerunning some cells of an earlier row replaces them)."""
    cells = {}
    for shard in sorted(shards, key=lambda s: s["meta"]["started"]):
        for s in shard["cells"]:
            cells[s["victim"], s["attacker"]] = s
    return cells


def in_matrix_order(cells: dict) -> list[dict]:
    """@cells (latest()'s) in the matrix's order (victims, then
    attackers, as harness/husky.py lists them), whatever order the
    shards came in."""
    order = {(v, a): n for n, (v, a) in enumerate(
        (v, a) for v in husky.VICTIMS for a in husky.ATTACKERS)}
    return sorted(cells.values(),
                  key=lambda s: order[s["victim"], s["attacker"]])


def render(shards: list[dict]) -> str:
    """One report of @shards' cells (each shard: its run's "meta" and
    "cells"), in the matrix's order, after the runs they come from."""
    kept = latest(shards)
    summaries = in_matrix_order(kept)
    runs = sorted({shard["meta"]["runs"] for shard in shards})
    stopped = sum(s["label"] == "stopped" for s in summaries)
    ineffective = sum(s["label"] == "attack ineffective" for s in summaries)
    worse = sum(s["label"] == "worse with verbsgate" for s in summaries)
    worse_within = sum(bool(within(s)) for s in summaries)
    goal = sum(s["verdict"]["effective"] and s["verdict"]["on_goal"]
               for s in summaries)
    # The pacing of the runs whose cells the table shows.
    paced = sorted({pacing(shard) for shard in shards
                    if any(kept[s["victim"], s["attacker"]] is s
                           for s in shard["cells"])})
    return "\n".join([
        f"# Husky's attacks against verbsgate, {LABEL}", "",
        "Wire: "
        f"{LINE_RATE} port, {PORT_QUEUE} queue; victim and attacker pinned "
        "to vCPU 0 and 1, each receiving its own packets there, "
        "unprivileged; verbsgate with both tenants at "
        "weight 1 (a latency victim's in the latency class, the "
        "message-rate victim's in the throughput class in runs from "
        "2026-12-08 on, the others' in the bandwidth class), " +
        (f"`dev set rxe0 {paced[0]}`" if len(paced) == 1 else
         "the device paced as each run below says") +
        "; \"alone, on\": the victim by itself "
        "under verbsgate, what its pacing costs. Victims measured "
        f"over seconds {husky.WINDOW[0]}-{husky.WINDOW[1]} of "
        f"{husky.SECONDS} s runs; medians of "
        f"{'/'.join(map(str, runs))} runs; a victim's runs without an "
        "attacker are taken once, before its cells. Pass: at least "
        f"{1 - husky.ALPHA:.2f} x min(alone, fair share) in bytes/s and "
        f"messages/s (latency victims: p99 at most {1 + husky.ALPHA:.2f} x "
        "max(alone, next to a benign stream under verbsgate: "
        f"`{husky.BENIGN.args}`)); goal: the same at "
        f"alpha {husky.GOAL_ALPHA}.", "",
        f"{len(summaries)} cells: {stopped} stopped by verbsgate, "
        f"{len(summaries) - stopped - ineffective - worse} not stopped, "
        f"{ineffective} attacks ineffective on this test bed, {worse} "
        f"worse with verbsgate than without ({worse - worse_within} "
        "beyond the spread of their runs); "
        f"{goal} of the effective ones "
        "within the goal.", "",
        "| victim | attacker | alone | attacked, off | attacked, on | "
        "alone, on | next to a benign stream, on | off α=.25 | "
        "on α=.25 | on α=.10 | verdict | "
        "port MB, off / on | port drops, off / on | "
        "far port, off / on | "
        "attacker's MB completed, off / on |",
        "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|",
        *[row(s) for s in summaries], "",
        "Runs:", "",
        *[f"- {shard_line(shard, kept)}" for shard in shards]])


def assemble(out: Path, paths: list[str]) -> None:
    """@out from the runs' JSON among @paths, and after the table the
    text of those that end in .md (what explains the verdicts)."""
    shards = [json.loads(Path(p).read_text()) for p in paths
              if not p.endswith(".md")]
    text = "\n\n".join([render(shards)] + [
        Path(p).read_text().strip() for p in paths if p.endswith(".md")])
    out.write_text(text + "\n")
    print(text)
    print(heatmap(in_matrix_order(latest(shards)), out.with_suffix(".png")))


def main():
    picked = cells()
    started = time.time()
    # What `make husky` built the run from, before a long run lets the
    # tree move on.
    built = commit()
    summaries = []
    with Guest() as g:
        res = g.load_rxe(patched=True)
        assert res.ok, res.out
        port = 20000
        with husky.cell_wire(g) as w:
            for victim in dict.fromkeys(v for v, _ in picked):
                with husky.victim_target(g, w, husky.VICTIMS[victim]) as v:
                    base = husky.run_baseline(g, w, v, RUNS, port)
                    port += 30 * RUNS
                    for attacker in (a for n, a in picked if n == victim):
                        cell = husky.run_cell(g, w, v, attacker, RUNS, port)
                        port += 20 * RUNS
                        summaries.append(cell.summary(base))
                        print(row(summaries[-1]), flush=True)
        # Every warning, oops or blocked task the matrix caused.
        errors = g.kernel_errors()
    meta = {"started": time.strftime("%Y-%m-%d %H:%M UTC",
                                     time.gmtime(started)),
            "minutes": (time.time() - started) / 60,
            "cells": os.environ.get("VG_HUSKY_CELLS", "all"), "runs": RUNS,
            "cpus": os.cpu_count(), "cpu": cpu_model(), "commit": built,
            "pacing": husky.ON_PACING, "errors": errors}
    shard = {"meta": meta, "cells": summaries}
    print(heatmap(summaries, BUILD_DIR / "husky.png"))
    build_report("husky.md", render([shard]), shard)
    if errors:
        sys.exit("husky: the guest's kernel reported errors (above)")


if __name__ == "__main__":
    if sys.argv[1:2] == ["--assemble"] and len(sys.argv) > 3:
        assemble(Path(sys.argv[2]), sys.argv[3:])
    elif sys.argv[1:]:
        sys.exit("usage: husky.py [--assemble OUT.md SHARD.json... "
                 "[NOTES.md...]]")
    else:
        main()
