"""NVMe over RDMA on the test bed's rxe device: the reference kernel ULP.

nvmet + nvmet-rdma export a null_blk device on an address of the rxe
netdev; nvme-rdma connects to it on the same guest. Both ends' QPs are
kernel-owned, created by kernel workers through rdma_cm.

`nvme_over_rdma` exports and connects one subsystem. `nvme_subsystems`
exports several at once, each on its own extra IPv4 address of the netdev
(`extra_address`), so that address tenants can tell them apart: both ends
of a subsystem on ADDR are on this guest, so its host and target QPs all
have local = peer = ADDR. `cleanup_all` removes whatever any of these left
behind (a test that died half-way, a killed guest command).
"""
from contextlib import ExitStack, contextmanager

from harness.testbed import Guest

NVMET = "/sys/kernel/config/nvmet"
NULLB = "/sys/kernel/config/nullb"
HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:6b1b4f4a-0d6e-4a3e-9d8c-76657262730a"

# rxe's GID table has 1024 entries and reading all of them from sysfs takes
# about 2 s in the guest; the GIDs of a handful of addresses sit at the
# lowest free indices, so the first ones suffice.
GID_SLOTS = 64
# Their file names, spelled out: a `$(seq)` costs the guest a process.
GID_FILES = " ".join(str(i) for i in range(GID_SLOTS))

# nvme_subsystems() numbers its ports from here (nvme_over_rdma's callers
# use port 1), so that they nest with a plain nvme_over_rdma().
FIRST_SUBSYSTEM_PORT = 11


def ipv4_gid(addr: str) -> str:
    """The IPv4-mapped GID of addr as sysfs prints it."""
    a, b, c, d = (int(x) for x in addr.split("."))
    return f"0000:0000:0000:0000:0000:ffff:{a:02x}{b:02x}:{c:02x}{d:02x}"


def gids(g: Guest, dev: str | None = None) -> list[str]:
    """The non-zero GIDs of port 1 of dev (default: the test bed's rxe)."""
    path = f"/sys/class/infiniband/{dev or g.rxe_dev}/ports/1/gids"
    res = g.run(f"cd {path} && cat {GID_FILES}", check=True)
    return [x for x in res.out.split() if x.strip("0:")]


def wait_for_gid(g: Guest, addr: str, present: bool = True,
                 tries: int = 100, dev: str | None = None):
    """Wait (bounded: tries x 0.1 s, in the guest) until rxe device dev
    (default: the test bed's) has, or no longer has, the GID of addr."""
    dev = dev or g.rxe_dev
    path = f"/sys/class/infiniband/{dev}/ports/1/gids"
    test = "" if present else "!"
    # The shell's builtins but sleep: this runs after every address a
    # test adds or removes, and each process costs the guest 0.1 s.
    res = g.run(f"cd {path} && has() {{ for f in {GID_FILES}; do "
                f"read -r x < $f; [ \"$x\" = {ipv4_gid(addr)} ] && return 0; "
                f"done; return 1; }}; i=0; while [ $i -lt {tries} ]; do "
                f"if {test} has; then exit 0; fi; sleep 0.1; i=$((i + 1)); "
                "done; exit 1", timeout=tries * 0.1 + 60)
    if not res.ok:
        raise AssertionError(
            f"GID of {addr} {'never appeared' if present else 'stayed'} on "
            f"{dev}: {gids(g, dev)}")


@contextmanager
def extra_address(g: Guest, addr: str, prefix_len: int = 24,
                  netdev: str | None = None, dev: str | None = None):
    """addr on netdev (default: the test bed's, vg0) and its GID on rxe
    device dev (default: the test bed's, on vg0), removed on exit. The
    test bed's own address is left alone."""
    if addr == g.ip:
        yield addr
        return
    netdev, dev = netdev or g.netdev, dev or g.rxe_dev
    g.run(f"ip addr replace {addr}/{prefix_len} dev {netdev}", check=True)
    try:
        wait_for_gid(g, addr, dev=dev)
        yield addr
    finally:
        g.run(f"ip addr del {addr}/{prefix_len} dev {netdev}")
        if g.run(f"rdma link show {dev}/1").ok:
            wait_for_gid(g, addr, present=False, dev=dev)


