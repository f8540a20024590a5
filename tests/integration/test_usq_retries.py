"""What rdma_rxe sends again is paced like what it sends: a governed
user QP's retries (after an RNR NAK, a sequence error or an ACK timeout)
wait for the tenant's turns, charged as chunks of what they resend
(driver-patches/rdma_rxe 0017, kmod/datapath/usq.c vg_usq_retry()).

The tenant that lives on retries is Husky's error storm (harness/husky.py
ATTACKERS): 8 RC QPs SEND into QPs with no receives, every SEND meets RNR
NAKs until its QP fails, and the storm resets the QP, connects it again
and goes on. Each chunk verbsgate released went twice, the second time
unpaced, when rxe resent it as its RNR timer fired: on the wire, paced
below the line, the port held back 329 and 375 packets in two runs next
to a latency tenant, and carried twice what verbsgate had paced
(docs/husky/notes.md). Emulated (rxe in QEMU TCG): the figures go to the
CI's report.
"""
import json

from harness import husky
from harness.reports import report
from harness.testbed import SYSFS, Guest
from harness.traffic import stop_vgload
from harness.vgcli import port1
from harness.wire import LABEL

# How long the storm runs, seconds.
STORM_S = 8
# What the port may carry against what verbsgate paced: the frames'
# headers (RoCE's, about 6 % at MTU 1024) and the RNR NAKs' way back do
# not cross this port. Unpaced retries made it about 2.
MAX_WIRE_PER_PACED = 1.4


def rnr_naks(g: Guest) -> int:
    """RNR NAKs rxe0's requesters received so far."""
    (st,) = json.loads(g.run(f"rdma -j statistic show link {g.rxe_dev}/1",
                             check=True).out)
    return st["rcvd_rnr_err"]


def retry_bytes(g: Guest) -> int:
    """What verbsgate counted of the attacker's retries (sysfs)."""
    return int(g.run(f"cat {SYSFS}/tenants/attacker/retry_bytes",
                     check=True).out)


def test_rnr_retries_wait_for_the_tenant_s_turns(rxe_kept):
    g = rxe_kept
    storm = husky.ATTACKERS["error storm"]
    with husky.cell_wire(g) as w:
        # As an operator paces a device for tenants that share the wire.
        husky.load_paced(g, husky.VICTIMS["latency WRITE 64 B"])
        try:
            naks = rnr_naks(g)
            paced = port1(g)["paced_bytes"]
            retried = retry_bytes(g)
            with w.watch() as counts:
                logs = husky.start_role(g, w, storm, "attacker", 24000,
                                        STORM_S, "/tmp/retries-storm.log",
                                        1)
                results = [husky.role_outcome(g, log) for log in logs]
            paced = port1(g)["paced_bytes"] - paced
            naks = rnr_naks(g) - naks
            retried = retry_bytes(g) - retried
        finally:
            stop_vgload(g)
            assert g.unload_verbsgate().ok
    assert all(r.get("ok") for r in results), results
    report(f"The error storm's retries with verbsgate ({LABEL})",
           [f"{naks} RNR NAKs; verbsgate paced {paced / 1e6:.2f} MB, "
            f"{retried / 1e6:.2f} MB of it the storm's retries; the "
            f"port carried {counts.bytes / 1e6:.2f} MB "
            f"({counts.bytes / max(paced, 1):.2f} times) and held back "
            f"{counts.held} packets; rxe's timeout retries "
            f"{counts.retries}, out-of-sequence packets "
            f"{counts.out_of_seq}"])
    # The storm's QPs did meet RNR NAKs, and rxe resent after them.
    assert naks >= 100, naks
    assert paced > 0
    # Its retries went through verbsgate, and were counted to it.
    assert 0 < retried < paced, (retried, paced)
    assert counts.bytes <= MAX_WIRE_PER_PACED * paced, (counts, paced)
