#!/usr/bin/env python3
"""Listen to the verbsgate events group across module loads and unloads.

Runs inside the guest, as root, until SIGTERM; then prints one JSON line:

  {"loads": N, "unloads": N, "events": N, "late": [...], "bad": [...],
   "overruns": N}

It also listens to the generic netlink controller's "notify" group, which
announces the family's registration (NEWFAMILY) and unregistration
(DELMCAST_GRP, then DELFAMILY). When the family goes away the kernel
unsubscribes every listener from the group's id and frees the id; this
listener joins that id again at once (a group id that no family owns can
be joined), so it stays attached across the unload and sees anything the
module still multicasts to it. Messages arrive on the socket in the order
they were sent, so an event that comes after DELMCAST_GRP and before the
next NEWFAMILY was multicast while the family was not registered: it is
reported under "late". Every other event must be a well-formed message of
the registered family ("bad" otherwise).
"""
import json
import os
import signal
import socket
import struct
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from genl_raw import (CTRL_ATTR_FAMILY_ID, CTRL_ATTR_FAMILY_NAME,  # noqa: E402
                      CTRL_ATTR_MCAST_GROUPS, CTRL_ATTR_MCAST_GRP_NAME,
                      CTRL_CMD_GETFAMILY, GENL_ID_CTRL, NETLINK_GENERIC,
                      SOL_NETLINK, Genl, align, nla, parse_attrs)

CTRL_CMD_NEWFAMILY, CTRL_CMD_DELFAMILY = 1, 2
CTRL_CMD_NEWMCAST_GRP, CTRL_CMD_DELMCAST_GRP = 7, 8
CTRL_ATTR_MCAST_GRP_ID = 2
NETLINK_ADD_MEMBERSHIP = 1
NETLINK_PKTINFO = 3
SO_RCVBUFFORCE = 33

FAMILY = "verbsgate"
# uapi/linux/verbsgate.h: the event commands and the attributes checked.
EVENT_CMDS = {3, 4, 5, 7, 10}	# TENANT_ADD/DEL/SET, DEV_SET, QP_CLASSIFIED
CMD_QP_CLASSIFIED = 10
ATTR_DEV_INDEX, ATTR_DEV_NAME, ATTR_QP_NUM, ATTR_QP_TYPE = 4, 5, 35, 36


def groups_of(attrs):
    """{name: id} of a controller message's CTRL_ATTR_MCAST_GROUPS."""
    out = {}
    for grp in parse_attrs(attrs.get(CTRL_ATTR_MCAST_GROUPS, b"")).values():
        a = parse_attrs(grp)
        out[a[CTRL_ATTR_MCAST_GRP_NAME].rstrip(b"\0").decode()] = \
            struct.unpack("=I", a[CTRL_ATTR_MCAST_GRP_ID])[0]
    return out


def family(g, name):
    """(family id, {group name: id}) from the controller, or None."""
    error, _, replies = g.request(
        GENL_ID_CTRL, CTRL_CMD_GETFAMILY,
        nla(CTRL_ATTR_FAMILY_NAME, name.encode() + b"\0"))
    if error or not replies:
        return None
    return (struct.unpack("=H", replies[0][CTRL_ATTR_FAMILY_ID][:2])[0],
            groups_of(replies[0]))


def check_event(cmd, attrs):
    """Why an event of the registered family is malformed, or None."""
    if cmd not in EVENT_CMDS:
        return f"unknown event command {cmd}"
    if cmd != CMD_QP_CLASSIFIED:
        return None
    for attr, size in ((ATTR_DEV_INDEX, 4), (ATTR_QP_NUM, 4),
                       (ATTR_QP_TYPE, 4)):
        if len(attrs.get(attr, b"")) != size:
            return f"QP event without a valid attribute {attr}"
    name = attrs.get(ATTR_DEV_NAME, b"")
    if not name.endswith(b"\0") or len(name) < 2:
        return "QP event without a device name"
    return None


class Listener:
    def __init__(self):
        self.sock = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW,
                                  NETLINK_GENERIC)
        # Large enough for every event between two reads: an overrun
        # would lose the controller's notifications the verdict rests on.
        self.sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, 32 << 20)
        self.sock.setsockopt(SOL_NETLINK, NETLINK_PKTINFO, 1)
        self.sock.bind((0, 0))
        g = Genl()
        ctrl = family(g, "nlctrl")
        self.notify = ctrl[1]["notify"]
        self.join(self.notify)
        self.family, self.group = None, None
        self.registered = False
        now = family(g, FAMILY)
        if now:
            self.family, self.group = now[0], now[1]["events"]
            self.join(self.group)
            self.registered = True
        self.result = {"loads": 0, "unloads": 0, "events": 0, "late": [],
                       "bad": [], "overruns": 0}

    def join(self, group):
        self.sock.setsockopt(SOL_NETLINK, NETLINK_ADD_MEMBERSHIP, group)

    def controller(self, cmd, attrs):
        name = attrs.get(CTRL_ATTR_FAMILY_NAME, b"").rstrip(b"\0").decode()
        if name != FAMILY:
            return
        if cmd == CTRL_CMD_NEWFAMILY:
            self.family = struct.unpack("=H", attrs[CTRL_ATTR_FAMILY_ID][:2])[0]
            self.group = groups_of(attrs)["events"]
            self.join(self.group)
            self.registered = True
            self.result["loads"] += 1
        elif cmd == CTRL_CMD_DELMCAST_GRP and self.registered:
            # The kernel has just unsubscribed everyone: stay attached.
            self.registered = False
            self.result["unloads"] += 1
            self.join(self.group)

    def message(self, group, mtype, payload):
        cmd = payload[0]
        attrs = parse_attrs(payload[4:])
        if group == self.notify and mtype == GENL_ID_CTRL:
            self.controller(cmd, attrs)
            return
        if group != self.group:
            return
        what = {"cmd": cmd, "type": mtype, "after_unload": self.result["unloads"]}
        if not self.registered:
            self.result["late"].append(what)
        elif mtype != self.family:
            self.result["bad"].append(dict(what, why="not the family's id"))
        else:
            why = check_event(cmd, attrs)
            if why:
                self.result["bad"].append(dict(what, why=why))
            else:
                self.result["events"] += 1

    def run(self):
        cmsg_space = socket.CMSG_SPACE(4)
        while True:
            try:
                data, anc, _, _ = self.sock.recvmsg(1 << 20, cmsg_space)
            except OSError as e:
                if e.errno == 105:	# ENOBUFS: messages were dropped
                    self.result["overruns"] += 1
                    continue
                raise
            group = 0
            for level, ctype, cdata in anc:
                if level == SOL_NETLINK and ctype == NETLINK_PKTINFO:
                    group = struct.unpack("=I", cdata[:4])[0]
            while len(data) >= 16:
                length, mtype = struct.unpack_from("=IH", data)
                if length < 20:
                    break
                self.message(group, mtype, data[16:length])
                data = data[align(length):]


def main():
    lst = Listener()

    def stop(*_):
        print(json.dumps(lst.result), flush=True)
        os._exit(0)

    signal.signal(signal.SIGTERM, stop)
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as f:
            f.write("ready\n")
    lst.run()


if __name__ == "__main__":
    main()