@contextmanager
def nvme_over_rdma(g: Guest, nqn: str = "vgtest", addr: str | None = None,
                   port_id: int = 1, size_mb: int = 256,
                   host_addr: str | None = None, connect_opts: str = ""):
    """Export a null_blk namespace as `nqn` and connect to it.

    The namespace is /dev/vgnull{port_id - 1}; the nvmet port `port_id`
    listens on addr (default: the test bed's) port 4420. Several may run
    at once with distinct nqn, port_id and addr. The host connects from
    host_addr (`nvme connect --host-traddr`; default: the address the
    routing picks, which for any address of the guest's netdev is the
    netdev's primary address, the test bed's). connect_opts go to
    `nvme connect` (e.g. "--ctrl-loss-tmo=30 --reconnect-delay=1").

    Yields the host's block device path (e.g. /dev/nvme0n1).
    """
    addr = addr or g.ip
    sub = f"{NVMET}/subsystems/{nqn}"
    port = f"{NVMET}/ports/{port_id}"
    g.run("modprobe null_blk nr_devices=0 && modprobe -a nvmet nvmet-rdma "
          "nvme-rdma", check=True)
    idx = port_id - 1
    if host_addr:
        connect_opts = f"--host-traddr={host_addr} {connect_opts}"
    setup = f"""
set -e
mkdir -p {NULLB}/vgnull{idx}
echo {size_mb} > {NULLB}/vgnull{idx}/size
echo 1 > {NULLB}/vgnull{idx}/memory_backed
echo 1 > {NULLB}/vgnull{idx}/power
mkdir {sub}
echo 1 > {sub}/attr_allow_any_host
mkdir {sub}/namespaces/1
echo -n /dev/vgnull{idx} > {sub}/namespaces/1/device_path
echo 1 > {sub}/namespaces/1/enable
mkdir {port}
echo {addr} > {port}/addr_traddr
echo rdma > {port}/addr_trtype
echo 4420 > {port}/addr_trsvcid
echo ipv4 > {port}/addr_adrfam
ln -s {sub} {port}/subsystems/{nqn}
nvme connect -t rdma -a {addr} -s 4420 -n {nqn} --hostnqn {HOSTNQN} \
    {connect_opts}
"""
    try:
        g.run(setup, timeout=60, check=True)
        yield block_device(g, nqn)
    finally:
        g.run(f"""
nvme disconnect -n {nqn} >/dev/null 2>&1
rm -f {port}/subsystems/{nqn}
rmdir {port} 2>/dev/null
echo 0 > {sub}/namespaces/1/enable 2>/dev/null
rmdir {sub}/namespaces/1 {sub} 2>/dev/null
echo 0 > {NULLB}/vgnull{idx}/power 2>/dev/null
rmdir {NULLB}/vgnull{idx} 2>/dev/null
true""", timeout=60)


def block_device(g: Guest, nqn: str, tries: int = 100) -> str:
    """The host's block device of subsystem nqn, once it exists (namespaces
    are scanned asynchronously after a connect or a reconnect)."""
    res = g.run(f"for i in $(seq {tries}); do "
                "for d in /sys/class/nvme-subsystem/nvme-subsys*; do "
                f"[ \"$(cat $d/subsysnqn 2>/dev/null)\" = {nqn} ] || "
                "continue; "
                "for n in $d/nvme*n*; do [ -b /dev/${n##*/} ] && "
                "echo /dev/${n##*/} && exit 0; done; done; sleep 0.1; "
                "done; exit 1", timeout=tries * 0.1 + 60)
    if not res.ok:
        # A file that is not a device node, where the namespace's node
        # belongs, keeps devtmpfs from making the node: name it.
        stray = g.run("for f in /dev/nvme*n*; do [ -e $f ] && "
                      "[ ! -b $f ] && [ ! -c $f ] && ls -l $f; done; true").out
        raise AssertionError(
            f"no block device of {nqn} after {tries * 0.1:g} s" +
            (f"; not device nodes, left by an earlier writer:\n{stray}"
             if stray.strip() else ""))
    return res.out.split()[0]


