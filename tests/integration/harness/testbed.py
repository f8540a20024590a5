"""The emulated test bed: Debian's 6.1 kernel in QEMU (TCG) with Soft-RoCE.

A Guest boots the kernel the module was built for, with the host's `/`
mounted read-only over virtio-9p (so the guest sees this checkout and its
build output at the same paths), tmpfs on /tmp and /run, and rxe0 on a veth
pair at 10.77.0.1. Commands run through an agent on a virtio-serial port;
the kernel console goes to a file that is scanned for oopses, warnings and
panics.
"""
import gzip
import hashlib
import json
import os
import re
import shlex
import shutil
import socket
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[3]
GUEST_DIR = REPO / "tests" / "integration" / "guest"
MODULE = REPO / "kmod" / "verbsgate.ko"
# The module's sysfs tree, in the guest (docs/sysfs.md).
SYSFS = "/sys/kernel/verbsgate"
FAULT_MODULE = REPO / "tests" / "integration" / "faultmod" / "vg_fault.ko"
BUILD_DIR = Path(os.environ.get("BUILD", REPO / "build"))
CLI = BUILD_DIR / "userspace" / "cli" / "verbsgate"
# The traffic engine (userspace/vgload), the one path every test uses.
VGLOAD = BUILD_DIR / "userspace" / "vgload" / "vgload"
# rdma_rxe.ko with driver-patches/rdma_rxe applied (make rxe).
RXE_DIR = BUILD_DIR / "rdma_rxe"
RXE_MODULE = RXE_DIR / "drivers" / "infiniband" / "sw" / "rxe" / "rdma_rxe.ko"

# VG_RUN_TRACE=FILE: every Guest.run() appended to FILE as a JSON line
# (the test, the command, its wall and guest seconds), to find where the
# suite's time goes (docs/testbed.md, "Measurements").
RUN_TRACE = os.environ.get("VG_RUN_TRACE")
# How long a command may wait to be handed to QEMU (Guest._send()).
SEND_TIMEOUT = 30
# Modules the initramfs needs to mount the root over 9p and reach the agent.
INITRAMFS_MODULES = ["virtio_pci", "9pnet_virtio", "9p", "virtio_console"]
# The slab caches the guest's SLUB debugging checks: every kmalloc cache
# (kmalloc-*, and so kmalloc-cg-* and kmalloc-rcl-*). verbsgate makes no
# cache of its own (test_kmod_layout.py checks).
SLUB_DEBUG_CACHES = "kmalloc-*"

# Console lines that mean the kernel is unwell ("BUG kmalloc-64 (...)" is
# SLUB's debugging report of a corrupted or misused object).
KERNEL_ERROR = re.compile(
    r"Oops|BUG:|BUG [\w:-]+ \(|WARNING:|Kernel panic|general protection fault|"
    r"kernel BUG at|soft lockup|hard LOCKUP|blocked for more than|"
    r"rcu.*stall|UBSAN:|KASAN:|refcount_t:|list_(add|del) corruption|"
    r"Call Trace:")


def cache_dir() -> Path:
    base = os.environ.get("VERBSGATE_CACHE") or os.path.join(
        os.environ.get("XDG_CACHE_HOME") or os.path.expanduser("~/.cache"),
        "verbsgate")
    path = Path(base)
    path.mkdir(parents=True, exist_ok=True)
    return path


def module_kernel_release(module: Path = MODULE) -> str:
    """The kernel release a module was built for (its vermagic)."""
    if not module.exists():
        raise GuestError(f"{module} is not built; run 'make'")
    out = subprocess.run(["modinfo", "-F", "vermagic", str(module)],
                         check=True, capture_output=True, text=True).stdout
    return out.split()[0]


def guest_clock() -> list[str]:
    """The guest's clocksource: the TSC when the host keeps time with it.
    TCG's vCPUs read the host's TSC, so they are as synchronised as the
    host's CPUs, but the guest kernel assumes otherwise (its vCPUs are
    not Intel's and show no invariant TSC) and falls back to the HPET,
    whose every read is an emulated MMIO access: each ktime_get(), in rxe,
    the scheduler and verbsgate's pacer, then costs microseconds. A host
    kernel that chose the TSC has checked that its CPUs agree."""
    try:
        with open("/sys/devices/system/clocksource/clocksource0/"
                  "current_clocksource") as f:
            host = f.read().strip()
    except OSError:
        return []
    return ["tsc=reliable"] if host == "tsc" else []


