"""rdma_rxe with the driver patch series (driver-patches/rdma_rxe).

The series must apply to the cached linux-source-6.1 tree; the module it
builds (make rxe) must load in place of the stock rdma_rxe and move RDMA
traffic with its data intact; and with no send queue policy registered,
rdma-core's own test suite must give the same result on it as on the
stock module, in the same guest.

rdma-core's suite takes minutes under TCG, so CI runs the send-path part
of it (CONFORMANCE_SUBSET); `make rxe-conformance` (VG_RXE_CONFORMANCE=full)
runs all of it on both modules.
"""
import os
import re
import subprocess

import pytest

from nvme import ipv4_gid
from testbed import REPO

RDMA_CORE_TESTS = "/usr/share/doc/rdma-core/tests"
# unittest -k patterns: the modules that post send work requests (QP
# types, CQ and extended CQ/QP paths, RDMA READ/WRITE/atomics, MRs used
# in traffic, rdma_cm connections).
CONFORMANCE_SUBSET = ["test_qp.", "test_qpex.", "test_cq.", "test_cqex.",
                      "test_atomic.", "test_mr.", "test_rdmacm."]
GID_SLOTS = 64


def gid_index(g, addr: str) -> int:
    """Index of the IPv4-mapped GID of addr in rxe0's port 1 table."""
    path = f"/sys/class/infiniband/{g.rxe_dev}/ports/1/gids"
    res = g.run(f"cd {path} && for i in $(seq 0 {GID_SLOTS - 1}); do "
                f"grep -qx {ipv4_gid(addr)} $i && echo $i && exit 0; "
                "sleep 0; done; exit 1", check=True)
    return int(res.out.split()[0])


@pytest.fixture
def patched_rxe(guest):
    """The guest with the patched rdma_rxe loaded; stock again afterwards."""
    res = guest.load_rxe(patched=True)
    assert res.ok, f"loading the patched rdma_rxe failed:\n{res.out}"
    assert guest.rxe_patched()
    yield guest
    res = guest.load_rxe(patched=False)
    assert res.ok, f"reloading the stock rdma_rxe failed:\n{res.out}"


def test_series_applies_and_is_checkpatch_clean():
    subprocess.run([str(REPO / "scripts" / "build-rxe.sh"), "--check"],
                   check=True)
    subprocess.run([str(REPO / "scripts" / "checkpatch.sh")], check=True)


def test_patched_rxe_moves_traffic(patched_rxe):
    g = patched_rxe
    taint = g.run("cat /sys/module/rdma_rxe/taint", check=True).out.strip()
    assert "O" in taint, f"rdma_rxe is not the out-of-tree build: {taint}"
    idx = gid_index(g, g.ip)

    # RC SEND/RECV with every received buffer checked (--chk).
    server = g.spawn(f"ibv_rc_pingpong -d {g.rxe_dev} -g {idx} -s 65536 "
                     "-n 200 -c -p 18950", "/tmp/pingpong-server.log")
    client = g.run(f"sleep 1; ibv_rc_pingpong -d {g.rxe_dev} -g {idx} "
                   f"-s 65536 -n 200 -c -p 18950 {g.ip}", timeout=120)
    g.run(f"for i in $(seq 50); do kill -0 {server} 2>/dev/null || "
          "exit 0; sleep 0.1; done; kill {server}")
    server_log = g.run("cat /tmp/pingpong-server.log").out
    assert client.ok, f"ibv_rc_pingpong client:\n{client.out}\n" \
        f"server:\n{server_log}"
    assert "iters in" in client.out, client.out
    assert not re.search(r"invalid|fail", client.out + server_log, re.I), \
        client.out + server_log

    # RDMA WRITE bandwidth (perftest).
    g.spawn(f"ib_write_bw -d {g.rxe_dev} -x {idx} -s 65536 -n 500 "
            "-p 18951", "/tmp/write-bw-server.log")
    client = g.run(f"sleep 1; ib_write_bw -d {g.rxe_dev} -x {idx} "
                   f"-s 65536 -n 500 -p 18951 {g.ip}", timeout=120)
    assert client.ok, client.out
    assert re.search(r"^\s*65536\s+500\s", client.out, re.M), client.out


def run_rdma_core_suite(g, full: bool) -> dict:
    """Runs rdma-core's test suite on rxe0; returns its counts and the
    names of the tests that failed or raised."""
    select = "" if full else " ".join(f"-k {k}" for k in CONFORMANCE_SUBSET)
    res = g.run(
        "rm -rf /tmp/rdma-core && mkdir /tmp/rdma-core && "
        f"cp -r {RDMA_CORE_TESTS} /tmp/rdma-core/tests && "
        "gunzip -f /tmp/rdma-core/tests/*.gz && cd /tmp/rdma-core/tests && "
        f"python3 run_tests.py --dev {g.rxe_dev} {select} "
        ">/tmp/rdma-core/out.log 2>&1; echo rc=$?; "
        "grep -E '^(Ran |OK|FAILED|(ERROR|FAIL): )' /tmp/rdma-core/out.log",
        timeout=3600 if full else 1200)
    assert res.ok, res.out
    ran = re.search(r"^Ran (\d+) tests? in ([\d.]+)s", res.out, re.M)
    assert ran, f"rdma-core's suite did not finish:\n{res.out}"
    counts = {"tests": int(ran.group(1)), "seconds": float(ran.group(2))}
    verdict = re.search(r"^(OK|FAILED)(?: \((.*)\))?$", res.out, re.M)
    assert verdict, res.out
    for part in (verdict.group(2) or "").split(", "):
        if "=" in part:
            key, value = part.split("=")
            counts[key] = int(value)
    for key in ("skipped", "failures", "errors", "expected failures",
                "unexpected successes"):
        counts.setdefault(key, 0)
    counts["broken"] = sorted(re.findall(r"^(?:ERROR|FAIL): (\S+ \(\S+\))",
                                         res.out, re.M))
    return counts


def test_rdma_core_conformance_stock_vs_patched(guest):
    """Same guest, stock rdma_rxe then patched rdma_rxe with no policy:
    rdma-core's suite must give identical counts and the same broken
    tests."""
    full = os.environ.get("VG_RXE_CONFORMANCE") == "full"
    assert not guest.rxe_patched()
    stock = run_rdma_core_suite(guest, full)
    res = guest.load_rxe(patched=True)
    assert res.ok, res.out
    try:
        assert guest.rxe_patched()
        patched = run_rdma_core_suite(guest, full)
    finally:
        res = guest.load_rxe(patched=False)
    assert res.ok, res.out
    print(f"\nrdma-core suite ({'full' if full else 'subset'}):\n"
          f"  stock:   {stock}\n  patched: {patched}")
    assert stock["tests"] > 0
    keys = ("tests", "skipped", "failures", "errors", "expected failures",
            "unexpected successes", "broken")
    assert {k: patched[k] for k in keys} == {k: stock[k] for k in keys}
