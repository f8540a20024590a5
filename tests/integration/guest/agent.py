#!/usr/bin/env python3
"""Command agent of the test-bed guest (PID 1 after rootinit.sh).

Speaks line-delimited JSON over the virtio-serial port named "vg.ctl":
  request  {"id": N, "cmd": "shell command", "timeout": seconds}
  reply    {"id": N, "rc": exit code or null on timeout, "out": "...",
            "seconds": run time}
The host learns that the agent is up from the reply to its first request.

Requests run one at a time in `sh -c` in their own session; on timeout the
whole process group is killed. Commands that start background processes
must redirect their output, or the reply waits for them.
"""
import glob
import json
import os
import signal
import subprocess
import time

PORT_NAME = "vg.ctl"
MAX_OUTPUT = 4 << 20


def find_port():
    for name_file in glob.glob("/sys/class/virtio-ports/*/name"):
        with open(name_file) as f:
            if f.read().strip() == PORT_NAME:
                return "/dev/" + os.path.basename(os.path.dirname(name_file))
    raise SystemExit(f"agent: no virtio port named {PORT_NAME}")


def reap_orphans():
    # As PID 1 we inherit every orphan; collect them between requests,
    # when no child of ours is running, so no exit status is stolen.
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def run(cmd, timeout):
    start = time.monotonic()
    proc = subprocess.Popen(["/bin/sh", "-c", cmd], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            start_new_session=True)
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
            reap_orphans()


if __name__ == "__main__":
    main()
