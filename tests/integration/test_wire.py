"""Wire mode (wire.py, issue #23): RDMA traffic between two rxe devices
crosses a rate-limited port, and there a bulk tenant's packets queue
ahead of a latency tenant's, which rxe loopback never shows; verbsgate,
pacing the stream below the line rate in small chunks, keeps that queue
short: for a user-space latency tenant next to a WRITE stream, and for
an NVMe-oF one next to two readers. Each victim's p99 with verbsgate is
reported against its p99 alone; issue #23 aims at 1.5 times, measured
over pacing settings by `make wire-sweep` and `make wire-nvme`."""
from harness import fio, nvme
from harness.counters import delta, deltas, stats
from harness.reports import report
from harness.tenants import add_tenants, make_cgroups
from harness.traffic import vgload_result
from harness.vgcli import cli_ok
from harness.wire import (FAR_DEV, FAR_NET, FAR_NETDEV, FRAME_BYTES, LABEL,
                          LINE_BYTES, LINE_RATE, NVME_BULK_WEIGHT, NVME_CPUS,
                          NVME_EDGE, NVME_LATENCY, NVME_SECONDS, PACED_MBIT,
                          PACING, PORT_QUEUE, RXE_QP_INFLIGHT, Wire,
                          WireCounts, far_server, near_client, nvme_across,
                          pinned_wire, victim_run)

# A latency tenant: one 64 B WRITE outstanding.
VICTIM = "--op write --size 64 --depth 1"
# A port queue makes the victim wait behind whole 1 MB messages: its p99
# grows by well over an order of magnitude (about 50 to 150 times in
# runs of this test bed), where loopback's CPU sharing costs a few times.
HOL_FACTOR = 10
# verbsgate paces the device below the line rate in chunks of one packet
# and a bucket of one (wire.PACING, as `make demo` does); the victim's
# p99 then falls by far more than PROTECTS times (12 and 46 in two runs of
# this test bed). Both tenants' packets are received in order (the
# wire's default): received on their senders' vCPUs, the stream's
# arrived out of order (from the port's timer's vCPU too), and rxe's
# resends, which verbsgate does not pace, decided the victim's p99 in
# both arms (docs/results.md).
PROTECTS = 5


def test_traffic_crosses_the_port(guest):
    make_cgroups(guest, ["lat"])
    log = "/tmp/wire-alone.log"
    with Wire(guest) as w, w.watch(peak=True) as port:
        far_server(guest, 19100)
        near_client(guest, "lat", 19100, f"{VICTIM} --duration 3", log)
        res = vgload_result(guest, log)
    assert res["ok"], res
    ops = res["total"]["ops"]
    # Each WRITE is a packet from rxe0 out of vg0 (its ACK comes back
    # out of vg1): none took rxe's loopback.
    assert ops > 0 and port.packets >= ops, (port, res["total"])
    # The port's queue was sampled; one WRITE at a time, none was lost
    # or overtaken. (A retry may happen: an ACK later than vgload's QP
    # timeout, 67 ms, in a busy guest.)
    assert port.peak_backlog is not None, port
    assert (port.drops, port.out_of_seq) == (0, 0), port


def victim(g, w, port: int, bulk: bool) -> tuple[dict, dict | None,
                                                   WireCounts]:
    """The latency tenant's run, alone or next to a 1 MB WRITE stream."""
    return victim_run(g, w, port, f"{VICTIM} --duration 4",
                      "--mode bw --duration 7" if bulk else None)


