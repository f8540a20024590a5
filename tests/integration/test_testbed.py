"""The test bed itself: it must notice a sick kernel instead of hanging.

These tests use a guest of their own. The first ones check that the
agent keeps answering under what tests do to it; the rest break the guest
on purpose, in the order below: warning, oops, stuck command, stuck agent,
hung QEMU, every CPU locked up, panic. A test that kills the guest leaves
the next one a fresh guest.
"""
import json
import os
import signal
import time

import pytest

from harness.testbed import FAULT_MODULE, Guest, GuestError, guest_clock


@pytest.fixture(scope="module")
def victims():
    """Every guest these tests started, the one in use last; and a spare
    booting for the next test when the one in use is doomed."""
    guests = {"used": [], "spare": None}
    yield guests
    for g in guests["used"] + [guests["spare"]]:
        if g is not None:
            g.kill()
            g.cleanup()


@pytest.fixture
def victim(victims, request):
    """The guest of one test. For a test that kills it (marked
    kills_guest), the next test's guest boots meanwhile (half a minute in
    TCG), if a later test here needs one."""
    used = victims["used"]
    if not used or not used[-1].alive():
        spare, victims["spare"] = victims["spare"], None
        used.append((spare or Guest(reply_grace=5).launch()).wait_ready())
    items = request.session.items
    later = items[items.index(request.node) + 1:]
    if request.node.get_closest_marker("kills_guest") and any(
            i.module is request.module and "victim" in i.fixturenames
            for i in later):
        victims["spare"] = Guest(reply_grace=5).launch()
    return used[-1]


CLOCK_ORDER = "tests/integration/guest/clock_order.py"

# Rounds of the child-death test, and how often one of them times out.
# The agent that handled SIGCHLD with a lock-taking handler (see
# tests/integration/guest/agent.py) stopped answering in round 0, 1 and 3
# of three tries with this test; 50 rounds leave a wide margin.
BURST_ROUNDS = 50
TIMEOUT_EVERY = 25
BURST_SIZE = 8


def zombies_of_agent(g: Guest) -> list[str]:
    """PIDs of exited children of the agent (PID 1) not yet reaped."""
    out = g.run("for f in /proc/[0-9]*/stat; do "
                "read -r s <$f 2>/dev/null || continue; "
                "set -- ${s##*) }; "
                "[ \"$1 $2\" = 'Z 1' ] && echo ${f#/proc/}; done; true",
                check=True).out
    return [line.split("/")[0] for line in out.split()]


def test_agent_survives_bursts_of_child_deaths(victim):
    """Background processes outlive the command that started them and
    become the agent's children; tests kill them in groups (a tenant's
    processes, readers and churners) and the agent kills a timed-out
    command's process group. Each burst of deaths is a burst of SIGCHLD
    on the agent while it serves the next request: it must keep
    answering and reap every one of them."""
    burst = " ".join(["sleep 600 >/dev/null 2>&1 & echo $!;"] * BURST_SIZE)
    for rnd in range(BURST_ROUNDS):
        # The subshell exits at once: its sleeps are re-parented to the
        # agent, and die together while the agent waits for this command.
        res = victim.run(f"pids=$( ( {burst} ) ); kill -9 $pids; "
                         "echo $pids", timeout=30)
        assert res.ok, f"round {rnd}: {res.out}"
        assert len(res.out.split()) == BURST_SIZE
        if rnd % TIMEOUT_EVERY == 0:
            # A command that times out: the agent kills its whole group.
            res = victim.run(" ".join(["sleep 600 &"] * BURST_SIZE) +
                             " wait", timeout=1)
            assert res.rc is None and "timed out" in res.out
    assert victim.run("echo alive").out.strip() == "alive"
    # The reaper collects them: a short while later none is left over.
    deadline = time.monotonic() + 10
    while (left := zombies_of_agent(victim)) and time.monotonic() < deadline:
        time.sleep(0.5)
    assert left == [], f"unreaped children of the agent: {left}"


def test_guest_clock_is_fast_and_ordered_across_cpus(victim):
    """The guest keeps time with the TSC when the host does (testbed's
    guest_clock()), and its monotonic clock never runs backwards from
    one vCPU to the other: the pacer and rxe's timers rely on both."""
    source = victim.run("cat /sys/devices/system/clocksource/clocksource0/"
                        "current_clocksource", check=True).out.strip()
    assert source == ("tsc" if guest_clock() else "hpet"), source
    res = victim.run(f"python3 {victim.repo / CLOCK_ORDER} 2000",
                     check=True, timeout=120)
    seen = json.loads(res.out)
    assert seen["backwards_ns"] == [], seen


