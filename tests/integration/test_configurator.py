"""The configurator: tenants and device settings through the CLI, the
netlink family and sysfs, which must agree; JSON output; permissions;
error messages; events."""
import json
import shlex
import struct

from harness.rawgenl import raw_batch
from harness.testbed import CLI, SYSFS, Guest
from harness.vgcli import cli_json, cli_ok, dev, spawn_monitor

CMD_TENANT_GET, CMD_STATS_GET = 6, 9
NOBODY = "setpriv --reuid=65534 --regid=65534 --clear-groups"

QP_BOUNDS = ("rnr_retry_max", "retry_cnt_max", "rnr_timer_min_ns",
             "timeout_min_ns", "rd_atomic_max")
TENANT_FIELDS = {"id", "name", "selector", "class", "weight", "min_rate",
                 "max_rate", "qps", *QP_BOUNDS, "ctrl_rate", "ctrl_burst",
                 "mr_bytes_max"}
STATS_FIELDS = {"id", "name", "qps", "tx_bytes", "tx_wrs", "chunks",
                "split_wrs", "throttled_ns", "queued_wrs", "qp_clamps",
                "ctrl_verbs", "ctrl_wait_ns", "mr_bytes", "mr_refused",
                "qp_errors", "retry_bytes"}
DEV_FIELDS = {"index", "name", "driver", "ports", "node_guid", "qps",
              "user_qps_enforced", "user_qps_refused", "ports_paced",
              "port_table"}
DEV_DETAIL_FIELDS = DEV_FIELDS | {
    "max_rate", "max_ops", "target_p99_ns", "aimd_step", "aimd_period_ns",
    "burst", "link_rate", "pkt_overhead", "chunk_nolat", "chunk_table",
    "op_costs", "lat_each", "enforce", "user_qps", "max_chunk", "safe_util",
    "rmin", "chunk_size", "ref_p99_ns", "aimd_increases", "aimd_decreases"}
DEV_STATS_FIELDS = {"index", "name", "safe_util", "rmin", "chunk_size",
                    "ref_p99_ns", "aimd_increases", "aimd_decreases"}


def tenants(g: Guest) -> dict:
    return {t["name"]: t for t in cli_json(g, "tenant show")}


def sysfs_tenants(g: Guest) -> list:
    return sorted(g.run(f"ls {SYSFS}/tenants", check=True).out.split())


def sysfs_file(g: Guest, path: str) -> str:
    return g.run(f"cat {SYSFS}/{path}", check=True).out.strip()


def cgroup_inode(g: Guest, path: str) -> int:
    """On cgroup2 a directory's inode number is the cgroup id."""
    return int(g.run(f"stat -c %i {path}", check=True).out)


def sysfs_tenant_files(g: Guest) -> dict[str, dict[str, str]]:
    """Every tenant's sysfs attributes, read in one guest command."""
    res = g.run(f"grep -s . {SYSFS}/tenants/*/*; true", check=True)
    files: dict[str, dict[str, str]] = {}
    for line in res.out.splitlines():
        path, _, value = line.partition(":")
        tenant, attr = path.split("/")[-2:]
        files.setdefault(tenant, {})[attr] = value
    return files


def assert_views_agree(g: Guest):
    """CLI (netlink dump), raw netlink and sysfs list the same tenants,
    with the same values."""
    shown = tenants(g)
    assert sorted(shown) == sysfs_tenants(g)
    dumps = raw_batch(g, [(CMD_TENANT_GET, [], True),
                          (CMD_STATS_GET, [], True)])
    assert all(d["error"] == 0 for d in dumps), dumps
    assert [d["replies"] for d in dumps] == [len(shown)] * 2
    files = sysfs_tenant_files(g)
    for name, t in shown.items():
        f = files[name]
        assert int(f["id"]) == t["id"]
        assert f["class"] == t["class"]
        assert int(f["weight"]) == t["weight"]
        assert int(f["min_rate"]) == t["min_rate"]
        assert int(f["max_rate"]) == t["max_rate"]
        assert int(f["qps"]) == t["qps"]
        policy = (*QP_BOUNDS, "ctrl_rate", "ctrl_burst", "mr_bytes_max")
        assert {b: int(f[b]) for b in policy} == {b: t[b] for b in policy}
        sel = t["selector"]
        assert f["selector"] == sel["type"]
        if sel["type"] == "cgroup":
            assert f["match"] == sel["path"]
            assert int(f["cgroup_id"]) == sel["cgroup_id"]
        elif sel["type"] == "ulp":
            assert f["match"] == sel["ulp"]
        elif sel["type"] in ("local", "peer"):
            assert f["match"] == (
                sel["prefix"] if "/" in sel["prefix"] else
                sel["prefix"] + ("/32" if "." in sel["prefix"] else "/128"))


