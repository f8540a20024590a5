#!/usr/bin/env python3
"""`make demo`: the main job on the emulated test bed.

Boots Debian's 6.1 kernel in QEMU with Soft-RoCE on a veth, loads verbsgate
from this checkout, and shows what an operator sees: the module attached to
the rxe device through the CLI (generic netlink) and sysfs, following a
device that comes and goes; then isolation: two NVMe-over-RDMA tenants
reading at once, module off versus on at weights 3:1; a latency tenant
next to a bulk stream across the wire (a rate-limited port between two rxe
devices), module off versus on; and a clean unload.
"""
import sys
import time

from harness import fio, nvme
from harness.tenants import add_tenants, make_cgroups, pin_cgroups
from harness.testbed import CLI, MODULE, Guest, GuestError
from harness.wire import (LABEL, LATENCY_TENANT, LINE_RATE, LOCAL, PACING,
                          PORT_QUEUE, STREAM_TENANT, Wire, WireCounts,
                          victim_run)

TENANTS = {"a": "10.77.0.11", "b": "10.77.0.12"}
SECONDS = 15

SYSFS_TREE = ("for f in $(find /sys/kernel/verbsgate -type f | sort); do "
              "printf '%-52s %s\\n' $f \"$(cat $f)\"; done")


def show(g: Guest, cmd: str, display: str | None = None):
    print(f"\nguest# {display or cmd}")
    res = g.run(cmd, timeout=60)
    print(res.out.rstrip())
    if not res.ok:
        raise SystemExit(f"demo: `{display or cmd}` failed (rc {res.rc})")


def shares(g: Guest, devs: dict) -> tuple[float, float]:
    """Both tenants read at once; their MB/s."""
    res = fio.run(g, [fio.read_job(name, devs[addr])
                      for name, addr in TENANTS.items()], runtime=SECONDS)
    if not res.ok:
        raise SystemExit(f"demo: fio failed: {res.describe()}")
    return tuple(res[name].bw_bytes / 1e6 for name in TENANTS)


def isolation(g: Guest, cli: str):
    """Two NVMe-oF subsystems, each on its own address of the rxe netdev,
    each a tenant (its target's QPs move the data); shares with the module
    unloaded, then with verbsgate at 3:1 on a device capped to half of what
    both took together."""
    print("\ndemo: isolation: two NVMe-over-RDMA tenants, fio 256k reads, "
          f"{SECONDS} s each run")
    with nvme.nvme_subsystems(g, list(TENANTS.values())) as devs:
        off = shares(g, devs)
        maxrate = int(sum(off) * 1e6 / 2)
        show(g, f"modprobe ib_core && insmod {MODULE}",
             "insmod kmod/verbsgate.ko")
        for name, addr in TENANTS.items():
            show(g, f"{cli} tenant add {name} local {addr}/32 class "
                    f"bandwidth weight {3 if name == 'a' else 1}",
                 f"verbsgate tenant add {name} local {addr}/32 class "
                 f"bandwidth weight {3 if name == 'a' else 1}")
        show(g, f"{cli} dev set rxe0 maxrate {maxrate}bps chunk-nolat 64k",
             f"verbsgate dev set rxe0 maxrate {maxrate}bps chunk-nolat 64k")
        # verbsgate shapes the QPs created after it loads: reconnect.
        nvme.reset_controllers(g, [nvme.subsystem_nqn(a)
                                   for a in TENANTS.values()])
        show(g, f"{cli} qp show", "verbsgate qp show")
        on = shares(g, devs)
        show(g, f"{cli} -s stats", "verbsgate -s stats")
    print("\n| run | a MB/s | b MB/s | a/b |\n|---|---|---|---|")
    for label, (a, b) in (("module unloaded", off),
                          ("verbsgate, weights 3:1", on)):
        print(f"| {label} | {a:.2f} | {b:.2f} | {a / b:.2f} |")


