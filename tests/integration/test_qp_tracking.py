"""verbsgate sees every QP created on a device while it is loaded, with
who created it: the process and its cgroup for user QPs, the kernel ULP for
kernel QPs, and the addresses once connected. It forgets them when they
are destroyed, and unloads safely while QPs come and go."""
import re

from harness.nvme import nvme_over_rdma

QPS = "/sys/kernel/debug/verbsgate/qps"
PINGPONG = "ibv_rc_pingpong -d rxe0 -g 1"


def tracked(g):
    return g.run(f"cat {QPS}", check=True).out.splitlines()


def test_user_qps_carry_process_cgroup_and_addresses(guest):
    assert guest.load_verbsgate().ok
    guest.run("mkdir -p /sys/fs/cgroup/blue", check=True)
    blue_id = guest.run("stat -c %i /sys/fs/cgroup/blue", check=True).out.strip()
    server = guest.spawn("echo $$ > /sys/fs/cgroup/blue/cgroup.procs; "
                         f"exec {PINGPONG} -n 20", "/tmp/server.log")
    guest.run(f"for i in $(seq 50); do grep -q pingpong {QPS} && exit 0; "
              "sleep 0.1; done; exit 1", check=True)
    lines = tracked(guest)
    assert len(lines) == 1, lines
    assert re.fullmatch(rf"rxe0 qpn \d+ type RC user pid {server} "
                        rf"comm ibv_rc_pingpong cgroup {blue_id} tenant default",
                        lines[0])

    client = guest.run(f"{PINGPONG} -n 20 127.0.0.1", timeout=60)
    assert client.ok, client.out
    guest.run(f"while kill -0 {server} 2>/dev/null; do sleep 0.1; done")
    assert "20 iters" in guest.run("cat /tmp/server.log").out
    assert tracked(guest) == [], "destroyed QPs must be forgotten"

    # While both ends live, each QP shows its addresses and its cgroup.
    server = guest.spawn("echo $$ > /sys/fs/cgroup/blue/cgroup.procs; "
                         f"exec {PINGPONG} -n 100000", "/tmp/server.log")
    guest.run(f"for i in $(seq 50); do grep -q pingpong {QPS} && exit 0; "
              "sleep 0.1; done", check=True)
    client = guest.spawn(f"exec {PINGPONG} -n 100000 127.0.0.1",
                         "/tmp/client.log")
    try:
        guest.run(f"for i in $(seq 100); do [ $(grep -c peer {QPS}) = 2 ] && "
                  "exit 0; sleep 0.1; done; exit 1", check=True)
        lines = tracked(guest)
        by_pid = {int(re.search(r"pid (\d+)", l).group(1)): l for l in lines}
        assert f"cgroup {blue_id} local 10.77.0.1 peer 10.77.0.1" in by_pid[server]
        assert "cgroup 1 local 10.77.0.1 peer 10.77.0.1" in by_pid[client]
    finally:
        guest.run(f"kill {server} {client}; sleep 0.5")
    guest.run("rmdir /sys/fs/cgroup/blue")


def test_kernel_qps_carry_their_ulp(guest):
    assert guest.load_verbsgate().ok
    with nvme_over_rdma(guest) as dev:
        guest.run(f"dd if={dev} of=/dev/null bs=64k count=16 iflag=direct",
                  check=True)
        lines = tracked(guest)
        owners = {re.search(r"owner (\S+)", l).group(1) for l in lines}
        assert owners == {"nvme_rdma", "nvmet_rdma"}, lines
        assert all(" type RC kernel " in l and "local 10.77.0.1 peer 10.77.0.1"
                   in l for l in lines), lines
    guest.run("sleep 1")
    assert tracked(guest) == []


def test_qps_created_before_load_are_left_alone(guest):
    server = guest.spawn(f"exec {PINGPONG} -n 100000", "/tmp/server.log")
    guest.run("sleep 1")
    assert guest.load_verbsgate().ok
    assert tracked(guest) == []
    guest.run(f"kill {server}")


def test_unload_while_qps_churn(guest):
    churn = guest.spawn(
        f"while :; do {PINGPONG} -n 50 >/dev/null 2>&1 & sleep 0.2; "
        f"{PINGPONG} -n 50 127.0.0.1 >/dev/null 2>&1; wait; done",
        "/tmp/churn.log")
    try:
        for cycle in range(10):
            assert guest.load_verbsgate().ok, f"cycle {cycle}"
            guest.run("sleep 0.3")
            assert guest.unload_verbsgate().ok, f"cycle {cycle}"
    finally:
        guest.run(f"kill {churn}; pkill ibv_rc_pingpong; sleep 0.5; true")
