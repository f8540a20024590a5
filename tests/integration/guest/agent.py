#!/usr/bin/env python3
"""Command agent of the test-bed guest (PID 1 after rootinit.sh).

Speaks line-delimited JSON over the virtio-serial port named "vg.ctl":
  request  {"id": N, "cmd": "shell command", "timeout": seconds}
  reply    {"id": N, "rc": exit code or null on timeout, "out": "...",
            "seconds": run time}
The host learns that the agent is up from the reply to its first request.

Requests run one at a time in `sh -c` in their own session; on timeout the
whole process group is killed. Commands that start background processes
must redirect their output, or the reply waits for them. Background
processes outlive their command and are re-parented to the agent (PID 1);
a reaper thread collects them as soon as they exit, so `kill -0 PID` in a
later command sees them gone. It finds them with waitid(WNOWAIT), which
names an exited child without reaping it, and leaves the running
command's exit status to communicate(). (It used to walk /proc for
zombies after every SIGCHLD, in Python under TCG, holding the lock the
next command waits for.)

SIGCHLD wakes the reaper through a pipe (signal.set_wakeup_fd): the
handler itself is empty. CPython runs handlers in the main thread between
bytecodes, so a handler that took a lock (as threading.Event.set() does)
was re-entered by the next SIGCHLD of a burst while it held that lock and
waited on itself forever; the agent then answered nothing more.

If a reply is late past the command's timeout, faulthandler prints every
thread's Python stack on the console, which lands in the host's report.
"""
import faulthandler
import glob
import json
import os
import select
import signal
import subprocess
import threading
import time

PORT_NAME = "vg.ctl"
MAX_OUTPUT = 4 << 20
# Seconds past a command's timeout before the agent's stacks are dumped:
# less than any Guest.reply_grace the host uses, so the dump comes first.
STACK_DUMP_SLACK = 3


def find_port():
    for name_file in glob.glob("/sys/class/virtio-ports/*/name"):
        with open(name_file) as f:
            if f.read().strip() == PORT_NAME:
                return "/dev/" + os.path.basename(os.path.dirname(name_file))
    raise SystemExit(f"agent: no virtio port named {PORT_NAME}")


# The command running now: its exit status belongs to communicate().
running_lock = threading.Lock()
running_pid = None


def reap_orphans():
    """Reap every exited child but the running command. A zombie that
    waitid() names first and that is the running command hides the ones
    behind it until run() has collected it and calls this again."""
    with running_lock:
        while True:
            try:
                info = os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG |
                                 os.WNOWAIT)
            except ChildProcessError:
                return
            if info is None or info.si_pid == running_pid:
                return
            try:
                os.waitpid(info.si_pid, 0)
            except ChildProcessError:
                pass


def reaper(wake_fd):
    """Reap exited children that no command owns. Woken by SIGCHLD through
    wake_fd, and once a second regardless (a full pipe drops wake-ups)."""
    while True:
        if select.select([wake_fd], [], [], 1.0)[0]:
            try:
                os.read(wake_fd, 4096)
            except BlockingIOError:
                pass
        reap_orphans()


def run(cmd, timeout):
    global running_pid
    start = time.monotonic()
    with running_lock:
        proc = subprocess.Popen(["/bin/sh", "-c", cmd],
                                stdin=subprocess.DEVNULL,
                                stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT,
                                start_new_session=True)
        running_pid = proc.pid
    try:
        out, _ = proc.communicate(timeout=timeout)
        rc = proc.returncode
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, _ = proc.communicate()
        out += f"\nagent: timed out after {timeout} s\n".encode()
        rc = None
    with running_lock:
        running_pid = None
    reap_orphans()
    text = out[-MAX_OUTPUT:].decode("utf-8", "replace")
    return {"rc": rc, "out": text, "seconds": time.monotonic() - start}


def main():
    fd = os.open(find_port(), os.O_RDWR)
    wake_r, wake_w = os.pipe2(os.O_NONBLOCK | os.O_CLOEXEC)
    signal.set_wakeup_fd(wake_w, warn_on_full_buffer=False)
    # A Python handler must be installed for the wake-up byte to be
    # written; it does nothing else, and takes no lock.
    signal.signal(signal.SIGCHLD, lambda *_: None)
    threading.Thread(target=reaper, args=(wake_r,), daemon=True).start()
    rx = os.fdopen(fd, "rb", buffering=0)

    def send(obj):
        data = (json.dumps(obj) + "\n").encode()
        while data:
            data = data[os.write(fd, data):]

    buf = b""
    while True:
        chunk = rx.read(65536)
        if not chunk:
            time.sleep(0.05)  # host side not connected yet
            continue
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            try:
                req = json.loads(line)
                timeout = float(req.get("timeout", 60))
                faulthandler.dump_traceback_later(timeout + STACK_DUMP_SLACK,
                                                  repeat=True)
                reply = run(req["cmd"], timeout)
                reply["id"] = req.get("id")
            except (ValueError, KeyError) as e:
                reply = {"id": None, "rc": None, "out": f"agent: bad request: {e}"}
            send(reply)
            faulthandler.cancel_dump_traceback_later()


if __name__ == "__main__":
    main()
