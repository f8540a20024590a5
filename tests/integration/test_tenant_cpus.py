"""Tenants on their own vCPUs (issue #23): the guest has two, and a
pinned isolation test puts the victim's cgroup on vCPU 0, the attacker's
on vCPU 1, and the test bed's own processes (the agent, its commands and
servers) next to the attacker (tenants.pin_cgroups()), so that what the
attacker does to the victim goes through the device, not through a CPU
they share.

The check: a CPU-only burner (no RDMA) in the attacker's cgroup, pinned
and then unpinned, next to a 64 B WRITE victim, each compared with the
victim alone in the same rounds of one boot (like with like: the host,
not the guest, sets how fast a vCPU runs, and it varies between runs by
more than the burner's pinned effect; docs/testbed.md).

- In the guest, pinning is what it says: next to the pinned burner the
  victim's tasks wait for a CPU less than PINNED_WAIT of the time (the
  cgroup's CPU pressure against its CPU time); unpinned they wait more
  than UNPINNED_WAIT, which shows that the burner burns.
- What the victim sees: the pinned burner costs its rate and its p99 at
  most PINNED_SHARE of what the unpinned burner costs them. On a 2-core
  host the burner's vCPU takes a host core and leaves the victim's vCPU
  to share the other with QEMU's own threads, so the pinned burner may
  cost a few tens of percent (20 % of the rate on the slower host of
  docs/testbed.md) where the alone runs themselves spread by as much;
  unpinned, the victim loses two thirds of its rate and its p99 grows
  ten times. A fixed band around the alone figure would measure the
  host; the unpinned burner, measured in the same boot, is the scale.
"""
from math import log
from statistics import median

from harness.reports import report
from harness.tenants import CGROUPS, empty_cgroups, in_cgroup, pin_cgroups
from harness.traffic import stop_vgload, vgload_result
from harness.wire import LABEL, LOCAL, Wire, far_server, near_client

# The layout of pinned isolation tests: the test bed's own processes
# share the attacker's vCPU.
TENANT_CPUS = {"victim": "0", "attacker": "1"}
TESTBED_CPUS = "1"
SECONDS = 6
VICTIM = f"--op write --size 64 --depth 1 --duration {SECONDS}"
# One busy process per vCPU: unpinned, three runnable tasks share two
# vCPUs, and the victim waits about a third of the time.
BURNERS = 2
# Rounds of an alone and a burner run, the order alternating (ABBA), and
# the unpinned burner's runs.
ROUNDS = 4
UNPINNED_RUNS = 2
PINNED_WAIT = 0.10
UNPINNED_WAIT = 0.20
# The pinned burner's cost to the victim against the unpinned one's, in
# log ratios to alone (rate: log(alone / with), p99: log(with / alone)).
# Measured: 0.05 to 0.25 of it on both hosts of docs/testbed.md, where
# the alone runs of one boot spread by up to 0.5 in the same measure;
# a burner that pinning did not keep away would cost about 1.
PINNED_SHARE = 0.5
# The unpinned burner must hurt for the comparison to mean anything:
# measured, it cut the rate by 2 to 3 times and raised the p99 13 to 16
# times.
UNPINNED_RATE = 1.5
UNPINNED_P99 = 2.0


def cpu_counters(g, cgroup: str) -> tuple[int, int]:
    """The cgroup's CPU time and the time some task of it waited for a
    CPU (PSI "some"), µs. Both keep counting after the tasks end, so a
    run is measured whole whenever the agent reads them."""
    out = g.run(f"cd {CGROUPS}/{cgroup} && "
                "awk '$1 == \"usage_usec\" {print $2}' cpu.stat && "
                "sed -n 's/^some .*total=//p' cpu.pressure",
                check=True).out.split()
    return int(out[0]), int(out[1])


def victim_run(g, port: int, burn: bool) -> dict:
    """The victim's figures (ops/s, p50, p99 µs) and the share of its
    time its tasks waited for a CPU while it ran."""
    try:
        if burn:
            for _ in range(BURNERS):
                g.spawn(in_cgroup("attacker", "yes"), "/dev/null")
            g.run("sleep 1")
        far_server(g, port)
        used0, waited0 = cpu_counters(g, "victim")
        near_client(g, "victim", port, VICTIM, "/tmp/cpus-victim.log")
        res = vgload_result(g, "/tmp/cpus-victim.log")
        used1, waited1 = cpu_counters(g, "victim")
    finally:
        # The far server too, which runs in the test bed's cgroup.
        stop_vgload(g)
        empty_cgroups(g, TENANT_CPUS)
    assert res["ok"], res
    used, waited = used1 - used0, waited1 - waited0
    assert used > 0, (used0, used1)
    t = res["total"]
    return {"ops": t["mops"] * 1e6, "p50": t["lat_us"]["p50"],
            "p99": t["lat_us"]["p99"], "wait": waited / (used + waited)}


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
                    victim_run(g, port, burn))
                port += 1
        pin_cgroups(g, {name: "" for name in TENANT_CPUS})
        for _ in range(UNPINNED_RUNS):
            unpinned.append(victim_run(g, port, True))
            port += 1
    med = {name: {k: median(r[k] for r in rs) for k in rs[0]}
           for name, rs in runs.items()}
    rows = [f"A 64 B WRITE victim (one outstanding) on vCPU 0, {BURNERS} "
            "CPU burners (`yes`) in the attacker's cgroup on vCPU 1, or "
            f"both cgroups on both vCPUs; {SECONDS} s runs, pinned in "
            f"{ROUNDS} alternated rounds, unpinned {UNPINNED_RUNS} runs; "
            "medians, the runs' spread in brackets.", "",
            "| victim | waited for a CPU | ops/s | p50 µs | p99 µs |",
            "|---|---|---|---|---|"]
    for name, rs in runs.items():
        m = med[name]

        def spread(k, fmt):
            lo, hi = (format(f(r[k] for r in rs), fmt) for f in (min, max))
            return f"{format(m[k], fmt)} ({lo}–{hi})"
        rows.append(f"| {name} | {spread('wait', '.1%')} | "
                    f"{spread('ops', '.0f')} | {spread('p50', '.0f')} | "
                    f"{spread('p99', '.0f')} |")

    def cost(name):
        """What the burner cost the victim, as log ratios to alone."""
        return {"ops": log(med["alone, pinned"]["ops"] / med[name]["ops"]),
                "p99": log(med[name]["p99"] / med["alone, pinned"]["p99"])}
    costs = {name: cost(name) for name in list(runs)[1:]}
    rows += ["", "Cost against alone (log ratio): pinned rate "
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
