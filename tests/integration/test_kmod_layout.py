"""The module's folders are layers: each includes only from those below it.

    core (pure policy) <- tenant <- datapath <- control <- kmod/main.c

These tests read the includes of kmod/ as text (no guest): a file in a
folder may include its own folder's headers by bare name and a lower
folder's by path ("core/sched.h"); core includes nothing outside core;
no quoted include names a missing file; and neither the folders nor the
files include each other in a circle. kmod/lock_order.h, the lock order,
is documentation that only kmod/main.c includes.
"""
import re
from pathlib import Path

import pytest

KMOD = Path(__file__).resolve().parents[2] / "kmod"
LAYERS = ["core", "tenant", "datapath", "control"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The one header core takes from outside, in the native build only
# (kmod/core/vg_compat.h switches on __KERNEL__).
NATIVE_ONLY = {"vg_shim.h"}


def sources():
    return sorted(p for p in KMOD.rglob("*.[ch]")
                  if not p.name.endswith(".mod.c"))


def folder_of(path: Path) -> str:
    rel = path.relative_to(KMOD)
    return rel.parts[0] if len(rel.parts) > 1 else "."


def resolve(src: Path, name: str):
    """The file a quoted include names: the including file's folder first,
    then kmod/ (the module's -I), as the compiler looks."""
    for base in (src.parent, KMOD):
        cand = (base / name).resolve()
        if cand.is_file():
            return cand
    return None


def includes(src: Path):
    for name in INCLUDE.findall(src.read_text()):
        if name in NATIVE_ONLY and folder_of(src) == "core":
            continue
        yield name, resolve(src, name)


def test_every_quoted_include_names_a_file():
    missing = [f"{s.relative_to(KMOD)}: {n}"
               for s in sources() for n, t in includes(s) if t is None]
    assert not missing, missing


@pytest.mark.parametrize("layer", LAYERS)
def test_layer_includes_only_from_below(layer):
    allowed = set(LAYERS[:LAYERS.index(layer) + 1])
    bad = []
    for src in sources():
        if folder_of(src) != layer:
            continue
        for name, target in includes(src):
            if target is None:
                continue
            where = folder_of(target)
            if where not in allowed:
                bad.append(f"{src.relative_to(KMOD)} -> {name} ({where})")
            elif where != layer and "/" not in name:
                bad.append(f"{src.relative_to(KMOD)} -> {name}: "
                           "another folder's header by bare name")
    assert not bad, bad


def test_core_includes_nothing_outside_core():
    bad = [f"{s.relative_to(KMOD)} -> {n}"
           for s in sources() if folder_of(s) == "core"
           for n, t in includes(s)
           if t is None or folder_of(t) != "core"]
    assert not bad, bad


def test_lock_order_is_documentation_only():
    users = [s.relative_to(KMOD).as_posix() for s in sources()
             for n, t in includes(s)
             if t is not None and t.name == "lock_order.h"]
    assert users == ["main.c"]


def test_no_include_cycle_between_files():
    graph = {s.resolve(): {t for _, t in includes(s) if t is not None}
             for s in sources()}
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in graph.get(node, ()):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError(" -> ".join(
                    str(p.relative_to(KMOD)) for p in cycle))
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in graph:
        if node not in state:
            visit(node, [node])


def test_layer_check_would_catch_an_upward_include(tmp_path, monkeypatch):
    """The checks above fail on the layout they forbid."""
    fake = tmp_path / "kmod"
    (fake / "core").mkdir(parents=True)
    (fake / "control").mkdir()
    (fake / "control" / "x.h").write_text("/* x */\n")
    (fake / "core" / "y.c").write_text('#include "control/x.h"\n')
    monkeypatch.setattr(__import__(__name__), "KMOD", fake)
    with pytest.raises(AssertionError):
        test_layer_includes_only_from_below("core")
    with pytest.raises(AssertionError):
        test_core_includes_nothing_outside_core()
