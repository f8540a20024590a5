"""The adversarial matrix's verdicts (harness/husky.py) and how a
victim's rate is read from its reports (harness/traffic.py), on the
host: the figures below are made up to sit on either side of each
bound."""
import dataclasses
import json
import math

import pytest

from harness import husky
from harness.husky import Figures, Role
from harness.traffic import window_rate

LINE = 25e6 / 8          # bytes/s
MBIT = 1e6 / 8
BULK = Role("bulk", "--mode bw")
LATENCY = Role("lat", "--op write --size 64 --depth 1", "latency")


def fig(mbit: float, ops: float = 0.0, p99: float = 1000.0) -> Figures:
    return Figures(mbit * MBIT, ops or mbit * 100, p99, {"drops": 0})


def test_a_victim_held_to_its_fair_share_passes():
    alone = fig(20)                   # more than half the line alone
    # 0.75 x 12.5 Mbit/s (half the line) is the bound, not 0.75 x 20.
    assert husky.passes(BULK, alone, fig(9.6), 0.25,
                        line_bytes=LINE)
    assert not husky.passes(BULK, alone, fig(9.2), 0.25, line_bytes=LINE)
    # At the goal's alpha, 0.9 x 12.5.
    assert not husky.passes(BULK, alone, fig(10.5), 0.10, line_bytes=LINE)


def test_a_small_victim_is_owed_what_it_takes_alone():
    alone = fig(4)
    assert husky.passes(BULK, alone, fig(3.1), 0.25, line_bytes=LINE)
    assert not husky.passes(BULK, alone, fig(2.9), 0.25, line_bytes=LINE)


def test_messages_count_as_well_as_bytes():
    alone = fig(4, ops=1000)
    # The bytes are there, the messages are not (larger ones got through).
    assert not husky.passes(BULK, alone, fig(4, ops=700), 0.25,
                            line_bytes=LINE)


def test_a_latency_victim_is_held_to_the_worse_of_alone_and_benign():
    alone = fig(1, p99=1000)
    assert husky.passes(LATENCY, alone, fig(1, p99=2400), 0.25,
                        benign_p99=2000)
    assert not husky.passes(LATENCY, alone, fig(1, p99=2600), 0.25,
                            benign_p99=2000)
    assert not husky.passes(LATENCY, alone, fig(1, p99=1300), 0.25)


def test_an_attack_that_does_not_hurt_unloaded_is_no_pass():
    alone = fig(10)
    v = husky.verdict(BULK, alone, fig(9), fig(9), line_bytes=LINE)
    assert not v["effective"] and husky.label(v) == "attack ineffective"
    v = husky.verdict(BULK, alone, fig(2), fig(9), line_bytes=LINE)
    assert v["effective"] and husky.label(v) == "stopped"
    v = husky.verdict(BULK, alone, fig(2), fig(3), line_bytes=LINE)
    assert husky.label(v) == "not stopped"


def test_medians_take_each_figure_across_runs():
    m = husky.medians([fig(1, 10, 300), fig(5, 30, 100), fig(3, 20, 200)])
    assert (m.bytes_s, m.ops_s, m.p99_us) == (3 * MBIT, 20, 200)
    assert m.port == {"drops": 0}


def test_the_attacker_s_figure_is_what_its_processes_completed():
    """The bytes its processes completed, a failed one nothing; the
    median across runs, like the victim's figures."""
    victim = {"intervals": [{"t_start_s": 2, "t_end_s": 3, "bytes": 10,
                             "ops": 1}],
              "total": {"lat_us": {"p99": 50}}}
    attackers = [{"ok": True, "total": {"bytes": 3000}},
                 {"ok": True, "total": {"bytes": 500}},
                 {"ok": False, "error": "died", "total": {"bytes": 7}}]
    f = husky._figures(victim, {"drops": 0}, attackers, (0.5, 0.9))
    assert f.attacker_bytes == 3500
    assert (f.token_share, f.pacer_use) == (0.5, 0.9)
    assert husky._figures(victim, {"drops": 0}, [],
                          (0, 0)).attacker_bytes == 0
    runs = [Figures(1, 1, 1, {}, done, share, use)
            for done, share, use in ((5.0, 0.6, 1.0), (1.0, 0.2, 0.7),
                                     (3.0, 0.4, 0.8))]
    m = husky.medians(runs)
    assert (m.attacker_bytes, m.token_share, m.pacer_use) == (3.0, 0.4, 0.8)