def test_tenant_crud_round_trip(guest):
    assert guest.load_verbsgate().ok
    guest.run("mkdir -p /sys/fs/cgroup/vgt/blue", check=True)
    # Only the default tenant at first.
    assert tenants(guest) == {"default": {
        "id": 0, "name": "default", "selector": {"type": "default"},
        "class": "bandwidth", "weight": 1, "min_rate": 0, "max_rate": 0,
        "rnr_retry_max": 7, "retry_cnt_max": 7, "rnr_timer_min_ns": 0,
        "timeout_min_ns": 0, "rd_atomic_max": 0, "ctrl_rate": 0,
        "ctrl_burst": 64, "mr_bytes_max": 0, "qps": 0}}

    cli_ok(guest, "tenant add blue cgroup /sys/fs/cgroup/vgt/blue "
                  "class bandwidth weight 4 min 400mbit max 25gbit")
    cli_ok(guest, "tenant add nvme ulp nvmet_rdma class throughput weight 2 "
                  "rnr-retry-max 0 rd-atomic-max 16")
    cli_ok(guest, "tenant add hostA peer 10.77.0.0/24 class latency weight 1")
    cli_ok(guest, "tenant add gid6 local fe80::/64 class latency weight 3")
    shown = tenants(guest)
    assert sorted(shown) == ["blue", "default", "gid6", "hostA", "nvme"]
    blue = shown["blue"]
    assert blue["selector"] == {
        "type": "cgroup", "path": "/vgt/blue",
        "cgroup_id": cgroup_inode(guest, "/sys/fs/cgroup/vgt/blue")}
    assert (blue["class"], blue["weight"]) == ("bandwidth", 4)
    assert (blue["min_rate"], blue["max_rate"]) == (50_000_000, 3_125_000_000)
    assert shown["nvme"]["selector"] == {"type": "ulp", "ulp": "nvmet_rdma"}
    assert (shown["nvme"]["rnr_retry_max"], shown["nvme"]["rd_atomic_max"],
            shown["blue"]["rnr_retry_max"]) == (0, 16, 7)
    assert shown["hostA"]["selector"] == {"type": "peer",
                                          "prefix": "10.77.0.0/24"}
    assert shown["gid6"]["selector"] == {"type": "local",
                                         "prefix": "fe80::/64"}
    assert len({t["id"] for t in shown.values()}) == 5
    assert_views_agree(guest)

    # One tenant by name, in text and JSON.
    text = cli_ok(guest, "tenant show blue")
    assert text.strip() == (f"{blue['id']}: blue: selector cgroup /vgt/blue "
                            "class bandwidth weight 4 min 400Mbit "
                            "max 25Gbit qps 0")
    assert cli_json(guest, "tenant show hostA") == [shown["hostA"]]

    # Set changes exactly what it names, everywhere.
    cli_ok(guest, "tenant set blue weight 8 max none class throughput")
    cli_ok(guest, "tenant set default weight 3 retry-cnt-max 3 "
                  "timeout-min 1ms")
    shown = tenants(guest)
    assert (shown["blue"]["weight"], shown["blue"]["max_rate"],
            shown["blue"]["min_rate"], shown["blue"]["class"]) == \
        (8, 0, 50_000_000, "throughput")
    assert shown["default"]["weight"] == 3
    # 1 ms is the bound as given; a QP gets 4.096 us * 2^8 = 1.05 ms.
    assert (shown["default"]["retry_cnt_max"],
            shown["default"]["timeout_min_ns"]) == (3, 1_000_000)
    assert "retry-cnt-max 3 timeout-min 1ms qps" in \
        cli_ok(guest, "tenant show default")
    assert_views_agree(guest)

    # Delete: gone from every view; the default tenant stays.
    for name in ["blue", "nvme", "hostA", "gid6"]:
        cli_ok(guest, f"tenant del {name}")
    assert sorted(tenants(guest)) == ["default"]
    assert_views_agree(guest)
    res = guest.cli("tenant del default")
    assert res.rc == 1 and "the default tenant cannot be deleted" in res.out
    # The cgroup is free again: the tenant released it.
    guest.run("rmdir /sys/fs/cgroup/vgt/blue /sys/fs/cgroup/vgt", check=True)


