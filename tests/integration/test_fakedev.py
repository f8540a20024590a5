"""The two-port test device (tests/integration/fakedev).

verbsgate is to pace each port of a device at its own rate, which the
test bed's rxe, one port per device, cannot show. vg_fakedev registers
vgfake0, an InfiniBand CA whose two ports report different links (port
1 4X QDR, port 2 1X SDR: 16 times less) and whose only bottleneck is a
serialising clock per port at a rate a test sets; vg_fakeulp keeps a
window of RDMA WRITEs posted on each port at once. These tests check
that the device is what later tests will rely on: two active ports,
each port's throughput set by its own rate whatever the other does,
every WR completed once and in order, counters that agree with the ULP,
a QP in error flushing what it has outstanding, a clean unload.
"""
import json
import re

import pytest

from harness.testbed import REPO, Guest
from harness.vgcli import cli_json, cli_ok

FAKEDEV = REPO / "tests" / "integration" / "fakedev" / "vg_fakedev.ko"
FAKEULP = REPO / "tests" / "integration" / "fakedev" / "vg_fakeulp.ko"
DEV = "vgfake0"
DEVFS = "/sys/kernel/debug/vg_fakedev"
ULPFS = "/sys/kernel/debug/vg_fakeulp"
# Default port rates in bytes/s: the data rate of 4X QDR and of 1X SDR.
DEFAULT_RATES = {1: 4_000_000_000, 2: 250_000_000}
# Each ib_drain_qp() flushes one send and one receive WR; a run drains
# both QPs of each port once.
DRAIN_FLUSHES = 4


def set_rates(g: Guest, rates: dict[int, int]):
    for port, rate in rates.items():
        g.run(f"echo {rate} > {DEVFS}/port{port}/rate", check=True)


def port_counters(g: Guest) -> dict[int, dict[str, int]]:
    out = {}
    for port in (1, 2):
        res = g.run(f"cd {DEVFS}/port{port} && cat bytes wrs flushed",
                    check=True)
        out[port] = dict(zip(("bytes", "wrs", "flushed"),
                             map(int, res.out.split())))
    return out


def ulp_run(g: Guest, ms: int, flush: bool = False, size: int = 65536,
            window: int = 16) -> dict[int, dict[str, int]]:
    """One vg_fakeulp run on both ports; its result line per port."""
    params = "/sys/module/vg_fakeulp/parameters"
    g.run(f"echo {size} > {params}/size && echo {window} > {params}/window"
          f" && echo {'Y' if flush else 'N'} > {params}/flush", check=True)
    mark = g.console_mark()
    res = g.run(f"echo {ms} > {ULPFS}/run", timeout=ms / 1000 + 120)
    assert res.ok, res.out + g.console_since(mark)[-3000:]
    out = {}
    for line in g.run(f"cat {ULPFS}/result", check=True).out.splitlines():
        m = re.match(r"port (\d+): (.*)", line)
        assert m, line
        words = m.group(2).split()
        out[int(m.group(1))] = {k: int(v) for k, v in
                                zip(words[::2], words[1::2])}
    assert set(out) == {1, 2}, out
    return out


def port_deltas(before, after):
    """How much each port's counters moved between two port_counters()."""
    return {p: {k: after[p][k] - before[p][k] for k in after[p]}
            for p in after}


@pytest.fixture
def fakedev(guest):
    guest.run(f"insmod {FAKEDEV} && insmod {FAKEULP}", check=True)
    try:
        yield guest
    finally:
        guest.run("rmmod vg_fakeulp; rmmod vg_fakedev")


def test_two_ports_with_different_links(fakedev):
    g = fakedev
    devs = json.loads(g.run(f"rdma -j dev show {DEV}", check=True).out)
    assert devs[0]["node_type"] == "ca", devs
    links = [x for x in json.loads(g.run("rdma -j link show",
                                         check=True).out)
             if x["ifname"] == DEV]
    assert [x["port"] for x in links] == [1, 2], links
    for x in links:
        assert x["state"] == "ACTIVE", x
        assert x["physical_state"] == "LINK_UP", x
    rate = g.run(f"cat /sys/class/infiniband/{DEV}/ports/1/rate "
                 f"/sys/class/infiniband/{DEV}/ports/2/rate",
                 check=True).out.splitlines()
    assert rate == ["40 Gb/sec (4X QDR)", "2.5 Gb/sec (1X SDR)"], rate
    for port, bps in DEFAULT_RATES.items():
        assert int(g.run(f"cat {DEVFS}/port{port}/rate",
                         check=True).out) == bps


