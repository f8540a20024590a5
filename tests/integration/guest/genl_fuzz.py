#!/usr/bin/env python3
"""Fuzz the "verbsgate" generic netlink family with malformed requests.

Runs inside the guest as root, in one process:

  genl_fuzz.py --count N [--seed S] [--cgroup PATH]

Each message is built from a random recipe: a random command (known,
reserved or unknown), random netlink flags, version and reserved field, and
a random list of attributes: known types with right or wrong lengths and
random values, unknown and out-of-range types, nested attributes with and
without NLA_F_NESTED, nests of random content up to three deep, strings
with and without their NUL, oversized payloads, attributes whose length
runs past the message, and messages whose own length is wrong. About one
message in eight is a well-formed change (tenant add/set/del, dev set) with
random values from a small pool of names, so that the fuzzing also moves
real state around.

Messages go out in batches of --batch, each followed by a GET_STATUS
request with an ACK whose sequence number closes the batch: everything up
to that ack is read and tallied (requests the kernel drops without an
answer, such as a bad nlmsg_len, just have no reply). Prints one JSON line:
{"sent": N, "errors": {errno: count}, "replies": replies, "seconds": s}.
"""
import argparse
import json
import os
import random
import re
import socket
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genl_raw import (Genl, NLM_F_ACK, NLM_F_DUMP, NLM_F_REQUEST,  # noqa: E402
                      NLMSG_DONE, NLMSG_ERROR, align, nla)

NLA_F_NESTED = 0x8000
NLA_F_NET_BYTEORDER = 0x4000
SO_RCVBUFFORCE = 33

UAPI = os.path.join(os.path.dirname(os.path.abspath(__file__)),
                    "..", "..", "..", "uapi", "linux", "verbsgate.h")


def uapi_enum(name: str) -> dict:
    """{constant: value} of `enum name` in uapi/linux/verbsgate.h, so that
    the fuzzer follows the header (every attribute, up to the last one
    added) without copying its numbers."""
    with open(UAPI) as f:
        text = re.sub(r"/\*.*?\*/", "", f.read(), flags=re.S)
    body = re.search(r"enum %s \{(.*?)\};" % name, text, re.S).group(1)
    values, nxt = {}, 0
    for entry in filter(None, (e.strip() for e in body.split(","))):
        key, _, expr = (x.strip() for x in entry.partition("="))
        if expr:
            # The header assigns only "__X_MAX - 1" and numbers.
            m = re.fullmatch(r"(\w+) - 1|(\d+)", expr)
            nxt = values[m.group(1)] - 1 if m.group(1) else int(m.group(2))
        values[key] = nxt
        nxt += 1
    return values


CMD = uapi_enum("verbsgate_cmd")
ATTR = uapi_enum("verbsgate_attr")
SEL = uapi_enum("verbsgate_sel_attr")
CHUNK = uapi_enum("verbsgate_chunk_attr")
COST = uapi_enum("verbsgate_opcost_attr")
CMD_GET_STATUS = CMD["VERBSGATE_CMD_GET_STATUS"]
CMD_TENANT_ADD = CMD["VERBSGATE_CMD_TENANT_ADD"]
CMD_TENANT_DEL = CMD["VERBSGATE_CMD_TENANT_DEL"]
CMD_TENANT_SET = CMD["VERBSGATE_CMD_TENANT_SET"]
CMD_TENANT_GET = CMD["VERBSGATE_CMD_TENANT_GET"]
CMD_DEV_SET = CMD["VERBSGATE_CMD_DEV_SET"]
CMD_MAX = CMD["VERBSGATE_CMD_MAX"]
A_DEV_NAME = ATTR["VERBSGATE_ATTR_DEV_NAME"]
A_T_NAME = ATTR["VERBSGATE_ATTR_TENANT_NAME"]
A_T_CLASS = ATTR["VERBSGATE_ATTR_TENANT_CLASS"]
A_T_WEIGHT = ATTR["VERBSGATE_ATTR_TENANT_WEIGHT"]
A_T_MIN = ATTR["VERBSGATE_ATTR_TENANT_MIN_RATE"]
A_T_MAX = ATTR["VERBSGATE_ATTR_TENANT_MAX_RATE"]
A_T_SEL = ATTR["VERBSGATE_ATTR_TENANT_SELECTOR"]
A_D_MAX_RATE = ATTR["VERBSGATE_ATTR_DEV_MAX_RATE"]
A_D_TARGET = ATTR["VERBSGATE_ATTR_DEV_TARGET_P99"]
A_D_CHUNK_TABLE = ATTR["VERBSGATE_ATTR_DEV_CHUNK_TABLE"]
A_D_OP_COSTS = ATTR["VERBSGATE_ATTR_DEV_OP_COSTS"]
A_D_ENFORCE = ATTR["VERBSGATE_ATTR_DEV_ENFORCE"]
A_D_USER_QPS = ATTR["VERBSGATE_ATTR_DEV_USER_QPS"]
ATTR_MAX = ATTR["VERBSGATE_ATTR_MAX"]
SEL_TYPE = SEL["VERBSGATE_SEL_ATTR_TYPE"]
SEL_PATH = SEL["VERBSGATE_SEL_ATTR_CGROUP_PATH"]
SEL_ULP = SEL["VERBSGATE_SEL_ATTR_ULP"]
SEL_ADDR = SEL["VERBSGATE_SEL_ATTR_ADDR"]
SEL_PLEN = SEL["VERBSGATE_SEL_ATTR_PREFIX_LEN"]
CHUNK_SIZE = CHUNK["VERBSGATE_CHUNK_ATTR_SIZE"]
CHUNK_UTIL = CHUNK["VERBSGATE_CHUNK_ATTR_UTIL"]
COST_CLASS = COST["VERBSGATE_OPCOST_ATTR_CLASS"]
COST_BYTES = COST["VERBSGATE_OPCOST_ATTR_BYTES"]

