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


def exchange(rfd: int, wfd: int, first: bool) -> list[int]:
    """ROUNDS readings each way; @first sends before it receives. Returns
    how far back each reading received was from the one taken after."""
    back = []
    for _ in range(ROUNDS):
        if first:
            send(wfd)
        theirs = receive(rfd)
        mine = time.monotonic_ns()
        if mine < theirs:
            back.append(theirs - mine)
        if not first:
            send(wfd)
    return back


def main():
    cpus = sorted(os.sched_getaffinity(0))[:2]
    if len(cpus) < 2:
        print(json.dumps({"error": "fewer than two CPUs"}))
        return 1
    to_child_r, to_child_w = os.pipe()
    to_parent_r, to_parent_w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(to_parent_r)
        os.sched_setaffinity(0, {cpus[1]})
        back = exchange(to_child_r, to_parent_w, first=False)
        os.write(to_parent_w, json.dumps(back).encode())
        os._exit(0)
    os.close(to_parent_w)
    os.sched_setaffinity(0, {cpus[0]})
    back = exchange(to_parent_r, to_child_w, first=True)
    # The child's list, read to the end: the child's exit closes the pipe.
    rest = b""
    while chunk := os.read(to_parent_r, 1 << 16):
        rest += chunk
    back += json.loads(rest)
    os.waitpid(pid, 0)
    print(json.dumps({"rounds": ROUNDS, "cpus": cpus, "backwards_ns": back}))
    return 0


if __name__ == "__main__":
    sys.exit(main())