@pytest.mark.parametrize("rates", [{1: 40_000_000, 2: 10_000_000},
                                   {1: 10_000_000, 2: 40_000_000}],
                         ids=["port1_faster", "port2_faster"])
def test_each_port_runs_at_its_own_rate(fakedev, rates):
    """Both ports busy at once: each moves bytes at its rate, so the
    ratio of what they completed in one run is the ratio of the rates."""
    g = fakedev
    set_rates(g, rates)
    before = port_counters(g)
    # 32 WRITEs of 64 KB: 50 ms of backlog on the faster port, so that
    # a late timer or poller in the guest does not leave it idle.
    res = ulp_run(g, 2000, window=32)
    counted = port_deltas(before, port_counters(g))
    for port, r in res.items():
        # Every WRITE completed once, in order, successfully.
        assert r["errors"] == 0 and r["disorder"] == 0, r
        assert r["flushed"] == 0, r
        assert r["wrs_total"] == r["posted"], r
        # The device counted what the ULP saw complete, and flushed only
        # the drains' WRs.
        assert counted[port]["bytes"] == r["bytes_total"], (counted, r)
        assert counted[port]["wrs"] == r["wrs_total"], (counted, r)
        assert counted[port]["flushed"] == DRAIN_FLUSHES, counted
        # Never faster than the port: the run's first WRITE was posted
        # after its clock started, its last counted one completed before
        # the clock stopped.
        assert r["bytes"] <= rates[port] * r["ns"] / 1e9 * 1.05, (port, r)
    fast = max(rates, key=rates.get)
    slow = min(rates, key=rates.get)
    ratio = res[fast]["bytes"] / res[slow]["bytes"]
    want = rates[fast] / rates[slow]
    print(f"rates {rates}: bytes {res[1]['bytes']} / {res[2]['bytes']}, "
          f"ratio {ratio:.2f} (want {want:.0f})")
    assert want * 0.75 <= ratio <= want * 1.25, (ratio, res)
    # The slow port was not starved by the fast one, nor the reverse:
    # each kept close to its rate (same run, same clock).
    for port in (1, 2):
        share = res[port]["bytes"] * 1e9 / res[port]["ns"] / rates[port]
        assert share >= 0.5, (port, share, res)


def test_error_state_flushes_outstanding_wrs(fakedev):
    """A QP moved to error completes every WR it has outstanding with a
    flush error; the port spends no time on them."""
    g = fakedev
    set_rates(g, {1: 10_000_000, 2: 10_000_000})
    before = port_counters(g)
    # 16 WRITEs of 256 KB: 400 ms of backlog on each port at the stop.
    res = ulp_run(g, 500, flush=True, size=262144)
    counted = port_deltas(before, port_counters(g))
    for port, r in res.items():
        assert r["errors"] == 0 and r["disorder"] == 0, r
        assert r["flushed"] > 0, r
        assert r["wrs_total"] + r["flushed"] == r["posted"], r
        assert counted[port]["bytes"] == r["bytes_total"], (counted, r)
        assert counted[port]["wrs"] == r["wrs_total"], (counted, r)
        # And the drain at the stop, before the usual ones.
        assert counted[port]["flushed"] == \
            r["flushed"] + DRAIN_FLUSHES + 2, (counted, r)


def test_unloads_cleanly(fakedev):
    g = fakedev
    set_rates(g, {1: 40_000_000, 2: 10_000_000})
    ulp_run(g, 300)
    g.run("rmmod vg_fakeulp && rmmod vg_fakedev", check=True)
    assert g.run(f"rdma dev show {DEV}").rc != 0
    assert g.run(f"test -e {DEVFS}").rc != 0


