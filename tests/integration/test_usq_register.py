"""verbsgate registers as the send queue policy of a patched rdma_rxe.

kmod/datapath/usq_rxe.c registers when the first rxe device attaches and
unregisters when the last one goes, whatever the order in which verbsgate,
rdma_rxe and rxe devices come and go, and keeps no reference to rdma_rxe:
`rmmod rdma_rxe` works with verbsgate loaded, patched or stock, as it does
without. On the stock module verbsgate registers nothing and loads as
before; when another policy holds rxe it says so once, loads, and
registers at the next rxe device once that policy is gone.

Once registered, verbsgate governs the user QPs created on rxe devices
(test_usq_shaping.py) and user_qps_enforced says 1; traffic keeps
running whichever goes first. Where verbsgate stands shows in debugfs
rxe_policy; rxe logs "send queue policy verbsgate registered" and
"unregistered" itself.

A process with an rxe device open holds rdma_rxe (ib_uverbs takes a
module reference for drivers that cannot disassociate a context), so
`rmmod rdma_rxe` fails under traffic with or without verbsgate; the
traffic test therefore deletes the link under traffic and unloads
rdma_rxe once the traffic has stopped.
"""
import re

from harness.counters import stats, usq_objects
from harness.testbed import SYSFS
from harness.traffic import (SQHOLD_MODULE, SQHOLD_PARAMS, gid_index,
                             vgload_client, vgload_server)
from harness.vgcli import eventually

POLICY = "/sys/kernel/debug/verbsgate/rxe_policy"
REGISTERED = "send queue policy verbsgate registered"
UNREGISTERED = "send queue policy verbsgate unregistered"
BUSY = "rdma_rxe has another send queue policy"


def policy(g) -> str:
    return g.run(f"cat {POLICY}", check=True).out.strip()


def enforced(g) -> str:
    return g.run(f"cat {SYSFS}/devices/{g.rxe_dev}/"
                 "user_qps_enforced", check=True).out.strip()


def rxe_refs(g) -> int:
    return int(g.run("cat /sys/module/rdma_rxe/refcnt", check=True).out)


def said(g, mark: int, text: str) -> int:
    """How often the kernel log said text since mark."""
    return g.console_since(mark).count(text)


def says(g, mark: int, text: str, times: int = 1):
    """The kernel log says text exactly times since mark (the console
    may trail the command that made the kernel say it)."""
    eventually(f"times the log said '{text}'",
               lambda: said(g, mark, text), times)


def load_patched(g):
    res = g.load_rxe(patched=True)
    assert res.ok, f"loading the patched rdma_rxe failed:\n{res.out}"
    assert g.rxe_patched()


def relink(g):
    """`rdma link delete` and `add` of the rxe device: rdma_rxe stays."""
    g.run(f"rdma link delete {g.rxe_dev}", check=True)
    assert policy(g) == "no-device"
    g.run(f"rdma link add {g.rxe_dev} type rxe netdev {g.netdev}",
          check=True)


def pingpong(g, port: int):
    """RC SEND/RECV between two user processes, every buffer checked."""
    args = f"-d {g.rxe_dev} -g {gid_index(g)} -s 4096 -n 50 -c -p {port}"
    server = g.spawn(f"exec ibv_rc_pingpong {args}", f"/tmp/pp-{port}.log")
    eventually("the pingpong server listening",
               lambda: bool(g.run(f"ss -Hltn 'sport = :{port}'")
                            .out.strip()), True)
    client = g.run(f"ibv_rc_pingpong {args} {g.ip}", timeout=120)
    g.run(f"for i in $(seq 100); do kill -0 {server} 2>/dev/null || "
          f"exit 0; sleep 0.1; done; kill {server}")
    out = client.out + g.run(f"cat /tmp/pp-{port}.log").out
    assert client.ok and "iters in" in client.out, out
    assert not re.search(r"invalid|fail", out, re.I), out