def test_json_output_has_the_documented_fields(guest):
    assert guest.load_verbsgate().ok
    cli_ok(guest, "tenant add t1 ulp rpcrdma class latency weight 2")
    for t in cli_json(guest, "tenant show"):
        assert set(t) == TENANT_FIELDS, t
    stats = cli_json(guest, "stats")
    assert set(stats) == {"tenants"}
    assert {t["name"] for t in stats["tenants"]} == {"default", "t1"}
    for t in stats["tenants"]:
        assert set(t) == STATS_FIELDS, t
        # Real counters that nothing increments before QP tracking.
        assert all(t[k] == 0 for k in STATS_FIELDS - {"id", "name"}), t
    stats = cli_json(guest, "-s stats")
    assert set(stats) == {"tenants", "devices"}
    assert [set(d) for d in stats["devices"]] == [DEV_STATS_FIELDS]
    assert [set(d) for d in cli_json(guest, "dev show")] == [DEV_FIELDS]
    devs = cli_json(guest, "-d dev show")
    assert [set(d) for d in devs] == [DEV_DETAIL_FIELDS]
    assert set(devs[0]["op_costs"]) == {"data", "atomic", "mr"}
    # -p output parses to the same document.
    pretty = guest.cli("-j -p stats")
    assert pretty.ok and "\n  " in pretty.out
    assert json.loads(pretty.out)["tenants"] == \
        cli_json(guest, "stats")["tenants"]


def test_dev_settings_round_trip(guest):
    assert guest.load_verbsgate().ok
    d = dev(guest)
    # Defaults: the port's speed (rxe on a 10 Gbit/s veth), the core's
    # defaults for the rest, no latency tenant yet.
    assert d["max_rate"] == 1_250_000_000
    assert d["aimd_step"] == d["max_rate"] // 256
    assert d["chunk_table"] == [{"size": 5120, "util_ppm": 1_000_000}]
    assert d["enforce"] is True and d["lat_each"] is False
    assert d["target_p99_ns"] == 0
    assert d["burst"] == 256 << 10
    assert d["safe_util"] == d["rmin"] == d["max_rate"]
    assert d["chunk_size"] == d["chunk_nolat"] == 1 << 20

    cli_ok(guest, f"dev set {guest.rxe_dev} maxrate 25gbit maxops 30000000 "
                  "target-p99 8us step 100mbit period 200us burst 16k "
                  "chunk-table 2k@40%,5k@100% chunk-nolat 512k "
                  "cost atomic bytes 800 units 3 cost mr units 16 "
                  "latency-weight each enforce off")
    d = dev(guest)
    expect = {
        "max_rate": 3_125_000_000, "max_ops": 30_000_000,
        "target_p99_ns": 8000, "aimd_step": 12_500_000,
        "aimd_period_ns": 200_000, "burst": 16 << 10,
        "chunk_nolat": 512 << 10,
        "chunk_table": [{"size": 2048, "util_ppm": 400_000},
                        {"size": 5120, "util_ppm": 1_000_000}],
        "op_costs": {"data": {"bytes": 200, "units": 1},
                     "atomic": {"bytes": 800, "units": 3},
                     "mr": {"bytes": 4096, "units": 16}},
        "lat_each": True, "enforce": False,
    }
    assert {k: d[k] for k in expect} == expect
    # sysfs agrees, one value per file.
    node = f"devices/{guest.rxe_dev}"
    files = {
        "max_rate": "3125000000", "max_ops": "30000000",
        "target_p99_ns": "8000", "aimd_step": "12500000",
        "aimd_period_ns": "200000", "burst": "16384",
        "chunk_nolat": str(512 << 10),
        "chunk_table": "2048:400000 5120:1000000", "op_bytes_atomic": "800",
        "op_units_atomic": "3", "op_units_mr": "16", "lat_each": "1",
        "enforce": "0", "safe_util": str(d["safe_util"]),
        "rmin": str(d["rmin"]), "chunk_size": str(d["chunk_size"]),
    }
    for f, v in files.items():
        assert sysfs_file(guest, f"{node}/{f}") == v, f

    # A latency tenant brings Rmin below MaxRate (weights 1 : 1) and
    # selects the table's chunk.
    cli_ok(guest, "tenant add lat ulp rpcrdma class latency weight 1")
    d = dev(guest)
    assert d["rmin"] == d["max_rate"] // 2
    assert d["chunk_size"] in (2048, 5120)
    cli_ok(guest, "tenant del lat")
    assert dev(guest)["rmin"] == dev(guest)["max_rate"]
    # A throughput tenant selects the table's chunk too, and leaves Rmin
    # and SafeUtil at MaxRate.
    cli_ok(guest, "tenant add thr ulp rpcrdma class throughput weight 1")
    d = dev(guest)
    assert d["rmin"] == d["safe_util"] == d["max_rate"]
    assert d["chunk_size"] == 5120
    cli_ok(guest, "tenant del thr")
    assert dev(guest)["chunk_size"] == 512 << 10

    # step auto follows MaxRate again.
    cli_ok(guest, f"dev set {guest.rxe_dev} step auto maxrate 10gbit")
    assert dev(guest)["aimd_step"] == 1_250_000_000 // 256


