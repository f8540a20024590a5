"""pytest fixtures of the emulated test bed (see testbed.py).

`guest` is one QEMU guest for the whole session. Before each test it is put
in the base state (verbsgate not loaded, rxe0 present, on the stock
rdma_rxe or, for a test that takes `rxe_kept`, the patched one, swapped
only when the test before it needed the other); after each test the
kernel console is scanned, and a test during which the kernel oopsed,
warned or panicked fails with the console excerpt; so does one that left
a regular file in /dev (removed, so that later tests get device nodes).
If a test kills the guest, the next test boots a fresh one. A failing
test's report carries the tail of the guest console. VG_SLUB_DEBUG=0
boots it without SLUB debugging (`make bench-nvme`).
"""
import os

import pytest

from harness.tenants import CGROUPS, empty_cgroups
from harness.testbed import Guest, GuestError

SLUB_DEBUG = os.environ.get("VG_SLUB_DEBUG", "1") != "0"


class GuestHolder:
    def __init__(self):
        self.guest = None
        self.boots = 0

    def get(self) -> Guest:
        if self.guest is None or not self.guest.alive():
            if self.guest is not None:
                self.guest.cleanup()
            self.guest = Guest(slub_debug=SLUB_DEBUG).start()
            self.boots += 1
            print(f"\nguest booted in {self.guest.boot_seconds:.1f} s")
        return self.guest

    def close(self):
        if self.guest is not None:
            self.guest.stop()
            self.guest.cleanup()


@pytest.fixture(scope="session")
def guest_holder():
    holder = GuestHolder()
    yield holder
    holder.close()


def reset(g: Guest, patched: bool):
    """Base state: verbsgate unloaded, only rxe0 as RDMA link, on the
    stock rdma_rxe or, if @patched, on the patched one.

    One command, with as few processes as the shell can do without: it
    runs before each of some 160 tests, and in TCG each process the
    guest starts costs about a tenth of a second. The loaded rdma_rxe
    is swapped only when it is not the one wanted (or none is loaded):
    a swap costs seconds, and tests that need the same one run in a
    row."""
    want = "patched" if patched else "stock"
    # Modules a test may leave: verbsgate, the two-port test device
    # (test_fakedev.py). Then the agent (this shell's parent) and this
    # shell in the root cgroup; the pinned cgroups are printed, to be
    # put on every vCPU again (tenants.pin_cgroups()) without what a
    # failed test left running in them. Which rdma_rxe is loaded comes
    # from its taint (Guest.rxe_patched()).
    out = g.run(
        "for m in verbsgate vg_fakeulp vg_fakedev; do "
        "[ -d /sys/module/$m ] && rmmod $m 2>/dev/null; done; "
        "t=none; [ -r /sys/module/rdma_rxe/taint ] && read -r t < "
        "/sys/module/rdma_rxe/taint; case $t in none) ;; *O*) t=patched;; "
        f"*) t=stock;; esac; if [ $t = {want} ]; then "
        + g.delete_rdma_links(keep=g.rxe_dev) +
        f"[ -e /sys/class/infiniband/{g.rxe_dev}/ports/1 ] || "
        f"rdma link add {g.rxe_dev} type rxe netdev {g.netdev} || exit 1; "
        "else echo swap; fi; "
        f"cd {CGROUPS} && echo $PPID > cgroup.procs && "
        "echo $$ > cgroup.procs || exit 1; for d in */; do "
        "[ -r $d/cpuset.cpus ] && read -r c < $d/cpuset.cpus && "
        "[ -n \"$c\" ] && "
        "echo ${d%/}; done; true", check=True).out.split()
    if out[:1] == ["swap"]:
        out = out[1:]
        stop_rxe_users(g)
        res = g.load_rxe(patched=patched)
        assert res.ok, f"loading the {want} rdma_rxe failed:\n{res.out}"
        assert g.rxe_patched() == patched
    empty_cgroups(g, out)
    for name in out:
        g.run(f"echo > {CGROUPS}/{name}/cpuset.cpus", check=True)


@pytest.fixture
def guest(guest_holder, request):
    g = guest_holder.get()
    reset(g, patched="rxe_kept" in request.fixturenames)
    mark = g.console_mark()
    request.node.vg_guest = (g, mark)
    yield g
    if g.alive():
        try:
            g.assert_no_kernel_errors(mark)
        except GuestError as e:
            pytest.fail(str(e), pytrace=False)
        # A regular file in /dev (a write to a device path after the
        # device went away) would take the name of a later device node.
        stray = g.run("for f in /dev/* /dev/.[!.]*; do [ -f $f ] && "
                      "[ ! -h $f ] && echo $f; done; true").out.split()
        if stray:
            g.run("rm -f " + " ".join(stray))
            pytest.fail(f"the test left regular files in /dev: {stray}",
                        pytrace=False)
    else:
        pytest.fail("the guest died during the test; its console:\n" +
                    (g.console_since(mark)[-8000:] or "(empty)"),
                    pytrace=False)


def stop_rxe_users(g: Guest):
    """Ends the test tools that keep rxe devices open: a process with the
    device open would hold up the link's deletion."""
    g.kill_named("vgload|ibv_rc_pingpong|vg_usq*|ib_write_bw")
    g.run("[ ! -d /sys/module/vg_sqhold ] || rmmod vg_sqhold")


@pytest.fixture
def swaps_rxe(guest):
    """The guest, for a test that loads and unloads rdma_rxe itself: the
    test tools that hold the device open end with it, and the next
    test's reset() loads the rdma_rxe that test needs."""
    yield guest
    stop_rxe_users(guest)


@pytest.fixture
def rxe_kept(guest):
    """The guest on the patched rdma_rxe (make rxe), which stays loaded
    until a test that needs the stock one (reset()); the test tools that
    hold the device open end with the test."""
    yield guest
    stop_rxe_users(guest)


def pytest_configure(config):
    config.addinivalue_line(
        "markers", "kills_guest: the test kills its guest on purpose "
        "(test_testbed.py boots the next one meanwhile)")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    rep = outcome.get_result()
    attached = getattr(item, "vg_guest", None)
    if rep.failed and attached:
        g, mark = attached
        rep.sections.append(("guest console during the test",
                             g.console_since(mark)[-8000:] or "(empty)"))


def pytest_exception_interact(node, call, report):
    # GuestError already carries the console; make sure it is shown whole.
    if call.excinfo and isinstance(call.excinfo.value, GuestError):
        report.longrepr = str(call.excinfo.value)
