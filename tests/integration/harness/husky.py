"""Husky's adversarial matrix on the wire (issue #46).

A cell is a victim next to an attacker, each an unprivileged vgload
client in its own cgroup, pinned to a vCPU of its own (pinned_wire()),
both to servers on the far device, so that they share the port, not a
vCPU. The NVMe victim is a kernel tenant: the target of the namespace
its vgload reads (victim_target()). A cell runs three ways in one boot,
`runs` times each, and keeps the medians:

- alone: the victim by itself, verbsgate unloaded (the baseline, so
  that verbsgate's own cost counts against it);
- off: the victim next to the attacker, verbsgate unloaded;
- on: the same with verbsgate loaded, the two tenants at equal weight
  (the victim's tenant in its Role's class, as an operator would set
  it) and the device paced at ON_PACING;

and, to tell what verbsgate's pacing costs the victim from what the
attacker does, alone_on: the victim by itself under verbsgate. The runs
without an attacker (alone, alone_on and a latency victim's next to
BENIGN) are a victim's Baseline, taken once before its cells.

Verdicts follow Husky (nsdi23, §5): a throughput victim passes when its
bytes/s and its messages/s are both at least (1 - alpha) x the smaller
of what it reached alone and its fair share of the line (half of it,
both tenants at weight 1; messages/s scaled from alone in proportion);
a latency victim passes when its p99 is at most (1 + alpha) x the larger
of its p99 alone and next to a benign neighbour of the same weight
under verbsgate (BENIGN, a normal bulk stream: the attack may cost it
no more than sharing the port with a well-behaved tenant does; on the
test bed's scaled-down line one packet ahead of it at the port is
already its p99 alone, docs/testbed.md; measured in docs/results.md).
alpha = ALPHA as in Husky; the report also gives GOAL_ALPHA. An
attacker that does not cut the victim by INEFFECTIVE with verbsgate
unloaded is "attack ineffective on this test bed", not a pass. The
victim is measured over its report intervals WINDOW, from its last
completion before them to its last one in them (window_rate()), while
the attacker runs: started once the victim is connected and sending,
before its measured run, and interrupted when that ends (run_once()).

What rxe lacks: no NIC caches and no PCIe, so Husky's cache and PCIe
attacks become CPU, memory and lock contention in the driver; the
report labels the figures emulated.
"""
import shlex
from contextlib import contextmanager
from dataclasses import asdict, dataclass, field, replace
from statistics import median

from harness import nvme
from harness.testbed import SYSFS, Guest
from harness.traffic import (UNPRIVILEGED, client_command, stop_vgload,
                             vgload_result, window_rate)
from harness.tenants import CGROUPS, add_tenants, in_cgroup
from harness.vgcli import cli_ok, dev, eventually, port1
from harness.wire import LINE, LINE_BYTES, MTU, OP_COST, Wire, pinned_wire

ALPHA = 0.25
GOAL_ALPHA = 0.10
INEFFECTIVE = 0.25
# The victim's run and the part of it measured, seconds since it started.
SECONDS = 10
WINDOW = (2, 8)
# How an operator paces the device for tenants that share the wire
# (docs/testbed.md): below the line; in one-packet chunks while a
# latency tenant is active, in 16 KB chunks while none is. One-packet
# chunks cost a bulk tenant a sixth of the rate in per-operation tokens
# (a 1 MB WRITE stream alone under verbsgate: 16.8 Mbit/s of 21 in 1 KB
# chunks, 21.0 in 16 KB ones), so two bandwidth tenants at equal
# weights could not reach the half of the line that Husky's predicate
# asks of either (docs/results.md). A bucket of one such chunk: the
# pacer's timer fires late in the guest (a millisecond is common), and
# what a smaller bucket cannot hold meanwhile is lost; with a 1 KB
# bucket the closed-loop victim and the bulk attacker split what the
# pacer sent evenly, but it sent about 17.5 of the 21 Mbit/s (victim
# 8.2 Mbit/s in two runs, 10.0 with 16 KB; docs/results.md). The line
# stated as a NIC reports it, and what its port counts per packet
# (docs/testbed.md, test_line_rate.py): MaxRate is the line, and
# verbsgate charges each packet's headers, so the port's queue stays
# empty at the line rate. Rows taken before 2026-12-07 paced below the
# line instead (`maxrate 21mbit`, payload only), which left two tenants
# of equal weight 10.5 Mbit/s each, 0.84 of the half of the line that
# Husky's predicate asks of either (docs/husky/notes.md). What a message
# costs besides its packets, as the test bed states it (OP_COST); rows
# taken before commit d0d950d charged the default 200 bytes.
ON_PACING = f"{LINE} {OP_COST} chunk 1k chunk-nolat 16k burst 16k"
# What an operator bounds a tenant's QPs to when it runs code the
# operator does not trust (README, "Installing on a real host"): at most
# 3 RNR and 3 transport retries, RNR NAKs at least 1 ms apart.
TENANT_BOUNDS = "rnr-retry-max 3 retry-cnt-max 3 rnr-timer-min 1ms"
# Both tenants' cgroups and their vCPUs; the test bed's own processes
# share the attacker's.
TENANT_CPUS = {"victim": "0", "attacker": "1"}
TESTBED_CPUS = "1"


