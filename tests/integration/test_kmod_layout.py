"""The module's folders are layers: each includes only from those below it.

    core (pure policy) <- tenant <- datapath <- control <- kmod/main.c

These tests read the includes of kmod/ as text (no guest): a file in a
folder may include its own folder's headers by bare name and a lower
folder's by path ("core/sched.h"); core includes nothing outside core;
no quoted include names a missing file; and neither the folders nor the
files include each other in a circle. kmod/lock_order.h, the lock order,
is documentation that only kmod/main.c includes.

The shaper (datapath/shaper.c) paces send queues of two kinds, which
register their operations with it (struct vg_slot_ops): it includes
neither kind's header, and no kind includes another kind's.

Nor do the files call each other in a circle. The call graph is read from
the source text too, without comments and strings: a .c file defines the
non-static functions whose definition starts a line ("type name(params)"
followed by "{"), and calls a function where its text has the function's
name followed by "(". Calls through pointers (ops,
callbacks) are not calls here: that is how a lower file calls up. A node
of the graph is one concept: a file X.c, together with each X_Y.c of its
folder that has no header X_Y.h of its own and includes X.h (e.g.
sendq_post.c and sendq_drain.c belong to sendq.c, usq_rxe.c, which has
usq_rxe.h, is a node of its own). Calls within a node do not count.

The module makes no slab cache of its own: what it allocates comes from
the kmalloc caches, the ones the test bed's SLUB debugging checks
(harness/testbed.py, SLUB_DEBUG_CACHES).
"""
import re
import sys
from pathlib import Path

import pytest

KMOD = Path(__file__).resolve().parents[2] / "kmod"
LAYERS = ["core", "tenant", "datapath", "control"]
INCLUDE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
# The one header core takes from outside, in the native build only
# (kmod/core/vg_compat.h switches on __KERNEL__).
NATIVE_ONLY = {"vg_shim.h"}
# The kinds of send queue the shaper paces: their headers, by kind.
QUEUE_KINDS = {"sendq": {"sendq.h"}, "usq": {"usq.h", "usq_rxe.h"}}
COMMENT_OR_STRING = re.compile(
    r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)
