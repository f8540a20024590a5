"""Events of the netlink family: none is multicast while the family is not
registered, however the module's load and unload race the QPs that cause
them."""
import json

from harness.traffic import client_command

EVENTS = "tests/integration/guest/genl_events.py"
CYCLES = 20


def test_no_event_outside_the_family_lifetime(guest):
    """A listener stays attached to the events group's id across 20
    unloads while a QP storm on a second device makes QP_CLASSIFIED
    events flow. The second device has the higher index, so on unload it
    stays attached while the first one is detached (grace periods): an
    event sent after the family's unregistration shows up as "late"."""
    g = guest
    g.run("rdma link add vgev type rxe netdev vg1", check=True)
    ready = "/tmp/events.ready"
    g.run(f"rm -f {ready}")
    assert g.load_verbsgate().ok
    listener = g.spawn(f"exec python3 {g.repo / EVENTS} {ready}",
                       "/tmp/events.json")
    g.run(f"for i in $(seq 100); do [ -e {ready} ] && exit 0; sleep 0.1; "
          "done; exit 1", check=True)
    storm = g.spawn("exec " + client_command(
        "--mode qp-storm --dev vgev --qps 4 --rate 2000 --duration 3600 "
        "--interval 0"), "/tmp/storm.log")
    try:
        for cycle in range(CYCLES):
            if cycle:
                assert g.load_verbsgate().ok, f"cycle {cycle}"
            g.run("sleep 0.5")
            res = g.unload_verbsgate()
            assert res.ok, f"cycle {cycle}: {res.out}"
        g.run("sleep 0.5")
    finally:
        g.run(f"kill {storm}; kill -TERM {listener}; "
              f"while kill -0 {listener} 2>/dev/null; do sleep 0.1; done")
        g.run("rdma link delete vgev")
    seen = json.loads(g.run("cat /tmp/events.json", check=True).out)
    assert seen["overruns"] == 0, seen
    assert (seen["loads"], seen["unloads"]) == (CYCLES - 1, CYCLES), seen
    assert seen["events"] > 0, "no event flowed: the test proves nothing"
    assert not seen["late"], \
        f"{len(seen['late'])} events sent while the family was not " \
        f"registered, first: {seen['late'][:3]}"
    assert seen["bad"] == [], seen