# Payload size of the attributes requests carry (0: string, -1: nested);
# the header's comments say the type. Every other attribute of the
# header (the outputs) is sent with a payload of a random kind.
SIZES = {
    "DEV_INDEX": 4, "DEV_NAME": 0, "TENANT_NAME": 0, "TENANT_ID": 4,
    "TENANT_CLASS": 4, "TENANT_WEIGHT": 4, "TENANT_MIN_RATE": 8,
    "TENANT_MAX_RATE": 8, "TENANT_SELECTOR": -1, "TENANT_QPS": 4,
    "TENANT_STATS": -1, "DEV_MAX_RATE": 8, "DEV_MAX_OPS": 8,
    "DEV_TARGET_P99": 8, "DEV_AIMD_STEP": 8, "DEV_AIMD_PERIOD": 8,
    "DEV_CHUNK_NOLAT": 4, "DEV_CHUNK_TABLE": -1, "DEV_OP_COSTS": -1,
    "DEV_LAT_EACH": 1, "DEV_ENFORCE": 1, "DEV_USER_QPS": 1, "DEV_BURST": 4,
    "DEV_LINK_RATE": 8, "DEV_PKT_OVERHEAD": 4,
}
KNOWN = {ATTR["VERBSGATE_ATTR_" + k]: v for k, v in SIZES.items()}
OUTPUTS = [v for k, v in ATTR.items()
           if 0 < v <= ATTR_MAX and v not in KNOWN]
NAMES = [f"fz{i}" for i in range(24)] + ["default", "", "x" * 31,
                                          "x" * 32, "..", ".", "a/b"]