DEFINITION = re.compile(
    r"^(?P<head>(?:[A-Za-z_][\w \t*]*?)?)\b(?P<name>[A-Za-z_]\w*)\s*"
    r"\((?P<params>[^;{}()]*(?:\([^()]*\)[^;{}()]*)*)\)\s*\{", re.M)
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*\(")
SLAB_CACHE = re.compile(r"\b(kmem_cache_create\w*|KMEM_CACHE\w*)\s*\(")


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


def test_shaper_includes_no_queue_kind():
    names = {n for n, _ in includes(KMOD / "datapath" / "shaper.c")}
    kinds = set().union(*QUEUE_KINDS.values())
    assert not names & kinds, sorted(names & kinds)


def test_no_queue_kind_includes_another():
    bad = []
    for src in sources():
        if folder_of(src) != "datapath" or src.suffix != ".c":
            continue
        mine = src.stem.split("_")[0]
        for kind, headers in QUEUE_KINDS.items():
            if mine in QUEUE_KINDS and kind != mine:
                bad += [f"{src.name} -> {n}" for n, _ in includes(src)
                        if n in headers]
    assert not bad, bad


def code_of(src: Path) -> str:
    """The text of @src without its comments and strings."""
    return COMMENT_OR_STRING.sub(
        lambda m: " " if m.group(0)[0] == "/" else '""', src.read_text())


def node_of(src: Path) -> str:
    """The concept @src belongs to (see the top of this file)."""
    stem = src.stem
    base = stem.split("_")[0]
    if ("_" in stem and not src.with_name(stem + ".h").is_file()
            and src.with_name(base + ".h").is_file()
            and any(n == base + ".h" for n, _ in includes(src))):
        stem = base
    return src.with_name(stem).relative_to(KMOD).as_posix()


def call_graph():
    """node -> {node it calls: names of the functions called}."""
    files = [s for s in sources() if s.suffix == ".c"]
    code = {s: code_of(s) for s in files}
    defined = {}
    for src in files:
        for m in DEFINITION.finditer(code[src]):
            if "static" not in m.group("head").split():
                defined.setdefault(m.group("name"), set()).add(node_of(src))
    graph = {}
    for src in files:
        a = node_of(src)
        edges = graph.setdefault(a, {})
        for name in set(CALL.findall(code[src])):
            for b in defined.get(name, ()):
                if b != a:
                    edges.setdefault(b, set()).add(name)
    return graph


def test_no_call_cycle_between_files():
    graph = call_graph()
    state = {}

    def visit(node, path):
        state[node] = "open"
        for nxt in sorted(graph.get(node, {})):
            if state.get(nxt) == "open":
                cycle = path[path.index(nxt):] + [nxt]
                raise AssertionError(" -> ".join(
                    f"{a} ({', '.join(sorted(graph[a][b]))})"
                    for a, b in zip(cycle, cycle[1:])) + f" -> {nxt}")
            if nxt not in state:
                visit(nxt, path + [nxt])
        state[node] = "done"

    for node in sorted(graph):
        if node not in state:
            visit(node, [node])


def test_call_check_would_catch_a_cycle(tmp_path, monkeypatch):
    """The call graph check fails on a circle, not on one concept's files."""
    fake = tmp_path / "kmod"
    (fake / "datapath").mkdir(parents=True)
    d = fake / "datapath"
    (d / "sendq.h").write_text("void vg_sendq_a(void);\n")
    (d / "sendq.c").write_text(
        '#include "sendq.h"\n\nvoid vg_sendq_a(void)\n{\n'
        "\tvg_sendq_b();\n}\n")
    (d / "sendq_post.c").write_text(
        '#include "sendq.h"\n\nvoid vg_sendq_b(void)\n{\n'
        "\tvg_sendq_a();\n}\n")
    (d / "shaper.c").write_text(
        "/* vg_sendq_a() is not a call here */\n"
        "static int vg_shaper_b(void)\n{\n\treturn 0;\n}\n\n"
        "int vg_shaper_a(int x,\n\t\t int (*fn)(int y))\n{\n"
        "\treturn fn(x) + vg_shaper_b();\n}\n")
    monkeypatch.setattr(sys.modules[__name__], "KMOD", fake)
    test_no_call_cycle_between_files()
    (d / "shaper.c").write_text(
        "int vg_shaper_a(int x,\n\t\t int (*fn)(int y))\n{\n"
        "\tvg_sendq_a();\n\treturn fn(x);\n}\n")
    test_no_call_cycle_between_files()
    (d / "sendq_post.c").write_text(
        '#include "sendq.h"\n\nvoid vg_sendq_b(void)\n{\n'
        "\tvg_shaper_a(0, 0);\n}\n")
    with pytest.raises(AssertionError, match="datapath/sendq"):
        test_no_call_cycle_between_files()


def test_no_slab_cache_of_its_own():
    made = [f"{src.relative_to(KMOD)}: {m.group(0)}" for src in sources()
            for m in SLAB_CACHE.finditer(code_of(src))]
    assert not made, ("a slab cache of the module's own escapes the test "
                      f"bed's SLUB debugging: {made}")


def test_slab_cache_check_would_catch_one(tmp_path, monkeypatch):
    fake = tmp_path / "kmod"
    (fake / "datapath").mkdir(parents=True)
    qp = fake / "datapath" / "qp.c"
    qp.write_text('/* KMEM_CACHE(vg_qp, 0) is not a cache here */\n'
                  'static const char *s = "kmem_cache_create(";\n')
    monkeypatch.setattr(sys.modules[__name__], "KMOD", fake)
    test_no_slab_cache_of_its_own()
    qp.write_text("static struct kmem_cache *c;\n\n"
                  "int vg_qp_init(void)\n{\n"
                  "\tc = KMEM_CACHE(vg_qp, 0);\n\treturn c ? 0 : -1;\n}\n")
    with pytest.raises(AssertionError, match="datapath/qp.c: KMEM_CACHE"):
        test_no_slab_cache_of_its_own()
