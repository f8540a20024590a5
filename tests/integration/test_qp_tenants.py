"""Every tracked QP belongs to one tenant: a cgroup tenant captures the QPs
of processes inside its cgroup and no others, address and ULP tenants
capture kernel QPs, adding and deleting tenants moves existing QPs by the
rules of uapi/linux/verbsgate.h, and `verbsgate qp show`, the tenants' QP
counts, sysfs and QP_CLASSIFIED events agree."""
import json
import re

from harness.nvme import nvme_over_rdma
from harness.testbed import SYSFS, Guest
from harness.vgcli import cli_ok, eventually, spawn_monitor, tenant_objects

PINGPONG = "ibv_rc_pingpong -d rxe0 -g 1 -n 1000000"
BLUE = "/sys/fs/cgroup/blue"


def qps(g: Guest, args: str = "") -> list:
    return json.loads(cli_ok(g, f"-j qp show {args}"))


def qp_counts(g: Guest) -> dict:
    shown = json.loads(cli_ok(g, "-j tenant show"))
    return {t["name"]: t["qps"] for t in shown}


def start_pair(g: Guest) -> tuple[int, int]:
    """A connected RC pair on rxe0: the server inside the blue cgroup, the
    client outside it. Returns their pids once both QPs have addresses."""
    server = g.spawn(f"echo $$ > {BLUE}/cgroup.procs; exec {PINGPONG}",
                     "/tmp/server.log")
    eventually("the server's QP", lambda: len(qps(g)), 1)
    client = g.spawn(f"exec {PINGPONG} 127.0.0.1", "/tmp/client.log")
    eventually("two connected QPs",
               lambda: len([q for q in qps(g) if "peer" in q]), 2)
    return server, client


def by_pid(g: Guest) -> dict:
    return {q["pid"]: q for q in qps(g)}


def test_cgroup_tenant_captures_only_its_processes(guest):
    g = guest
    assert g.load_verbsgate().ok
    g.run(f"mkdir -p {BLUE}", check=True)
    blue_id = int(g.run(f"stat -c %i {BLUE}", check=True).out)
    cli_ok(g, "tenant add blue cgroup /blue class bandwidth weight 3")
    server, client = start_pair(g)
    try:
        shown = by_pid(g)
        assert set(shown) == {server, client}, shown
        s, c = shown[server], shown[client]
        assert (s["tenant"], s["cgroup_id"], s["comm"]) == \
            ("blue", blue_id, "ibv_rc_pingpong"), s
        assert c["tenant"] == "default" and c["cgroup_id"] != blue_id, c
        for q in (s, c):
            assert (q["dev"], q["type"]) == ("rxe0", "RC"), q
            assert (q["local"], q["peer"]) == ("10.77.0.1", "10.77.0.1"), q
        assert [q["pid"] for q in qps(g, "tenant blue")] == [server]
        assert [q["pid"] for q in qps(g, "dev rxe0 tenant default")] == \
            [client]
        counts = qp_counts(g)
        assert (counts["blue"], counts["default"]) == (1, 1), counts
        assert g.run(f"cat {SYSFS}/tenants/blue/qps",
                     check=True).out.strip() == "1"
        text = cli_ok(g, "qp show tenant blue").strip()
        assert re.fullmatch(
            rf"rxe0 qpn {s['qpn']} type RC tenant blue pid {server} "
            rf"comm ibv_rc_pingpong cgroup {blue_id} "
            r"local 10\.77\.0\.1 peer 10\.77\.0\.1 "
            r"enforcement tracked: user-qp", text), text
    finally:
        g.run(f"kill {server} {client}; sleep 0.5")
    eventually("QPs to be forgotten", lambda: qps(g), [])
    assert qp_counts(g) == {"default": 0, "blue": 0}
    cli_ok(g, "tenant del blue")
    g.run(f"rmdir {BLUE}")