def controllers(g: Guest, nqn: str) -> dict[str, str]:
    """The host's controllers of subsystem nqn: {name: state}."""
    res = g.run("for c in /sys/class/nvme/nvme*; do "
                f"[ \"$(cat $c/subsysnqn 2>/dev/null)\" = {nqn} ] && "
                "echo ${c##*/} $(cat $c/state); done; true")
    return dict(line.split() for line in res.out.splitlines()
                if len(line.split()) == 2)


def subsystem_nqn(addr: str) -> str:
    return "vgtest-" + addr.replace(".", "-")


@contextmanager
def nvme_subsystems(g: Guest, addrs: list[str], size_mb: int = 128,
                    connect_opts: str = ""):
    """One subsystem per address, all at once: addr is added to the netdev
    (and waited for as a GID), a null_blk of size_mb is exported on it by
    its own nvmet port (FIRST_SUBSYSTEM_PORT + i) as
    subsystem_nqn(addr), and the host connects to it from addr too, so
    that every QP of the subsystem, the host's and the target's, has
    local = peer = addr (without --host-traddr the host's QPs would have
    local = the netdev's primary address).

    Yields {addr: block device}. Torn down in reverse order: controllers
    disconnected, ports and subsystems removed, then the addresses.
    """
    with ExitStack() as stack:
        devs = {}
        for i, addr in enumerate(addrs):
            stack.enter_context(extra_address(g, addr))
            devs[addr] = stack.enter_context(nvme_over_rdma(
                g, nqn=subsystem_nqn(addr), addr=addr,
                port_id=FIRST_SUBSYSTEM_PORT + i, size_mb=size_mb,
                host_addr=addr, connect_opts=connect_opts))
        yield devs


def cleanup_all(g: Guest):
    """Remove every NVMe-oF host controller, nvmet port and subsystem,
    vgnull device and extra address of the netdev, whoever made them."""
    g.run(f"""
nvme disconnect-all >/dev/null 2>&1
for p in {NVMET}/ports/*; do
    [ -d "$p" ] || continue
    rm -f $p/subsystems/*; rmdir $p
done
for s in {NVMET}/subsystems/*; do
    [ -d "$s" ] || continue
    for n in $s/namespaces/*; do
        [ -d "$n" ] || continue
        echo 0 > $n/enable; rmdir $n
    done
    rmdir $s
done
for n in {NULLB}/vgnull*; do
    [ -d "$n" ] || continue
    echo 0 > $n/power; rmdir $n
done
for a in $(ip -4 -o addr show dev {g.netdev} | awk '{{print $4}}'); do
    [ "${{a%/*}}" = {g.ip} ] || ip addr del $a dev {g.netdev}
done
true""", timeout=120)


def reset_controllers(g: Guest, nqns: list[str], tries: int = 300):
    """Reset the host controllers of the subsystems nqns and wait (bounded:
    tries x 0.1 s) until every one is live again. A reset tears down and
    re-creates every queue, the host's and the target's: the new QPs are
    created by whatever is loaded now (e.g. a freshly loaded verbsgate,
    which leaves QPs created before it alone). Queued I/O is retried, not
    failed."""
    names = [c for nqn in nqns for c in controllers(g, nqn)]
    assert names, f"no controllers of {nqns}"
    ctrls = " ".join(f"/sys/class/nvme/{c}" for c in names)
    res = g.run(f"for c in {ctrls}; do echo 1 > $c/reset_controller; done; "
                f"for i in $(seq {tries}); do ok=1; for c in {ctrls}; do "
                "[ \"$(cat $c/state)\" = live ] || ok=0; done; "
                "[ $ok = 1 ] && exit 0; sleep 0.1; done; exit 1",
                timeout=tries * 0.1 + 60)
    if not res.ok:
        raise AssertionError(f"controllers not live after a reset: "
                             f"{[controllers(g, n) for n in nqns]}")


def leftovers(g: Guest) -> list[str]:
    """What cleanup_all() would remove: host controllers, nvmet ports and
    subsystems, vgnull devices, extra addresses of the netdev."""
    res = g.run(f"ls -d /sys/class/nvme/nvme* {NVMET}/ports/* "
                f"{NVMET}/subsystems/* {NULLB}/vgnull* 2>/dev/null; "
                f"ip -4 -o addr show dev {g.netdev} | awk '{{print $4}}' | "
                f"grep -vx {g.ip}/24; true")
    return res.out.split()
