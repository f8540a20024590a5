"""Wire mode of the test bed (issue #23): the isolation tests of latency
tenants, and of shares across a port, run in it (test_wire.py and
others); the guest's base state stays loopback.

On loopback (the base state), client and server share rxe0 and rxe hands
each packet to its own receive path: tenants share the guest's CPUs but
no queue. In wire mode, a second device, rxe1 on vg1, is the far end:
traffic from rxe0 crosses the veth pair, and each end's egress is a port
(a token bucket at LINE_RATE with a queue of PORT_QUEUE bytes), where a
bulk tenant's packets queue ahead of a latency tenant's as on a NIC's
port. guest/wire.sh sets it up and takes it down.

Tenants with addresses of their own use NEAR_NET.n on vg0 (rxe0) and
FAR_NET.n on vg1 (rxe1), which wire.sh routes across the wire too:
`nvme_across()` exports an NVMe-oF subsystem per tenant on the far side,
its host connecting from the near side, so that the read data crosses
vg1's port.
"""
import json
from contextlib import ExitStack, contextmanager, nullcontext
from dataclasses import dataclass

from harness import nvme
from harness.tenants import empty_cgroups, pin_cgroups
from harness.testbed import REPO, Guest
from harness.traffic import (gid_index, stop_vgload, vgload_client,
                             vgload_client_command, vgload_result,
                             vgload_server)

WIRE_SH = REPO / "tests" / "integration" / "guest" / "wire.sh"
# A rate the emulated rxe sustains with headroom: across the veth, with
# no port, a 1 MB WRITE stream reached 53 Mbit/s in the tests' guest
# (SLUB debugging on) and about 330 without it, on the development
# machine; half of the former leaves room for a machine half as fast.
LINE_RATE = "25mbit"
LINE_BYTES = int(LINE_RATE.removesuffix("mbit")) * 1e6 / 8   # per second
# The rate verbsgate paces a device at to share the wire (Mbit/s), set
# before it charged each packet's headers (`pkt-overhead`, by default
# 82 bytes on Ethernet, where the port counts 58): the port counts
# frames, about 6 % more than their payload at MTU 1024, and a tenant
# paced closer to LINE_RATE filled the port's queue (docs/testbed.md).
# test_line_rate.py paces at LINE_RATE with the port's own count.
PACED_MBIT = 21
# How verbsgate paces the stream next to LATENCY_TENANT: at PACED_MBIT,
# in chunks of one packet and no deeper bucket, the setting under which
# the port holds nothing back (docs/testbed.md, `make wire-sweep`).
PACING = f"maxrate {PACED_MBIT}mbit chunk 1k chunk-nolat 1k burst 1k"
# A NIC-like transmit queue: a 1 MB message's quarter.
PORT_QUEUE = "256kb"
# rdma_rxe stops a QP's requester while this many of its packets are in
# the netdev's hands (RXE_INFLIGHT_SKBS_PER_QP_HIGH), the port's queue
# included: a few QPs cannot fill PORT_QUEUE (two NVMe readers, one
# target QP each, peaked at 128 KB without a drop).
RXE_QP_INFLIGHT = 64
# The RC ACK timeout (vgload's --qp-timeout, 4.096 us * 2^N) of the
# user-space tenants whose shares the wire measures: 19, 2.1 s, what the
# kernel's rdma_cm gives a RoCE connection (packet lifetime 18, plus one),
# as the NVMe tenants have. vgload's default, perftest's 14 (67 ms), is
# shorter than PORT_QUEUE takes to drain at LINE_RATE (84 ms): with the
# queue full, every QP's timer fires before its ACK can arrive, and each
# resends what was already delivered, unpaced (go-back-N): 3 882 timer
# expiries and 2 172 resends in 16 s without verbsgate, and once the
# port is full the resends keep it full, also when verbsgate paces below
# the line. A NIC's port drains its queue in microseconds; the test bed
# scaled the line rate down, not the queue, so it scales the timeout up.
QP_TIMEOUT = 19
# The pacer's bucket on the wire's share tests (`dev set ... burst`),
# in payload bytes: two 64 KB WRITEs, about half of PORT_QUEUE in frames.
# The default, 256 KiB, is 277 KB of frames at MTU 1024, more than
# PORT_QUEUE holds: clients that start together (vgload's --together)
# after an idle time got the whole bucket at once, and the port dropped
# its last packets (2 in a CI run; rxe sent them again, unpaced).
PORT_BURST = "128k"
# The path MTU of the test bed's QPs, and a full RoCE v2 frame at it:
# Ethernet, IPv4, UDP, BTH and ICRC headers (RETH on a message's first
# packet only), as the port counts it.
MTU = 1024
FRAME_BYTES = MTU + 58
# The line as the test bed states it to verbsgate (`dev set`), as a NIC
# would report it: its rate, and what its port counts per packet besides
# the payload (test_line_rate.py).
LINE = f"link-rate {LINE_RATE} pkt-overhead {FRAME_BYTES - MTU}"
# What the test bed's device spends per message besides its packets, as
# the test bed states it (`cost CLASS bytes`, token.h): nothing that
# tenants share. rdma_rxe does a message's work on the CPUs that send
# and receive it, each tenant's own on the steered wire, and the port is
# charged per packet (LINE). The defaults, 200 bytes a data message and
# 400 an atomic, stand for a NIC's message engine, which its tenants do
# share; on the test bed the data cost charged a storm of 8 B WRITEs
# three times their packets for its own vCPU's work, and a closed-loop
# victim next to it kept 9.2 Mbit/s, 19.5 with 0 (docs/husky/notes.md).
# Memory-registration WRs keep theirs: rxe updates its own MR state.
OP_COST = "cost data bytes 0 cost atomic bytes 0"
FAR_ADDR = "10.77.0.2"
FAR_DEV = "rxe1"
FAR_NETDEV = "vg1"
# Tenants' own addresses: NEAR_NET.n on vg0, FAR_NET.n on vg1.
NEAR_NET = "10.77.1"
FAR_NET = "10.77.2"
# The first n of steered tenants' addresses (pinned_wire()), clear of
# the NVMe tenants' (nvme_across()).
STEERED_HOST = 101
LABEL = "emulated (rxe in QEMU TCG), wire mode"
# The demonstration's and the sweep's tenants (vgload arguments): a
# latency tenant, 64 B WRITEs one outstanding, next to a stream of 1 MB
# WRITEs, eight outstanding, started a second earlier and ending later.
LATENCY_TENANT = "--op write --size 64 --depth 1 --duration 5"
STREAM_TENANT = "--mode bw --duration 8"