def test_every_reduced_cell_names_a_victim_and_an_attacker():
    for victim, attacker in husky.REDUCED:
        assert victim in husky.VICTIMS and attacker in husky.ATTACKERS


class CommandLog:
    """A guest that only notes the commands it is given."""
    rxe_dev = "rxe0"

    def __init__(self):
        self.commands = []

    def run(self, cmd, check=False):
        self.commands.append(cmd)


def test_the_nvme_victim_reads_its_namespace_with_no_rdma_options():
    """The kernel tenant's reader needs no server on the far device, and
    vgload refuses RDMA options such as --dev with block-read."""
    nvme = husky.VICTIMS["NVMe 256 KB reads"]
    assert nvme.local and nvme.target == "nvme"
    bound = dataclasses.replace(nvme, args=f"{nvme.args} --file /dev/nvme1n1")
    g = CommandLog()
    [log] = husky.start_role(g, None, bound, "victim", 20000, 10,
                             "/tmp/husky-victim.log", 1)
    [cmd] = g.commands
    assert "--mode block-read" in cmd and "--file /dev/nvme1n1" in cmd
    assert "--dev" not in cmd and "--port" not in cmd
    assert log == "/tmp/husky-victim.log.0"
    # An RDMA victim names the device.
    g = CommandLog()
    husky.start_role(g, None, husky.ATTACKERS["reg/dereg storm"], "attacker",
                     20010, 10, "/tmp/husky-attacker.log", 1)
    assert "--dev rxe0" in g.commands[0]


def test_a_victim_that_verbsgate_hurts_is_not_called_ineffective():
    alone = fig(1, p99=400)
    v = husky.verdict(LATENCY, alone, fig(1, p99=400), fig(1, p99=3100))
    assert not v["effective"]
    assert husky.label(v) == "worse with verbsgate"


def test_the_far_port_is_shown_where_it_was_watched():
    target = husky_target()
    assert target.far_port({"bytes": 1e6, "drops": 0, "held": 0}) == "—"
    assert target.far_port({"far_bytes": 33.8e6, "far_drops": 24869,
                            "far_held": 84817}) == (
        "33.8 MB, 24869 dropped, 84817 held")


def test_worse_with_verbsgate_beyond_the_spread_only_if_no_runs_overlap():
    """The wide attacker's cell of 2026-12-07: the runs with verbsgate
    overlap those without, so its "worse" is within the spread."""
    off = [fig(1, p99=p) for p in (2920, 1730, 3760)]
    assert not husky.beyond_spread(LATENCY, off, [
        fig(1, p99=p) for p in (3840, 3400, 2140)])
    assert husky.beyond_spread(LATENCY, off, [
        fig(1, p99=p) for p in (3800, 4000, 5000)])
    bulk = husky.VICTIMS["bulk 1 MB WRITE"]
    assert husky.beyond_spread(bulk, [fig(10), fig(12)], [fig(8), fig(9)])
    assert not husky.beyond_spread(bulk, [fig(10), fig(12)],
                                   [fig(8), fig(11)])


def interval(start: float, ops: int, last_done: float | None,
             size: int = 1 << 20) -> dict:
    return {"t_start_s": start, "t_end_s": start + 1, "ops": ops,
            "bytes": ops * size, "t_last_done_s": last_done}