def cell_wire(g: Guest):
    """The wire a cell runs on (a context manager yielding the Wire):
    victim and attacker pinned to TENANT_CPUS, the test bed's processes
    to TESTBED_CPUS, each tenant at addresses of its own whose packets
    it receives on its own vCPU (pinned_wire()'s steer). Unsteered, one
    vCPU received every packet of both: a latency victim's p99 then
    moved by a sixth from run to run, and on the victim's vCPU a
    message-rate storm's receive work was the attack (docs/results.md)."""
    return pinned_wire(g, TENANT_CPUS, testbed=TESTBED_CPUS, steer=True)


@dataclass(frozen=True)
class Role:
    """A victim or an attacker: vgload client arguments (to a far
    server; "--mode X-storm" ones need none), run by @procs processes,
    each with these arguments. @kind "latency" victims are judged on
    their p99, others on bytes/s and messages/s. @tenant_class is the
    class an operator gives a victim's tenant (`tenant add ... class`):
    latency for latency victims, throughput for one of small messages
    judged by their rate (so that other tenants' messages are cut in
    the device's smaller chunks, verbsgate(8)), bandwidth for the
    others. A victim whose @target
    is "nvme" reads an NVMe-over-RDMA namespace (vgload block-read): its
    tenant is the namespace's target, kernel QPs (victim_target())."""
    name: str
    args: str
    kind: str = "throughput"
    procs: int = 1
    target: str = ""
    tenant_class: str = "bandwidth"

    @property
    def local(self) -> bool:
        return "-storm" in self.args or bool(self.target)


# A latency victim's offered rate, and its operations timed from when
# they were due: timed from its posts, a victim with one WRITE
# outstanding completed about a dozen a second while the port's queue
# was full against over a thousand while it was free, so a stall half
# its run long was under 1 % of its samples and its p99 stayed at its
# alone value (coordinated omission, docs/husky/notes.md). 500/s is a
# quarter of what it completes alone (0.5 ms a WRITE) and 2 % of the
# line.
LATENCY_LOAD = "--depth 1 --rate 500 --latency-from due"

VICTIMS = {v.name: v for v in (
    Role("latency WRITE 64 B", f"--op write --size 64 {LATENCY_LOAD}",
         "latency", tenant_class="latency"),
    Role("latency SEND 64 B", f"--op send --size 64 {LATENCY_LOAD}",
         "latency", tenant_class="latency"),
    Role("closed-loop 4 KB x 16 QPs",
         "--op write --size 4K --qps 16 --depth 1"),
    Role("closed-loop 64 KB deep QP", "--op write --size 64K --depth 128"),
    Role("bulk 1 MB WRITE", "--mode bw"),
    Role("bulk 1 MB READ", "--mode bw --op read"),
    # The kernel tenant: 256 KB reads, 8 outstanding, of a namespace
    # whose target is on the near device; its read data leaves as the
    # target's RDMA WRITEs, across the port the attackers' WRITEs cross.
    Role("NVMe 256 KB reads", "--mode block-read --size 256K --depth 8",
         target="nvme"),
    Role("message rate 64 B x 4 QPs", "--op write --size 64 --qps 4 "
         "--depth 16", tenant_class="throughput"),
)}

ATTACKERS = {a.name: a for a in (
    Role("bulk WRITE x 16 QPs", "--mode bw --qps 16"),
    Role("bulk READ x 16 QPs", "--mode bw --op read --qps 16"),
    Role("bulk SEND x 16 QPs", "--mode bw --op send --qps 16"),
    Role("message-rate storm", "--op write --size 8 --qps 8 --depth 32 "
         "--post-list 8", procs=2),
    Role("wide: 128 QPs x 2048 MRs", "--mode wide"),
    Role("atomics", "--mode atomic-flood"),
    Role("READ incast", "--op read --size 64K --qps 8 --depth 16"),
    Role("RNR storm", "--mode rnr --qps 8"),
    # QPs that fail after one RNR retry, each reset and connected again.
    Role("error storm", "--mode rnr --qps 8 --rnr-retry 1 --recover"),
    Role("reg/dereg storm", "--mode mr-storm"),
    Role("QP create/destroy storm", "--mode qp-storm"),
    Role("CQ create/destroy storm", "--mode cq-storm"),
    Role("8 processes x 4 QPs", "--mode bw --size 64K --qps 4", procs=8),
)}

