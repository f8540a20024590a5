"""The netlink family validates strictly and answers with extended acks."""
import errno
import json
import struct

from harness.rawgenl import GENL_RAW, raw_batch
from harness.testbed import CLI
from harness.vgcli import spawn_monitor

CMD_GET_STATUS, CMD_DEV_GET = 1, 2
ATTR_DEV_INDEX, ATTR_DEV_NAME, ATTR_DEV_DRIVER = 4, 5, 6


def test_valid_requests(guest):
    assert guest.load_verbsgate().ok
    status, dump, by_name = raw_batch(guest, [
        (CMD_GET_STATUS, [], False), (CMD_DEV_GET, [], True),
        (CMD_DEV_GET, [(ATTR_DEV_NAME, b"rxe0\0")], False)])
    assert status == {"error": 0, "extack": "", "replies": 1}
    assert dump["replies"] == 1
    assert by_name["error"] == 0 and by_name["replies"] == 1


def test_strict_validation(guest):
    assert guest.load_verbsgate().ok
    cases = [
        # attribute type beyond the policy
        ((200, b"\0\0\0\0"),),
        # output-only attribute in a request
        ((ATTR_DEV_DRIVER, b"rdma_rxe\0"),),
        # wrong length for a u32
        ((ATTR_DEV_INDEX, b"\1\0"),),
        # unterminated / over-long name
        ((ATTR_DEV_NAME, b"rxe0"),),
        ((ATTR_DEV_NAME, b"x" * 200 + b"\0"),),
    ]
    requests = [(cmd, list(attrs), False) for attrs in cases
                for cmd in (CMD_GET_STATUS, CMD_DEV_GET)]
    *outcomes, unknown_cmd = raw_batch(guest, requests + [(99, [], False)])
    for req, res in zip(requests, outcomes):
        assert res["error"] in (errno.EINVAL, errno.ERANGE), (req, res)
        assert res["extack"], (req, res)
    assert unknown_cmd["error"] == errno.EOPNOTSUPP


def test_dev_get_errors(guest):
    assert guest.load_verbsgate().ok
    nodev = (ATTR_DEV_INDEX, struct.pack("=I", 4242))
    none, unknown, mismatch = raw_batch(guest, [
        (CMD_DEV_GET, [], False), (CMD_DEV_GET, [nodev], False),
        # index and name that name different devices
        (CMD_DEV_GET, [nodev, (ATTR_DEV_NAME, b"rxe0\0")], False)])
    assert none["error"] == errno.EINVAL
    assert none["extack"] == "device index or name required"
    assert unknown["error"] == errno.ENODEV
    assert unknown["extack"] == "no such device attached to verbsgate"
    assert mismatch["error"] == errno.ENODEV


# GENL_ADMIN_PERM and the GENL_CMD_CAP_* bits the controller reports.
ADMIN, CAP_DO, CAP_DUMP, HASPOL = 0x01, 0x02, 0x04, 0x08


def test_family_ops_permissions_and_groups(guest):
    """The ABI as registered: every command has its own policy, changes
    need CAP_NET_ADMIN, reads do not; QP_GET is a dump only; one events
    group."""
    assert guest.load_verbsgate().ok
    res = guest.run(f"python3 -S {guest.repo / GENL_RAW} --family-info",
                    check=True)
    info = json.loads(res.out)
    assert info["version"] == 1
    ops = {int(k): v for k, v in info["ops"].items()}
    assert ops == {
        1: CAP_DO | HASPOL,			# GET_STATUS
        2: CAP_DO | CAP_DUMP | HASPOL,		# DEV_GET
        3: ADMIN | CAP_DO | HASPOL,		# TENANT_ADD
        4: ADMIN | CAP_DO | HASPOL,		# TENANT_DEL
        5: ADMIN | CAP_DO | HASPOL,		# TENANT_SET
        6: CAP_DO | CAP_DUMP | HASPOL,		# TENANT_GET
        7: ADMIN | CAP_DO | HASPOL,		# DEV_SET
        8: CAP_DUMP | HASPOL,			# QP_GET
        9: CAP_DUMP | HASPOL,			# STATS_GET
    }
    assert info["groups"] == ["events"]



# Who may see whose QPs (netlink_qp.c): like `rdma res`, pids as numbered
# in the reader's pid namespace and only QPs whose creator has a number
# there; a reader without CAP_NET_ADMIN sees only its own uid's QPs.
USER, OTHER = 1000, 1001
PINGPONG = "ibv_rc_pingpong -d rxe0 -g 1"