class GuestError(Exception):
    """The guest failed: crashed, hung, or could not boot."""

    def __init__(self, message: str, console: str = ""):
        super().__init__(message)
        self.console = console

    def __str__(self):
        text = super().__str__()
        if self.console:
            # The last 60 lines, or from the first kernel complaint among
            # the last 300 (a panic's backtraces can be long).
            lines = self.console.splitlines()[-300:]
            start = max(0, len(lines) - 60)
            start = next((i for i, line in enumerate(lines[:start])
                          if KERNEL_ERROR.search(line)), start)
            text += f"\n--- guest console (last {len(lines) - start} lines) ---\n"
            text += "\n".join(lines[start:])
        return text


@dataclass
class Result:
    rc: int | None
    out: str
    seconds: float

    @property
    def ok(self) -> bool:
        return self.rc == 0


def build_initramfs(kver: str) -> Path:
    """A busybox initramfs for kver, cached by content."""
    deps = subprocess.run(
        ["modprobe", "-a", "-S", kver, "--show-depends", *INITRAMFS_MODULES],
        check=True, capture_output=True, text=True).stdout
    paths = []
    for line in deps.splitlines():
        words = line.split()
        if words and words[0] == "insmod" and words[1] not in paths:
            paths.append(words[1])
    busybox = shutil.which("busybox")
    if not busybox:
        raise GuestError("busybox is not installed; run 'make deps'")
    key = hashlib.sha256()
    for p in [busybox, str(GUEST_DIR / "init"), *paths]:
        key.update(p.encode())
        key.update(Path(p).read_bytes())
    out = cache_dir() / f"initramfs-{kver}-{key.hexdigest()[:16]}.cpio.gz"
    if out.exists():
        return out

    with tempfile.TemporaryDirectory(prefix="vg-initramfs-") as tmp:
        root = Path(tmp)
        (root / "bin").mkdir()
        (root / "modules").mkdir()
        shutil.copy2(busybox, root / "bin" / "busybox")
        shutil.copy2(GUEST_DIR / "init", root / "init")
        names = []
        for p in paths:
            name = Path(p).name
            shutil.copy2(p, root / "modules" / name)
            names.append(name)
        (root / "modules" / "order").write_text("\n".join(names) + "\n")
        files = subprocess.run(["find", "."], cwd=root, check=True,
                               capture_output=True).stdout
        cpio = subprocess.run(["cpio", "--quiet", "-o", "-H", "newc"],
                              cwd=root, input=files, check=True,
                              capture_output=True).stdout
    tmp_out = out.with_suffix(".tmp")
    tmp_out.write_bytes(gzip.compress(cpio, 6))
    tmp_out.rename(out)
    return out


