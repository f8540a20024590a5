#!/usr/bin/env python3
"""Checks that CLOCK_MONOTONIC never runs backwards between the guest's
CPUs: a process pinned to each CPU passes its clock reading to the other
through a pipe, which reads its own clock after receiving it. A reading
earlier than one taken before it on the other CPU is a clock that goes
back in time across CPUs. Prints JSON: rounds, CPUs and every backwards
step in ns."""
import json
import os
import sys
import time

ROUNDS = int(sys.argv[1]) if len(sys.argv) > 1 else 2000
# Readings travel as fixed-width decimals, so a read takes exactly one.
WIDTH = 20


def send(fd: int):
    os.write(fd, b"%020d" % time.monotonic_ns())


def receive(fd: int) -> int:
    return int(os.read(fd, WIDTH))


def main():
    cpus = sorted(os.sched_getaffinity(0))[:2]
    if len(cpus) < 2:
        print(json.dumps({"error": "fewer than two CPUs"}))
        return 1
    to_child_r, to_child_w = os.pipe()
    to_parent_r, to_parent_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.sched_setaffinity(0, {cpus[1]})
        back = []
        for _ in range(ROUNDS):
            theirs = receive(to_child_r)
            mine = time.monotonic_ns()
            if mine < theirs:
                back.append(theirs - mine)
            send(to_parent_w)
        os.write(to_parent_w, json.dumps(back).encode())
        os._exit(0)
    os.sched_setaffinity(0, {cpus[0]})
    back = []
    for _ in range(ROUNDS):
        send(to_child_w)
        theirs = receive(to_parent_r)
        mine = time.monotonic_ns()
        if mine < theirs:
            back.append(theirs - mine)
    back += json.loads(os.read(to_parent_r, 1 << 20))
    os.waitpid(pid, 0)
    print(json.dumps({"rounds": ROUNDS, "cpus": cpus, "backwards_ns": back}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
