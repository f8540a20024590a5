"""Tenants of the tests: cgroups (made, pinned to vCPUs, emptied) and
verbsgate tenants added over them or over other selectors."""
import shlex

from harness.testbed import Guest

CGROUPS = "/sys/fs/cgroup"


def in_cgroup(cgroup: str, cmd: str) -> str:
    """A shell command that runs cmd in cgroup (a directory name under
    the cgroup root), which it enters first."""
    return "sh -c " + shlex.quote(
        f"echo $$ > {CGROUPS}/{cgroup}/cgroup.procs && exec {cmd}")


def make_cgroups(g: Guest, names):
    """cgroups directly under the root, for in_cgroup()."""
    g.run("mkdir -p " + " ".join(f"{CGROUPS}/{n}" for n in names),
          check=True)


# The cgroup of the test bed's own processes while tenants are pinned.
TESTBED_CGROUP = "testbed"


def pin_cgroups(g: Guest, cpus: dict[str, str], testbed: str = ""):
    """Each cgroup (made if missing) on its own vCPUs: cpus maps a name to
    its cpuset.cpus ("0", "1-2"; "" for the parent's set again). With
    testbed, the guest's agent, and so every command and server it starts
    outside a tenant's cgroup, moves to cgroup TESTBED_CGROUP on those
    vCPUs: otherwise, with the attacker's vCPU busy, the scheduler puts
    the test bed's own work on the victim's. The test bed's reset
    (conftest.py) unpins every cgroup and moves the agent back."""
    make_cgroups(g, [*cpus, TESTBED_CGROUP])
    g.run(f"echo +cpuset > {CGROUPS}/cgroup.subtree_control", check=True)
    # The shell's parent is the agent; a populated cgroup refuses "".
    home = f"{CGROUPS}/{TESTBED_CGROUP}" if testbed else CGROUPS
    g.run(f"echo $PPID > {home}/cgroup.procs", check=True)
    for name, c in {**cpus, TESTBED_CGROUP: testbed}.items():
        g.run(f"echo '{c}' > {CGROUPS}/{name}/cpuset.cpus", check=True)


def empty_cgroups(g: Guest, names):
    """Kill every process in the cgroups and wait until they are empty
    (a populated cgroup refuses to be unpinned)."""
    if not names:
        return
    paths = " ".join(f"{CGROUPS}/{n}" for n in names)
    # The shell's builtins: in TCG each process costs a tenth of a second.
    g.run(f"for d in {paths}; do [ -d $d ] || continue; "
          "while read -r p; do kill -9 $p 2>/dev/null; done <$d/cgroup.procs; "
          "i=0; while :; do while read -r k v; do [ $k = populated ] && "
          "break; done <$d/cgroup.events; [ $v = 0 ] && break; "
          "[ $i -ge 100 ] && { echo $d is still populated; exit 1; }; "
          "i=$((i + 1)); sleep 0.1; done; done", check=True)


# The CLI's tenant selectors (`verbsgate tenant help`).
SELECTORS = ("cgroup", "ulp", "local", "peer")


def add_tenants(g: Guest, spec: dict[str, str]):
    """`tenant add NAME REST` for each NAME: REST in @spec. A REST that
    starts with no selector (class, weight) selects the cgroup /NAME,
    made if missing: a tenant named after its cgroup."""
    for name, rest in spec.items():
        if rest.split()[0] not in SELECTORS:
            make_cgroups(g, [name])
            rest = f"cgroup /{name} {rest}"
        res = g.cli(f"tenant add {name} {rest}")
        assert res.ok, f"tenant add {name} {rest}: {res.out}"