# NVMe-oF tenants across the wire: verbsgate paces the far device, whose
# target QPs send the read data, at PACED_MBIT; each run's reads last this
# long, and their rates are measured but for its edges (fio.read_rates()).
# In 15 s runs with 3 s edges the shares came within 1 % of the weights
# (the tests' bound is 15 %); 10 s keep 6 s of shares and 2000 samples
# of a latency tenant at 200 reads a second, 20 of them past its p99.
NVME_SECONDS = 10
NVME_EDGE = 2
# The NVMe tenants' fio jobs, each on a vCPU of its own (fio's
# cpus_allowed: they are selected by address, not cgroup), so that they
# share the port, not a vCPU.
NVME_CPUS = ("0", "1")
# An NVMe-oF latency tenant on the wire: 512 B random reads, one
# outstanding, 200 a second. At this line rate a 4 KB read is 1.3 ms of
# the port's time, so the smallest NVMe read stands for a small message;
# unbounded, 4 KB reads at queue depth 1 filled the port on their own.
NVME_LATENCY = {"bs": "512", "rate_iops": 200}
# The bulk tenants' weights against the latency tenant's 1: while a
# latency tenant exists, the bandwidth tenants are guaranteed Rmin, their
# weights / (their weights + 1) of maxrate (docs/sysfs.md); with the
# default tenant's 1, here 39/40 of it.
NVME_BULK_WEIGHT = 19

# How each end receives (guest/wire.sh): "rps", every packet of a QP on
# one vCPU in order, for every test of tenants sharing the port;
# "backlog", on its sender's vCPU, which reorders a stream's packets (they
# leave from the port's timer's vCPU and from other senders'): for a
# pinned latency tenant without a stream (ORDERED and LOCAL).
ORDERED = "rps"
LOCAL = "backlog"


