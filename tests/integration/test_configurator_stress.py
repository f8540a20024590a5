"""Many changes, and concurrent ones, leave no leaked objects.

What "leaked" means here, measured three ways:
  - tenant objects: /sys/kernel/debug/verbsgate/tenant_objects counts the
    tenant structures allocated and not yet freed (a deleted tenant counts
    until its last reference and RCU grace period are gone); it must come
    back to 1, the default tenant;
  - cgroup references: a cgroup-selected tenant holds a reference on its
    cgroup; after rmdir, a cgroup still referenced stays "dying", so the
    root's nr_dying_descendants must come back to its baseline;
  - module references: /sys/module/verbsgate/refcnt (netlink dumps hold
    one) must come back to 0, and the module must unload.
The console is scanned for warnings after each test (conftest.py).
"""
import json

from harness.testbed import CLI, SYSFS, Guest
from harness.vgcli import eventually, tenant_objects

CYCLES = 10000
WRITERS = 8
WRITER_ROUNDS = 150


def read_int(g: Guest, path: str) -> int:
    return int(g.run(f"cat {path}", check=True).out)


def dying(g: Guest) -> int:
    out = g.run("cat /sys/fs/cgroup/cgroup.stat", check=True).out
    return int(dict(line.split() for line in out.splitlines())
               ["nr_dying_descendants"])


def assert_no_leaks(g: Guest):
    eventually("tenant objects", lambda: tenant_objects(g), 1)
    eventually("module refcnt",
               lambda: read_int(g, "/sys/module/verbsgate/refcnt"), 0)
    assert g.run(f"ls {SYSFS}/tenants", check=True).out.split() == \
        ["default"]


def test_add_del_cycles_leave_no_leaks(guest):
    assert guest.load_verbsgate().ok
    guest.run("mkdir -p /sys/fs/cgroup/vgleak/a", check=True)
    base_dying = dying(guest)
    assert tenant_objects(guest) == 1

    # One batch of CYCLES add/set/del cycles over every selector kind.
    script = (
        "import sys\n"
        "sels = ['cgroup /sys/fs/cgroup/vgleak/a', 'cgroup /sys/fs/cgroup/vgleak',"
        " 'ulp nvmet_rdma', 'local 10.77.0.0/24', 'peer fd00::/64']\n"
        f"for i in range({CYCLES}):\n"
        "    n = f'c{i % 13}'\n"
        "    print(f'tenant add {n} {sels[i % 5]} class latency weight 2'"
        " + (' min 1mbit' if i % 3 == 0 else ''))\n"
        "    if i % 4 == 0:\n"
        "        print(f'tenant set {n} weight {i % 10000 + 1}')\n"
        "    print(f'tenant del {n}')\n")
    guest.run(f"python3 -c \"{script}\" > /tmp/cycles.txt", check=True)
    res = guest.run(f"{CLI} -b /tmp/cycles.txt", timeout=900)
    assert res.ok, res.out[-2000:]

    assert_no_leaks(guest)
    # The tenants released their cgroup references.
    guest.run("rmdir /sys/fs/cgroup/vgleak/a /sys/fs/cgroup/vgleak",
              check=True)
    eventually("dying cgroups", lambda: dying(guest), base_dying)
    assert guest.unload_verbsgate().ok


def writer_batch(k: int) -> str:
    """Commands of writer k: its own tenants, and names and selectors
    every writer fights over."""
    lines = []
    for i in range(WRITER_ROUNDS):
        own = f"w{k}_{i % 5}"
        shared = f"shared{i % 3}"
        lines += [
            f"tenant add {own} ulp u{k}_{i % 5} class bandwidth weight {k + 1}",
            f"tenant set {own} weight {i % 100 + 1} min 1mbit",
            f"tenant add {shared} ulp s{i % 2} class throughput weight 2",
            f"tenant set {shared} class latency",
            f"tenant del {shared}",
            f"tenant del {own}",
        ]
        if i % 10 == 0:
            lines += ["tenant show", "stats", f"dev set rxe0 chunk {k + 4}k"]
    return "\n".join(lines) + "\n"


# What concurrent writers may legitimately be told.
CONTENTION = ["a tenant with this name exists",
              "another tenant has the same selector",
              'unknown tenant "shared']


def test_concurrent_writers_leave_consistent_state(guest):
    assert guest.load_verbsgate().ok
    for k in range(WRITERS):
        guest.run(f"cat > /tmp/w{k}.txt << 'EOF'\n{writer_batch(k)}EOF",
                  check=True)
    for k in range(WRITERS):
        guest.spawn(f"{CLI} -force -b /tmp/w{k}.txt; echo rc=$?",
                    f"/tmp/w{k}.log")
    # Readers alongside: dumps and sysfs while tenants come and go, at
    # least once and until every writer has ended.
    writers_done = " && ".join(f"grep -q '^rc=' /tmp/w{k}.log"
                               for k in range(WRITERS))
    for k in range(2):
        guest.spawn(
            f"while :; do {CLI} -j tenant show >/dev/null; "
            f"{CLI} -s stats >/dev/null; cat {SYSFS}/tenants/*/weight "
            f"{SYSFS}/tenants/*/tx_bytes >/dev/null 2>&1; "
            f"{writers_done} && break; done; echo rc=done",
            f"/tmp/r{k}.log")
    # Each script ends its log with "rc=..."; the guest agent reaps exited
    # children only between commands, so their PIDs cannot tell.
    logs = [f"/tmp/w{k}.log" for k in range(WRITERS)] + \
        [f"/tmp/r{k}.log" for k in range(2)]
    guest.run("for f in " + " ".join(logs) + "; do "
              "until grep -q '^rc=' $f; do sleep 0.2; done; done",
              timeout=900, check=True)

    for k in range(WRITERS):
        log = guest.run(f"cat /tmp/w{k}.log", check=True).out.splitlines()
        assert log[-1] in ("rc=0", "rc=1"), log[-5:]
        errors = [line for line in log[:-1] if line.startswith("verbsgate:")]
        unexpected = [e for e in errors
                      if not any(c in e for c in CONTENTION)]
        assert not unexpected, unexpected[:10]
    for k in range(2):
        assert guest.run(f"cat /tmp/r{k}.log", check=True).out.strip() == \
            "rc=done"

    # Every writer deleted its own tenants; shared ones may remain. All
    # views agree, and deleting the rest frees everything.
    shown = json.loads(guest.cli("-j tenant show").out)
    names = sorted(t["name"] for t in shown)
    assert all(n == "default" or n.startswith("shared") for n in names), names
    assert guest.run(f"ls {SYSFS}/tenants", check=True).out.split() == names
    eventually("tenant objects", lambda: tenant_objects(guest),
               len(names))
    for n in names:
        if n != "default":
            assert guest.cli(f"tenant del {n}").ok
    assert_no_leaks(guest)
    assert guest.unload_verbsgate().ok