def test_slab_debugging_is_on(victim):
    """Every test runs with SLUB's checks (slub_debug=FZPU), so that a
    use-after-free in the module is caught where it happens."""
    res = victim.run("cat /sys/kernel/slab/kmalloc-64/sanity_checks "
                     "/sys/kernel/slab/kmalloc-64/poison "
                     "/sys/kernel/slab/kmalloc-64/red_zone "
                     "/sys/kernel/slab/kmalloc-64/store_user", check=True)
    assert res.out.split() == ["1", "1", "1", "1"]


def test_slab_corruption_is_detected(victim):
    mark = victim.console_mark()
    victim.run(f"insmod {FAULT_MODULE} action=uaf")
    with pytest.raises(GuestError) as err:
        victim.assert_no_kernel_errors(mark)
    assert "Poison overwritten" in str(err.value)


def test_warning_is_detected(victim):
    mark = victim.console_mark()
    res = victim.run(f"insmod {FAULT_MODULE} action=warn")
    assert res.rc != 0
    with pytest.raises(GuestError) as err:
        victim.assert_no_kernel_errors(mark)
    assert "vg_fault: injected warning" in err.value.console
    assert "WARNING:" in str(err.value)


def test_oops_is_detected(victim):
    mark = victim.console_mark()
    res = victim.run(f"insmod {FAULT_MODULE} action=oops", timeout=30)
    assert res.rc != 0  # insmod dies with the oops
    with pytest.raises(GuestError) as err:
        victim.assert_no_kernel_errors(mark)
    report = str(err.value)
    assert "BUG: kernel NULL pointer dereference" in report
    assert "Oops" in report
    assert "vg_fault_init" in report, "the console log must be in the report"
    assert victim.run("echo alive").out.strip() == "alive"


def test_stuck_command_times_out(victim):
    start = time.monotonic()
    res = victim.run("sleep 600", timeout=2)
    assert res.rc is None and "timed out" in res.out
    assert time.monotonic() - start < 60
    assert victim.run("echo alive").out.strip() == "alive"


@pytest.mark.kills_guest
def test_stuck_agent_is_diagnosed(victim):
    # A process outside the command's session keeps its output open, so
    # the agent waits for it: the guest stops answering, the kernel is fine.
    with pytest.raises(GuestError, match="stopped answering") as err:
        victim.run("setsid sleep 600 & exit 0", timeout=2)
    report = str(err.value)
    assert "sysrq: Show Blocked State" in report
    assert "NMI backtrace for cpu" in report, "SysRq l shows every CPU"
    assert "now at" in report and "active timers" in report, \
        "SysRq q shows the timers"
    assert "RIP=" in report, "the vCPU registers are in the report"
    assert "agent.py" in report and "in run" in report, \
        "the agent's own stacks are in the report"
    assert not victim.alive(), "a hung guest is not reused"


@pytest.mark.kills_guest
def test_hung_qemu_is_reported(victim):
    pid = victim.proc.pid
    os.kill(pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        with pytest.raises(GuestError, match="stopped answering") as err:
            victim.run("true", timeout=2)
        assert time.monotonic() - start < 90
        assert "QEMU monitor failed" in str(err.value)
    finally:
        if victim.alive():
            os.kill(pid, signal.SIGCONT)


@pytest.mark.kills_guest
def test_locked_up_cpus_are_diagnosed(victim):
    with pytest.raises(GuestError, match="stopped answering") as err:
        victim.run(f"insmod {FAULT_MODULE} action=lockup", timeout=5)
    report = str(err.value)
    # No CPU takes the keyboard's interrupt; the NMI panics the guest and
    # the panic shows where each CPU spins.
    assert "Kernel panic" in report and "NMI" in report
    assert report.count("vg_fault_spin") >= 2, "both CPUs' backtraces"


@pytest.mark.kills_guest
def test_panic_is_reported(victim):
    start = time.monotonic()
    with pytest.raises(GuestError) as err:
        victim.run("echo c > /proc/sysrq-trigger", timeout=60)
    assert time.monotonic() - start < 60
    assert "Kernel panic" in str(err.value)
    victim.proc.wait(timeout=30)  # panic=-1 and -no-reboot: QEMU exits
