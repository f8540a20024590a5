"""verbsgate's counters as the tests read them: each tenant's (`stats`),
what moved between two readings, the user send queues governed, and
what the RDMA devices hold (`rdma_objects`)."""
from harness.testbed import Guest
from harness.vgcli import cli_json

USQ_OBJECTS = "/sys/kernel/debug/verbsgate/usq_objects"


def stats(g: Guest) -> dict[str, dict]:
    """Each tenant's counters, by name."""
    return {t["name"]: t for t in cli_json(g, "stats")["tenants"]}


def delta(before: dict, after: dict, name: str, key: str) -> int:
    """How much tenant @name's counter @key moved between two stats()."""
    return after[name][key] - before.get(name, {}).get(key, 0)


def deltas(before: dict, after: dict, key: str) -> dict[str, int]:
    """delta() of every tenant in @after (one added since counts from
    0)."""
    return {name: delta(before, after, name, key) for name in after}


def usq_objects(g: Guest) -> int:
    return int(g.run(f"cat {USQ_OBJECTS}", check=True).out)


def rdma_objects(g: Guest) -> str:
    """The QPs, CQs, MRs and PDs the RDMA devices hold (`rdma res`), to
    compare before and after a test's processes."""
    return g.run("rdma res show qp; rdma res show cq; rdma res show mr; "
                 "rdma res show pd", check=True).out
