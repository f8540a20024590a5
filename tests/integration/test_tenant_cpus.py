"""Tenants on their own vCPUs (issue #23): the guest has two, and a
pinned isolation test puts the victim's cgroup on vCPU 0, the attacker's
on vCPU 1, and the test bed's own processes (the agent, its commands and
servers) next to the attacker (tenants.pin_cgroups()), so that what the
attacker does to the victim goes through the device, not through a CPU
they share.

The check: a CPU-only burner (no RDMA) in the attacker's cgroup, pinned
and then unpinned, next to a 64 B WRITE victim, each compared with the
victim alone in the same rounds of one boot.

- In the guest, pinning is what it says: next to the pinned burner the
  victim's tasks wait for a CPU less than PINNED_WAIT of the time (the
  cgroup's CPU pressure against its CPU time); unpinned they wait more
  than UNPINNED_WAIT, which shows that the burner burns.
- What the victim sees, its rate counted in its vCPUs' time on the host
  (operations per second its vCPUs ran on a host CPU) and its p99: the
  pinned burner costs each at most PINNED_SHARE of what the unpinned
  burner costs it. The unpinned burner, measured in the same boot, is
  the scale, and must cost at least UNPINNED_RATE times the rate and
  UNPINNED_P99 times the p99.

Why the vCPUs' host time: the vCPUs are QEMU's threads on the host's two
cores, shared with QEMU's own threads and whatever else runs on the
host. When the host is busy, a burning vCPU 1 takes host time from vCPU
0: with a host process burning a core, the pinned burner made the
victim's vCPU wait for a host CPU 38 % of the time instead of 11 %, cut
its rate per second of wall clock by 43 % and raised its p99 ten times
(426 to 4473 µs), while in the guest the victim's tasks waited for a CPU
4 % of the time and its rate per second of its vCPU's host time fell
22 %. One CI run failed the earlier wall-clock bound of the rate that way
(40 % of it, the victim's tasks waiting for a guest CPU 4.2 % of the
time). That is the host's share, which a NIC host with a core per vCPU
would not have. The p99 has no such measure: it stays wall clock, and
holds while the host leaves QEMU its two cores (in the CI run above 0.24
of the unpinned burner's cost, against 0.6 with a host core taken away);
the report gives what the host made the victim's vCPUs wait next to it
(docs/testbed.md).
"""
from math import log
from statistics import median

from harness.reports import report
from harness.tenants import CGROUPS, empty_cgroups, in_cgroup, pin_cgroups
from harness.traffic import stop_vgload, vgload_result
from harness.wire import LABEL, LOCAL, Wire, far_server, near_client_command

# The layout of pinned isolation tests: the test bed's own processes
# share the attacker's vCPU.
TENANT_CPUS = {"victim": "0", "attacker": "1"}
TESTBED_CPUS = "1"
SECONDS = 6
VICTIM = f"--op write --size 64 --depth 1 --duration {SECONDS}"
# Two busy processes per vCPU: unpinned, five runnable tasks share two
# vCPUs. Pinned, they are as many for the host as one: vCPU 1 busy.
BURNERS = 4
# Rounds of an alone and a burner run, the order alternating (ABBA), and
# the unpinned burner's runs. Two rounds: in four, the pinned runs'
# rates were within 6 % of each other, the unpinned's within a fifth and
# every kind's p99s within a third; the margins below are wider by far.
# One unpinned run: it cut the victim's rate 8 times and raised its p99
# 35 times, where the bounds ask for 1.5 and 2; a fifth more or less of
# it moves the pinned runs' bound (half its log cost, about 1) by 0.1,
# and they cost 0.01 to 0.09.
ROUNDS = 2
UNPINNED_RUNS = 1
PINNED_WAIT = 0.10
UNPINNED_WAIT = 0.20
# The pinned burner's cost to the victim against the unpinned one's, in
# log ratios to alone (rate in its vCPUs' host time: log(alone / with),
# p99: log(with / alone)). Measured: the rate 0.03 of it on an idle host,
# 0.09 with a host process burning a core; the p99 0.06 on an idle host
# (0.6 with the host core taken); a burner that pinning did not keep
# away would cost about 1.
PINNED_SHARE = 0.5
# The unpinned burner must hurt for the comparison to mean anything:
# measured, it cut the rate per host second of the victim's vCPUs 8
# times (14 with the host busy) and raised the p99 35 (49) times.
UNPINNED_RATE = 1.5
UNPINNED_P99 = 2.0


def cpu_counters(g, cgroup: str) -> tuple[int, int]:
    """The cgroup's CPU time and the time some task of it waited for a
    CPU (PSI "some"), µs. Both keep counting after the tasks end, so a
    run is measured whole whenever the agent reads them."""
    # The shell's builtins: next to the burners an awk and a sed took
    # 0.8 s.
    out = g.run(f"cd {CGROUPS}/{cgroup} && while read -r k v; do "
                "[ $k = usage_usec ] && echo $v; done <cpu.stat; "
                "read -r some avg10 avg60 avg300 total <cpu.pressure && "
                "echo ${total#total=}", check=True).out.split()
    return int(out[0]), int(out[1])