class Fuzzer:
    def __init__(self, rng, cgroup):
        self.rng = rng
        self.cgroup = cgroup

    def value(self, size):
        r = self.rng
        edge = [0, 1, 2, 3, 10000, 10001, (1 << 40), (1 << 40) + 1,
                (1 << 8 * size) - 1, r.getrandbits(8 * size)]
        v = r.choice(edge) & ((1 << 8 * size) - 1)
        return v.to_bytes(size, "little")

    def string(self):
        r = self.rng
        s = r.choice(NAMES + ["rxe0", "nvmet_rdma", self.cgroup, "/",
                              "/nonexistent", "x" * r.randint(0, 300)])
        data = s.encode()
        return data + b"\0" if r.random() < 0.8 else data

    def blob(self):
        r = self.rng
        n = r.choice([0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 64, 1000, 4000])
        return bytes(r.getrandbits(8) for _ in range(min(n, 64))) * \
            (n // 64 + 1) if n > 64 else \
            bytes(r.getrandbits(8) for _ in range(n))

    def nested_content(self, depth):
        r = self.rng
        out = b""
        for _ in range(r.randint(0, 4)):
            t = r.randint(0, 9)
            if depth < 3 and r.random() < 0.3:
                out += nla(t | NLA_F_NESTED, self.nested_content(depth + 1))
            elif r.random() < 0.5:
                out += nla(t, self.value(r.choice([1, 2, 4, 8])))
            else:
                out += nla(t, self.blob() if r.random() < 0.5
                           else self.string())
        return out

    def attr(self):
        r = self.rng
        roll = r.random()
        if roll < 0.6:
            t = r.choice(list(KNOWN))
            size = KNOWN[t]
            if size == -1:
                flag = NLA_F_NESTED if r.random() < 0.8 else 0
                return nla(t | flag, self.nested_content(1))
            if size == 0:
                return nla(t, self.string())
            if r.random() < 0.8:
                return nla(t, self.value(size))
            return nla(t, self.blob())
        if roll < 0.7:
            t = r.choice(OUTPUTS)
            return nla(t, r.choice([self.value(r.choice([1, 2, 4, 8])),
                                    self.string(), self.blob(),
                                    self.nested_content(1)]))
        if roll < 0.8:
            t = r.choice([0, 1, 2, 3, ATTR_MAX, ATTR_MAX + 1, 200, 0x3fff])
            flag = r.choice([0, 0, NLA_F_NESTED, NLA_F_NET_BYTEORDER])
            return nla(t | flag, self.blob())
        if roll < 0.9:
            # An attribute whose length runs past its payload.
            payload = self.blob()
            hdr = struct.pack("=HH", 4 + len(payload) + r.randint(1, 300),
                              r.randint(0, ATTR_MAX))
            return hdr + payload
        # A header shorter than itself.
        return struct.pack("=HH", r.randint(0, 3), r.randint(0, ATTR_MAX))

    def selector(self):
        r = self.rng
        kind = r.randint(0, 5)
        out = nla(SEL_TYPE, struct.pack("=I", kind))
        if kind == 1 or r.random() < 0.1:
            out += nla(SEL_PATH, r.choice([self.cgroup, "/", "/nope"])
                       .encode() + b"\0")
        if kind == 2 or r.random() < 0.1:
            out += nla(SEL_ULP, r.choice(["nvmet_rdma", "nvme_rdma", "a-b",
                                          "bad name"]).encode() + b"\0")
        if kind in (3, 4) or r.random() < 0.1:
            out += nla(SEL_ADDR, bytes(r.choice([4, 16, 3, 8])))
            if r.random() < 0.7:
                out += nla(SEL_PLEN, bytes([r.choice([0, 8, 24, 32, 33,
                                                      64, 128, 129])]))
        return nla(A_T_SEL | NLA_F_NESTED, out)

    def valid_change(self):
        """A well-formed request that changes (or tries to change) state."""
        r = self.rng
        name = nla(A_T_NAME, r.choice(NAMES[:24]).encode() + b"\0")
        cmd = r.choice([CMD_TENANT_ADD, CMD_TENANT_ADD, CMD_TENANT_DEL,
                        CMD_TENANT_SET, CMD_DEV_SET, CMD_TENANT_GET])
        if cmd == CMD_DEV_SET:
            attrs = nla(A_DEV_NAME, b"rxe0\0")
            if r.random() < 0.5:
                attrs += nla(A_D_MAX_RATE, struct.pack(
                    "=Q", r.choice([1, 10**9, 125 * 10**7, 1 << 40])))
            if r.random() < 0.5:
                attrs += nla(A_D_TARGET, struct.pack(
                    "=Q", r.choice([0, 8000, 10**9])))
            if r.random() < 0.5:
                ents = b"".join(
                    nla(i + 1 | NLA_F_NESTED,
                        nla(CHUNK_SIZE, struct.pack("=I", r.choice(
                            [1024, 4096, 5120, 1 << 20, 1 << 24]))) +
                        nla(CHUNK_UTIL, struct.pack("=I", r.choice(
                            [0, 400000, 1000000]))))
                    for i in range(r.randint(0, 17)))
                attrs += nla(A_D_CHUNK_TABLE | NLA_F_NESTED, ents)
            if r.random() < 0.3:
                ents = b"".join(
                    nla(i + 1 | NLA_F_NESTED,
                        nla(COST_CLASS, struct.pack("=I", r.randint(0, 3))) +
                        nla(COST_BYTES, struct.pack("=I", r.choice(
                            [0, 200, 1 << 20, (1 << 20) + 1]))))
                    for i in range(r.randint(0, 4)))
                attrs += nla(A_D_OP_COSTS | NLA_F_NESTED, ents)
            if r.random() < 0.3:
                attrs += nla(A_D_ENFORCE, bytes([r.randint(0, 2)]))
            if r.random() < 0.2:
                attrs += nla(A_D_USER_QPS, bytes([r.randint(0, 2)]))
            return cmd, attrs
        attrs = name
        if cmd == CMD_TENANT_ADD:
            attrs += self.selector()
        if cmd in (CMD_TENANT_ADD, CMD_TENANT_SET):
            if r.random() < 0.9:
                attrs += nla(A_T_CLASS, struct.pack("=I", r.randint(0, 3)))
            if r.random() < 0.9:
                attrs += nla(A_T_WEIGHT, struct.pack(
                    "=I", r.choice([0, 1, 4, 10000, 10001])))
            if r.random() < 0.3:
                attrs += nla(A_T_MIN, struct.pack(
                    "=Q", r.choice([0, 10**6, 10**9, 1 << 41])))
            if r.random() < 0.3:
                attrs += nla(A_T_MAX, struct.pack(
                    "=Q", r.choice([0, 10**6, 10**9])))
        return cmd, attrs

    def message(self, family, seq, pid):
        r = self.rng
        if r.random() < 0.125:
            cmd, attrs = self.valid_change()
            flags = NLM_F_REQUEST | NLM_F_ACK
            version, reserved = 1, 0
        else:
            cmd = r.choice(list(range(0, CMD_MAX + 2)) + [r.randint(0, 255)])
            flags = NLM_F_REQUEST | r.choice(
                [NLM_F_ACK, NLM_F_ACK, NLM_F_DUMP, NLM_F_DUMP | NLM_F_ACK,
                 r.getrandbits(16) & ~0x8])
            version = r.choice([1, 1, 1, 0, 2, 255])
            reserved = 0 if r.random() < 0.9 else r.getrandbits(16)
            attrs = b"".join(self.attr() for _ in range(r.randint(0, 6)))
        body = struct.pack("=BBH", cmd, version, reserved) + attrs
        length = 16 + len(body)
        if r.random() < 0.03:
            # nlmsg_len that disagrees with the datagram: longer (dropped),
            # or shorter by at most 12 bytes, so that what is left after it
            # cannot pass for another message (to another family).
            length = r.choice([length - r.randint(1, min(length, 12)),
                               length + r.randint(1, 64)])
        if length > 0xffff:
            body = body[:0xffff - 16]
            length = 16 + len(body)
        return struct.pack("=IHHII", length, family, flags, seq,
                           pid) + body


def drain(g, sync_seq, tally):
    """Reads until the ack of the batch's closing request."""
    while True:
        try:
            data = g.sock.recv(1 << 20)
        except OSError as e:  # ENOBUFS: the kernel dropped replies
            tally["recv_errors"] = tally.get("recv_errors", 0) + 1
            if e.errno in (105,):
                continue
            raise
        while len(data) >= 16:
            length, mtype, _, seq, _ = struct.unpack_from("=IHHII", data)
            if length < 16:
                break
            if mtype == NLMSG_ERROR:
                err = -struct.unpack_from("=i", data, 16)[0]
                if seq == sync_seq:
                    if err:
                        raise SystemExit(f"sync request failed: {err}")
                    return
                key = str(err)
                tally["errors"][key] = tally["errors"].get(key, 0) + 1
            elif mtype != NLMSG_DONE:
                tally["replies"] += 1
            data = data[align(length):]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--count", type=int, default=100000)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--batch", type=int, default=32)
    ap.add_argument("--cgroup", default="/")
    args = ap.parse_args()

    rng = random.Random(args.seed)
    g = Genl()
    g.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 8 << 20)
    family = g.family_id("verbsgate")
    pid = g.sock.getsockname()[0]
    fz = Fuzzer(rng, args.cgroup)
    tally = {"errors": {}, "replies": 0}
    start = time.monotonic()
    seq = 1000
    sent = 0
    while sent < args.count:
        for _ in range(min(args.batch, args.count - sent)):
            seq += 1
            g.sock.send(fz.message(family, seq, pid))
            sent += 1
        seq += 1
        sync = struct.pack("=BBH", CMD_GET_STATUS, 1, 0)
        g.sock.send(struct.pack("=IHHII", 16 + len(sync), family,
                                NLM_F_REQUEST | NLM_F_ACK, seq, pid) + sync)
        drain(g, seq, tally)
    tally["sent"] = sent
    tally["seconds"] = round(time.monotonic() - start, 1)
    print(json.dumps(tally))


if __name__ == "__main__":
    main()