class Guest:
    """One QEMU guest. Use as a context manager or call start()/stop()."""

    def __init__(self, kver: str | None = None, smp: int = 2,
                 memory_mb: int = 2048, boot_timeout: float = 180,
                 reply_grace: float = 30, slub_debug: bool = True,
                 qemu_args: list[str] | None = None):
        self.kver = kver or module_kernel_release()
        self.smp = smp
        # Appended to QEMU's command line (insnprof.py's plugin).
        self.qemu_args = qemu_args or []
        # Off only for benchmarks: its checks and its stack trace of every
        # allocation and free make each packet's skb cost many times what
        # it costs a production kernel, which hides what verbsgate adds.
        self.slub_debug = slub_debug
        self.memory_mb = memory_mb
        self.boot_timeout = boot_timeout
        # How long past a command's own timeout the agent may stay silent
        # before the guest counts as hung.
        self.reply_grace = reply_grace
        self.workdir = Path(tempfile.mkdtemp(prefix="vg-guest-"))
        self.console_path = self.workdir / "console.log"
        self.proc: subprocess.Popen | None = None
        self.sock: socket.socket | None = None
        self._rx = b""
        self._next_id = 1
        self.boot_seconds: float | None = None
        self._launched = 0.0
        self.rxe_dev = "rxe0"
        self.netdev = "vg0"
        self.ip = "10.77.0.1"
        self.repo = REPO
        self.build_dir = BUILD_DIR

    # -- lifecycle -----------------------------------------------------

    def qemu_command(self, initramfs: Path) -> list[str]:
        kernel = Path(f"/boot/vmlinuz-{self.kver}")
        if not kernel.exists():
            raise GuestError(f"{kernel} missing; install linux-image-{self.kver}")
        cmdline = " ".join([
            "console=ttyS0,115200", "panic=-1", "mitigations=off",
            # An NMI from the host (Guest.diagnose_hang()) panics and shows
            # every CPU's backtrace, even of CPUs spinning with irqs off.
            "unknown_nmi_panic", "panic_print=0x40",
            "8250.nr_uarts=1", f"vg.init={GUEST_DIR / 'rootinit.sh'}",
            # Every process maps its code at the same addresses. QEMU
            # 7.2's TCG keys a translation by its virtual address, so
            # with ASLR each new process translated its libraries again:
            # the 1 GB code buffer filled in under a minute of the test
            # bed's commands, and each flush made the guest translate
            # everything it ran anew, stalling a latency victim by up to
            # a tenth of a second (docs/testbed.md).
            "norandmaps",
        ] + guest_clock() + (
            # SLUB checks every object of the kmalloc caches, where the
            # module, ib_core and rxe allocate all they use: sanity
            # checks, red zones, poison and owner tracking, so that a
            # use-after-free or an overrun is reported where it happens,
            # not as a crash later. The kernel's own caches (tasks, VMAs,
            # dentries, skb heads) go unchecked: checked too, they made
            # every command of the test bed three times slower (a
            # process's start 0.22 s against 0.10) and checked nothing of
            # ours.
            [f"slub_debug=FZPU,{SLUB_DEBUG_CACHES}"] if self.slub_debug
            else []))
        return [
            # QEMU's "max" CPU less two features that cost TCG dearly:
            # with ERMS, the kernel copies and clears memory with `rep
            # movsb`, which TCG executes a byte per iteration (a 64 KB
            # WRITE stream on loopback: 17 to 19 MB/s with it, 23 to 27
            # without; zeroing 256 MB: 0.4 to 0.6 s against 0.2 to
            # 0.3); with LA57, every TLB refill walks five levels.
            "qemu-system-x86_64", "-machine", "pc,accel=tcg",
            "-cpu", "max,-la57,-erms",
            "-smp", str(self.smp), "-m", str(self.memory_mb),
            "-nodefaults", "-no-user-config", "-display", "none",
            "-no-reboot",
            # Names the vCPU threads "CPU <n>/TCG", so that a test can
            # read what the host gave each vCPU (vcpu_host_times()).
            "-name", "verbsgate,debug-threads=on",
            "-kernel", str(kernel), "-initrd", str(initramfs),
            "-append", cmdline,
            "-chardev", f"file,id=con,path={self.console_path}",
            "-serial", "chardev:con",
            "-fsdev", "local,id=vgroot,path=/,security_model=none,"
                      "readonly=on,multidevs=remap",
            "-device", "virtio-9p-pci,fsdev=vgroot,mount_tag=vgroot",
            "-device", "virtio-serial-pci",
            "-chardev", f"socket,id=ctl,path={self.workdir / 'ctl.sock'},"
                        "server=on,wait=off",
            "-device", "virtserialport,chardev=ctl,name=vg.ctl",
            "-monitor", f"unix:{self.workdir / 'mon.sock'},server=on,wait=off",
        ] + self.qemu_args

    def start(self) -> "Guest":
        return self.launch().wait_ready()

    def launch(self) -> "Guest":
        """Start QEMU; the guest boots while the caller does other work
        until wait_ready()."""
        initramfs = build_initramfs(self.kver)
        self._launched = time.monotonic()
        self.proc = subprocess.Popen(
            self.qemu_command(initramfs), stdin=subprocess.DEVNULL,
            stdout=open(self.workdir / "qemu.log", "wb"),
            stderr=subprocess.STDOUT)
        return self

    def wait_ready(self) -> "Guest":
        """Wait (up to boot_timeout from launch()) until the agent answers."""
        start = self._launched
        ctl = self.workdir / "ctl.sock"
        deadline = start + self.boot_timeout
        while True:
            self._check_alive("QEMU exited during boot")
            try:
                self.sock = socket.socket(socket.AF_UNIX)
                self.sock.connect(str(ctl))
                break
            except (FileNotFoundError, ConnectionRefusedError):
                self.sock.close()
                self.sock = None
                if time.monotonic() > deadline:
                    raise GuestError("QEMU never opened its control socket",
                                     self.console())
                time.sleep(0.05)
        # The agent may not be listening yet: ping until one ping answers.
        # Whatever ends the wait but an answer, the guest is killed, so
        # that a caller's failed boot never leaves QEMU running.
        try:
            while True:
                if time.monotonic() > deadline:
                    raise GuestError(
                        f"guest did not boot in {self.boot_timeout} s",
                        self.console())
                rid = self._send("true", 10)
                try:
                    self._receive(rid, time.monotonic() + 1)
                    break
                except TimeoutError:
                    continue
        except BaseException:
            self.kill()
            raise
        self.boot_seconds = time.monotonic() - start
        return self

    def stop(self):
        if self.alive():
            try:
                self._send("sync; echo o > /proc/sysrq-trigger", 5)
                self.proc.wait(timeout=20)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()

    def kill(self):
        if self.sock:
            self.sock.close()
            self.sock = None
        if self.proc and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()

    def cleanup(self):
        self.kill()
        shutil.rmtree(self.workdir, ignore_errors=True)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        self.cleanup()

    def alive(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # -- console -------------------------------------------------------

    def console(self) -> str:
        try:
            return self.console_path.read_text(errors="replace")
        except FileNotFoundError:
            return ""

    def console_mark(self) -> int:
        try:
            return self.console_path.stat().st_size
        except FileNotFoundError:
            return 0

    def console_since(self, mark: int) -> str:
        try:
            with open(self.console_path, "rb") as f:
                f.seek(mark)
                return f.read().decode(errors="replace")
        except FileNotFoundError:
            return ""

    def kernel_errors(self, since: int = 0) -> list[str]:
        """Console lines since `since` that report a kernel problem."""
        return [line for line in self.console_since(since).splitlines()
                if KERNEL_ERROR.search(line)]

    def assert_no_kernel_errors(self, since: int = 0):
        """Raise GuestError, with the console, if the kernel complained."""
        errors = self.kernel_errors(since)
        if errors:
            raise GuestError("kernel errors on the guest console:\n" +
                             "\n".join(errors[:20]), self.console_since(since))

    # -- commands ------------------------------------------------------

    def _check_alive(self, what: str):
        if self.proc is not None and self.proc.poll() is not None:
            raise GuestError(f"{what} (QEMU exit status {self.proc.returncode})",
                             self.console())

    def _send(self, cmd: str, timeout: float) -> int:
        rid = self._next_id
        self._next_id += 1
        line = json.dumps({"id": rid, "cmd": cmd, "timeout": timeout}) + "\n"
        # _receive() leaves the socket with the timeout of its last wait,
        # which can be a few microseconds; a send with a timeout first
        # waits that long for the socket to be writable, and one that
        # short can expire before it looks: "timed out" from a socket
        # with room (a spare guest's boot failed so, and left QEMU
        # running through the rest of a CI run).
        self.sock.settimeout(SEND_TIMEOUT)
        self.sock.sendall(line.encode())
        return rid

    def _receive(self, rid: int, deadline: float) -> dict:
        while True:
            while b"\n" in self._rx:
                line, self._rx = self._rx.split(b"\n", 1)
                reply = json.loads(line)
                if reply.get("id") == rid:
                    return reply
            self._check_alive("guest died")
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError
            self.sock.settimeout(min(remaining, 0.5))
            try:
                chunk = self.sock.recv(1 << 16)
            except socket.timeout:
                continue
            except OSError:
                chunk = b""
            if not chunk:
                self._check_alive("control channel closed")
                raise GuestError("control channel closed", self.console())
            self._rx += chunk

    def run(self, cmd: str, timeout: float = 60, check: bool = False) -> Result:
        """Run a shell command in the guest as root.

        The guest kills the command after `timeout` s (rc None). If the
        guest itself stops answering (kernel hang) or QEMU exits (panic),
        GuestError carries the console log.
        """
        if not self.alive():
            raise GuestError("guest is not running", self.console())
        start = time.monotonic()
        try:
            # A send that times out is an agent that stopped reading:
            # as much a hang as a reply that does not come.
            rid = self._send(cmd, timeout)
            reply = self._receive(rid, time.monotonic() + timeout +
                                  self.reply_grace)
        except TimeoutError:
            mark = self.console_mark()
            report = self.diagnose_hang()
            self.kill()
            raise GuestError(f"guest stopped answering during: {cmd}\n"
                             f"--- what the guest's kernel was doing ---\n"
                             f"{report}", self.console_since(0)[:mark]) from None
        res = Result(reply["rc"], reply["out"], reply.get("seconds", 0.0))
        if RUN_TRACE:
            with open(RUN_TRACE, "a") as trace:
                trace.write(json.dumps({
                    "test": os.environ.get("PYTEST_CURRENT_TEST", ""),
                    "cmd": cmd[:300], "wall": time.monotonic() - start,
                    "guest": res.seconds}) + "\n")
        if check and not res.ok:
            raise AssertionError(f"`{cmd}` failed (rc {res.rc}):\n{res.out}")
        return res

    def monitor(self, command: str) -> str:
        """Run one QEMU monitor (HMP) command; returns its output."""
        with socket.socket(socket.AF_UNIX) as mon:
            mon.settimeout(10)
            mon.connect(str(self.workdir / "mon.sock"))
            out = b""
            for send in (None, command):
                if send is not None:
                    mon.sendall(send.encode() + b"\n")
                    out = b""
                while not out.endswith(b"(qemu) "):
                    chunk = mon.recv(1 << 16)
                    if not chunk:
                        raise OSError("the QEMU monitor closed")
                    out += chunk
        text = out.decode(errors="replace").replace("\r", "")
        return text.removesuffix("(qemu) ").split("\n", 1)[-1]

    def diagnose_hang(self) -> str:
        """Ask a guest that stopped answering what its kernel is doing.

        SysRq w and l (blocked tasks, every CPU's backtrace) come through
        the emulated keyboard and need one CPU that takes interrupts. If
        they print nothing, every CPU is stuck with interrupts off: an NMI
        then panics the guest (`unknown_nmi_panic`), whose panic prints
        every CPU's backtrace. If they do, SysRq q follows (every CPU's
        hrtimers and clock event device): with idle CPUs and no blocked
        task, timers that expired long before "now at" and never ran
        tell a guest whose timers stopped from one whose agent lost the
        request. Returns the console the requests produced.
        """
        if not self.alive():
            return "(QEMU has exited)"
        mark = self.console_mark()
        try:
            for keys in ("alt-sysrq-w", "alt-sysrq-l"):
                self.monitor(f"sendkey {keys}")
                time.sleep(3)
            if self.console_mark() != mark:
                self.monitor("sendkey alt-sysrq-q")
                time.sleep(3)
            else:
                self.monitor("nmi")
                time.sleep(5)
            regs = self.monitor("info registers -a")
            rips = "\n".join(line for line in regs.splitlines()
                             if line.startswith(("CPU#", "RAX", "RIP")))
        except OSError as e:
            rips = f"(QEMU monitor failed: {e})"
        return (self.console_since(mark) or "(nothing on the console)") + \
            "\n--- vCPU registers ---\n" + rips

    def vcpu_host_times(self) -> dict[int, tuple[float, float]]:
        """Each vCPU's host thread so far, by vCPU index: the seconds it
        ran on a host CPU and the seconds it was runnable but waited for
        one (the host's schedstat)."""
        task = f"/proc/{self.proc.pid}/task"
        times = {}
        for tid in os.listdir(task):
            try:
                with open(f"{task}/{tid}/comm") as f:
                    name = f.read().split()
                with open(f"{task}/{tid}/schedstat") as f:
                    ran, waited = f.read().split()[:2]
            except FileNotFoundError:
                continue  # a QEMU worker thread that ended meanwhile
            if len(name) == 2 and name[0] == "CPU" and \
                    name[1].endswith("/TCG"):
                times[int(name[1].split("/")[0])] = (int(ran) / 1e9,
                                                     int(waited) / 1e9)
        return times

    def spawn(self, cmd: str, log: str) -> int:
        """Start cmd in the background, output to log; returns its PID."""
        res = self.run(f"nohup sh -c {shlex.quote(cmd)} >{log} 2>&1 & echo $!",
                       check=True)
        return int(res.out.split()[-1])

    # -- verbsgate helpers ---------------------------------------------

    def load_verbsgate(self, params: str = "") -> Result:
        # modprobe of a loaded ib_core still costs a tenth of a second.
        return self.run("[ -d /sys/module/ib_core ] || modprobe ib_core && "
                        f"insmod {MODULE} {params}")

    def unload_verbsgate(self) -> Result:
        """rmmod verbsgate. rmmod does not wait for the module's users: a
        netlink dump in flight (the CLI's `dev show`) holds a reference
        until it ends. rmmod reports it as "is in use" when it reads the
        reference count itself first, and as EAGAIN ("temporarily
        unavailable") when the dump took the reference after that read.
        Retried for up to 2 s on those two only; anything else, or a
        reference held longer, is returned as rmmod reported it."""
        return self.run(
            "i=0; while [ $i -lt 10 ]; do out=$(rmmod verbsgate 2>&1) && "
            "exit 0; case $out in *'temporarily unavailable'*|*'is in use'*) "
            "sleep 0.2;; *) break;; esac; i=$((i + 1)); done; "
            "echo \"$out\"; exit 1")

    def kill_named(self, names: str, wait_s: float = 10) -> Result:
        """SIGTERM to every process whose name (comm) matches the shell
        pattern @names ("vgload|ib_write_bw"), again every tenth of a
        second until none is left (rc 0) or @wait_s passed (rc 1). With
        the shell's builtins over /proc: a pkill or pgrep, which read
        every process's command line, takes a quarter of a second in
        TCG."""
        return self.run(
            f"i=0; while [ $i -le {int(wait_s * 10)} ]; do n=0; "
            "for p in /proc/[0-9]*; do read -r c 2>/dev/null <$p/comm || "
            f"continue; case $c in {names}) n=1; kill ${{p#/proc/}} "
            "2>/dev/null;; esac; done; [ $n = 0 ] && exit 0; "
            "i=$((i + 1)); sleep 0.1; done; exit 1")

    # -- rdma_rxe, stock or patched -----------------------------------

    def load_rxe(self, patched: bool = True) -> Result:
        """Replace the loaded rdma_rxe by the build with the driver patch
        series (patched) or by the kernel's own module, and add rxe0 back
        on the same netdev. conftest's reset() loads the one each test
        needs (the stock one unless it takes `rxe_kept`)."""
        if patched and not RXE_MODULE.exists():
            raise GuestError(f"{RXE_MODULE} is not built; run 'make rxe'")
        load = (f"modprobe -a ib_uverbs udp_tunnel ip6_udp_tunnel && "
                f"insmod {RXE_MODULE}" if patched else "modprobe rdma_rxe")
        return self.run(
            self.delete_rdma_links() +
            f"rmmod rdma_rxe 2>/dev/null; {load} && "
            f"rdma link add {self.rxe_dev} type rxe netdev {self.netdev}")

    def delete_rdma_links(self, keep: str = "") -> str:
        """A shell command that deletes every RDMA link but @keep. It
        lists them from sysfs with the shell's own glob: a python3 to
        read `rdma -j link show` takes half a second to start in TCG,
        and any process a tenth."""
        skip = f"[ $l = {keep} ] || " if keep else ""
        return ("for l in /sys/class/infiniband/*; do [ -e $l ] || "
                f"continue; l=${{l##*/}}; {skip}rdma link delete $l; done; ")

    def rxe_patched(self) -> bool:
        """Whether the loaded rdma_rxe has the send queue policy hook: is
        it out of tree (taint O)? The test bed loads no other rdma_rxe
        than the kernel's and RXE_MODULE (load_rxe()), and a grep of
        /proc/kallsyms took half a second, some 50 times a run."""
        return self.run("read -r t < /sys/module/rdma_rxe/taint && "
                        "case $t in *O*) exit 0;; esac; exit 1").ok

    def verbsgate_loaded(self) -> bool:
        return self.run("test -d /sys/module/verbsgate").ok

    def cli(self, args: str, timeout: float = 30) -> Result:
        return self.run(f"{CLI} {args}", timeout)
