"""Helpers the integration tests share for driving the verbsgate CLI in the
guest and for waiting on state that settles asynchronously."""
import json
import time

from harness.testbed import CLI, Guest


def cli_ok(g: Guest, args: str) -> str:
    res = g.cli(args)
    assert res.ok, f"verbsgate {args}: {res.out}"
    return res.out


def cli_json(g: Guest, args: str):
    return json.loads(cli_ok(g, "-j " + args))


def dev(g: Guest, name: str = "") -> dict:
    """`dev show` of one device (the test bed's rxe device by default)."""
    (d,) = cli_json(g, f"-d dev show {name or g.rxe_dev}")
    return d


def port1(g: Guest, name: str = "") -> dict:
    """The port_table entry of a device with one port (rxe)."""
    (p,) = dev(g, name)["port_table"]
    return p


def tenant_objects(g: Guest) -> int:
    """Tenant objects verbsgate has allocated (debugfs), freed or not."""
    return int(g.run("cat /sys/kernel/debug/verbsgate/tenant_objects",
                     check=True).out)


def spawn_monitor(g: Guest, log: str) -> int:
    """`verbsgate -j monitor` writing to log, returned once subscribed."""
    pid = g.spawn(f"exec {CLI} -j monitor", log)
    # Subscribed once a first event reaches it: poke until one shows.
    for _ in range(100):
        g.cli("tenant set default weight 1")
        if g.run(f"grep -q 'tenant set' {log}").ok:
            return pid
        g.run("sleep 0.1")
    raise AssertionError(g.run(f"cat {log}").out)


def eventually(what: str, probe, want, tries: int = 300):
    """Polls probe() until it returns want: frees wait for RCU grace
    periods, QPs for their owners' teardown. Bounded by tries, not by a
    time."""
    got = None
    for _ in range(tries):
        got = probe()
        if got == want:
            return
        time.sleep(0.1)
    raise AssertionError(f"{what}: {got}, expected {want}")


def device_rate(g: Guest, rate: str):
    """Paces the test bed's rxe device at @rate (`dev set ... maxrate`)."""
    cli_ok(g, f"dev set {g.rxe_dev} maxrate {rate}")