def victim_run(g, port: int, burn: bool, cpus: list[int]) -> dict:
    """The victim's figures (ops/s, ops per host CPU-second of its vCPUs
    @cpus, p50, p99 µs), the share of its time its tasks waited for a
    guest CPU while it ran, and the share its vCPUs waited for a host
    CPU."""
    log = "/tmp/cpus-victim.log"
    try:
        if burn:
            g.run(" ".join(f"nohup {in_cgroup('attacker', 'yes')} "
                           ">/dev/null 2>&1 &" for _ in range(BURNERS)) +
                  " sleep 1", check=True)
        far_server(g, port)
        used0, waited0 = cpu_counters(g, "victim")
        host0 = g.vcpu_host_times()
        # In the foreground, so that the vCPUs' host times span the run
        # and little else.
        g.run(near_client_command(g, "victim", port, VICTIM) + f" >{log}",
              timeout=SECONDS + 60)
        host1 = g.vcpu_host_times()
        # The client has ended: its log is whole, or never will be.
        res = vgload_result(g, log, wait_s=0)
        used1, waited1 = cpu_counters(g, "victim")
    finally:
        # The far server too, which runs in the test bed's cgroup.
        stop_vgload(g)
        empty_cgroups(g, TENANT_CPUS)
    assert res["ok"], res
    used, waited = used1 - used0, waited1 - waited0
    assert used > 0, (used0, used1)
    ran, held = (sum(host1[c][i] - host0[c][i] for c in cpus)
                 for i in (0, 1))
    t = res["total"]
    return {"ops": t["mops"] * 1e6, "vcpu_ops": t["ops"] / ran,
            "p50": t["lat_us"]["p50"], "p99": t["lat_us"]["p99"],
            "wait": waited / (used + waited), "host_wait": held / (ran + held)}


def test_a_cpu_burner_in_a_pinned_neighbour_leaves_the_victim_its_cpu(
        guest):
    g = guest
    runs = {"alone, pinned": [], "burner next door, pinned": [],
            "burner next door, unpinned": []}
    alone, pinned, unpinned = runs.values()
    port = 19200
    with Wire(g, order=LOCAL):
        pin_cgroups(g, TENANT_CPUS, TESTBED_CPUS)
        for i in range(ROUNDS):
            for burn in ((False, True) if i % 2 == 0 else (True, False)):
                (pinned if burn else alone).append(
                    victim_run(g, port, burn, [0]))
                port += 1
        pin_cgroups(g, {name: "" for name in TENANT_CPUS})
        for _ in range(UNPINNED_RUNS):
            unpinned.append(victim_run(g, port, True, [0, 1]))
            port += 1
    med = {name: {k: median(r[k] for r in rs) for k in rs[0]}
           for name, rs in runs.items()}
    rows = [f"A 64 B WRITE victim (one outstanding) on vCPU 0, {BURNERS} "
            "CPU burners (`yes`) in the attacker's cgroup on vCPU 1, or "
            f"both cgroups on both vCPUs; {SECONDS} s runs, pinned in "
            f"{ROUNDS} alternated rounds, unpinned {UNPINNED_RUNS} run(s); "
            "medians, the runs' spread in brackets. The victim's vCPUs: "
            "what the host gave the vCPUs it may run on while it ran.", "",
            "| victim | waited for a CPU | its vCPUs waited for the host "
            "| ops/s | ops per host CPU-s of its vCPUs | p50 µs | p99 µs |",
            "|---|---|---|---|---|---|---|"]
    for name, rs in runs.items():
        m = med[name]

        def spread(k, fmt):
            lo, hi = (format(f(r[k] for r in rs), fmt) for f in (min, max))
            return f"{format(m[k], fmt)} ({lo}–{hi})"
        rows.append(f"| {name} | {spread('wait', '.1%')} | "
                    f"{spread('host_wait', '.1%')} | {spread('ops', '.0f')} "
                    f"| {spread('vcpu_ops', '.0f')} | {spread('p50', '.0f')} "
                    f"| {spread('p99', '.0f')} |")

    def cost(name):
        """What the burner cost the victim, as log ratios to alone."""
        return {"ops": log(med["alone, pinned"]["vcpu_ops"] /
                           med[name]["vcpu_ops"]),
                "p99": log(med[name]["p99"] / med["alone, pinned"]["p99"])}
    costs = {name: cost(name) for name in list(runs)[1:]}
    rows += ["", "Cost against alone (log ratio, the rate per host "
             "CPU-second of the victim's vCPUs): pinned rate "
             f"{costs['burner next door, pinned']['ops']:.2f}, p99 "
             f"{costs['burner next door, pinned']['p99']:.2f}; unpinned "
             f"rate {costs['burner next door, unpinned']['ops']:.2f}, p99 "
             f"{costs['burner next door, unpinned']['p99']:.2f}."]
    report(f"Tenant CPU isolation ({LABEL})", rows)

    assert med["burner next door, pinned"]["wait"] < PINNED_WAIT, med
    assert med["burner next door, unpinned"]["wait"] > UNPINNED_WAIT, med
    hurt = costs["burner next door, unpinned"]
    assert hurt["ops"] >= log(UNPINNED_RATE), (costs, med)
    assert hurt["p99"] >= log(UNPINNED_P99), (costs, med)
    for k in ("ops", "p99"):
        assert costs["burner next door, pinned"][k] <= \
            PINNED_SHARE * hurt[k], (k, costs, med)
