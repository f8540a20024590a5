"""NVMe over RDMA on the test bed's rxe device: the reference kernel ULP.

nvmet + nvmet-rdma export a null_blk device on an address of the rxe
netdev; nvme-rdma connects to it on the same guest. Both ends' QPs are
kernel-owned, created by kernel workers through rdma_cm.
"""
from contextlib import contextmanager

from testbed import Guest

NVMET = "/sys/kernel/config/nvmet"
HOSTNQN = "nqn.2014-08.org.nvmexpress:uuid:6b1b4f4a-0d6e-4a3e-9d8c-76657262730a"


@contextmanager
def nvme_over_rdma(g: Guest, nqn: str = "vgtest", addr: str | None = None,
                   port_id: int = 1, size_mb: int = 256):
    """Export a null_blk namespace as `nqn` and connect to it.

    Yields the host's block device path (e.g. /dev/nvme0n1).
    """
    addr = addr or g.ip
    sub = f"{NVMET}/subsystems/{nqn}"
    port = f"{NVMET}/ports/{port_id}"
    g.run("modprobe null_blk nr_devices=0 && modprobe -a nvmet nvmet-rdma "
          "nvme-rdma", check=True)
    idx = port_id - 1
    setup = f"""
set -e
mkdir -p /sys/kernel/config/nullb/vgnull{idx}
echo {size_mb} > /sys/kernel/config/nullb/vgnull{idx}/size
echo 1 > /sys/kernel/config/nullb/vgnull{idx}/memory_backed
echo 1 > /sys/kernel/config/nullb/vgnull{idx}/power
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
nvme connect -t rdma -a {addr} -s 4420 -n {nqn} --hostnqn {HOSTNQN}
"""
    try:
        g.run(setup, timeout=60, check=True)
        # Namespaces are scanned asynchronously after the connect.
        res = g.run("for i in $(seq 100); do for d in /sys/class/nvme-subsystem/nvme-subsys*; do "
                    f"[ \"$(cat $d/subsysnqn)\" = {nqn} ] || continue; "
                    "for n in $d/nvme*n*; do [ -b /dev/${n##*/} ] && "
                    "echo /dev/${n##*/} && exit 0; done; done; sleep 0.1; "
                    "done; exit 1", check=True)
        yield res.out.split()[0]
    finally:
        g.run(f"""
nvme disconnect -n {nqn} >/dev/null 2>&1
rm -f {port}/subsystems/{nqn}
rmdir {port} 2>/dev/null
echo 0 > {sub}/namespaces/1/enable 2>/dev/null
rmdir {sub}/namespaces/1 {sub} 2>/dev/null
echo 0 > /sys/kernel/config/nullb/vgnull{idx}/power 2>/dev/null
rmdir /sys/kernel/config/nullb/vgnull{idx} 2>/dev/null
true""", timeout=60)
