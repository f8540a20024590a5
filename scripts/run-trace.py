#!/usr/bin/python3
"""Where the integration suite's time goes, from a trace of its guest
commands (VG_RUN_TRACE=FILE pytest ..., tests/integration/harness/
testbed.py).

Prints, per test (setup, call and teardown together), the number of
commands, their wall seconds and the seconds the guest spent in them
(the rest is the agent's round trip and waiting for a vCPU), the slowest
tests first; then the commands whose kind cost the most in all, a kind
being a command's first 60 characters.

usage: scripts/run-trace.py FILE [TESTS [KINDS]]
"""
import json
import sys
from collections import defaultdict


def main() -> int:
    if len(sys.argv) < 2:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    tests_shown = int(sys.argv[2]) if len(sys.argv) > 2 else 25
    kinds_shown = int(sys.argv[3]) if len(sys.argv) > 3 else 25
    tests = defaultdict(lambda: [0, 0.0, 0.0])
    kinds = defaultdict(lambda: [0, 0.0, 0.0])
    with open(sys.argv[1]) as trace:
        for line in trace:
            run = json.loads(line)
            # "tests/x.py::test_y (call)": the test, any phase.
            name = run["test"].rsplit(" (", 1)[0] or "(outside a test)"
            for key, table in ((name, tests), (run["cmd"][:60], kinds)):
                row = table[key]
                row[0] += 1
                row[1] += run["wall"]
                row[2] += run["guest"]
    total = [sum(r[i] for r in tests.values()) for i in range(3)]
    print(f"{total[0]} commands, {total[1]:.0f} s wall, "
          f"{total[2]:.0f} s in the guest\n")
    for title, table, shown in (("test", tests, tests_shown),
                                ("command", kinds, kinds_shown)):
        print(f"{'runs':>6} {'wall s':>8} {'guest s':>8}  {title}")
        for key, (n, wall, guest) in sorted(
                table.items(), key=lambda kv: -kv[1][1])[:shown]:
            print(f"{n:6} {wall:8.1f} {guest:8.1f}  {key}")
        print()
    return 0


if __name__ == "__main__":
    sys.exit(main())