def test_refused_changes_change_nothing(guest):
    assert guest.load_verbsgate().ok
    cli_ok(guest, "tenant add g ulp nvme_rdma class bandwidth weight 2 "
                  "min 1gbit")
    before_dev, before_t = dev(guest), tenants(guest)
    cases = [
        # (command, message the CLI prints)
        ("tenant add g ulp other class bandwidth weight 1",
         "a tenant with this name exists"),
        ("tenant add h ulp nvme_rdma class bandwidth weight 1",
         "another tenant has the same selector"),
        ("tenant add h ulp x class bandwidth weight 0",
         "invalid weight: integer out of range (allowed 1..10000)"),
        ("tenant add h ulp x class bandwidth weight 10001",
         "invalid weight: integer out of range (allowed 1..10000)"),
        ("tenant add h ulp x class bandwidth weight 1 min 2gbit max 1gbit",
         "guaranteed (min) rate above the maximum rate"),
        ("tenant add h ulp x class bandwidth weight 1 min 9.5gbit",
         "the guaranteed rates would exceed a device's max rate"),
        ("tenant add h ulp 'bad name' class bandwidth weight 1",
         "ULP name must be a module name"),
        ("tenant add h cgroup /sys/fs/cgroup/no/such class latency weight 1",
         "no such cgroup on the cgroup2 hierarchy"),
        ("tenant add " + "x" * 32 + " ulp y class latency weight 1",
         "invalid tenant name"),
        ("tenant add .. ulp y class latency weight 1",
         "tenant name must be 1..31 characters"),
        ("tenant set g max 500mbit", "guaranteed (min) rate above the maximum"),
        ("tenant set g weight 20000", "invalid weight"),
        ("tenant set nosuch weight 2", 'unknown tenant "nosuch"'),
        ("tenant del nosuch", 'unknown tenant "nosuch"'),
        (f"dev set {guest.rxe_dev} maxrate 100mbit",
         "max rate below the sum of the tenants' guaranteed rates"),
        (f"dev set {guest.rxe_dev} target-p99 2s",
         "invalid target-p99: integer out of range (allowed 0..1000000000)"),
        (f"dev set {guest.rxe_dev} chunk-table 4k@50%,2k@100%",
         "chunk table: sizes must increase"),
        (f"dev set {guest.rxe_dev} chunk 64m",
         "size above the device's largest message"),
        (f"dev set {guest.rxe_dev} step 20gbit",
         "AIMD step above the max rate"),
        (f"dev set {guest.rxe_dev} cost data bytes 2000000",
         "invalid cost bytes: integer out of range (allowed 0..1048576)"),
        (f"dev set {guest.rxe_dev} period 1ns",
         "invalid period: integer out of range"),
        (f"dev set {guest.rxe_dev} burst 65m",
         "invalid burst: integer out of range (allowed 0..67108864)"),
        # All or nothing: a valid setting next to a bad one is not applied.
        (f"dev set {guest.rxe_dev} maxrate 20gbit chunk 64m",
         "size above the device's largest message"),
        ("dev set nosuchdev maxrate 1gbit",
         "no such device attached to verbsgate"),
    ]
    for cmd, msg in cases:
        res = guest.cli(cmd)
        assert res.rc == 1, (cmd, res.out)
        assert msg in res.out, (cmd, res.out)
        assert res.out.startswith("verbsgate: ") and \
            res.out.count("\n") == 1, (cmd, res.out)
    assert dev(guest) == before_dev
    assert tenants(guest) == before_t
    assert_views_agree(guest)