class Wire:
    """Context manager: the guest in wire mode while inside, receiving
    in @order (ORDERED or LOCAL)."""

    def __init__(self, g: Guest, rate: str = LINE_RATE,
                 queue: str = PORT_QUEUE, order: str = ORDERED):
        self.g, self.rate, self.queue, self.order = g, rate, queue, order
        # Steered tenants' addresses, by tenant (pinned_wire()).
        self.addresses: dict[str, TenantAddresses] = {}

    def __enter__(self) -> "Wire":
        res = self.g.run(f"{WIRE_SH} up {self.rate} {self.queue} "
                         f"{self.order}")
        if not res.ok:
            self.g.run(f"{WIRE_SH} down")
            raise AssertionError(f"wire.sh up: {res.out}")
        return self

    def __exit__(self, exc_type, *exc):
        # A process with rxe1 open would hold up its deletion, in the
        # kernel, where the agent cannot end it.
        stop_vgload(self.g)
        self.g.run(f"{WIRE_SH} down", check=exc_type is None)

    def steer(self, near: str, far: str, cpu: int):
        """The packets sent from @near (on vg0) and from @far (on vg1)
        received on vCPU @cpu (guest/wire.sh steer)."""
        for netdev, addr in ((self.g.netdev, near), (FAR_NETDEV, far)):
            self.g.run(f"{WIRE_SH} steer {netdev} {addr} {cpu}", check=True)

    def serve(self, tenant: str, port: int, sessions: int = 1,
              together: bool = False) -> str:
        """A vgload server on the far device for @sessions of @tenant's
        clients on @port (with @together, their runs start at once), at
        the tenant's far address if the wire steers it (pinned_wire()).
        Returns what a client on rxe0 adds to reach it: its address, the
        port, the tenant's near GID index if steered, and the wire's ACK
        timeout (QP_TIMEOUT)."""
        at = self.addresses.get(tenant)
        vgload_server(self.g, port, sessions, FAR_DEV, together,
                      at.far_gid if at else -1)
        to = f"{at.far} --gid-index {at.near_gid}" if at else FAR_ADDR
        return f"{to} --port {port} --qp-timeout {QP_TIMEOUT}"

    def port(self, dev: str = "vg0") -> dict:
        """The port's counters (tc -s): bytes, packets, drops,
        overlimits (packets the bucket held back), backlog."""
        (q,) = json.loads(self.g.run(f"tc -s -j qdisc show dev {dev} root",
                                     check=True).out)
        return q

    def resends(self) -> dict[str, int]:
        """rxe's counters of what it received out of order and resent,
        summed over both devices: out_of_seq (request packets ahead of
        the next expected one: reordered or lost before them; each is
        NAKed) and retries (a requester going back to resend)."""
        out = {"out_of_seq": 0, "retries": 0}
        for dev in (self.g.rxe_dev, FAR_DEV):
            (st,) = json.loads(self.g.run(
                f"rdma -j statistic show link {dev}/1", check=True).out)
            out["out_of_seq"] += st["out_of_seq_request"]
            out["retries"] += st["completer_retry_err"]
        return out

    @contextmanager
    def watch(self, dev: str = "vg0", peak: bool = False):
        """What the port @dev, and rxe at both ends, did while inside:
        yields a WireCounts, filled in on the way out. With @peak, the
        port's queue is also sampled for its largest size: that costs
        the guest's vCPUs enough to move a latency tenant's p99 (its
        p50 alone went from 0.8 to 3.3 ms), so only runs that measure
        shares ask for it."""
        counts = WireCounts()
        before, resends = self.port(dev), self.resends()
        stop = f"/tmp/vg-portwatch-{dev}.stop"
        log = f"/tmp/vg-portwatch-{dev}.log"
        pid = None
        if peak:
            # One tc reads a command every PORT_SAMPLE_S from a sleeping
            # python3 (two processes, no fork per sample), awk keeps the
            # peak; all end once the stop file exists.
            loop = (f"import os, time\n"
                    f"while not os.path.exists('{stop}'):\n"
                    f"    print('qdisc show dev {dev}', flush=True)\n"
                    f"    time.sleep({PORT_SAMPLE_S})")
            self.g.run(f"rm -f {stop}", check=True)
            pid = self.g.spawn(
                f"python3 -c \"{loop}\" | tc -s -j -batch - | awk -F "
                "'\"backlog\":' '{split($2, a, \",\"); "
                "if (a[1] + 0 > m + 0) m = a[1] + 0} END {print m + 0}'", log)
        try:
            yield counts
        finally:
            sampled = ""
            if pid is not None:
                sampled = self.g.run(
                    f"touch {stop}; for i in $(seq 50); do "
                    f"kill -0 {pid} 2>/dev/null || break; sleep 0.1; "
                    f"done; cat {log}").out
            counts.fill(before, self.port(dev), sampled, resends,
                        self.resends())