def test_tenant_changes_move_existing_qps(guest):
    g = guest
    assert g.load_verbsgate().ok
    g.run(f"mkdir -p {BLUE}/inner", check=True)
    log = "/tmp/qp-monitor.log"
    monitor = spawn_monitor(g, log)
    server, client = start_pair(g)
    try:
        assert {q["tenant"] for q in qps(g)} == {"default"}
        # Rule R2: the new tenant takes the QPs it selects, nothing else.
        cli_ok(g, "tenant add blue cgroup /blue class bandwidth weight 2")
        shown = by_pid(g)
        assert (shown[server]["tenant"], shown[client]["tenant"]) == \
            ("blue", "default"), shown
        # A deeper cgroup tenant that holds no process moves nothing.
        cli_ok(g, "tenant add inner cgroup /blue/inner class latency "
                  "weight 1")
        assert by_pid(g)[server]["tenant"] == "blue"
        # A peer prefix ranks below a cgroup: it takes only the client.
        cli_ok(g, "tenant add net peer 10.77.0.0/24 class throughput "
                  "weight 1")
        shown = by_pid(g)
        assert (shown[server]["tenant"], shown[client]["tenant"]) == \
            ("blue", "net"), shown
        # Rule R3: a deleted tenant's QPs go where the rules now say.
        cli_ok(g, "tenant del blue")
        shown = by_pid(g)
        assert (shown[server]["tenant"], shown[client]["tenant"]) == \
            ("net", "net"), shown
        cli_ok(g, "tenant del net")
        assert {q["tenant"] for q in qps(g)} == {"default"}
        assert qp_counts(g) == {"default": 2, "inner": 0}

        # Each move was announced, in order, after the QP's creation and
        # its address were.
        server_qpn = by_pid(g)[server]["qpn"]

        def announced():
            events = map(json.loads, g.run(f"cat {log}").out.splitlines())
            return [e["qp"]["tenant"] for e in events
                    if e["event"] == "qp classified" and
                    e["qp"]["qpn"] == server_qpn]
        eventually("QP_CLASSIFIED events", announced,
                   ["default", "default", "blue", "net", "default"])
    finally:
        g.run(f"kill {server} {client} {monitor}; sleep 0.5")
    eventually("QPs to be forgotten", lambda: qps(g), [])
    cli_ok(g, "tenant del inner")
    g.run(f"rmdir {BLUE}/inner {BLUE}")


def test_kernel_qps_by_ulp_and_address(guest):
    g = guest
    assert g.load_verbsgate().ok
    cli_ok(g, "tenant add host ulp nvme_rdma class bandwidth weight 1")
    with nvme_over_rdma(g) as dev:
        g.run(f"dd if={dev} of=/dev/null bs=64k count=16 iflag=direct",
              check=True)
        shown = qps(g)
        assert shown and all("pid" not in q for q in shown), shown
        by_ulp = {}
        for q in shown:
            by_ulp.setdefault(q["ulp"], set()).add(q["tenant"])
        # The host's QPs are nvme_rdma's; the target's (nvmet_rdma's,
        # created by kernel workers) are selected by no tenant.
        assert by_ulp == {"nvme_rdma": {"host"},
                          "nvmet_rdma": {"default"}}, shown
        # An address outranks a ULP: both ends have peer 10.77.0.1.
        cli_ok(g, "tenant add peer1 peer 10.77.0.1 class bandwidth weight 1")
        assert {q["tenant"] for q in qps(g)} == {"peer1"}
        assert qp_counts(g)["peer1"] == len(shown)
        cli_ok(g, "tenant del peer1")
        assert {(q["ulp"], q["tenant"]) for q in qps(g)} == \
            {("nvme_rdma", "host"), ("nvmet_rdma", "default")}
    eventually("NVMe QPs to be destroyed", lambda: qps(g), [])
    assert qp_counts(g) == {"default": 0, "host": 0}


def test_deleted_tenant_with_qps_is_freed_and_filters_fail_clearly(guest):
    g = guest
    assert g.load_verbsgate().ok
    g.run(f"mkdir -p {BLUE}", check=True)
    base = tenant_objects(g)
    cli_ok(g, "tenant add blue cgroup /blue class bandwidth weight 3")
    server, client = start_pair(g)
    try:
        cli_ok(g, "tenant del blue")
        assert {q["tenant"] for q in qps(g)} == {"default"}
    finally:
        g.run(f"kill {server} {client}; sleep 0.5")
    eventually("the deleted tenant to be freed", lambda: tenant_objects(g), base)
    g.run(f"rmdir {BLUE}")

    res = g.cli("qp show tenant nosuch")
    assert res.rc == 1 and "no such tenant" in res.out, res.out
    res = g.cli("qp show dev nosuch0")
    assert res.rc == 1 and "no such device" in res.out, res.out
    assert g.cli("-j qp show").out.strip() == "[]"
    g.unload_verbsgate()
    res = g.cli("qp show")
    assert res.rc == 2 and "module is not loaded" in res.out, res.out