def test_a_window_rate_runs_from_completion_to_completion():
    """1 MB messages every 0.7 s: 9 complete in the window 2..8, the
    first at 2.1 s, the last at 7.7 s, the one before them at 1.4 s: 9 MB
    over 6.3 s, one every 0.7 s, where the window's bytes over its 6 s
    say 9 MB / 6 s, 5 % more (and 8 MB / 6 s, 7 % less, had the last
    come at 8.05 s)."""
    done = [0.7 * k for k in range(1, 13)]
    intervals = [interval(s, sum(s <= t < s + 1 for t in done),
                          max((t for t in done if s <= t < s + 1),
                              default=None)) for s in range(9)]
    bytes_s, ops_s = window_rate({"intervals": intervals}, 2, 8)
    assert math.isclose(bytes_s, 9 * (1 << 20) / 6.3)
    assert math.isclose(ops_s, 1 / 0.7)


def test_a_window_rate_without_completions():
    """None in the window: 0. None before it: from the window's start."""
    quiet = [interval(s, 0, None) for s in range(9)]
    assert window_rate({"intervals": quiet}, 2, 8) == (0.0, 0.0)
    late = quiet[:4] + [interval(4, 2, 4.5)] + quiet[5:]
    assert window_rate({"intervals": late}, 2, 8) == (2 * (1 << 20) / 2.5,
                                                      2 / 2.5)


def test_token_figures_keep_to_the_middle_of_the_victim_s_run():
    """The victim measures from t = 2 to t = 12 and sends 2 tokens a
    second then, the attacker 1 throughout, 6 at once at t = 2: over the
    middle of the measured run the share is 2/3 and the two came to 3 of
    the pacer's 4 a second; samples outside it count nothing."""
    samples = []
    for t in range(16):
        victim = 2 * min(max(t - 2, 0), 10)
        attacker = t + (6 if t >= 2 else 0)
        samples.append((float(t), {"victim": victim, "attacker": attacker}))
    share, use = husky.token_figures(samples, 4.0, 2.0, 12.0)
    assert share == pytest.approx(2 / 3)
    assert use == pytest.approx(3 / 4)
    idle = [(float(t), {"victim": 0, "attacker": t}) for t in range(16)]
    assert husky.token_figures(idle, 4.0, 2.0, 12.0) == (0.0, 1 / 4)
    assert husky.token_figures([], 4.0, 2.0, 12.0) == (0.0, 0.0)


