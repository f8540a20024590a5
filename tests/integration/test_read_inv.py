"""RDMA READ_WITH_INV through verbsgate's splitter.

rxe in 6.1 fails READ_WITH_INV in its requester (only iWARP devices
implement it); vg_readinv gives rxe the verb as an iWARP device behaves
(a READ, then the invalidation once it has completed) and runs a read
with it: a plain READ of BYTES and at once a READ_WITH_INV of BYTES into
a fast-registration MR, both checked byte for byte, then a READ into the
MR, which must fail. With verbsgate splitting (16k chunks, paced) the
READ_WITH_INV is accepted while the plain READ is still queued, goes out
as plain READs and one READ_WITH_INV at the end, and the MR is
invalidated only after the whole read (an early invalidation would fail
the later chunks). The same run passes without verbsgate.
"""
import pytest

from harness.testbed import REPO, Guest
from harness.vgcli import cli_ok

MODULE = REPO / "tests" / "integration" / "readinv" / "vg_readinv.ko"
BYTES = 256 * 1024
CHUNK = 16 * 1024


def counter(g: Guest, name: str) -> int:
    return int(g.run(f"cat /sys/module/vg_readinv/parameters/{name}",
                     check=True).out)


@pytest.mark.parametrize("shaped", [False, True],
                         ids=["without_verbsgate", "split_by_verbsgate"])
def test_read_with_invalidate(guest, shaped):
    g = guest
    g.run(f"insmod {MODULE} dev={g.rxe_dev}", check=True)
    try:
        if shaped:
            assert g.load_verbsgate().ok
            cli_ok(g, f"dev set {g.rxe_dev} maxrate 4mbps "
                      f"chunk-nolat {CHUNK} chunk {CHUNK}")
            cli_ok(g, "tenant add t ulp vg_readinv class bandwidth weight 1")
        mark = g.console_mark()
        res = g.run(f"echo {BYTES} > /sys/kernel/debug/vg_readinv/run",
                    timeout=300)
        assert res.ok, res.out + g.console_since(mark)[-3000:]
        assert "the MR invalidated" in g.console_since(mark)
        # One READ_WITH_INV reached the device, as its owner posted one.
        assert counter(g, "read_invs") == 1
        # Plain READs: the owner's READ and the late one into the MR;
        # split, the READ in BYTES / CHUNK chunks and the READ_WITH_INV
        # in as many, all but its last plain READs.
        chunks = BYTES // CHUNK
        assert counter(g, "reads") == (2 * chunks if shaped else 2)
    finally:
        if g.verbsgate_loaded():
            assert g.unload_verbsgate().ok
        g.run("rmmod vg_readinv", check=True)
