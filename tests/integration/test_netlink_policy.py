"""The netlink family validates strictly and answers with extended acks."""
import errno
import json
import struct

GENL_RAW = "tests/integration/guest/genl_raw.py"
CMD_GET_STATUS, CMD_DEV_GET = 1, 2
ATTR_DEV_INDEX, ATTR_DEV_NAME, ATTR_DEV_DRIVER = 4, 5, 6


def raw(g, cmd, *attrs, dump=False):
    args = " ".join(f"--attr {t}:{payload.hex()}" for t, payload in attrs)
    res = g.run(f"python3 {g.repo / GENL_RAW} {cmd} {args}"
                f"{' --dump' if dump else ''}", check=True)
    return json.loads(res.out)


def test_valid_requests(guest):
    assert guest.load_verbsgate().ok
    assert raw(guest, CMD_GET_STATUS) == {"error": 0, "extack": "",
                                          "replies": 1}
    assert raw(guest, CMD_DEV_GET, dump=True)["replies"] == 1
    by_name = raw(guest, CMD_DEV_GET, (ATTR_DEV_NAME, b"rxe0\0"))
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
    for attrs in cases:
        for cmd in (CMD_GET_STATUS, CMD_DEV_GET):
            res = raw(guest, cmd, *attrs)
            assert res["error"] in (errno.EINVAL, errno.ERANGE), (attrs, res)
            assert res["extack"], (attrs, res)
    unknown_cmd = raw(guest, 99)
    assert unknown_cmd["error"] == errno.EOPNOTSUPP


def test_dev_get_errors(guest):
    assert guest.load_verbsgate().ok
    res = raw(guest, CMD_DEV_GET)
    assert res["error"] == errno.EINVAL
    assert res["extack"] == "device index or name required"
    res = raw(guest, CMD_DEV_GET, (ATTR_DEV_INDEX, struct.pack("=I", 4242)))
    assert res["error"] == errno.ENODEV
    assert res["extack"] == "no such device attached to verbsgate"
    # index and name that name different devices
    res = raw(guest, CMD_DEV_GET, (ATTR_DEV_INDEX, struct.pack("=I", 4242)),
              (ATTR_DEV_NAME, b"rxe0\0"))
    assert res["error"] == errno.ENODEV


# GENL_ADMIN_PERM and the GENL_CMD_CAP_* bits the controller reports.
ADMIN, CAP_DO, CAP_DUMP, HASPOL = 0x01, 0x02, 0x04, 0x08


def test_family_ops_permissions_and_groups(guest):
    """The ABI as registered: every command has its own policy, changes
    need CAP_NET_ADMIN, reads do not; QP_GET is a dump only; one events
    group."""
    assert guest.load_verbsgate().ok
    res = guest.run(f"python3 {guest.repo / GENL_RAW} --family-info",
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