@dataclass(frozen=True)
class TenantAddresses:
    """A steered tenant's addresses: @near on vg0 (rxe0's GID @near_gid)
    for its clients, @far on vg1 (rxe1's GID @far_gid) for its servers."""
    near: str
    far: str
    near_gid: int
    far_gid: int


@contextmanager
def pinned_wire(g: Guest, tenants: dict[str, str], order: str = ORDERED,
                testbed: str = "", steer: bool = False):
    """The wire (a Wire in @order) with each tenant's cgroup on its own
    vCPUs (@tenants: name to cpuset.cpus, tenants.pin_cgroups(); with
    @testbed, the test bed's own processes on those): what isolation
    tests between tenants run in, so that the tenants share the port,
    not a vCPU. With @steer, each tenant also gets addresses of its own
    (Wire.addresses; NEAR_NET.n and FAR_NET.n, n from STEERED_HOST on in
    @tenants' order), whose packets both ends receive on the tenant's
    first vCPU (Wire.steer()): its traffic then shares no vCPU with the
    other tenants' receive work either. Yields the Wire; on the way out
    the tenants' cgroups are emptied and unpinned."""
    pin_cgroups(g, tenants, testbed)
    try:
        with Wire(g, order=order) as w, ExitStack() as stack:
            if steer:
                for n, (name, cpus) in enumerate(tenants.items(),
                                                 STEERED_HOST):
                    assert cpus, f"steering {name} needs a vCPU of its own"
                    near, far = f"{NEAR_NET}.{n}", f"{FAR_NET}.{n}"
                    stack.enter_context(nvme.extra_address(
                        g, far, netdev=FAR_NETDEV, dev=FAR_DEV))
                    stack.enter_context(nvme.extra_address(g, near))
                    w.steer(near, far, int(cpus.split(",")[0].split("-")[0]))
                    w.addresses[name] = TenantAddresses(
                        near, far, gid_index(g, near),
                        gid_index(g, far, FAR_DEV))
                # First on the way out: no process holds an address's
                # GID while it goes.
                stack.callback(stop_vgload, g)
            yield w
    finally:
        empty_cgroups(g, tenants)
        pin_cgroups(g, {name: "" for name in tenants})


# How often Wire.watch() samples a port's backlog: 10 ms is 31 KB of the
# line's time, an eighth of its queue.
PORT_SAMPLE_S = 0.01


@dataclass
class WireCounts:
    """The wire over a run: bytes and packets the port sent, packets it
    dropped (its queue full) and held back (overlimits: a packet waited
    for the bucket), the largest queue seen (peak_backlog, bytes, sampled
    every PORT_SAMPLE_S; None if the sampler failed), and rxe's
    out-of-sequence packets and retries (Wire.resends())."""
    bytes: int = 0
    packets: int = 0
    drops: int = 0
    held: int = 0
    peak_backlog: int | None = None
    out_of_seq: int = 0
    retries: int = 0

    HEADER = ("port MB | packets | dropped | held back | peak queue KB | "
              "out of sequence | retries")

    def fill(self, before: dict, after: dict, sampled: str,
             resends_before: dict, resends_after: dict):
        self.bytes = after["bytes"] - before["bytes"]
        self.packets = after["packets"] - before["packets"]
        self.drops = after["drops"] - before["drops"]
        self.held = after["overlimits"] - before["overlimits"]
        words = sampled.split()
        self.peak_backlog = int(words[-1]) if words and \
            words[-1].isdigit() else None
        self.out_of_seq = (resends_after["out_of_seq"] -
                           resends_before["out_of_seq"])
        self.retries = resends_after["retries"] - resends_before["retries"]

    def cells(self) -> str:
        """The figures as Markdown table cells, HEADER's columns."""
        peak = ("—" if self.peak_backlog is None
                else f"{self.peak_backlog / 1024:.0f}")
        return (f"{self.bytes / 1e6:.1f} | {self.packets} | {self.drops} | "
                f"{self.held} | {peak} | {self.out_of_seq} | {self.retries}")


