"""The adversarial matrix's verdicts (harness/husky.py), on the host: the
figures below are made up to sit on either side of each bound."""
from harness import husky
from harness.husky import Figures, Role

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
    f = husky._figures(victim, {"drops": 0}, attackers)
    assert f.attacker_bytes == 3500
    assert husky._figures(victim, {"drops": 0}, []).attacker_bytes == 0
    runs = [Figures(1, 1, 1, {}, done) for done in (5.0, 1.0, 3.0)]
    assert husky.medians(runs).attacker_bytes == 3.0


def test_every_reduced_cell_names_a_victim_and_an_attacker():
    for victim, attacker in husky.REDUCED:
        assert victim in husky.VICTIMS and attacker in husky.ATTACKERS


def test_a_victim_that_verbsgate_hurts_is_not_called_ineffective():
    alone = fig(1, p99=400)
    v = husky.verdict(LATENCY, alone, fig(1, p99=400), fig(1, p99=3100))
    assert not v["effective"]
    assert husky.label(v) == "worse with verbsgate"
