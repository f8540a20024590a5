"""How each port of a device is paced, as `dev show` (netlink) and sysfs
show it: rxe has one port, whose pacer runs at SafeUtil, holds the
device's shaped QPs and counts what it lets through; the views agree,
and the port directories come and go with the device."""
from harness.tenants import make_cgroups
from harness.testbed import REPO, SYSFS, Guest
from harness.vgcli import cli_json, cli_ok, dev, eventually, port1

KQP = REPO / "tests" / "integration" / "kqp" / "vg_kqp.ko"
# docs/sysfs.md: the files of devices/<dev>/paced_ports/<port>/, named as the
# members of a port_table entry.
PORT_FILES = ["link_rate", "rate", "op_rate", "qps", "paced_bytes",
              "paced_ops"]
# rxe on a 10 Gbit/s veth (testbed.py): the port's data rate.
LINK_RATE = 1_250_000_000
# What a packet adds on an Ethernet line (RoCEv2 over IPv4): preamble 8,
# Ethernet 14, IPv4 20, UDP 8, BTH 12, ICRC 4, FCS 4, inter-frame gap 12.
ROCE_PKT_BYTES = 82
WRS, SIZE = 16, 262144


def sysfs_ports(g: Guest, name: str) -> dict:
    """{port: {file: value}} of devices/<name>/paced_ports/, and ports_paced."""
    base = f"{SYSFS}/devices/{name}"
    paced = int(g.run(f"cat {base}/ports_paced", check=True).out)
    if not g.run(f"test -d {base}/paced_ports").ok:
        return {"ports_paced": paced}
    out = {"ports_paced": paced}
    for port in g.run(f"ls {base}/paced_ports", check=True).out.split():
        # "file:value" lines, one read each
        res = g.run(f"cd {base}/paced_ports/{port} && grep -H . "
                    + " ".join(PORT_FILES), check=True)
        out[int(port)] = {k: int(v) for k, v in
                          (line.split(":", 1) for line in res.out.split())}
    return out


def assert_sysfs_agrees(g: Guest, name: str = ""):
    """sysfs shows the ports netlink shows, with the same values. Only
    while nothing is paced: the counters would move in between."""
    name = name or g.rxe_dev
    d = dev(g, name)
    want = {"ports_paced": d["ports_paced"]}
    for p in d.get("port_table", []):
        want[p["port"]] = {k: p[k] for k in PORT_FILES}
    assert sysfs_ports(g, name) == want


def test_the_port_is_paced_at_safe_util(guest):
    g = guest
    assert g.load_verbsgate().ok
    # The port's rate is queried in the background after attaching.
    eventually("link rate", lambda: port1(g)["link_rate"], LINK_RATE)
    d = dev(g)
    assert (d["ports"], d["ports_paced"]) == (1, 1)
    (p,) = d["port_table"]
    # The first port runs at SafeUtil; MaxRate follows its link.
    assert p["port"] == 1
    assert p["rate"] == d["safe_util"] == d["max_rate"] == LINK_RATE
    assert p["op_rate"] == 0            # maxops 0: no op pacing
    assert p["qps"] == d["qps"]["enforced"] == 0
    assert (p["paced_bytes"], p["paced_ops"]) == (0, 0)
    assert_sysfs_agrees(g)

    # The operator's MaxRate and op rate reach the port's pacer.
    cli_ok(g, f"dev set {g.rxe_dev} maxrate 400mbit maxops 100000")
    d = dev(g)
    (p,) = d["port_table"]
    assert p["rate"] == d["safe_util"] == 50_000_000
    assert p["op_rate"] == 100_000
    assert p["link_rate"] == LINK_RATE  # the link did not change
    assert_sysfs_agrees(g)
    # Text: beside the port count, and a line for the port.
    out = cli_ok(g, f"dev show {g.rxe_dev}")
    assert f": {g.rxe_dev}: driver rdma_rxe ports 1 ports-paced 1 " in out
    assert ("\n    port 1 link 10Gbit rate 400Mbit op-rate 100000 qps 0 "
            "paced-bytes 0 paced-ops 0") in out, out


