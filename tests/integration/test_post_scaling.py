"""Two CPUs posting on two QPs post in parallel through verbsgate.

A kernel ULP posting from two CPUs on two QPs must not be serialised by
verbsgate: rxe moves a kernel QP's data on the CPU that posted to the
driver, so if verbsgate posted every QP's chunks from one CPU (as it did
with one dispatcher per device: ratio 0.98 to 1.04 on this test bed), the
second poster would only share the first one's throughput. So each
poster's QP must send its packets from its poster's CPU with verbsgate
as it does without, and two posters must keep most of the throughput
they gain over one without verbsgate.

The ratio without verbsgate is not asked to reach any value: on this
test bed two posters gain about 1.55 times what one moves (1.46 to 1.64
over eight loads of one boot), and before the one poster took CPU 0 and
CPU 1 in turn, a CPU running slow for a load moved it from 1.35 to 2.44
(docs/performance.md); what the test needs of the test bed is that the
two QPs sent from two CPUs at once.
postscale.py says how it is measured (vg_kpost, one poster then two,
without and with verbsgate in one boot). The table goes to the test's
report (pytest -s or -rP shows it; VERBSGATE_REPORT=FILE appends it to
FILE); `make bench-post` prints the same table with the target of
docs/performance.md.
"""
from harness import postscale
from harness.postscale import SHARE
from harness.reports import keep_report

# Each poster's QP sends at least this share of its packets from one CPU,
# its poster's: without verbsgate every one (a few calls of rxe's
# requester at set-up aside), and so with it. The hrtimer posting paced
# chunks where it fired sent 5 to 20 % of them from the other CPU.
HOME = 0.99
# The guest's vCPUs must have had a host CPU each: waiting for one
# longer than this share of their time, they did not run in parallel.
MAX_WAIT = 0.25
# With verbsgate, two posters must keep SHARE of the ratio they reach
# without it. One dispatcher posting everything measured 0.5 of it; the
# hrtimer posting paced chunks on the CPU it fired on, 0.6 to 0.85;
# chunks posted from their QPs' home CPUs, 0.95 to 1.05
# (docs/performance.md).


def sent_from_own_cpus(r: postscale.Result) -> tuple[bool, str]:
    """Whether in every load each poster's QP sent at least HOME of its
    packets from one CPU and the two QPs from two; and what they did."""
    home, cpus = r.home_share(), r.senders()
    return (cpus == [[0, 1]] * postscale.CYCLES and home >= HOME,
            f"the posters' QPs sent from CPUs {cpus} (each load), at least "
            f"{home:.2%} of a QP's packets from one CPU")


def test_two_posters_are_not_serialised(guest, request, tmp_path):
    m = postscale.measure(guest)
    keep_report(request, tmp_path, postscale.table(m))
    # Every WR went through the shaper, split, not the fast path.
    assert m.tx_wrs and m.split_wrs == m.tx_wrs, \
        f"{m.tx_wrs} WRs, {m.split_wrs} split: the posters' WRs were not " \
        "all split and queued"
    assert m.chunks >= m.tx_wrs * (postscale.SIZE // postscale.CHUNK)
    # The premise: without verbsgate, the two posters' QPs sent from two
    # CPUs at once, each from its own, and the host ran both vCPUs.
    wait = [1.0 if s is None else s for s in m.without.vcpu_wait_shares()]
    assert max(wait) < MAX_WAIT, (
        f"the guest's vCPUs waited for a host CPU {m.without.vcpu_wait()} "
        f"of their time without verbsgate (host CPUs used by other "
        f"processes: {m.host_other:.2f}): the host did not run them in "
        f"parallel, so the test cannot tell whether verbsgate serialises "
        f"posting")
    ok, seen = sent_from_own_cpus(m.without)
    assert ok, (f"without verbsgate {seen}: rxe no longer sends a kernel "
                f"QP's packets from the CPU that posted, which this test is "
                f"built on")
    ok, seen = sent_from_own_cpus(m.with_vg)
    assert ok, (f"with verbsgate {seen} ({HOME:.0%} wanted): verbsgate "
                f"posts a QP's chunks from another CPU than the one its "
                f"poster posts from")
    # Two posters on two CPUs move at most twice what one moves: a ratio
    # above 2 says the host slowed the one-poster phases (one CI run:
    # 8.8 MB/s against 10 to 11.5 in the others, ratio 2.38), which no
    # ratio with verbsgate can be held to.
    without, with_vg = m.without.ratio, m.with_vg.ratio
    assert with_vg >= SHARE * min(without, 2.0), (
        f"two posters on two QPs: {with_vg:.2f} times one poster's "
        f"throughput with verbsgate, {without:.2f} without (at least "
        f"{SHARE} x that wanted); verbsgate serialises posting (softirq ms "
        f"CPU0/CPU1 with two posters: {m.with_vg.softirq2}, without "
        f"verbsgate {m.without.softirq2})")