def as_user(uid: int, cmd: str) -> str:
    """cmd as uid, without capabilities (setpriv clears them)."""
    return f"setpriv --reuid={uid} --regid={uid} --clear-groups {cmd}"


def qp_view(g, cmd_prefix: str = "") -> dict:
    """The sorted (comm, pid) of the QPs `verbsgate -j qp show` lists,
    run through cmd_prefix (as a user, in a pid namespace)."""
    res = g.run(f"{cmd_prefix} {CLI} -j qp show", check=True)
    return sorted((q.get("comm"), q.get("pid")) for q in json.loads(res.out))


def start_servers(g):
    """Three user QPs: root's, USER's, and USER's inside a new pid
    namespace (where its pingpong is pid 1). Returns their host pids."""
    g.run("chmod 666 /dev/infiniband/uverbs*", check=True)
    root = g.spawn(f"exec {PINGPONG} -p 18601", "/tmp/pp-root.log")
    user = g.spawn("exec " + as_user(USER, f"{PINGPONG} -p 18602"),
                   "/tmp/pp-user.log")
    g.spawn("exec unshare -p -f --mount-proc " +
            as_user(USER, f"{PINGPONG} -p 18603"), "/tmp/pp-ns.log")
    g.run("for i in $(seq 100); do [ $(grep -c pingpong "
          "/sys/kernel/debug/verbsgate/qps) = 3 ] && exit 0; sleep 0.1; "
          "done; exit 1", check=True)
    inner = int(g.run("pgrep -f -- '-p 18603$' | while read p; do "
                      "[ $(stat -c %u /proc/$p) = 1000 ] && "
                      "grep -q ibv_rc_pingpong /proc/$p/comm && echo $p; "
                      "done", check=True).out.split()[0])
    return root, user, inner


def test_qp_dump_shows_readers_only_what_they_may_see(guest):
    g = guest
    assert g.load_verbsgate().ok
    root, user, inner = start_servers(g)
    pp = "ibv_rc_pingpong"
    try:
        # The admin in the initial pid namespace sees every QP.
        assert qp_view(g) == sorted([(pp, root), (pp, user), (pp, inner)])
        # A user sees its own QPs, wherever their creators run, not root's.
        assert qp_view(g, as_user(USER, "")) == sorted([(pp, user),
                                                        (pp, inner)])
        # Another user sees none of them.
        assert qp_view(g, as_user(OTHER, "")) == []
        # In the server's pid namespace, only the QP whose creator has a
        # number there shows, with that number: to the admin and the user.
        ns = f"nsenter -t {inner} -p -m"
        assert qp_view(g, ns) == [(pp, 1)]
        assert qp_view(g, f"{ns} {as_user(USER, '')}") == [(pp, 1)]
        # A fresh pid namespace numbers none of the creators.
        assert qp_view(g, "unshare -p -f --mount-proc") == []
    finally:
        # SIGKILL: the inner server is its pid namespace's init, which
        # ignores signals it has no handler for, even from outside (a
        # SIGTERM left it, and its QP, to later tests). Wait until all
        # three are reaped, so their QPs are gone.
        g.run(f"kill -KILL {root} {user} {inner}; "
              f"for p in {root} {user} {inner}; do "
              "while kill -0 $p 2>/dev/null; do sleep 0.1; done; done",
              check=True)
        g.run("chmod 600 /dev/infiniband/uverbs*")


def test_events_group_needs_cap_net_admin(guest):
    """The events group says who runs what: joining it needs
    CAP_NET_ADMIN. Its QP events carry no pid, which could not be
    numbered for every listener's pid namespace."""
    g = guest
    assert g.load_verbsgate().ok
    res = g.run(f"timeout 5 {as_user(USER, f'{CLI} monitor')}")
    assert res.rc == 1 and "Operation not permitted" in res.out, res

    log = "/tmp/priv-monitor.log"
    monitor = spawn_monitor(g, log)
    server = g.spawn(f"exec {PINGPONG} -p 18604", "/tmp/pp-ev.log")
    try:
        def qp_events():
            return [json.loads(line)["qp"] for line in
                    g.run(f"cat {log}").out.splitlines()
                    if '"qp classified"' in line]
        for _ in range(100):
            if qp_events():
                break
            g.run("sleep 0.1")
        events = qp_events()
        assert events and all(e.get("comm") == "ibv_rc_pingpong"
                              for e in events), events
        assert all("pid" not in e for e in events), events
    finally:
        g.run(f"kill {server} {monitor}; sleep 0.5")