def far_server(g: Guest, port: int, sessions: int = 1) -> int:
    """A vgload server on the far device (at its first IPv4 GID), seen
    listening; Wire.serve() puts a steered tenant's at its address."""
    return vgload_server(g, port, sessions, FAR_DEV)


def near_client_command(g: Guest, cgroup: str, port: int,
                        args: str) -> str:
    """The shell command of a vgload client on rxe0 in cgroup, to the
    far server, its JSON on standard output."""
    return vgload_client_command(g, cgroup, port, f"--dev {g.rxe_dev} {args}",
                                 server=FAR_ADDR, interval=0)


def near_client(g: Guest, cgroup: str, port: int, args: str,
                log: str) -> int:
    """A vgload client on rxe0 in cgroup, to the far server, in the
    background, JSON to log."""
    return g.spawn(near_client_command(g, cgroup, port, args), log)


def victim_run(g: Guest, w: Wire | None, port: int, victim: str,
               stream: str | None
               ) -> tuple[dict, dict | None, "WireCounts | None"]:
    """A latency tenant's vgload run (cgroup "lat", args @victim), next
    to a stream (cgroup "bulk", args @stream, started a second ahead)
    unless @stream is None, both to far servers on @port and @port + 1:
    the victim's result, the stream's, and what the wire (vg0's port)
    did meanwhile. With @w None, the same on loopback: servers and
    clients on rxe0, and no wire (None). Fails unless both runs ended
    well."""
    def serve(p):
        return far_server(g, p) if w else vgload_server(g, p, 1)

    def client(cgroup, p, args, log):
        if w:
            return near_client(g, cgroup, p, args, log)
        return vgload_client(g, cgroup, p, args, log, interval=0)
    with w.watch() if w else nullcontext() as counts:
        serve(port)
        if stream:
            serve(port + 1)
            client("bulk", port + 1, stream, "/tmp/wire-bulk.log")
            g.run("sleep 1")
        client("lat", port, victim, "/tmp/wire-lat.log")
        lat = vgload_result(g, "/tmp/wire-lat.log")
        bulk = vgload_result(g, "/tmp/wire-bulk.log") if stream else None
        stop_vgload(g)
    assert lat["ok"] and (not bulk or bulk["ok"]), (lat, bulk)
    return lat, bulk, counts


@contextmanager
def nvme_across(g: Guest, tenants: list[int], size_mb: int = 128):
    """For each tenant number n, an NVMe-oF subsystem exported by nvmet on
    FAR_NET.n (rxe1) and connected by the host from NEAR_NET.n (rxe0),
    inside a Wire: the target's QPs, which send the read data across
    vg1's port, have local address FAR_NET.n; the host's, which send the
    commands, NEAR_NET.n. Yields {n: the host's block device}."""
    with ExitStack() as stack:
        devs = {}
        for i, n in enumerate(tenants):
            far, near = f"{FAR_NET}.{n}", f"{NEAR_NET}.{n}"
            stack.enter_context(nvme.extra_address(
                g, far, netdev=FAR_NETDEV, dev=FAR_DEV))
            stack.enter_context(nvme.extra_address(g, near))
            devs[n] = stack.enter_context(nvme.nvme_over_rdma(
                g, nqn=nvme.subsystem_nqn(far), addr=far,
                port_id=nvme.FIRST_SUBSYSTEM_PORT + i, size_mb=size_mb,
                host_addr=near))
        yield devs