def test_verbsgate_shapes_qps_on_both_ports(fakedev):
    """verbsgate's interposition works on the device: the ULP's QPs on
    both ports are shaped and split, and every WRITE still completes once
    and in order."""
    g = fakedev
    set_rates(g, {1: 40_000_000, 2: 10_000_000})
    assert g.load_verbsgate().ok
    try:
        cli_ok(g, "tenant add fu ulp vg_fakeulp class bandwidth weight 1")
        cli_ok(g, f"dev set {DEV} chunk 16k chunk-nolat 16k")
        before = port_counters(g)
        res = ulp_run(g, 1000)
        counted = port_deltas(before, port_counters(g))
        tenants = {t["name"]: t for t in cli_json(g, "stats")["tenants"]}
        print(f"through verbsgate: {res}")
        assert tenants["fu"]["split_wrs"] > 0, tenants
        assert tenants["fu"]["queued_wrs"] == 0, tenants
        assert tenants["fu"]["tx_bytes"] == \
            sum(r["bytes_total"] for r in res.values()), (tenants, res)
        for port, r in res.items():
            assert r["errors"] == 0 and r["disorder"] == 0, r
            assert r["wrs_total"] == r["posted"], r
            # The device saw the WRITEs' bytes, in more (split) WRs.
            assert counted[port]["bytes"] == r["bytes_total"], (counted, r)
            assert counted[port]["wrs"] > r["wrs_total"], (counted, r)
    finally:
        assert g.unload_verbsgate().ok


def dev_ports(g: Guest) -> dict[int, dict]:
    (d,) = cli_json(g, f"-d dev show {DEV}")
    assert (d["ports"], d["ports_paced"]) == (2, 2), d
    return {p["port"]: p for p in d["port_table"]}


def test_verbsgate_paces_each_port_apart(fakedev):
    """verbsgate paces each port of a device at its own rate: QPs on port
    2 neither spend port 1's tokens nor share its fair queue. Without an
    operator's MaxRate each port's pacer runs at the same fraction of its
    own link (port 2's is 16 times slower); with one, each port runs at
    it, so two ports driven at once send twice MaxRate, where one pool
    would send MaxRate in all."""
    g = fakedev
    # The device itself is never the bottleneck here: its default rates
    # are hundreds of times the MaxRate below.
    assert g.load_verbsgate().ok
    try:
        cli_ok(g, "tenant add fu ulp vg_fakeulp class bandwidth weight 1")
        cli_ok(g, f"dev set {DEV} chunk 16k chunk-nolat 16k")
        ports = dev_ports(g)
        assert ports[1]["link_rate"] == DEFAULT_RATES[1], ports
        assert ports[2]["link_rate"] == DEFAULT_RATES[2], ports
        # Same fraction of each link.
        assert ports[2]["rate"] * 16 == pytest.approx(ports[1]["rate"],
                                                      rel=1e-6), ports

        maxrate = 10_000_000
        cli_ok(g, f"dev set {DEV} maxrate {maxrate * 8}bit")
        ports = dev_ports(g)
        rates = {p: ports[p]["rate"] for p in (1, 2)}
        assert rates[1] == rates[2] and 0 < rates[1] <= maxrate, ports
        before = {p: ports[p]["paced_bytes"] for p in (1, 2)}
        ms = 2000
        res = ulp_run(g, ms)
        after = dev_ports(g)
        print(f"MaxRate {maxrate} B/s per port, {ms} ms: {res}")
        for port, r in res.items():
            assert r["errors"] == 0 and r["disorder"] == 0, r
            assert r["wrs_total"] == r["posted"], r
            # Every byte went through its own port's pacer.
            assert after[port]["paced_bytes"] - before[port] == \
                r["bytes_total"], (after, before, r)
            # Each port at its rate (the pacer's burst and the window
            # in flight at the end allow some excess; one pool would
            # give each port about half).
            got = r["bytes"] * 1e9 / r["ns"]
            assert 0.75 * rates[port] <= got <= 1.35 * rates[port], \
                (port, got, rates)
    finally:
        assert g.unload_verbsgate().ok