def test_usage_errors_do_not_reach_the_kernel(guest):
    assert guest.load_verbsgate().ok
    for cmd, msg in [
            ("tenant add x ulp y class latency weight 1 min 400mbits",
             'unknown unit "mbits"'),
            ("tenant add x ulp y class latency weight 1 max 1bit",
             "not a whole number of bytes per second"),
            ("tenant add x ulp y class latency weight 99999999999",
             "is above 4294967295"),
            ("tenant add x ulp y class latency weight 1 "
             "max 99999999999tbit", "out of range"),
            (f"dev set {guest.rxe_dev} target-p99 8parsecs",
             'unknown unit "parsecs"'),
            ("tenant add x class latency weight 1", "missing selector"),
            ("tenant set x cgroup /a", "selector cannot change"),
            ("tenant frobnicate", 'unknown tenant command "frobnicate"')]:
        res = guest.cli(cmd)
        assert res.rc == 1 and msg in res.out, (cmd, res.out)
        assert "try 'verbsgate help'" in res.out
    assert sorted(tenants(guest)) == ["default"]


def test_help_for_every_object(guest):
    for obj in ["tenant", "dev", "stats", "monitor", "status"]:
        res = guest.cli(f"{obj} help")
        assert res.ok and res.out.startswith("Usage: verbsgate"), res.out
    res = guest.cli("help")
    assert res.ok and "tenant | dev | stats | monitor" in res.out


def test_module_not_loaded_messages(guest):
    for args in ["tenant show", "tenant add a ulp b class latency weight 1",
                 "-j stats", "monitor", f"dev set {guest.rxe_dev} chunk 4k"]:
        res = guest.cli(args)
        assert res.rc == 2, (args, res.out)
        assert "module is not loaded" in res.out and \
            "modprobe verbsgate" in res.out


def test_unprivileged_users_read_but_cannot_change(guest):
    assert guest.load_verbsgate().ok
    cli_ok(guest, "tenant add t ulp rpcrdma class latency weight 2")
    as_nobody = f"{NOBODY} {CLI}"
    for args in ["tenant show", "-j tenant show t", "-j -s stats",
                 "-d dev show", "status"]:
        res = guest.run(f"{as_nobody} {args}")
        assert res.ok, (args, res.out)
    assert json.loads(guest.run(f"{as_nobody} -j tenant show t").out)[0][
        "weight"] == 2
    for args in ["tenant add u ulp x class latency weight 1",
                 "tenant set t weight 3", "tenant del t",
                 f"dev set {guest.rxe_dev} chunk 4k",
                 f"dev set {guest.rxe_dev} enforce off"]:
        res = guest.run(f"{as_nobody} {args}")
        assert res.rc == 1, (args, res.out)
        assert res.out.strip() == ("verbsgate: permission denied: changing "
                                   "verbsgate needs CAP_NET_ADMIN"), res.out
    # sysfs is world-readable and nothing changed.
    res = guest.run(f"{NOBODY} cat {SYSFS}/tenants/t/weight "
                    f"{SYSFS}/devices/{guest.rxe_dev}/enforce", check=True)
    assert res.out.split() == ["2", "1"]
    assert sorted(tenants(guest)) == ["default", "t"]