def wire_isolation(g: Guest, cli: str):
    """A latency tenant next to a bulk stream of another tenant, from rxe0
    to rxe1 across the wire, each on its own vCPU: the victim alone, next
    to the stream with the module unloaded, and with verbsgate pacing the
    stream; the patched rdma_rxe, so that user-space QPs are shaped."""
    print(f"\ndemo: isolation on the wire: port {LINE_RATE}, queue "
          f"{PORT_QUEUE}; a latency tenant (64 B WRITEs) next to a bulk "
          "tenant (1 MB WRITEs), user-space vgload, each on its own vCPU")
    if not g.load_rxe(patched=True).ok:
        raise SystemExit("demo: loading the patched rdma_rxe failed")
    make_cgroups(g, ["lat", "bulk"])
    pin_cgroups(g, {"lat": "0", "bulk": "1"}, "1")
    runs = {}
    with Wire(g, order=LOCAL) as w:
        runs["alone"] = victim_run(g, w, 19600, LATENCY_TENANT, None)
        runs["next to the stream, module unloaded"] = victim_run(
            g, w, 19602, LATENCY_TENANT, STREAM_TENANT)
        show(g, f"modprobe ib_core && insmod {MODULE}",
             "insmod kmod/verbsgate.ko")
        add_tenants(g, {"lat": "class latency weight 1",
                        "bulk": "class bandwidth weight 19"})
        show(g, f"{cli} tenant show", "verbsgate tenant show")
        show(g, f"{cli} dev set {g.rxe_dev} {PACING}",
             f"verbsgate dev set {g.rxe_dev} {PACING}")
        runs["next to the stream, verbsgate"] = victim_run(
            g, w, 19604, LATENCY_TENANT, STREAM_TENANT)
        show(g, "tc -s qdisc show dev vg0")
    alone = runs["alone"][0]["total"]["lat_us"]["p99"]
    print(f"\n{LABEL}:\n")
    print("| victim | p50 µs | p99 µs | p99 / alone | stream Mbit/s | "
          f"{WireCounts.HEADER} |\n|---|---|---|---|---|" + "---|" * 7)
    for label, (lat, bulk, wire) in runs.items():
        us = lat["total"]["lat_us"]
        mbit = f"{bulk['total']['gbps'] * 1000:.1f}" if bulk else "—"
        print(f"| {label} | {us['p50']:.0f} | {us['p99']:.0f} | "
              f"{us['p99'] / alone:.1f} | {mbit} | {wire.cells()} |")


def main() -> int:
    print("demo: booting Debian's 6.1 kernel under QEMU (TCG) ...")
    try:
        with Guest() as g:
            print(f"demo: guest up in {g.boot_seconds:.1f} s "
                  f"(kernel {g.kver}); Soft-RoCE {g.rxe_dev} on {g.netdev}")
            cli = str(CLI)
            show(g, "rdma link show")
            show(g, f"{cli} status; echo \"(exit status $?)\"",
                 "verbsgate status")
            show(g, f"modprobe ib_core && insmod {MODULE}",
                 "insmod kmod/verbsgate.ko")
            show(g, f"{cli} status", "verbsgate status")
            show(g, f"{cli} dev show", "verbsgate dev show")
            show(g, f"{cli} -j -p dev show", "verbsgate -j -p dev show")
            show(g, SYSFS_TREE, "tree /sys/kernel/verbsgate")
            show(g, "rdma link add rxe1 type rxe netdev vg1")
            show(g, f"{cli} dev show", "verbsgate dev show")
            show(g, "rdma link delete rxe1")
            show(g, f"{cli} dev show", "verbsgate dev show")
            show(g, "rmmod verbsgate")
            isolation(g, cli)
            show(g, "rmmod verbsgate")
            wire_isolation(g, cli)
            show(g, "rmmod verbsgate")
            show(g, "dmesg | grep verbsgate")
            errors = g.kernel_errors()
            if errors:
                print("\ndemo: kernel errors on the console:\n" +
                      "\n".join(errors))
                return 1
    except GuestError as e:
        print(f"demo: {e}", file=sys.stderr)
        return 1
    print("\ndemo: done; no kernel warnings")
    return 0


if __name__ == "__main__":
    start = time.monotonic()
    rc = main()
    print(f"demo: {time.monotonic() - start:.0f} s in all")
    sys.exit(rc)