def test_port_queue_delays_a_latency_tenant(rxe_kept):
    g = rxe_kept
    runs = {}
    with pinned_wire(g, {"lat": "0", "bulk": "1"}, testbed="1") as w:
        runs["alone"] = victim(g, w, 19110, False)
        runs["next to the stream"] = victim(g, w, 19113, True)
        assert g.load_verbsgate().ok
        add_tenants(g, {"lat": "class latency weight 1",
                        "bulk": "class bandwidth weight 1"})
        cli_ok(g, f"dev set {g.rxe_dev} {PACING}")
        runs["alone, verbsgate"] = victim(g, w, 19116, False)
        before = stats(g)
        runs["next to the stream, verbsgate"] = victim(g, w, 19119, True)
        after = stats(g)
    rows = [f"Port: {LINE_RATE}, queue {PORT_QUEUE}; verbsgate: {PACING}, "
            "the victim's tenant of the latency class.", "",
            f"| victim | p50 µs | p99 µs | stream, Gbit/s | "
            f"{WireCounts.HEADER} |", "|---|---|---|---|" + "---|" * 7]
    for name, (lat, stream, wire) in runs.items():
        rows.append(f"| {name} | {lat['total']['lat_us']['p50']:.0f} | "
                    f"{lat['total']['lat_us']['p99']:.0f} | "
                    + (f"{stream['total']['gbps']:.4f}" if stream else "—")
                    + f" | {wire.cells()} |")
    report(f"Wire mode: a latency tenant next to a 1 MB WRITE stream "
           f"({LABEL})", rows)

    def p99(name):
        return runs[name][0]["total"]["lat_us"]["p99"]
    # Unshaped, the stream fills the port, and the victim waits behind
    # its queue: the premise of the wire mode.
    assert runs["next to the stream"][2].held > 0
    assert p99("next to the stream") >= HOL_FACTOR * p99("alone")
    # Split and paced below the line rate, the stream leaves the port's
    # queue short (#23 measures how close to alone).
    paced = runs["next to the stream, verbsgate"]
    assert p99("next to the stream, verbsgate") * PROTECTS <= \
        p99("next to the stream"), paced[2]
    # The stream's WRITEs were held back by the pacer; the victim's, of
    # the latency class, went to the driver at once, every one.
    ops = paced[0]["total"]["ops"]
    assert delta(before, after, "bulk", "throttled_ns") > 0, after["bulk"]
    assert delta(before, after, "lat", "throttled_ns") == 0, after["lat"]
    assert delta(before, after, "lat", "tx_wrs") >= ops, (after["lat"], ops)


