"""The test bed itself: it must notice a sick kernel instead of hanging.

These tests use a guest of their own, which they break on purpose, in the
order below: warning, oops, stuck command, hung guest, panic.
"""
import os
import signal
import time

import pytest

from testbed import FAULT_MODULE, Guest, GuestError


@pytest.fixture(scope="module")
def victim():
    g = Guest(reply_grace=5).start()
    yield g
    g.kill()
    g.cleanup()


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


def test_hung_guest_is_reported(victim):
    os.kill(victim.proc.pid, signal.SIGSTOP)
    try:
        start = time.monotonic()
        with pytest.raises(GuestError, match="stopped answering"):
            victim.run("true", timeout=2)
        assert time.monotonic() - start < 60
    finally:
        os.kill(victim.proc.pid, signal.SIGCONT)


def test_panic_is_reported(victim):
    start = time.monotonic()
    with pytest.raises(GuestError) as err:
        victim.run("echo c > /proc/sysrq-trigger", timeout=60)
    assert time.monotonic() - start < 60
    assert "Kernel panic" in str(err.value)
    victim.proc.wait(timeout=30)  # panic=-1 and -no-reboot: QEMU exits
