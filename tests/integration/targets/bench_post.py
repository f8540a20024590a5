#!/usr/bin/env python3
"""`make bench-post`: posting on two CPUs, without and with verbsgate.

Boots the emulated test bed (QEMU TCG, rxe on a veth), measures one
kernel poster against two on two CPUs and QPs, without verbsgate and with
it (postscale.py says how), and prints a Markdown table. The numbers are
the emulator's, not a NIC's: only the ratios within the table mean
anything, and only on a host with two CPUs free for the guest's vCPUs
(the table says what else ran meanwhile).
"""
import sys

from harness import postscale
from harness.postscale import SHARE
from harness.testbed import Guest, GuestError


def main() -> int:
    print(f"bench-post: {postscale.LABEL}: booting the test bed ...",
          flush=True)
    try:
        with Guest(slub_debug=False) as g:
            m = postscale.measure(g)
    except (GuestError, AssertionError) as e:
        print(f"bench-post: {e}", file=sys.stderr)
        return 1
    print()
    print(postscale.table(m))
    want = SHARE * m.without.ratio
    print(f"\ntarget: with verbsgate >= {SHARE} x without = {want:.2f}: "
          f"{'met' if m.with_vg.ratio >= want else 'not met'} "
          f"({m.with_vg.ratio:.2f})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