def test_the_operator_states_the_line(guest):
    """Where the device cannot know its line (rxe behind a shaped veth),
    the operator states its rate and what each packet adds there: the
    port's pacer and MaxRate follow the rate until MaxRate is set, the
    device's own rate comes back with `link-rate device`, and bad values
    are refused with nothing changed."""
    g = guest
    assert g.load_verbsgate().ok
    eventually("link rate", lambda: port1(g)["link_rate"], LINK_RATE)
    d = dev(g)
    # RoCE: Ethernet's framing and RoCEv2's headers over IPv4.
    assert (d["link_rate"], d["pkt_overhead"]) == (0, ROCE_PKT_BYTES)

    cli_ok(g, f"dev set {g.rxe_dev} link-rate 200mbit pkt-overhead 58")
    d = dev(g)
    (p,) = d["port_table"]
    assert (d["link_rate"], d["pkt_overhead"]) == (25_000_000, 58)
    assert p["link_rate"] == d["max_rate"] == d["safe_util"] == \
        p["rate"] == 25_000_000
    assert "link-rate 200Mbit pkt-overhead 58" in \
        cli_ok(g, f"-d dev show {g.rxe_dev}")
    base = f"{SYSFS}/devices/{g.rxe_dev}"
    assert g.run(f"cat {base}/link_rate {base}/pkt_overhead",
                 check=True).out.split() == ["25000000", "58"]
    assert_sysfs_agrees(g)

    # Out of range: refused, and nothing of the request applied.
    for bad in ("pkt-overhead 513", "link-rate 9000tbit",
                "maxops 7 pkt-overhead 4096"):
        res = g.cli(f"dev set {g.rxe_dev} {bad}")
        assert not res.ok and "out of range" in res.out, (bad, res.out)
    d = dev(g)
    assert (d["link_rate"], d["pkt_overhead"], d["max_ops"]) == \
        (25_000_000, 58, 0)
    # Not below what the tenants are guaranteed.
    make_cgroups(g, ["gold"])
    cli_ok(g, "tenant add gold cgroup /gold class bandwidth weight 1 "
              "min 100mbit")
    res = g.cli(f"dev set {g.rxe_dev} link-rate 50mbit")
    assert not res.ok and "guaranteed" in res.out, res.out
    cli_ok(g, "tenant del gold")

    # The operator's MaxRate stays when the link changes; `device` and
    # `auto` go back to what the device and its link layer say.
    cli_ok(g, f"dev set {g.rxe_dev} maxrate 100mbit")
    cli_ok(g, f"dev set {g.rxe_dev} link-rate device pkt-overhead auto")
    d = dev(g)
    (p,) = d["port_table"]
    assert (d["link_rate"], p["link_rate"]) == (0, LINK_RATE)
    assert d["pkt_overhead"] == ROCE_PKT_BYTES
    assert d["max_rate"] == p["rate"] == 12_500_000
    assert_sysfs_agrees(g)


def test_paced_traffic_counts_on_its_port(guest):
    """A kernel ULP's WRITEs, paced for its bandwidth tenant: the port
    holds its two QPs while they live, and its pacer counts every byte
    and operation the tenant sent."""
    g = guest
    # Its ib_client first, as a ULP loaded before verbsgate.
    g.run(f"insmod {KQP} dev={g.rxe_dev} hold=1 wrs={WRS} size={SIZE}",
          check=True)
    try:
        assert g.load_verbsgate().ok
        cli_ok(g, "tenant add bulk ulp vg_kqp class bandwidth weight 1")
        before = port1(g)
        assert before["qps"] == 0

        def bulk() -> dict:
            (t,) = [t for t in cli_json(g, "stats")["tenants"]
                    if t["name"] == "bulk"]
            return t

        # A connected pair, WRS WRITEs posted and left unpolled.
        g.run("echo 1 > /sys/module/vg_kqp/parameters/start", check=True)
        eventually("WRITEs posted", lambda: bulk()["tx_wrs"], WRS)
        t = bulk()
        assert t["queued_wrs"] == 0, t
        d = dev(g)
        (p,) = d["port_table"]
        assert p["qps"] == d["qps"]["enforced"] == 2
        # Every byte of the tenant went through the port's pacer.
        assert p["paced_bytes"] - before["paced_bytes"] == \
            t["tx_bytes"] == WRS * SIZE
        assert p["paced_ops"] - before["paced_ops"] == t["chunks"] > 0
        assert p["rate"] == d["safe_util"]
        assert_sysfs_agrees(g)

        res = g.run("echo 1 > /sys/module/vg_kqp/parameters/finish",
                    timeout=60)
        assert res.ok, res.out
        eventually("QPs on the port", lambda: port1(g)["qps"], 0)
        after = port1(g)
        # Counters are monotonic: the QPs' end takes nothing back.
        assert after["paced_bytes"] == p["paced_bytes"]
        assert_sysfs_agrees(g)
    finally:
        if g.verbsgate_loaded():
            g.unload_verbsgate()
        g.run("rmmod vg_kqp")


def test_port_directories_follow_the_device(guest):
    g = guest
    assert g.load_verbsgate().ok
    g.run("rdma link add vgports type rxe netdev vg1", check=True)
    try:
        eventually("link rate",
                   lambda: port1(g, "vgports")["link_rate"], LINK_RATE)
        d = dev(g, "vgports")
        assert [p["port"] for p in d["port_table"]] == [1]
        assert_sysfs_agrees(g, "vgports")
        # Renamed with the device.
        g.run("rdma dev set vgports name vgports2", check=True)
        assert g.run(f"cat {SYSFS}/devices/vgports2/paced_ports/1/rate",
                     check=True).out.strip() == str(d["port_table"][0]["rate"])
    finally:
        g.run("rdma link delete vgports2 2>/dev/null || "
              "rdma link delete vgports")
    assert not g.run(f"test -e {SYSFS}/devices/vgports2").ok
    # The module's own device keeps its port; unload removes it too.
    assert sysfs_ports(g, g.rxe_dev)["ports_paced"] == 1
    assert g.unload_verbsgate().ok
    assert not g.run(f"test -e {SYSFS}").ok