def test_nvme_tenants_share_the_port_by_weight(rxe_kept):
    """Two NVMe-over-RDMA tenants reading across the wire, each from a
    vCPU of its own: unshaped they split the port as their I/O happens
    to; with verbsgate pacing the target's device below the line rate
    they share it by weight, 3:1 and then 1:1, while the port stays the
    bottleneck it models, and each tenant's counters charge it what it
    read.

    With verbsgate the port must also have dropped nothing and rxe
    received every packet in order: a resent packet is not paced, and
    when the wire reordered packets (before it received each QP's on
    one vCPU, guest/wire.sh), rxe's go-back-N resends filled the port
    and decided the shares in its place (1.60 at 3:1 and 1.85 at 1:1 on
    a slow host; docs/results.md)."""
    g = rxe_kept
    nvme.cleanup_all(g)
    tenants = {"a": 11, "b": 12}
    runs, counted = {}, {}
    with Wire(g) as w, nvme_across(g, list(tenants.values())) as devs:
        jobs = [fio.read_job(name, devs[n], cpus_allowed=cpu)
                for (name, n), cpu in zip(tenants.items(), NVME_CPUS)]

        def measure(label):
            before = stats(g) if g.verbsgate_loaded() else None
            with w.watch(FAR_NETDEV, peak=True) as port:
                res = fio.read_rates(g, jobs, NVME_SECONDS, NVME_EDGE)
            if before is not None:
                counted[label] = (deltas(before, stats(g), "tx_bytes"),
                                  res.result)
            runs[label] = ([res[t] for t in tenants], port)

        measure("module unloaded")
        assert g.load_verbsgate().ok
        add_tenants(g, {name: f"local {FAR_NET}.{n}/32 class bandwidth "
                              f"weight {3 if name == 'a' else 1}"
                        for name, n in tenants.items()})
        cli_ok(g, f"dev set {FAR_DEV} maxrate {PACED_MBIT}mbit "
               "enforce on")
        # QPs are shaped from their creation: reconnect.
        nvme.reset_controllers(g, [nvme.subsystem_nqn(f"{FAR_NET}.{n}")
                                   for n in tenants.values()])
        measure("verbsgate, weights 3:1")
        cli_ok(g, "tenant set a weight 1")
        measure("verbsgate, weights 1:1")
    rows = [f"Port: {LINE_RATE}, queue {PORT_QUEUE}; fio 256k reads, "
            f"iodepth 8, {NVME_SECONDS} s, rates over all but its first and "
            f"last {NVME_EDGE} s; verbsgate paces {FAR_DEV} (the targets') "
            f"at {PACED_MBIT} Mbit/s. The port is {FAR_NETDEV}'s, over the "
            "whole run.", "",
            f"| run | a MB/s | b MB/s | a/b | {WireCounts.HEADER} |",
            "|---|---|---|---|" + "---|" * 7]
    for label, ((a, b), port) in runs.items():
        rows.append(f"| {label} | {a / 1e6:.2f} | {b / 1e6:.2f} | "
                    f"{a / b:.2f} | {port.cells()} |")
    report(f"Wire mode: NVMe-oF tenants share the port ({LABEL})", rows)
    # The readers fill the port unshaped: it is their bottleneck.
    assert runs["module unloaded"][1].held > 0
    for label, want in (("verbsgate, weights 3:1", 3.0),
                        ("verbsgate, weights 1:1", 1.0)):
        (a, b), port = runs[label]
        # Paced below the line, nothing was lost or reordered on the way
        # (each would have made rxe resend, unpaced).
        assert (port.drops, port.out_of_seq) == (0, 0), f"{label}: {port}"
        assert abs(a / b - want) <= 0.15 * want, f"{label}: a/b {a / b:.2f}"
        # The tenants' counters charged each what it read: the target's
        # RDMA WRITEs of its data, and 16 B responses.
        ctr, res = counted[label]
        for t in tenants:
            read = res[t].io_bytes
            assert abs(ctr[t] - read) <= 0.05 * read, \
                f"{label}: tenant {t}: counted {ctr[t]}, fio read {read}"
        # Shared by weight, not starved: together they keep the rate.
        assert a + b >= 0.8 * PACED_MBIT * 1e6 / 8, \
            f"{label}: a+b {(a + b) / 1e6:.2f} MB/s"


# The time the port takes to send what two readers can keep in its queue:
# each reader's data leaves on one target QP (its fio, on one vCPU, uses
# one of the host's I/O queues), which rdma_rxe stops at RXE_QP_INFLIGHT
# packets held, 128 frames in all (44 ms), under PORT_QUEUE.
READERS_QUEUE_NS = 2 * RXE_QP_INFLIGHT * FRAME_BYTES / LINE_BYTES * 1e9
NVME_LATENCY_PACING = (f"maxrate {PACED_MBIT}mbit chunk 4k chunk-nolat 4k "
                       "burst 4k enforce on")