def sent_pkts(g) -> int:
    return int(g.run(f"cat /sys/class/infiniband/{g.rxe_dev}/ports/1/"
                     "hw_counters/sent_pkts", check=True).out)


def traffic(g, port: int, seconds: int) -> tuple[int, int, str]:
    """vgload RDMA WRITEs for @seconds, started and seen running.
    Returns the server's and client's pids and the client's log, which
    ends with rc=<exit status>."""
    server = vgload_server(g, port, 1)
    log = f"/tmp/vgload-client-{port}.log"
    client = vgload_client(g, "", port, "--size 4K --depth 8 "
                           f"--duration {seconds}", log, interval=0,
                           status=True)
    before = sent_pkts(g)
    eventually("vgload sending", lambda: sent_pkts(g) > before + 100,
               True)
    return server, client, log


def alive(g, pid: int) -> bool:
    return g.run(f"kill -0 {pid}").ok


def traffic_ran_well(g, server: int, client: int, log: str):
    """traffic()'s client ran to its end without an error, and its server
    left."""
    eventually("vgload finishing", lambda: alive(g, client), False,
               tries=600)
    out = g.run(f"cat {log}").out
    assert "rc=0" in out and "FAILED" not in out, out
    eventually("the vgload server leaving", lambda: alive(g, server),
               False)


def test_verbsgate_first_then_patched_rxe(swaps_rxe):
    """(a) verbsgate, then the patched rdma_rxe and `rdma link add`."""
    g = swaps_rxe
    assert g.load_verbsgate().ok
    assert policy(g) == "unsupported"     # the stock module, at base
    mark = g.console_mark()
    load_patched(g)                       # unloads the stock one first
    assert policy(g) == "registered"
    says(g, mark, REGISTERED)
    assert enforced(g) == "1"
    pingpong(g, 18960)
    # Both ends' QPs were governed, and their state went with them.
    eventually("governed send queues left", lambda: usq_objects(g), 0)

    # The last rxe device goes: unregistered; a new one: registered.
    mark = g.console_mark()
    relink(g)
    assert policy(g) == "registered"
    says(g, mark, UNREGISTERED)
    says(g, mark, REGISTERED)
    pingpong(g, 18961)


def test_patched_rxe_first_then_verbsgate(swaps_rxe):
    """(b) the patched rdma_rxe with its device, then verbsgate; which
    keeps no reference to rdma_rxe."""
    g = swaps_rxe
    load_patched(g)
    refs = rxe_refs(g)
    mark = g.console_mark()
    assert g.load_verbsgate().ok
    assert policy(g) == "registered"
    says(g, mark, REGISTERED)
    assert enforced(g) == "1"
    assert rxe_refs(g) == refs
    pingpong(g, 18962)
    eventually("rdma_rxe's references", lambda: rxe_refs(g), refs)


def test_link_delete_under_traffic_then_rxe_unload(swaps_rxe):
    """(c) `rdma link delete` while user QPs move data, then `rmmod
    rdma_rxe`, verbsgate loaded throughout."""
    g = swaps_rxe
    load_patched(g)
    assert g.load_verbsgate().ok
    assert policy(g) == "registered"
    server, client, log = traffic(g, 18963, 60)
    mark = g.console_mark()
    # ib_uverbs waits for the device's users to close it: in background.
    delete = g.spawn(f"exec rdma link delete {g.rxe_dev}",
                     "/tmp/link-delete.log")
    # verbsgate's remove callback runs before ib_uverbs's and unregisters.
    eventually("rxe saying verbsgate unregistered",
               lambda: said(g, mark, UNREGISTERED), 1)
    assert policy(g) == "no-device"
    assert alive(g, client) and alive(g, delete)
    g.run(f"pkill -P {client}; kill {server}")
    eventually("the link deleted", lambda: alive(g, delete), False)
    assert g.run(f"rdma link show {g.rxe_dev}/1").rc != 0

    res = g.run("rmmod rdma_rxe")
    assert res.ok, res.out
    assert g.verbsgate_loaded()
    mark = g.console_mark()
    load_patched(g)
    assert policy(g) == "registered"
    says(g, mark, REGISTERED)
    pingpong(g, 18964)