def husky_target():
    """targets/husky.py, `make husky`'s script, as a module."""
    import importlib.util
    from pathlib import Path
    path = Path(__file__).parent / "targets" / "husky.py"
    spec = importlib.util.spec_from_file_location("husky_target", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_a_shard_is_a_victim_s_row(monkeypatch):
    target = husky_target()
    monkeypatch.setenv("VG_HUSKY_CELLS",
                       "bulk 1 MB WRITE/*;latency WRITE 64 B/RNR storm")
    picked = target.cells()
    assert picked[:len(husky.ATTACKERS)] == [
        ("bulk 1 MB WRITE", a) for a in husky.ATTACKERS]
    assert picked[len(husky.ATTACKERS):] == [("latency WRITE 64 B",
                                              "RNR storm")]
    for bad in ("bulk 1 MB WRITE/nobody", "nobody/*", "bulk 1 MB WRITE"):
        monkeypatch.setenv("VG_HUSKY_CELLS", bad)
        with pytest.raises(SystemExit, match="no cell"):
            target.cells()


def shard(victim: str, attackers: list[str], when: str,
          errors: list[str]) -> dict:
    """A made-up run of @victim's cells: alone 10 Mbit/s, 4 next to each
    attacker unloaded, 9 with verbsgate."""
    def at_port(f: Figures) -> Figures:
        f.port["bytes"] = 30e6
        return f
    base = husky.Baseline(victim, [fig(10)] * 3, [fig(9.5)] * 3)
    cells = []
    for attacker in attackers:
        cell = husky.Cell(victim, attacker, [at_port(fig(4))] * 3,
                          [at_port(fig(9))] * 3, [True] * 3)
        cells.append(cell.summary(base))
    return {"meta": {"started": when, "minutes": 40.0,
                     "cells": f"{victim}/*", "runs": 3, "cpus": 2,
                     "cpu": "a CPU", "commit": "0123456789ab",
                     "errors": errors}, "cells": cells}


def shards_out_of_order(tmp_path, console: list[str]) -> list[str]:
    """Two made-up shards, each of two cells, written to @tmp_path in the
    order opposite to the matrix's (READ's row first, the WRITE row's
    attackers reversed); the READ run's console said @console. Returns
    their files' paths."""
    attackers = list(husky.ATTACKERS)
    shards = [shard("bulk 1 MB READ", attackers[:2], "2026-12-06 10:00 UTC",
                    console),
              shard("bulk 1 MB WRITE", attackers[1::-1],
                    "2026-12-05 13:00 UTC", [])]
    paths = []
    for n, s in enumerate(shards):
        paths.append(tmp_path / f"{n}.json")
        paths[-1].write_text(json.dumps(s))
    return [str(p) for p in paths]


def test_the_report_puts_shards_together_in_the_matrix_s_order(tmp_path):
    """Each cell in the row of its victim and the column of its attacker
    however the shards came, the alone figures from the victim's
    baseline, and each shard's date, commit and console named."""
    target = husky_target()
    attackers = list(husky.ATTACKERS)
    paths = shards_out_of_order(tmp_path,
                                ["WARNING: CPU: 1 PID: 7 at x.c:1 f"])
    (tmp_path / "why.md").write_text("## Why\n\nBecause.\n")
    target.assemble(tmp_path / "husky.md",
                    paths + [str(tmp_path / "why.md")])
    text = (tmp_path / "husky.md").read_text()
    assert text.endswith("\n\n## Why\n\nBecause.\n")
    rows = [line for line in text.splitlines()
            if line.startswith("| bulk 1 MB")]
    assert [r.split(" | ")[:2] for r in rows] == [
        ["| bulk 1 MB WRITE", attackers[0]],
        ["| bulk 1 MB WRITE", attackers[1]],
        ["| bulk 1 MB READ", attackers[0]],
        ["| bulk 1 MB READ", attackers[1]]]
    assert all("| 10.0 Mbit/s, 1000/s | 4.0 Mbit/s" in r for r in rows)
    assert all("**stopped**" in r for r in rows)
    assert "4 cells: 4 stopped by verbsgate" in text
    assert "2026-12-06 10:00 UTC" in text and "0123456789ab" in text
    assert "1 kernel errors:" in text and "x.c:1" in text
    assert "no warning, oops or blocked task" in text


def test_the_heatmap_has_the_table_s_order(tmp_path, monkeypatch):
    """The picture's rows and columns are the table's: victims and
    attackers in the matrix's order, whatever order the shards came in
    (their files' names sort otherwise)."""
    target = husky_target()
    attackers = list(husky.ATTACKERS)
    drawn = []
    monkeypatch.setattr(target, "heatmap",
                        lambda cells, path: drawn.extend(cells) or "")
    target.assemble(tmp_path / "husky.md", shards_out_of_order(tmp_path, []))
    assert [(c["victim"], c["attacker"]) for c in drawn] == [
        ("bulk 1 MB WRITE", attackers[0]), ("bulk 1 MB WRITE", attackers[1]),
        ("bulk 1 MB READ", attackers[0]), ("bulk 1 MB READ", attackers[1])]


def test_a_later_run_of_a_cell_replaces_the_earlier(tmp_path):
    """A shard that measures some cells of a row again (after a fix)
    replaces those cells, whichever file comes first; the earlier run's
    line names what was measured again."""
    target = husky_target()
    attackers = list(husky.ATTACKERS)
    row = shard("bulk 1 MB WRITE", attackers[:3], "2026-12-05 13:00 UTC", [])
    again = shard("bulk 1 MB WRITE", attackers[1:2], "2026-12-06 09:00 UTC",
                  [])
    again["cells"][0]["on"]["bytes_s"] = 2e6 / 8
    paths = [tmp_path / "again.json", tmp_path / "row.json"]
    for path, s in zip(paths, (again, row)):
        path.write_text(json.dumps(s))
    target.assemble(tmp_path / "husky.md", [str(p) for p in paths])
    text = (tmp_path / "husky.md").read_text()
    rows = [line for line in text.splitlines()
            if line.startswith("| bulk 1 MB")]
    assert [r.split(" | ")[1] for r in rows] == attackers[:3]
    assert "| 2.0 Mbit/s" in rows[1] and "| 9.0 Mbit/s" in rows[0]
    assert "3 cells:" in text
    runs = [line for line in text.splitlines() if line.startswith("- 2026")]
    assert runs[1].startswith("- 2026-12-05 13:00 UTC")
    assert runs[1].endswith(
        f"Measured again by a later run: bulk 1 MB WRITE / {attackers[1]}.")
    assert "Measured again" not in runs[0]


def test_an_attack_covers_the_measured_run_only_from_start_to_end():
    """Every attacker process that ended well was sending from before the
    victim's measured run began until after it ended; a failed one is
    the attacker's outcome, not a gap."""
    victim = "run 100.0\nmeasure 103.0\nend 113.0\n"
    covering = ["run 101.2\nmeasure 101.2\nend 113.1\n",
                "run 102.9\nmeasure 102.9\nend 113.2\n"]
    assert husky.attack_gaps(victim, covering, [True, True]) == []
    late = covering + ["run 104.5\nmeasure 104.5\nend 113.3\n"]
    [gap] = husky.attack_gaps(victim, late, [True] * 3)
    assert gap.startswith("attacker process 2 started its run 1.50 s")
    left = covering + ["run 101.0\nmeasure 101.0\nend 110.0\n"]
    [gap] = husky.attack_gaps(victim, left, [True] * 3)
    assert gap.startswith("attacker process 2 ended its run 3.00 s before")
    # One that noted nothing but says it ran well is a gap; one that
    # failed, early or late, is reported as the attacker's failure.
    assert husky.attack_gaps(victim, ["", ""], [True, False]) == [
        "attacker process 0 noted no run"]
    assert husky.attack_gaps(victim, [left[2], ""], [False, False]) == []


def test_the_report_says_how_each_run_paced_the_device(tmp_path):
    """The header names the one pacing of the runs the table shows; when
    they differ, each run's line says its own (a run that did not record
    it paced as the runs before the line was stated did)."""
    target = husky_target()
    attackers = list(husky.ATTACKERS)
    earlier = shard("bulk 1 MB WRITE", attackers[:1], "2026-12-05 13:00 UTC",
                    [])
    stated = shard("bulk 1 MB READ", attackers[:1], "2026-12-07 16:00 UTC",
                   [])
    stated["meta"]["pacing"] = husky.ON_PACING
    paths = [tmp_path / "earlier.json", tmp_path / "stated.json"]
    for path, s in zip(paths, (earlier, stated)):
        path.write_text(json.dumps(s))

    target.assemble(tmp_path / "one.md", [str(paths[1])])
    text = (tmp_path / "one.md").read_text()
    assert f"`dev set rxe0 {husky.ON_PACING}`" in text

    target.assemble(tmp_path / "both.md", [str(p) for p in paths])
    text = (tmp_path / "both.md").read_text()
    assert "the device paced as each run below says" in text
    runs = {line[2:12]: line for line in text.splitlines()
            if line.startswith("- 2026")}
    assert f"paced `{target.EARLIER_PACING}`" in runs["2026-12-05"]
    assert f"paced `{husky.ON_PACING}`" in runs["2026-12-07"]


def test_tokens_count_each_chunk_s_packets():
    """A chunk's packets at the path MTU are charged their headers: one
    per chunk of at most a packet, the payload's packets for whole
    ones."""
    # 100 chunks of 8 B: 100 packets.
    assert husky.chunk_tokens(800, 100, 200, 58, 1024) == 800 + 100 * 258
    # 10 chunks of 16 KB: 160 packets.
    assert husky.chunk_tokens(163840, 10, 200, 58, 1024) == (
        163840 + 10 * 200 + 160 * 58)
    # Nothing sent, nothing charged.
    assert husky.chunk_tokens(0, 0, 200, 58, 1024) == 0