# A latency victim's benign neighbour: a bulk stream at the victim's
# weight, as a well-behaved tenant sends (one QP, a few WRITEs in
# flight), paced by verbsgate as the attackers are.
BENIGN = Role("benign stream", "--op write --size 64K --depth 8")

# The reduced matrix of `make check` (issue #46's list).
REDUCED = [
    ("closed-loop 4 KB x 16 QPs", "bulk WRITE x 16 QPs"),
    ("latency WRITE 64 B", "bulk WRITE x 16 QPs"),
    ("bulk 1 MB WRITE", "message-rate storm"),
    ("bulk 1 MB WRITE", "reg/dereg storm"),
    ("latency WRITE 64 B", "error storm"),
    ("bulk 1 MB WRITE", "8 processes x 4 QPs"),
    # And a kernel tenant next to a bulk tenant of user space.
    ("NVMe 256 KB reads", "bulk WRITE x 16 QPs"),
]


@dataclass
class Figures:
    """A victim's run: bytes/s and messages/s over WINDOW, its p99 (µs)
    over the whole run, and what the port did; and the bytes the
    attacker's processes completed over their runs, if one ran (an
    attack can cost the attacker more than the victim: rxe's go-back-N
    under drops at a full port). Bytes, not a rate: an attacker's
    processes do not start at the same instant, so their own rates do
    not add up to what they took together. With verbsgate loaded, an
    attacker and a throughput victim, @token_share is the victim's share
    of the tokens (payload, per-operation and per-packet cost:
    chunk_tokens()) verbsgate released to the two tenants over the
    middle of the victim's run (token_figures()), and @pacer_use what
    they came to against what the device's pacer let go over it: below
    1, turns went unserved while the tenants waited; 0 otherwise."""
    bytes_s: float
    ops_s: float
    p99_us: float
    port: dict = field(default_factory=dict)
    attacker_bytes: float = 0.0
    token_share: float = 0.0
    pacer_use: float = 0.0


def medians(runs: list[Figures]) -> Figures:
    return Figures(median(r.bytes_s for r in runs),
                   median(r.ops_s for r in runs),
                   median(r.p99_us for r in runs),
                   {k: median(r.port[k] for r in runs)
                    for k in runs[0].port},
                   median(r.attacker_bytes for r in runs),
                   median(r.token_share for r in runs),
                   median(r.pacer_use for r in runs))


def fair_share(alone: Figures, line_bytes: float = LINE_BYTES
               ) -> tuple[float, float]:
    """What the victim may ask for next to one tenant of its weight: the
    smaller of alone and half the line, in bytes/s, and in messages/s in
    the same proportion."""
    want = min(alone.bytes_s, line_bytes / 2)
    scale = want / alone.bytes_s if alone.bytes_s else 0.0
    return want, alone.ops_s * scale


def passes(victim: Role, alone: Figures, attacked: Figures, alpha: float,
           benign_p99: float = 0.0, line_bytes: float = LINE_BYTES
           ) -> bool:
    """Husky's predicate (module docstring)."""
    if victim.kind == "latency":
        return attacked.p99_us <= (1 + alpha) * max(alone.p99_us,
                                                     benign_p99)
    want_bytes, want_ops = fair_share(alone, line_bytes)
    return (attacked.bytes_s >= (1 - alpha) * want_bytes and
            attacked.ops_s >= (1 - alpha) * want_ops)


def verdict(victim: Role, alone: Figures, off: Figures, on: Figures,
            benign_p99: float = 0.0, line_bytes: float = LINE_BYTES
            ) -> dict:
    """The cell's verdicts: whether the attack hurts at all unloaded (by
    INEFFECTIVE, against alone, not the fair share: a victim that asks
    for more than its share is not attacked by being held to it), and
    with verbsgate at ALPHA and GOAL_ALPHA."""
    if victim.kind == "latency":
        hurt = off.p99_us > (1 + INEFFECTIVE) * alone.p99_us
    else:
        hurt = (off.bytes_s < (1 - INEFFECTIVE) * alone.bytes_s or
                off.ops_s < (1 - INEFFECTIVE) * alone.ops_s)
    result = {"effective": hurt}
    for name, alpha in (("alpha", ALPHA), ("goal", GOAL_ALPHA)):
        result[f"off_{name}"] = passes(victim, alone, off, alpha,
                                       benign_p99, line_bytes)
        result[f"on_{name}"] = passes(victim, alone, on, alpha, benign_p99,
                                      line_bytes)
    return result