def test_monitor_prints_events(guest):
    assert guest.load_verbsgate().ok
    log = "/tmp/vg-monitor.log"
    pid = spawn_monitor(guest, log)
    try:
        cli_ok(guest, "tenant add ev ulp rpcrdma class latency weight 5")
        cli_ok(guest, "tenant set ev weight 6")
        cli_ok(guest, f"dev set {guest.rxe_dev} target-p99 9us")
        cli_ok(guest, "tenant del ev")
        # A refused change sends no event.
        assert not guest.cli("tenant add ev2 ulp rpcrdma class latency "
                             "weight 0").ok
        cli_ok(guest, "tenant add marker ulp m class latency weight 1")
        for _ in range(100):
            if guest.run(f"grep -q marker {log}").ok:
                break
            guest.run("sleep 0.1")
    finally:
        guest.run(f"kill {pid}")
    lines = [json.loads(line) for line in
             guest.run(f"cat {log}", check=True).out.splitlines()]
    events = [(e["event"], e.get("tenant", e.get("dev", {})).get("name"))
              for e in lines if e.get("tenant", {}).get("name") != "default"]
    assert events == [("tenant add", "ev"), ("tenant set", "ev"),
                      ("dev set", guest.rxe_dev), ("tenant del", "ev"),
                      ("tenant add", "marker")], lines
    by_event = {(e["event"], e.get("tenant", {}).get("name")): e
                for e in lines}
    assert by_event[("tenant set", "ev")]["tenant"]["weight"] == 6
    assert by_event[("tenant add", "ev")]["tenant"]["selector"] == {
        "type": "ulp", "ulp": "rpcrdma"}
    dev_event = next(e for e in lines if e["event"] == "dev set")
    assert dev_event["dev"]["target_p99_ns"] == 9000


def test_batch_mode(guest):
    assert guest.load_verbsgate().ok
    guest.run("printf '%s\\n' '# two tenants' "
              "'tenant add b1 ulp x1 class latency weight 1' '' "
              "'tenant add b2 ulp x2 class throughput weight 2' "
              "'tenant set b1 weight 7' > /tmp/batch.txt", check=True)
    cli_ok(guest, "-b /tmp/batch.txt")
    shown = tenants(guest)
    assert (shown["b1"]["weight"], shown["b2"]["weight"]) == (7, 2)
    # The first failing line stops the batch and is named.
    guest.run("printf '%s\\n' 'tenant del b1' 'tenant del b1' "
              "'tenant del b2' > /tmp/batch2.txt", check=True)
    res = guest.cli("-b /tmp/batch2.txt")
    assert res.rc == 1
    assert res.out.strip() == \
        'verbsgate: /tmp/batch2.txt:2: unknown tenant "b1"'
    assert sorted(tenants(guest)) == ["b2", "default"]


