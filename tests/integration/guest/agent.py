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
later command sees them gone.
"""
import glob
import json
import os
import signal
import subprocess
import threading
import time

PORT_NAME = "vg.ctl"
MAX_OUTPUT = 4 << 20


def find_port():
    for name_file in glob.glob("/sys/class/virtio-ports/*/name"):
        with open(name_file) as f:
            if f.read().strip() == PORT_NAME:
                return "/dev/" + os.path.basename(os.path.dirname(name_file))
    raise SystemExit(f"agent: no virtio port named {PORT_NAME}")


# The command running now: its exit status belongs to communicate().
running_lock = threading.Lock()
running_pid = None


def zombie_children():
    me = str(os.getpid())
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                # pid (comm) state ppid ...; comm may hold spaces
                fields = f.read().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[0] == "Z" and fields[1] == me:
            yield int(entry)


def reaper(wake):
    while True:
        wake.wait(1.0)
        wake.clear()
        with running_lock:
            for pid in zombie_children():
                if pid != running_pid:
                    try:
                        os.waitpid(pid, 0)
                    except ChildProcessError:
                        pass


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
    text = out[-MAX_OUTPUT:].decode("utf-8", "replace")
    return {"rc": rc, "out": text, "seconds": time.monotonic() - start}


def main():
    fd = os.open(find_port(), os.O_RDWR)
    wake = threading.Event()
    signal.signal(signal.SIGCHLD, lambda *_: wake.set())
    threading.Thread(target=reaper, args=(wake,), daemon=True).start()
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
                reply = run(req["cmd"], float(req.get("timeout", 60)))
                reply["id"] = req.get("id")
            except (ValueError, KeyError) as e:
                reply = {"id": None, "rc": None, "out": f"agent: bad request: {e}"}
            send(reply)


if __name__ == "__main__":
    main()
