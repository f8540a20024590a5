"""Hand-made requests to the verbsgate netlink family, sent from the guest
by tests/integration/guest/genl_raw.py: what the CLI never sends, for the
tests of strict validation and permissions."""
import json

from harness.testbed import Guest

GENL_RAW = "tests/integration/guest/genl_raw.py"

# (command, [(attribute type, payload bytes)], dump)
Request = tuple[int, list[tuple[int, bytes]], bool]


def request_line(cmd: int, attrs, dump: bool = False) -> str:
    return " ".join([str(cmd)] + [f"--attr {t}:{p.hex()}" for t, p in attrs]
                    + (["--dump"] if dump else []))


def raw_batch(g: Guest, requests: list[Request],
              prefix: str = "") -> list[dict]:
    """Sends requests in order over one socket of one python3 (which
    takes half a second to start in TCG), run through prefix (a user to
    run as); each outcome as genl_raw.py prints it: error (errno, 0 for
    success), extack, replies."""
    batch = "/tmp/genl_raw.batch"
    lines = "\n".join(request_line(*r) for r in requests)
    g.run(f"cat > {batch} << 'EOF'\n{lines}\nEOF", check=True)
    # The script on stdin, opened by root: the checkout may sit where an
    # unprivileged prefix's user cannot read (a clone under /root).
    res = g.run(f"{prefix} python3 -S - --batch {batch} < {g.repo / GENL_RAW}",
                check=True)
    out = [json.loads(line) for line in res.out.splitlines()]
    assert len(out) == len(requests), res.out
    return out