def test_stock_rxe_nothing_registered(swaps_rxe):
    """(d) on the stock rdma_rxe verbsgate registers nothing and loads as
    before; going back to it from the patched one as well."""
    g = swaps_rxe
    assert not g.rxe_patched()
    refs = rxe_refs(g)
    mark = g.console_mark()
    assert g.load_verbsgate().ok
    assert policy(g) == "unsupported"
    assert rxe_refs(g) == refs
    pingpong(g, 18965)
    assert said(g, mark, REGISTERED) == said(g, mark, BUSY) == 0

    load_patched(g)
    assert policy(g) == "registered"
    res = g.load_rxe(patched=False)       # rmmod of the patched one
    assert res.ok, res.out
    assert not g.rxe_patched()
    assert policy(g) == "unsupported"
    pingpong(g, 18966)
    g.run(f"rdma link delete {g.rxe_dev}", check=True)
    assert policy(g) == "no-device"
    res = g.run("rmmod rdma_rxe")
    assert res.ok, res.out


def test_verbsgate_unload_under_traffic(swaps_rxe):
    """(e) `rmmod verbsgate` while user QPs move data: rxe is left without
    a policy and its traffic goes on."""
    g = swaps_rxe
    load_patched(g)
    assert g.load_verbsgate().ok
    assert policy(g) == "registered"
    server, client, log = traffic(g, 18967, 10)
    mark = g.console_mark()
    res = g.unload_verbsgate()
    assert res.ok, res.out
    assert alive(g, client)
    says(g, mark, UNREGISTERED)
    traffic_ran_well(g, server, client, log)
    pingpong(g, 18968)


def test_another_policy_first(swaps_rxe):
    """(g) vg_sqhold holds rxe: verbsgate says so once, loads, leaves
    vg_sqhold's QPs alone, and registers at the next rxe device once
    vg_sqhold is gone."""
    g = swaps_rxe
    load_patched(g)
    g.run(f"insmod {SQHOLD_MODULE}", check=True)
    mark = g.console_mark()
    assert g.load_verbsgate().ok
    assert policy(g) == "busy"
    says(g, mark, BUSY)
    assert said(g, mark, REGISTERED) == 0
    assert enforced(g) == "0"
    qps = int(g.run(f"cat {SQHOLD_PARAMS}/qps", check=True).out)
    pingpong(g, 18969)
    assert int(g.run(f"cat {SQHOLD_PARAMS}/qps", check=True).out) > qps

    g.run("rmmod vg_sqhold", check=True)
    assert policy(g) == "busy"            # tried again at the next device
    relink(g)
    assert policy(g) == "registered"
    says(g, mark, REGISTERED)
    assert said(g, mark, BUSY) == 1
    assert enforced(g) == "1"
    pingpong(g, 18970)


def test_qps_created_before_verbsgate_stay_ungoverned(swaps_rxe):
    """(f) User QPs that exist when verbsgate loads are not offered to it
    (rxe offers a QP only at its creation): their traffic goes on
    ungoverned and untracked, and a QP created afterwards is governed."""
    g = swaps_rxe
    load_patched(g)
    server, client, log = traffic(g, 18971, 8)
    assert g.load_verbsgate().ok
    assert policy(g) == "registered" and enforced(g) == "1"
    assert usq_objects(g) == 0
    untracked = int(g.run(f"cat {SYSFS}/devices/{g.rxe_dev}/"
                          "qps_untracked", check=True).out)
    assert untracked >= 2, untracked
    before = stats(g)["default"]["tx_wrs"]
    pingpong(g, 18972)
    # Its 50 round trips, counted: governed.
    assert stats(g)["default"]["tx_wrs"] - before >= 50
    traffic_ran_well(g, server, client, log)
