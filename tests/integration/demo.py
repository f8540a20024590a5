#!/usr/bin/env python3
"""`make demo`: the main job on the emulated test bed.

Boots Debian's 6.1 kernel in QEMU with Soft-RoCE on a veth, loads verbsgate
from this checkout, and shows what an operator sees: the module attached to
the rxe device through the CLI (generic netlink) and sysfs, following a
device that comes and goes, and a clean unload.
"""
import sys
import time

from testbed import MODULE, Guest, GuestError

SYSFS_TREE = ("for f in $(find /sys/kernel/verbsgate -type f | sort); do "
              "printf '%-52s %s\\n' $f \"$(cat $f)\"; done")


def show(g: Guest, cmd: str, display: str | None = None):
    print(f"\nguest# {display or cmd}")
    res = g.run(cmd, timeout=60)
    print(res.out.rstrip())
    if not res.ok:
        raise SystemExit(f"demo: `{display or cmd}` failed (rc {res.rc})")


def main() -> int:
    print("demo: booting Debian's 6.1 kernel under QEMU (TCG) ...")
    try:
        with Guest() as g:
            print(f"demo: guest up in {g.boot_seconds:.1f} s "
                  f"(kernel {g.kver}); Soft-RoCE {g.rxe_dev} on {g.netdev}")
            cli = str(g.build_dir / "userspace" / "cli" / "verbsgate")
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
