"""The test bed itself: it must notice a sick kernel instead of hanging.

These tests use a guest of their own, which they break on purpose, in the
order below: warning, oops, stuck command, stuck agent, hung QEMU, every
CPU locked up, panic. A test that kills the guest leaves the next one a
fresh guest.
"""
import os
import signal
import time

import pytest

from testbed import FAULT_MODULE, Guest, GuestError


@pytest.fixture(scope="module")
def victims():
    guests = []
    yield guests
    for g in guests:
        g.kill()
        g.cleanup()


@pytest.fixture
def victim(victims):
    if not victims or not victims[-1].alive():
        victims.append(Guest(reply_grace=5).start())
    return victims[-1]


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
    assert not victim.alive(), "a hung guest is not reused"


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


def test_locked_up_cpus_are_diagnosed(victim):
    with pytest.raises(GuestError, match="stopped answering") as err:
        victim.run(f"insmod {FAULT_MODULE} action=lockup", timeout=5)
    report = str(err.value)
    # No CPU takes the keyboard's interrupt; the NMI panics the guest and
    # the panic shows where each CPU spins.
    assert "Kernel panic" in report and "NMI" in report
    assert report.count("vg_fault_spin") >= 2, "both CPUs' backtraces"


def test_panic_is_reported(victim):
    start = time.monotonic()
    with pytest.raises(GuestError) as err:
        victim.run("echo c > /proc/sysrq-trigger", timeout=60)
    assert time.monotonic() - start < 60
    assert "Kernel panic" in str(err.value)
    victim.proc.wait(timeout=30)  # panic=-1 and -no-reboot: QEMU exits