def label(v: dict) -> str:
    """A verdict in a word, for the table and the heatmap. A victim that
    passes unloaded and fails under verbsgate says so first: the attack
    did not hurt, verbsgate did."""
    if v["off_alpha"] and not v["on_alpha"]:
        return "worse with verbsgate"
    if not v["effective"]:
        return "attack ineffective"
    return "stopped" if v["on_alpha"] else "not stopped"


def beyond_spread(victim: Role, off: list[Figures], on: list[Figures]
                  ) -> bool:
    """Whether every run with verbsgate did worse for @victim than every
    run without: a cell worse with verbsgate beyond the spread of its
    runs (issue #46), not within the test bed's noise."""
    if not off or not on:
        return False
    if victim.kind == "latency":
        return min(f.p99_us for f in on) > max(f.p99_us for f in off)
    return (max(f.bytes_s for f in on) < min(f.bytes_s for f in off) or
            max(f.ops_s for f in on) < min(f.ops_s for f in off))


# -- running a cell in the guest ---------------------------------------

def start_role(g: Guest, w: Wire, role: Role, cgroup: str, port: int,
               seconds: int, log: str, interval: int, extra: str = "",
               phases: str = "") -> list[str]:
    """@role's processes in @cgroup, unprivileged, in the background, to
    one far server from @port on (none for local storms), at the
    tenant's own addresses if the wire steers it (Wire.serve()); their
    logs, "@log.N" for process N. All the test bed's roles, victims and
    attackers alike, get the wire's ACK timeout (harness/wire.py
    QP_TIMEOUT): with perftest's, shorter than the scaled-down port takes
    to drain, a full port made every QP resend what was delivered, and
    the bulk attackers defeated themselves unloaded (docs/results.md).
    A role of several processes has one server, which starts their runs
    together once all are connected, and they are started in one guest
    command: set up one after another, each process but the first
    connected across the port the others kept full, and unloaded the
    8-process attacker's last one started its run two minutes after the
    first (docs/husky/notes.md). @extra: more of vgload's options for
    every process; @phases: process N notes its phases in "@phases.N"
    (vgload --phases)."""
    to = ("" if role.local else
          w.serve(cgroup, port, role.procs, together=role.procs > 1))
    device = "" if role.target else f"--dev {g.rxe_dev}"
    logs, starts = [], []
    for n in range(role.procs):
        args = (f"{to} --json --interval {interval} {device} "
                f"{role.args} --duration {seconds} {extra}")
        if phases:
            args += f" --phases {phases}.{n}"
        logs.append(f"{log}.{n}")
        cmd = in_cgroup(cgroup, f"{UNPRIVILEGED} {client_command(args)}")
        starts.append(f"nohup sh -c {shlex.quote(cmd)} >{logs[-1]} 2>&1 &")
    g.run(" ".join(starts), check=True)
    return logs


def _figures(result: dict, port: dict, attackers: list[dict],
             tokens: tuple[float, float]) -> Figures:
    """The victim's Figures from its vgload JSON (WINDOW's intervals) and
    the attacker's processes' (their totals; a failed one counts 0)."""
    first, last = WINDOW
    assert any(first <= i["t_start_s"] < last for i in result["intervals"]
               ), f"no report interval in {WINDOW}: {result}"
    return Figures(*window_rate(result, first, last),
                   result["total"]["lat_us"]["p99"], port,
                   sum(a["total"]["bytes"] for a in attackers
                       if a.get("ok")), *tokens)


# Where the victim's and the attacker's processes note their phases
# (vgload --phases): "run", "measure" and "end", each with the time, in a
# file of their own, "PREFIX.N" for process N. vgload's clock is
# CLOCK_MONOTONIC and the guest's scripts read /proc/uptime
# (CLOCK_BOOTTIME): the same clock in a guest that never suspends.
VICTIM_PHASES = "/tmp/husky-victim.phases"
ATTACKER_PHASES = "/tmp/husky-attacker.phases"
# Next to an attacker, the victim connects and sends first, unmeasured,
# and its measured run starts once every process of the attacker's has
# started its own (_conduct()), or after this long anyway.
# Started after the attacker, the victim set its connections up across
# the port the attacker kept full, and unloaded its TCP side channel
# backed off for seconds: in one run its p99 was 9.7 s, in another the
# attacker had ended before the victim began (docs/husky/notes.md).
ATTACK_SETUP_MAX_S = 40
# The attacker runs until the victim's measured run ends (_conduct());
# this only bounds it if that fails.
ATTACKER_BOUND_S = ATTACK_SETUP_MAX_S + SECONDS + 20

