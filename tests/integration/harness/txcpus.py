"""Where each QP's packets were sent from, by CPU.

rxe sends a QP's packets from its requester, one call per packet, on the
CPU that runs it: the one that posted a kernel QP's WR or rang a user
QP's doorbell, or the one verbsgate released the QP's chunk on. A kprobe
on the requester (its first argument is the QP) and tracefs's histogram
count the calls by QP and CPU while traffic runs; the QPs that sent
little (those written into, which send a handful at set-up) are left
out. Used by postscale.py and test_usq_shaping.py.
"""
import re

from harness.testbed import Guest

TRACEFS = "/sys/kernel/tracing"
PROBE = "vg_txcpus_requester"
EVENT = f"{TRACEFS}/events/kprobes/{PROBE}"
# x86-64: the first argument in %di.
PROBE_DEF = f"p:{PROBE} rxe_requester qp=%di:x64"
HIST = "hist:keys=qp,common_cpu"
# A QP sent packets if it sent this share of all that were counted.
SENDER = 0.01


def start(g: Guest):
    """Start counting rxe's requester by QP and CPU."""
    g.run(f"mountpoint -q {TRACEFS} || mount -t tracefs nodev {TRACEFS}; "
          f"echo '{PROBE_DEF}' >> {TRACEFS}/kprobe_events && "
          f"echo '{HIST}' > {EVENT}/trigger && echo 1 > {EVENT}/enable",
          check=True)


def stop(g: Guest) -> list[dict[int, int]]:
    """Stop counting and remove the probe. Return: each sending QP's
    packets by the CPU that sent them ({cpu: packets}, one per QP)."""
    out = g.run(f"cat {EVENT}/hist; echo 0 > {EVENT}/enable; "
                f"echo '!{HIST}' > {EVENT}/trigger; "
                f"echo '-:{PROBE}' >> {TRACEFS}/kprobe_events",
                check=True).out
    qps: dict[int, dict[int, int]] = {}
    for qp, cpu, hits in re.findall(
            r"\{ qp:\s*(\d+), common_cpu:\s*(\d+) \} hitcount:\s*(\d+)",
            out):
        qps.setdefault(int(qp), {})[int(cpu)] = int(hits)
    total = sum(sum(c.values()) for c in qps.values())
    return [c for c in qps.values() if sum(c.values()) >= SENDER * total]


def home_share(qps: list[dict[int, int]]) -> float:
    """The smallest share of a QP's packets that one CPU sent (1.0: each
    QP sent from one CPU only); 0 if no QP sent."""
    return min((max(c.values()) / sum(c.values()) for c in qps),
               default=0.0)


def homes(qps: list[dict[int, int]]) -> list[int]:
    """The CPU each QP sent most from, in order."""
    return sorted(max(c, key=c.get) for c in qps)