def test_raw_netlink_strictness_of_the_new_commands(guest):
    """What the CLI never sends: the policies refuse it with extended acks."""
    assert guest.load_verbsgate().ok

    def nla(t, payload):
        return struct.pack("=HH", 4 + len(payload), t) + payload + \
            b"\0" * ((4 - len(payload) % 4) % 4)

    name = (9, b"zz\0")
    sel = nla(2, struct.pack("=I", 2)) + nla(5, b"rpcrdma\0")
    good = [name, (15 | 0x8000, sel), (11, struct.pack("=I", 0)),
            (12, struct.pack("=I", 1))]
    cases = [
        # output-only attributes in a request
        (3, good + [(10, struct.pack("=I", 5))], "Unsupported attribute"),
        (3, good + [(16, struct.pack("=I", 5))], "Unsupported attribute"),
        # the selector nest without NLA_F_NESTED
        (3, [name, (15, sel)] + good[2:], "NLA_F_NESTED is missing"),
        # cgroup id inside the selector is output only
        (3, [name, (15 | 0x8000, sel + nla(4, struct.pack("=Q", 1)))] +
         good[2:], "Unsupported attribute"),
        # wrong lengths
        (3, good[:3] + [(12, b"\1\0")], "invalid attribute length"),
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 3)) +
                    nla(6, b"\0" * 17))] + good[2:],
         "binary attribute size out of range"),
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 3)) +
                    nla(6, b"\0" * 5))] + good[2:],
         "address must be 4 bytes (IPv4) or 16 bytes (IPv6 or GID)"),
        # a selector with the wrong value for its type
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 1)) +
                    nla(5, b"rpcrdma\0"))] + good[2:],
         "a cgroup selector takes a cgroup path and nothing else"),
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 0)))] + good[2:],
         "only the built-in tenant"),
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 4)) +
                    nla(6, bytes([10, 0, 0, 1])) + nla(7, bytes([24])))] +
         good[2:], "address has bits set beyond the prefix length"),
        (3, [name, (15 | 0x8000, nla(2, struct.pack("=I", 4)) +
                    nla(6, bytes(4)) + nla(7, bytes([33])))] + good[2:],
         "IPv4 prefix length above 32"),
        # the selector cannot change
        (5, [name, (15 | 0x8000, sel)], "a tenant's selector cannot change"),
        # attributes the command does not take
        (4, [name, (11, struct.pack("=I", 0))], "Unsupported attribute"),
        (7, [(5, b"rxe0\0"), (9, b"zz\0")], "Unsupported attribute"),
        # required ones missing
        (3, [name], "selector required"),
        (3, [name, (15 | 0x8000, sel)], "tenant class required"),
        (5, [name], "nothing to change"),
        (7, [(5, b"rxe0\0")], "no device setting given"),
        (7, [(18, struct.pack("=Q", 10**9))], "device index or name required"),
    ]
    *outcomes, added = raw_batch(guest, [(cmd, attrs, False)
                                         for cmd, attrs, _ in cases] +
                                 [(3, good, False)])
    for (cmd, attrs, msg), res in zip(cases, outcomes):
        assert res["error"] in (22, 34), (cmd, attrs, res)
        assert msg in res["extack"], (cmd, attrs, res)
    assert added["error"] == 0
    # Unprivileged: refused before any handler runs. QP_GET dumps for
    # everyone.
    refused, dumped, qps = raw_batch(guest, [
        (4, [name], False), (6, [], True), (8, [], True)], prefix=NOBODY)
    assert refused["error"] == 1
    assert dumped["replies"] == 2
    assert qps["error"] == 0
    # QP_GET's filters must name something that exists. QP_CLASSIFIED is
    # an event, never a request.
    tenant, dev, attr, event = raw_batch(guest, [
        (8, [(9, b"nosuch\0")], True), (8, [(5, b"nosuch0\0")], True),
        (8, [(11, struct.pack("=I", 0))], True), (10, [], False)])
    assert (tenant["error"], tenant["extack"]) == (2, "no such tenant"), \
        tenant
    assert (dev["error"], dev["extack"]) == (19, "no such device"), dev
    assert attr["error"] == 22 and "Unsupported attribute" in attr["extack"]
    assert event["error"] == 95
    assert sorted(tenants(guest)) == ["default", "zz"]


def test_names_are_validated_for_sysfs(guest):
    assert guest.load_verbsgate().ok
    for good in ["a", "A-b_c.9", "x" * 31, "...", "-"]:
        cli_ok(guest, f"tenant add {shlex.quote(good)} ulp u{len(good)}"
                      f"{good.count('.')} class latency weight 1")
        assert guest.run(f"test -d {SYSFS}/tenants/{shlex.quote(good)}").ok
        cli_ok(guest, f"tenant del {shlex.quote(good)}")
    for bad in [".", "..", "a/b", "a b", "é", "a\\nb"]:
        res = guest.cli(f"tenant add {shlex.quote(bad)} ulp q class "
                        "latency weight 1")
        assert res.rc == 1 and "tenant name must be" in res.out, (bad,
                                                                  res.out)
    assert sysfs_tenants(guest) == ["default"]