# Shell functions for the guest's timing scripts, builtins only (a
# process costs tenths of a second next to a storm): `now` sets $t to
# the guest's clock in whole seconds; `ended FILE` whether the --phases
# FILE has its "end"; `count PREFIX PHASE` sets $n to the lines for
# PHASE in the files PREFIX.*.
_PHASE_SH = (
    "now() { read -r up _ </proc/uptime; t=${up%.*}; }; "
    "ended() { [ -e \"$1\" ] || return 1; while read -r p _; do "
    "[ \"$p\" = end ] && return 0; done <\"$1\"; return 1; }; "
    "count() { n=0; for f in \"$1\".*; do [ -e \"$f\" ] || continue; "
    "while read -r p _; do [ \"$p\" = \"$2\" ] && n=$((n + 1)); "
    "done <\"$f\"; done; }; ")

# The guest's record of the tenants' tokens during a paced run, a sample
# every TOKEN_SAMPLE_S.
TOKENS_LOG = "/tmp/husky-tokens.log"
TOKEN_SAMPLE_S = 0.5


def _sample_tokens(g: Guest) -> int:
    """Records the tenants' counters in TOKENS_LOG every TOKEN_SAMPLE_S
    from now until the victim's run has ended (its --phases "end"), then
    "end": a line "@ UPTIME", a line "NAME TX_BYTES CHUNKS" per tenant, a
    line UPTIME. Its PID. Timed in the guest: next to a storm a command
    takes seconds to come and go, and a window timed from here ended
    after the victim's run. Read by the shell's builtins from sysfs,
    with no process started between the two readings of the clock: the
    sampler shares the attacker's vCPU (TESTBED_CPUS), and next to its 8
    processes `verbsgate -j stats` between them took 0.3 to 2.3 s, which
    put a sample's counters up to a second away from its time."""
    bound = ATTACK_SETUP_MAX_S + SECONDS + 10
    return g.spawn(
        f"{_PHASE_SH}s={SYSFS}/tenants; now; end=$((t + {bound})); "
        "while read -r up _ </proc/uptime && [ ${up%.*} -lt $end ] && "
        f"! ended {VICTIM_PHASES}.0; "
        "do echo \"@ $up\"; for ten in victim attacker; do "
        "read -r b <$s/$ten/tx_bytes && read -r c <$s/$ten/chunks && "
        "echo \"$ten $b $c\"; done; read -r up _ </proc/uptime; "
        f"echo $up; sleep {TOKEN_SAMPLE_S}; done; echo end",
        TOKENS_LOG)


def token_figures(samples: list[tuple[float, dict[str, int]]],
                  rate: float, measure: float, end: float
                  ) -> tuple[float, float]:
    """From @samples (guest clock, tokens by tenant) of a paced run: the
    victim's share of the tokens released to the two tenants, and what
    those came to against the pacer's @rate (bytes/s), over the middle
    three fifths of the victim's measured run, from @measure to @end
    (its warm-up, its client's drain and the attacker's setup left
    out); (0, 0) with fewer than two samples there or no tokens."""
    inside = [s for s in samples
              if measure + (end - measure) / 5 <= s[0] <=
              end - (end - measure) / 5]
    if len(inside) < 2:
        return 0.0, 0.0
    (t0, before), (t1, after) = inside[0], inside[-1]
    got = {n: after.get(n, 0) - before.get(n, 0)
           for n in ("victim", "attacker")}
    total = sum(got.values())
    if not total or t1 <= t0:
        return 0.0, 0.0
    return got["victim"] / total, total / (rate * (t1 - t0))


