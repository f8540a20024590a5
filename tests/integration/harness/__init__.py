"""The integration tests' library: what the tests (tests/integration/
test_*.py) and the scripts behind make targets (tests/integration/
targets/) share.

- testbed: the QEMU guest (Debian's 6.1 kernel under TCG, rxe on a
  veth), its agent, the module and tools built for it;
- wire: the wire mode, two rxe devices across a rate-limited port, and
  its counters;
- tenants: cgroups, pinned or not, and verbsgate tenants over them;
- traffic: vgload servers and clients, and the sqhold tools;
- nvme, fio: NVMe over RDMA in the guest and fio's jobs and results;
- counters, vgcli: verbsgate's counters and CLI as the tests use them;
- reports: the measured figures' Markdown sections;
- postscale, insnprof, rawgenl: the post-scaling measurement, the
  guest's instruction counts, raw generic netlink messages.
"""
