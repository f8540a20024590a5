"""The module attaches to every RDMA device, shows it in sysfs and over
netlink, and loads and unloads cleanly any number of times."""
import json
from pathlib import Path

from harness.testbed import CLI, REPO, SYSFS, Guest

VERSION = (REPO / "VERSION").read_text().strip()
# A load or an unload that leaves something behind fails the next cycle,
# so a few cycles show it; the unload that races readers and link churn
# runs more, for the interleavings (`make soak` reloads under I/O 100
# times).
CYCLES = 5
RACE_CYCLES = 20


def sysfs_devices(g: Guest) -> list[str]:
    res = g.run(f"ls {SYSFS}/devices", check=True)
    return sorted(res.out.split())


def netlink_devices(g: Guest) -> list[str]:
    res = g.cli("-j dev show")
    assert res.ok, res.out
    return sorted(d["name"] for d in json.loads(res.out))


def test_load_unload_with_device(guest):
    for cycle in range(CYCLES):
        res = guest.load_verbsgate()
        assert res.ok, f"cycle {cycle}: {res.out}"
        assert sysfs_devices(guest) == [guest.rxe_dev]
        assert netlink_devices(guest) == [guest.rxe_dev]
        assert guest.unload_verbsgate().ok
        assert guest.run(f"test -e {SYSFS}").rc == 1, "sysfs left behind"
    assert not guest.verbsgate_loaded()


def test_load_unload_without_device(guest):
    guest.run(f"rdma link delete {guest.rxe_dev}", check=True)
    for cycle in range(CYCLES):
        res = guest.load_verbsgate()
        assert res.ok, f"cycle {cycle}: {res.out}"
        assert sysfs_devices(guest) == []
        assert netlink_devices(guest) == []
        status = json.loads(guest.cli("-j status").out)
        assert status["devices"] == 0
        assert guest.unload_verbsgate().ok


def test_link_add_delete_rename_while_loaded(guest):
    assert guest.load_verbsgate().ok
    guest.run("rdma link add vgtest type rxe netdev vg1", check=True)
    assert sysfs_devices(guest) == sorted([guest.rxe_dev, "vgtest"])
    assert netlink_devices(guest) == sorted([guest.rxe_dev, "vgtest"])

    guest.run("rdma dev set vgtest name vgrenamed", check=True)
    assert sysfs_devices(guest) == sorted([guest.rxe_dev, "vgrenamed"])
    assert netlink_devices(guest) == sorted([guest.rxe_dev, "vgrenamed"])

    guest.run("rdma link delete vgrenamed", check=True)
    assert sysfs_devices(guest) == [guest.rxe_dev]
    assert netlink_devices(guest) == [guest.rxe_dev]
    status = json.loads(guest.cli("-j status").out)
    assert status["devices"] == 1


def test_device_attributes_match_ib_core(guest):
    assert guest.load_verbsgate().ok
    rdma = json.loads(guest.run("rdma -j dev show", check=True).out)
    core = next(d for d in rdma if d["ifname"] == guest.rxe_dev)
    node = Path(f"{SYSFS}/devices/{guest.rxe_dev}")
    attrs = {a: guest.run(f"cat {node}/{a}", check=True).out.strip()
             for a in ["index", "driver", "ports", "node_guid"]}
    ib_guid = guest.run(f"cat /sys/class/infiniband/{guest.rxe_dev}/node_guid",
                        check=True).out.strip()
    assert attrs == {"index": str(core["ifindex"]), "driver": "rdma_rxe",
                     "ports": "1", "node_guid": ib_guid}

    (shown,) = json.loads(guest.cli(f"-j dev show {guest.rxe_dev}").out)
    # QPs by enforcement (test_qp_enforcement.py checks the numbers).
    assert set(shown.pop("qps")) == {"enforced", "tracked", "unsupported",
                                     "untracked"}
    # User QPs (test_user_qps_policy.py checks the policy).
    assert (shown.pop("user_qps_enforced"), shown.pop("user_qps_refused")) \
        == (False, 0)
    # Its one port, paced apart (test_dev_ports.py checks the pacing).
    assert shown.pop("ports_paced") == 1
    assert [p["port"] for p in shown.pop("port_table")] == [1]
    assert shown == {"index": core["ifindex"], "name": guest.rxe_dev,
                     "driver": "rdma_rxe", "ports": 1, "node_guid": ib_guid}
    status = json.loads(guest.cli("-j status").out)
    assert status == {"loaded": True, "version": VERSION, "devices": 1}
    assert guest.run("cat /sys/module/verbsgate/version",
                     check=True).out.strip() == VERSION


def test_unload_while_readers_and_links_churn(guest):
    """sysfs readers, netlink dumps and link churn race with rmmod."""
    cli = CLI
    readers = guest.spawn(
        f"while :; do cat {SYSFS}/devices/*/* "
        f"{SYSFS}/devices/*/paced_ports/*/* >/dev/null 2>&1; "
        f"{cli} dev show >/dev/null 2>&1; done", "/tmp/readers.log")
    churn = guest.spawn(
        "while :; do rdma link add vgchurn type rxe netdev vg1; "
        "rdma link delete vgchurn; done", "/tmp/churn.log")
    try:
        for cycle in range(RACE_CYCLES):
            res = guest.load_verbsgate()
            assert res.ok, f"cycle {cycle}: {res.out}"
            assert guest.unload_verbsgate().ok, f"cycle {cycle}"
    finally:
        guest.run(f"kill {readers} {churn}; sleep 0.5; "
                  "rdma link delete vgchurn 2>/dev/null; true")
    assert not guest.verbsgate_loaded()