def test_nvme_latency_tenant_behind_the_port(rxe_kept):
    """An NVMe-oF latency tenant next to two 1 MB readers across the
    wire: unshaped, its reads wait behind theirs in the port's queue;
    with verbsgate splitting and pacing the readers below the line rate,
    the queue stays empty and the readers keep most of the line."""
    g = rxe_kept
    nvme.cleanup_all(g)
    tenants = {"a": 11, "b": 12, "lat": 13}
    runs = {}
    with Wire(g) as w, nvme_across(g, list(tenants.values())) as devs:
        # The latency tenant's fio on a vCPU of its own, the readers' on
        # the other: they share the port, not a vCPU.
        lat_cpu, readers_cpu = NVME_CPUS
        readers = [fio.read_job(t, devs[tenants[t]], bs="1m",
                                cpus_allowed=readers_cpu)
                   for t in ("a", "b")]
        lat = [fio.latency_job("lat", devs[tenants["lat"]],
                               cpus_allowed=lat_cpu, **NVME_LATENCY)]

        def measure(label, jobs):
            with w.watch(FAR_NETDEV) as port:
                res = fio.run(g, jobs, runtime=NVME_SECONDS)
            assert res.ok, res.describe()
            bulk = sum(res[t].bw_bytes for t in ("a", "b")
                       if t in res.jobs)
            runs[label] = (res["lat"], bulk, port)

        measure("alone", lat)
        measure("next to the readers, module unloaded", readers + lat)
        assert g.load_verbsgate().ok
        add_tenants(g, {name: f"local {FAR_NET}.{n}/32 class " +
                        ("latency weight 1" if name == "lat" else
                         f"bandwidth weight {NVME_BULK_WEIGHT}")
                        for name, n in tenants.items()})
        cli_ok(g, f"dev set {FAR_DEV} {NVME_LATENCY_PACING}")
        nvme.reset_controllers(g, [nvme.subsystem_nqn(f"{FAR_NET}.{n}")
                                   for n in tenants.values()])
        before = stats(g)
        measure("next to the readers, verbsgate", readers + lat)
        after = stats(g)

    alone = runs["alone"][0].lat_p99_ns
    rows = [f"Port: {LINE_RATE}, queue {PORT_QUEUE}. lat: fio randread "
            f"{NVME_LATENCY['bs']} B, iodepth 1, {NVME_LATENCY['rate_iops']}"
            "/s, each read's whole latency; a, b: fio read 1m, iodepth 8; "
            f"{NVME_SECONDS} s. verbsgate on {FAR_DEV} (the targets'): "
            f"`{NVME_LATENCY_PACING}`, a and b of weight {NVME_BULK_WEIGHT},"
            " lat of the latency class.", "",
            "| run | lat p50 µs | lat p99 µs | p99 / alone | a+b Mbit/s | "
            f"a+b / line | {WireCounts.HEADER} |",
            "|---|---|---|---|---|---|" + "---|" * 7]
    for label, (res, bulk, port) in runs.items():
        rows.append(f"| {label} | {res.lat_p50_ns / 1e3:.0f} | "
                    f"{res.lat_p99_ns / 1e3:.0f} | "
                    f"{res.lat_p99_ns / alone:.2f} | "
                    + (f"{bulk * 8 / 1e6:.2f} | {bulk / LINE_BYTES:.0%}"
                       if bulk else "— | —") + f" | {port.cells()} |")
    report(f"Wire mode: an NVMe-oF latency tenant next to two 1 MB readers "
           f"({LABEL})", rows)

    unshaped = runs["next to the readers, module unloaded"]
    shaped = runs["next to the readers, verbsgate"]
    # What the readers add to the latency tenant's p99. Its p99 alone is
    # the guest's speed (a read is milliseconds of emulated CPU: 2.4 ms
    # on one host of docs/testbed.md, 10 to 11.5 on a slower one), the
    # port's queue a fixed time, so the test compares what is added, not
    # ratios to alone.
    added = {k: max(0, r[0].lat_p99_ns - alone)
             for k, r in (("unshaped", unshaped), ("verbsgate", shaped))}
    # Unshaped, the readers fill what they can of the port's queue and
    # the latency tenant's reads wait behind it: at least half its drain
    # time (pinned apart from the readers, 45 ms in a run of this test
    # bed; unpinned, the vCPU they shared added more).
    assert unshaped[2].held > 0
    assert added["unshaped"] >= 0.5 * READERS_QUEUE_NS, (added, alone)
    # Split and paced below the line, the readers leave the queue short.
    assert added["verbsgate"] * PROTECTS <= added["unshaped"], \
        (added, alone)
    # ... and keep their rate: near Rmin, which the CPU may not reach.
    assert shaped[1] >= 0.75 * PACED_MBIT * 1e6 / 8, \
        f"a+b {shaped[1] * 8 / 1e6:.2f} Mbit/s"
    # The tenants' QPs were classified as set: the readers' held back by
    # the pacer, the latency tenant's reads sent at once.
    for t in ("a", "b"):
        assert delta(before, after, t, "throttled_ns") > 0, after[t]
    assert delta(before, after, "lat", "tx_bytes") > 0, after["lat"]
    assert delta(before, after, "lat", "throttled_ns") == 0, after["lat"]