def chunk_tokens(tx_bytes: int, chunks: int, op_bytes: int, pkt_bytes: int,
                 mtu: int = MTU) -> int:
    """The tokens verbsgate charged for @chunks chunks of @tx_bytes of
    payload in all (token.h): each chunk's payload and @op_bytes, and
    @pkt_bytes for each of its packets at @mtu. The counters do not say
    how the payload was split, so the packets are counted as at least one
    a chunk and at least the payload's full packets: exact for a tenant
    whose chunks are all of at most one packet (the storms) or all whole
    packets (the bulk tenants' 1 KB and 16 KB chunks), fewer otherwise."""
    packets = max(chunks, -(-tx_bytes // mtu))
    return tx_bytes + op_bytes * chunks + pkt_bytes * packets


def _token_share(g: Guest) -> tuple[float, float]:
    """token_figures() of what _sample_tokens() recorded, once it ended,
    over the victim's measured run, in tokens (chunk_tokens()); the
    counters do not say which chunks were atomics (token.h: twice a data
    WR's cost), so next to the atomics attacker the share errs in the
    victim's favour."""
    d = dev(g)
    op_bytes, pkt_bytes = d["op_costs"]["data"]["bytes"], d["pkt_overhead"]
    rate = port1(g)["rate"]
    eventually("the token sampler's end", lambda: g.run(
        f"tail -n 1 {TOKENS_LOG} | grep -qx end").ok, True)
    out = g.run(f"cat {TOKENS_LOG}", check=True).out
    samples = []
    for part in out.split("@ ")[1:]:
        lines = part.removesuffix("end\n").split()
        if len(lines) % 3 != 2:     # the run ended inside a sample
            continue
        names = lines[1:-1:3]
        tokens = [chunk_tokens(int(b), int(c), op_bytes, pkt_bytes)
                  for b, c in zip(lines[2:-1:3], lines[3:-1:3])]
        samples.append(((float(lines[0]) + float(lines[-1])) / 2,
                        dict(zip(names, tokens))))
    phases = g.run(f"cat {VICTIM_PHASES}.0", check=True).out
    [measure] = phase_times(phases, "measure")
    [end] = phase_times(phases, "end")
    return token_figures(samples, rate, measure, end)


def role_outcome(g: Guest, log: str) -> dict:
    """An attacker's JSON; one that died without it, as a failed run
    with what it printed."""
    try:
        return vgload_result(g, log, wait_s=30)
    except AssertionError as e:
        return {"ok": False, "error": str(e)[-300:]}


def _wait_phase(g: Guest, phases: str, phase: str, wait_s: int = 30
                ) -> bool:
    """Waits until the file @phases has a line for @phase, for @wait_s
    at most: whether it has."""
    return g.run(f"i=0; until grep -q '^{phase} ' {phases} 2>/dev/null; "
                 f"do i=$((i + 1)); [ $i -le {wait_s * 10} ] || exit 1; "
                 "sleep 0.1; done").ok


def _conduct(g: Guest, attacker: Role) -> int:
    """Starts, in the background, what times the attack by the guest's
    clock, and returns its PID: once all of @attacker's processes have
    started their runs (or ATTACK_SETUP_MAX_S passed: a process that
    failed before its run never does, and its result says why), it ends
    the victim's warm-up (SIGUSR1, vgload --warmup), and once the
    victim's measured run has ended it interrupts every process of the
    attacker's tenant (SIGINT: each ends its run and reports). The
    victim's report crosses the port the attacker fills, and came back
    seconds late; and the host's commands themselves wait for the
    attacker's vCPU, where the test bed runs: started from the host, the
    victim's measured run began 21 to 34 s after the attacker's, and the
    attacker was interrupted 15 s after the victim's run. So one shell,
    real-time on that vCPU, reads the phases files with its builtins,
    five times a second until the victim measures, then twice a second
    (the sleep between is the only process it starts). Setting up took
    an attacker's process about 4 s, the 8-process attacker's 4.5 s,
    unloaded and paced."""
    procs = f"{CGROUPS}/{{}}/cgroup.procs"
    script = (
        f"{_PHASE_SH}now; end=$((t + {ATTACK_SETUP_MAX_S})); "
        f"count {ATTACKER_PHASES} run; "
        f"while [ $t -lt $end ] && [ $n -lt {attacker.procs} ]; "
        f"do sleep 0.2; now; count {ATTACKER_PHASES} run; done; "
        "while read -r p; do kill -USR1 $p; done <"
        f"{procs.format('victim')}; echo measuring; "
        f"now; end=$((t + {SECONDS + 30})); "
        f"while [ $t -lt $end ] && ! ended {VICTIM_PHASES}.0; "
        "do sleep 0.5; now; done; "
        "while read -r p; do kill -INT $p 2>/dev/null; done <"
        f"{procs.format('attacker')}; echo interrupted")
    # Real-time: next to an attacker that keeps the vCPU busy, and its
    # ksoftirqd at nice -20 (wire.sh), a shell at nice 0 waits seconds.
    return g.spawn(f"exec chrt -f 50 sh -c {shlex.quote(script)}",
                   "/tmp/husky-conduct.log")


def phase_times(text: str, phase: str) -> list[float]:
    """The times of @phase's lines in a vgload --phases file's @text."""
    words = (line.split() for line in text.splitlines())
    return [float(w[1]) for w in words if len(w) >= 2 and w[0] == phase]


def attack_gaps(victim_phases: str, attacker_phases: list[str],
                ok: list[bool]) -> list[str]:
    """Where the attack did not cover the victim's measured run, from the
    --phases files' texts of the victim and of each attacker process,
    and whether each process's run ended well: a process that ended
    well must have started its run before the victim's measured run
    began and ended it after that run ended (it is interrupted then). A
    failed process is the attacker's own outcome, which the cell
    reports (Cell.attacker_errors), not a gap."""
    [measure] = phase_times(victim_phases, "measure")
    [end] = phase_times(victim_phases, "end")
    gaps = []
    for n, (text, good) in enumerate(zip(attacker_phases, ok)):
        if not good:
            continue
        run, stop = phase_times(text, "run"), phase_times(text, "end")
        if not run or not stop:
            gaps.append(f"attacker process {n} noted no run")
        elif run[0] > measure:
            gaps.append(f"attacker process {n} started its run "
                        f"{run[0] - measure:.2f} s into the victim's")
        elif stop[0] < end:
            gaps.append(f"attacker process {n} ended its run "
                        f"{end - stop[0]:.2f} s before the victim's")
    return gaps


def _attack_covered(g: Guest, attacker: Role, others: list[dict]) -> None:
    """Fails the run unless every process of the attacker's that ended
    well was sending throughout the victim's measured run: a cell's
    verdict about an attack that came late or left early would be about
    no attack."""
    texts = [g.run(f"cat {ATTACKER_PHASES}.{n} 2>/dev/null").out
             for n in range(attacker.procs)]
    gaps = attack_gaps(g.run(f"cat {VICTIM_PHASES}.0", check=True).out,
                       texts, [bool(r.get("ok")) for r in others])
    assert not gaps, (f"the attack did not cover the victim's measured run "
                      f"(setting up took longer than ATTACK_SETUP_MAX_S, "
                      f"{ATTACK_SETUP_MAX_S} s?): {'; '.join(gaps)}")


def run_once(g: Guest, w: Wire, victim: Role, attacker: Role | None,
             port: int) -> tuple[Figures, list[dict]]:
    """The victim for SECONDS, next to @attacker unless None: the
    victim's Figures and the attacker's results. Next to an attacker,
    the victim connects and sends first, the attacker starts, the
    victim's measured run starts once the attacker's processes all send,
    and the attacker is interrupted when it ends (_conduct()).
    The victim's client must end well; an attacker may fail (a storm
    that meets a device limit), which its results say."""
    attacks, tokens, helpers = [], (0.0, 0.0), []
    lead = ATTACK_SETUP_MAX_S if attacker else 0
    g.run(f"rm -f {VICTIM_PHASES}.* {ATTACKER_PHASES}.* {TOKENS_LOG}",
          check=True)
    try:
        with w.watch() as counts, w.watch("vg1") as far:
            [log] = start_role(g, w, victim, "victim", port, SECONDS,
                               "/tmp/husky-victim.log", 1,
                               f"--warmup {lead}", VICTIM_PHASES)
            if attacker:
                assert _wait_phase(g, f"{VICTIM_PHASES}.0", "run"), (
                    "the victim did not start its run")
                helpers.append(_conduct(g, attacker))
                attacks = start_role(g, w, attacker, "attacker", port + 1,
                                     ATTACKER_BOUND_S,
                                     "/tmp/husky-attacker.log", 1,
                                     phases=ATTACKER_PHASES)
            # Not next to a latency victim, whose p99 would pay for it.
            sample = (attacker and victim.kind != "latency" and
                      g.verbsgate_loaded())
            if sample:
                helpers.append(_sample_tokens(g))
            result = vgload_result(g, log, wait_s=ATTACK_SETUP_MAX_S +
                                   SECONDS + 60)
            if sample and result["ok"]:
                tokens = _token_share(g)
            others = [role_outcome(g, a) for a in attacks]
    finally:
        # Neither timing script may outlive its run and signal the next
        # one's processes.
        if helpers:
            g.run("kill " + " ".join(map(str, helpers)) + " 2>/dev/null")
        stop_vgload(g)
    assert result["ok"], result
    if attacker:
        _attack_covered(g, attacker, others)
    port_figures = {"bytes": counts.bytes, "drops": counts.drops,
                    "held": counts.held, "far_bytes": far.bytes,
                    "far_drops": far.drops, "far_held": far.held}
    return _figures(result, port_figures, others, tokens), others


@dataclass
class Baseline:
    """A victim's runs without an attacker, taken once for all its
    cells (run_baseline()): alone, verbsgate unloaded; alone_on, under
    verbsgate as load_paced() sets it up; and a latency victim's runs
    next to BENIGN under verbsgate."""
    victim: str
    alone: list[Figures] = field(default_factory=list)
    alone_on: list[Figures] = field(default_factory=list)
    benign: list[Figures] = field(default_factory=list)

    @property
    def benign_p99(self) -> float:
        return median(f.p99_us for f in self.benign) if self.benign else 0.0


@dataclass
class Cell:
    """A cell's runs next to the attacker, each way, and what the
    attacker managed."""
    victim: str
    attacker: str
    off: list[Figures] = field(default_factory=list)
    on: list[Figures] = field(default_factory=list)
    attacker_ok: list[bool] = field(default_factory=list)
    attacker_errors: list[str] = field(default_factory=list)

    def summary(self, base: Baseline) -> dict:
        ways = {"alone": base.alone, "off": self.off, "on": self.on,
                "alone_on": base.alone_on}
        m = {way: medians(runs) for way, runs in ways.items()}
        v = verdict(VICTIMS[self.victim], m["alone"], m["off"], m["on"],
                    base.benign_p99)
        return {"victim": self.victim, "attacker": self.attacker,
                **{way: asdict(f) for way, f in m.items()},
                "benign_p99_us": base.benign_p99,
                "benign": asdict(medians(base.benign)) if base.benign
                else None,
                "verdict": v, "label": label(v),
                "attacker_ok": self.attacker_ok,
                "attacker_errors": self.attacker_errors, "runs": {
                    way: [asdict(f) for f in runs]
                    for way, runs in (*ways.items(),
                                      ("benign", base.benign))}}


# The nvmet port of an NVMe victim's namespace (victim_target()), clear
# of the other tests' (nvme.FIRST_SUBSYSTEM_PORT on).
NVME_PORT_ID = 41


def _nqn(w: Wire) -> str:
    return nvme.subsystem_nqn(w.addresses["victim"].near)


@contextmanager
def victim_target(g: Guest, w: Wire, victim: Role):
    """The Role to run for @victim on the steered wire @w: itself, or for
    an NVMe victim, with the namespace it reads (--file): a null_blk
    exported by nvmet at the victim's near address, so that its target's
    QPs are on rxe0 and send the read data across vg0 as RDMA WRITEs next
    to the attackers', connected from the victim's far address (rxe1),
    and readable by the unprivileged tenant (as a tenant owns the disk of
    its VM). Both addresses are received on the victim's vCPU, so the
    target's work runs there."""
    if not victim.target:
        yield victim
        return
    at = w.addresses["victim"]
    with nvme.nvme_over_rdma(g, nqn=_nqn(w), addr=at.near,
                             port_id=NVME_PORT_ID, size_mb=256,
                             host_addr=at.far) as path:
        g.run(f"chown nobody {path}", check=True)
        yield replace(victim, args=f"{victim.args} --file {path}")


def load_paced(g: Guest, victim: Role, w: Wire | None = None):
    """verbsgate with both tenants at weight 1, the victim's in its
    Role's tenant_class, their QPs within TENANT_BOUNDS, the device paced
    as an operator is told to (ON_PACING). An NVMe victim's tenant is its
    target's QPs, selected by their address on the steered wire @w, and
    its controller is reset so that they are made again under verbsgate
    (which leaves QPs made before it alone); they are not bounded."""
    assert g.load_verbsgate().ok
    # A kernel tenant's QPs are the operator's own code: not bounded.
    select, bounds = ((f"local {w.addresses['victim'].near}/32 ", "")
                      if victim.target else ("", TENANT_BOUNDS))
    add_tenants(g, {"victim": f"{select}class {victim.tenant_class} "
                              f"weight 1 {bounds}",
                    "attacker": f"class bandwidth weight 1 {TENANT_BOUNDS}"})
    cli_ok(g, f"dev set {g.rxe_dev} {ON_PACING} enforce on")
    if victim.target:
        nvme.reset_controllers(g, [_nqn(w)])


def run_baseline(g: Guest, w: Wire, v: Role, runs: int, port: int
                 ) -> Baseline:
    """The Baseline of victim @v (as victim_target() gives it): @runs
    rounds of alone, then alone_on and (a latency victim) next to BENIGN
    in the attacker's cgroup in one load of verbsgate. A victim's runs
    without an attacker are the same for each of its cells: taken once,
    they halve what a cell costs (its rounds run off and on only). Ports
    from @port on, thirty per round."""
    base = Baseline(v.name)
    for _ in range(runs):
        base.alone.append(run_once(g, w, v, None, port)[0])
        load_paced(g, v, w)
        try:
            base.alone_on.append(run_once(g, w, v, None, port + 10)[0])
            if v.kind == "latency":
                base.benign.append(run_once(g, w, v, BENIGN, port + 20)[0])
        finally:
            g.unload_verbsgate()
        port += 30
    return base


def run_cell(g: Guest, w: Wire, v: Role, attacker: str, runs: int,
             port: int) -> Cell:
    """@runs rounds of victim @v (as victim_target() gives it) next to
    the attacker, verbsgate unloaded, then loaded (load_paced()) and
    unloaded again. Ports from @port on, twenty per round."""
    cell = Cell(v.name, attacker)
    a = ATTACKERS[attacker]
    for _ in range(runs):
        fig, others = run_once(g, w, v, a, port)
        cell.off.append(fig)
        load_paced(g, v, w)
        try:
            fig, others_on = run_once(g, w, v, a, port + 10)
        finally:
            g.unload_verbsgate()
        cell.on.append(fig)
        cell.attacker_ok.append(all(r.get("ok") for r in others + others_on))
        cell.attacker_errors += [r.get("error") or r.get("end_reason", "")
                                 for r in others + others_on
                                 if not r.get("ok")]
        port += 20
    return cell
