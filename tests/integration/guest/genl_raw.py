#!/usr/bin/env python3
"""Send hand-made requests to the "verbsgate" generic netlink family.

Runs inside the guest. Unlike the CLI, it can send what no well-behaved
client would (unknown or output-only attributes, wrong types), so tests can
check that the kernel's strict validation refuses them.

  genl_raw.py CMD [--dump] [--attr TYPE:HEX ...]

prints one JSON line: {"error": errno (0 = success), "extack": "...",
"replies": number of reply messages}.

  genl_raw.py --batch FILE

sends the requests FILE lists, one per line in the form above, over one
socket, and prints a JSON line for each (python3 takes half a second
to start in the emulated guest; a batch pays for that once).

  genl_raw.py --family-info

prints what the generic netlink controller says about the family:
{"version": N, "maxattr": N, "ops": {"CMD": flags}, "groups": [names]}.
"""
import argparse
import json
import os
import socket
import struct
import sys

NETLINK_GENERIC = 16
GENL_ID_CTRL = 0x10
CTRL_CMD_GETFAMILY = 3
CTRL_ATTR_FAMILY_ID = 1
CTRL_ATTR_FAMILY_NAME = 2
NLMSG_ERROR = 2
NLMSG_DONE = 3
NLM_F_REQUEST = 0x1
NLM_F_ACK = 0x4
NLM_F_DUMP = 0x300
NLM_F_CAPPED = 0x100
NLM_F_ACK_TLVS = 0x200
NLMSGERR_ATTR_MSG = 1
SOL_NETLINK = 270
NETLINK_EXT_ACK = 11
NETLINK_CAP_ACK = 10


def align(n):
    return (n + 3) & ~3


def nla(atype, payload):
    hdr = struct.pack("=HH", 4 + len(payload), atype)
    return hdr + payload + b"\0" * (align(len(payload)) - len(payload))


def parse_attrs(data):
    attrs = {}
    while len(data) >= 4:
        length, atype = struct.unpack_from("=HH", data)
        if length < 4:
            break
        attrs[atype & 0x3fff] = data[4:length]
        data = data[align(length):]
    return attrs


def extack_message(tlvs):
    return parse_attrs(tlvs).get(NLMSGERR_ATTR_MSG, b"").rstrip(b"\0").decode()


class Genl:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_EXT_ACK, 1)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_CAP_ACK, 1)
        self.sock.bind((0, 0))
        self.seq = 0

    def request(self, family, cmd, attrs=b"", flags=NLM_F_ACK, version=1):
        self.seq += 1
        body = struct.pack("=BBH", cmd, version, 0) + attrs
        msg = struct.pack("=IHHII", 16 + len(body), family,
                          NLM_F_REQUEST | flags, self.seq, os.getpid()) + body
        self.sock.send(msg)
        replies, error, extack = [], 0, ""
        while True:
            data = self.sock.recv(1 << 16)
            while data:
                length, mtype, mflags, _, _ = struct.unpack_from("=IHHII", data)
                payload = data[16:length]
                data = data[align(length):]
                if mtype == NLMSG_DONE:
                    # A dump that failed says why in its DONE message: the
                    # error code, then the extack attributes.
                    if len(payload) >= 4:
                        error = -struct.unpack_from("=i", payload)[0]
                    if mflags & NLM_F_ACK_TLVS:
                        extack = extack_message(payload[4:])
                    return error, extack, replies
                if mtype == NLMSG_ERROR:
                    error = -struct.unpack_from("=i", payload)[0]
                    if mflags & NLM_F_ACK_TLVS:
                        off = 20 if mflags & NLM_F_CAPPED else 4 + \
                            struct.unpack_from("=I", payload, 4)[0]
                        extack = extack_message(payload[off:])
                    return error, extack, replies
                replies.append(parse_attrs(payload[4:]))

    def family_id(self, name):
        error, _, replies = self.request(
            GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
            nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
        if error or not replies:
            raise SystemExit(f"family {name} not found (errno {error})")
        return struct.unpack("=H", replies[0][CTRL_ATTR_FAMILY_ID][:2])[0]


CTRL_ATTR_VERSION = 3
CTRL_ATTR_MAXATTR = 5
CTRL_ATTR_OPS = 6
CTRL_ATTR_MCAST_GROUPS = 7
CTRL_ATTR_OP_ID = 1
CTRL_ATTR_OP_FLAGS = 2
CTRL_ATTR_MCAST_GRP_NAME = 1


def family_info(g, name):
    """The controller's view of a family: version, ops and their flags
    (GENL_ADMIN_PERM, GENL_CMD_CAP_*), multicast groups."""
    error, _, replies = g.request(
        GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
        nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
    if error or not replies:
        raise SystemExit(f"family {name} not found (errno {error})")
    top = replies[0]
    ops = {}
    for op in parse_attrs(top.get(CTRL_ATTR_OPS, b"")).values():
        a = parse_attrs(op)
        ops[struct.unpack("=I", a[CTRL_ATTR_OP_ID])[0]] = \
            struct.unpack("=I", a[CTRL_ATTR_OP_FLAGS])[0]
    groups = [parse_attrs(grp)[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0")
              .decode() for grp in
              parse_attrs(top.get(CTRL_ATTR_MCAST_GROUPS, b"")).values()]
    return {"version": struct.unpack("=I", top[CTRL_ATTR_VERSION])[0],
            "maxattr": struct.unpack("=I", top[CTRL_ATTR_MAXATTR])[0],
            "ops": ops, "groups": groups}


def parser() -> argparse.ArgumentParser:
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", type=int)
    ap.add_argument("--dump", action="store_true")
    ap.add_argument("--attr", action="append", default=[],
                    help="TYPE:HEXPAYLOAD")
    return ap


def send(g: Genl, fam: int, args: argparse.Namespace) -> str:
    """The request args describe, and its outcome as a JSON line."""
    attrs = b""
    for a in args.attr:
        atype, hexdata = a.split(":", 1)
        attrs += nla(int(atype), bytes.fromhex(hexdata))
    flags = NLM_F_DUMP if args.dump else NLM_F_ACK
    error, extack, replies = g.request(fam, args.cmd, attrs, flags)
    return json.dumps({"error": error, "extack": extack,
                       "replies": len(replies)})


def main():
    if sys.argv[1:] == ["--family-info"]:
        print(json.dumps(family_info(Genl(), "verbsgate")))
        return
    ap = parser()
    if sys.argv[1:2] == ["--batch"] and len(sys.argv) == 3:
        with open(sys.argv[2]) as f:
            requests = [ap.parse_args(line.split()) for line in f
                        if line.strip()]
    else:
        requests = [ap.parse_args()]
    g = Genl()
    fam = g.family_id("verbsgate")
    for args in requests:
        print(send(g, fam, args), flush=True)


if __name__ == "__main__":
    main()
