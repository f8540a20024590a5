"""Guest kernel instructions per operation, counted by QEMU.

insncount/insncount.c is a QEMU TCG plugin that counts the instructions
the guest kernel executes, by translation block. Unlike throughput, which
spreads by several percent between runs of the emulated test bed, the
count per operation repeats to a fraction of a percent, so it resolves
what a change of a path costs in one short run. With kallsyms it is
broken down by function: which code a condition adds, and how often it
runs. Exact with one vCPU; a `rep` string instruction counts once per
iteration, as TCG executes it (a 224-byte memcpy() counts about 224).
"""
import bisect
import shutil
import time
from collections import Counter
from pathlib import Path
import tempfile

from harness.testbed import BUILD_DIR, Guest

PLUGIN = BUILD_DIR / "insncount.so"
# Once per completed WQE (rxe_comp.c), in the stock and the patched rdma_rxe.
PER_WQE = "do_complete[rdma_rxe]"


class InsnCounter:
    """The plugin's side: QEMU arguments and snapshots of its counts."""

    def __init__(self):
        self.dir = Path(tempfile.mkdtemp(prefix="vg-insns-"))
        self.seq = 0

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutil.rmtree(self.dir, ignore_errors=True)

    def qemu_args(self) -> list[str]:
        return ["-plugin", f"{PLUGIN},dir={self.dir}"]

    def snapshot(self) -> dict[int, tuple[int, int]]:
        """{block address: (instructions executed, executions)} since
        boot, over all translations of the block."""
        (self.dir / "req").touch()
        path = self.dir / f"snap.{self.seq}"
        for _ in range(600):
            if path.exists():
                break
            time.sleep(0.05)
        else:
            raise AssertionError(f"insncount wrote no {path.name}")
        self.seq += 1
        blocks = {}
        for line in path.read_text().splitlines():
            va, insns, runs = (int(x, 16 if i == 0 else 10)
                               for i, x in enumerate(line.split()))
            done, n = blocks.get(va, (0, 0))
            blocks[va] = (done + insns * runs, n + runs)
        path.unlink()
        return blocks


def kernel_symbols(g: Guest) -> tuple[list[int], list[str]]:
    """The guest's text symbols, sorted: addresses and names (a module's
    as name[module])."""
    syms = []
    for line in g.run("grep ' [tT] ' /proc/kallsyms", check=True,
                      timeout=120).out.splitlines():
        addr, _, name, *mod = line.split()
        syms.append((int(addr, 16), name + (mod[0] if mod else "")))
    syms.sort()
    return [a for a, _ in syms], [n for _, n in syms]


class Profile:
    """What the kernel executed between two snapshots, by function."""

    def __init__(self, before: dict, after: dict,
                 syms: tuple[list[int], list[str]]):
        addrs, names = syms
        self.insns, self.calls = Counter(), Counter()
        for va, (insns, runs) in after.items():
            was = before.get(va, (0, 0))
            insns, runs = insns - was[0], runs - was[1]
            if runs <= 0:
                continue
            k = bisect.bisect_right(addrs, va) - 1
            name = names[k] if k >= 0 else "?"
            self.insns[name] += insns
            if addrs[k] == va:     # the block at the function's entry
                self.calls[name] += runs
        self.wqes = self.calls[PER_WQE]
        assert self.wqes, f"{PER_WQE} never ran: no WRITE completed"

    def per_wqe(self, name: str = "") -> float:
        """Instructions per completed WQE, of one function or of all."""
        total = self.insns[name] if name else sum(self.insns.values())
        return total / self.wqes


def diff_table(base: Profile, other: Profile, top: int = 15) -> list[str]:
    """Markdown rows: the functions whose instructions per WQE differ
    most between two profiles."""
    names = set(base.insns) | set(other.insns)
    rows = sorted(names, key=lambda n: -abs(other.per_wqe(n)
                                            - base.per_wqe(n)))
    out = ["| function | before | after | change | calls per WQE |",
           "|---|---|---|---|---|"]
    for n in rows[:top]:
        b, a = base.per_wqe(n), other.per_wqe(n)
        out.append(f"| `{n}` | {b:.0f} | {a:.0f} | {a - b:+.0f} | "
                   f"{base.calls[n] / base.wqes:.2f} → "
                   f"{other.calls[n] / other.wqes:.2f} |")
    return out
