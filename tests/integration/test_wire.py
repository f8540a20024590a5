"""Wire mode (wire.py, issue #23): RDMA traffic between two rxe devices
crosses a rate-limited port, and there a bulk tenant's packets queue
ahead of a latency tenant's, which rxe loopback never shows; verbsgate,
pacing the stream below the line rate in small chunks, keeps that queue
short. The victim's p99 with verbsgate is reported against its p99
alone; bringing it within 1.5 times is issue #23's."""
from sqtools import (add_tenants, make_cgroups, report, stop_vgload,
                     vgload_result)
from vgcli import cli_ok
from wire import LABEL, LINE_RATE, PORT_QUEUE, Wire, far_server, near_client

# A latency tenant: one 64 B WRITE outstanding.
VICTIM = "--op write --size 64 --depth 1"
# A port queue makes the victim wait behind whole 1 MB messages: its p99
# grows by well over an order of magnitude (about 50 to 150 times in
# runs of this test bed), where loopback's CPU sharing costs a few times.
HOL_FACTOR = 10
# verbsgate paces the device below the line rate, in chunks of a few
# packets; the victim's p99 then falls by far more than PROTECTS times
# (about 40 in runs of this test bed).
PACED = "20mbit"
CHUNK = "4k"
PROTECTS = 5


def test_traffic_crosses_the_port(guest):
    make_cgroups(guest, ["lat"])
    log = "/tmp/wire-alone.log"
    with Wire(guest) as w:
        before = w.port()
        far_server(guest, 19100)
        near_client(guest, "lat", 19100, f"{VICTIM} --duration 3", log)
        res = vgload_result(guest, log)
        after = w.port()
    assert res["ok"], res
    ops = res["total"]["ops"]
    # Each WRITE is a packet from rxe0 out of vg0 (its ACK comes back
    # out of vg1): none took rxe's loopback.
    assert ops > 0 and after["packets"] - before["packets"] >= ops, \
        (before, after, res["total"])


def victim(g, w, port: int, bulk: bool) -> tuple[dict, dict | None, int]:
    """The latency tenant's run, alone or next to a 1 MB WRITE stream:
    its result, the stream's, and the packets the port held back."""
    before = w.port()
    far_server(g, port)
    if bulk:
        far_server(g, port + 1)
        near_client(g, "bulk", port + 1, "--mode bw --duration 7",
                    "/tmp/wire-bulk.log")
        g.run("sleep 1")
    near_client(g, "lat", port, f"{VICTIM} --duration 4", "/tmp/wire-lat.log")
    lat = vgload_result(g, "/tmp/wire-lat.log")
    stream = vgload_result(g, "/tmp/wire-bulk.log") if bulk else None
    stop_vgload(g)
    assert lat["ok"] and (not bulk or stream["ok"]), (lat, stream)
    return lat, stream, w.port()["overlimits"] - before["overlimits"]


def test_port_queue_delays_a_latency_tenant(rxe_kept):
    g = rxe_kept
    make_cgroups(g, ["lat", "bulk"])
    runs = {}
    with Wire(g) as w:
        runs["alone"] = victim(g, w, 19110, False)
        runs["next to the stream"] = victim(g, w, 19113, True)
        assert g.load_verbsgate().ok
        add_tenants(g, {"lat": "class latency weight 1",
                        "bulk": "class bandwidth weight 1"})
        cli_ok(g, f"dev set {g.rxe_dev} maxrate {PACED} chunk {CHUNK} "
               f"chunk-nolat {CHUNK}")
        runs["alone, verbsgate"] = victim(g, w, 19116, False)
        runs["next to the stream, verbsgate"] = victim(g, w, 19119, True)
    rows = [f"Port: {LINE_RATE}, queue {PORT_QUEUE}; verbsgate: maxrate "
            f"{PACED}, chunk {CHUNK}, the victim's tenant of the latency "
            "class.", "",
            "| victim | p50 µs | p99 µs | stream, Gbit/s | "
            "packets the port held back |", "|---|---|---|---|---|"]
    for name, (lat, stream, held) in runs.items():
        rows.append(f"| {name} | {lat['total']['lat_us']['p50']:.0f} | "
                    f"{lat['total']['lat_us']['p99']:.0f} | "
                    + (f"{stream['total']['gbps']:.4f}" if stream else "—")
                    + f" | {held} |")
    report(f"Wire mode: a latency tenant next to a 1 MB WRITE stream "
           f"({LABEL})", rows)

    def p99(name):
        return runs[name][0]["total"]["lat_us"]["p99"]
    # Unshaped, the stream fills the port, and the victim waits behind
    # its queue: the premise of the wire mode.
    assert runs["next to the stream"][2] > 0
    assert p99("next to the stream") >= HOL_FACTOR * p99("alone")
    # Split and paced below the line rate, the stream leaves the port's
    # queue short (#23 measures how close to alone).
    assert p99("next to the stream, verbsgate") * PROTECTS <= \
        p99("next to the stream")
