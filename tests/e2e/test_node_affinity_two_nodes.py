"""Placement across two real daemons as Ray states it: NodeAffinitySchedulingStrategy hard and
soft (Ray's ActorUnschedulableError for a node unknown, too small or lost), the "SPREAD"
strategy, get_assigned_resources(), an INFEASIBLE group and a placed group's bundle resources. Two loopback hosts (127.0.0.1
head, 127.0.0.2 joined), drivers as subprocesses; the node loss is a SIGKILL of the joined
daemon. Ray 2.60 gave the same answers to the same programs (tests/e2e/ray_sbs is not used:
these need two nodes)."""

import json
import os
import shutil
import signal
import tempfile

import pytest

from conftest import ray_cli, run_driver, spawn_driver, wait_gone

UNSCHEDULABLE = ("The actor is not schedulable: The node specified via NodeAffinitySchedulingStrategy "
                 "doesn't exist any more or is infeasible, and soft=False was specified.")

PREAMBLE = """
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy as Affinity
    ray.init()
    ids = {n["NodeManagerAddress"]: n["NodeID"] for n in ray.nodes() if n["Alive"]}
    head, member = ids["127.0.0.1"], ids["127.0.0.2"]
    @ray.remote
    class Where:
        def where(self):
            ctx = ray.get_runtime_context()
            return ray.util.get_node_ip_address(), ctx.get_node_id(), ctx.get_assigned_resources()
"""

PLACEMENT = PREAMBLE + """
    def show(tag, actor):
        try:
            print(tag, repr(ray.get(actor.where.remote(), timeout=60)), flush=True)
        except Exception as e:
            print(tag, "ERR", type(e).__name__, str(e), flush=True)
    show("HARD_MEMBER", Where.options(num_cpus=1, scheduling_strategy=Affinity(member, soft=False)).remote())
    show("HARD_HEAD", Where.options(num_gpus=0.5, scheduling_strategy=Affinity(head, soft=False)).remote())
    show("HARD_UNKNOWN", Where.options(scheduling_strategy=Affinity("ab" * 28, soft=False)).remote())
    show("HARD_TOO_SMALL", Where.options(num_cpus=3, scheduling_strategy=Affinity(member, soft=False)).remote())
    show("SOFT_UNKNOWN", Where.options(scheduling_strategy=Affinity("ab" * 28, soft=True)).remote())
    try:
        Where.options(scheduling_strategy=Affinity("zz", soft=False)).remote()
    except ValueError as e:
        print("BAD_ID", str(e), flush=True)
    # SPREAD counts each node's live actors: wait until those above (their handles gone) have
    # ended, however long the machine takes, so that both nodes start from none
    import time
    from ray.util.state import list_actors
    deadline = time.monotonic() + 60
    while list_actors(filters=[("state", "=", "ALIVE")]) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not list_actors(filters=[("state", "=", "ALIVE")]), "the actors above never ended within 60 s"
    spread = [Where.options(num_cpus=0.1, scheduling_strategy="SPREAD").remote() for _ in range(2)]
    print("SPREAD", sorted(ray.get([a.where.remote() for a in spread], timeout=60)[i][0] for i in range(2)), flush=True)
    from ray.util.placement_group import placement_group, placement_group_table
    pg = placement_group([{"CPU": 64}])
    table = placement_group_table(pg)
    print("INFEASIBLE", table["state"], table["stats"]["scheduling_state"], flush=True)
    print("INFEASIBLE_ALL", placement_group_table()[pg.id.hex()]["stats"]["scheduling_state"], flush=True)
    from ray.util.placement_group import remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
    placed = placement_group([{"CPU": 0.5}, {"CPU": 0.5}], strategy="STRICT_SPREAD")
    ray.get(placed.ready(), timeout=60)
    pgid = placed.id.hex()
    def bundle_view(resources):
        return sorted((k.replace(pgid, "PG"), v) for k, v in resources.items() if pgid in k)
    print("BUNDLES_TOTAL", bundle_view(ray.cluster_resources()), flush=True)
    inside = Where.options(num_cpus=0.5, scheduling_strategy=PlacementGroupSchedulingStrategy(placed, 1)).remote()
    print("IN_BUNDLE", repr(ray.get(inside.where.remote(), timeout=60)[2]), flush=True)
    print("BUNDLES_AVAILABLE", bundle_view(ray.available_resources()), flush=True)
    remove_placement_group(placed)
    print("BUNDLES_REMOVED", bundle_view(ray.cluster_resources()), flush=True)
"""


def lines(stdout, tag):
    return [line[len(tag) + 1:] for line in stdout.splitlines() if line.startswith(tag + " ")]


@pytest.fixture
def two_hosts():
    head, member = (tempfile.mkdtemp(prefix=f"beam-na{i}-") for i in range(2))
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", head, "--num-gpus", "1",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.1"])
    assert done.returncode == 0, done.stderr
    with open(os.path.join(head, "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    done = ray_cli(["start", "--address", address, "--temp-dir", member, "--num-gpus", "0",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.2"], RAY_AUTH_TOKEN=token)
    assert done.returncode == 0, done.stderr
    yield head, member
    for d in (member, head):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=head, within=10)
    for d in (head, member):
        shutil.rmtree(d, ignore_errors=True)


def test_node_affinity_spread_and_infeasible_as_ray(two_hosts):
    done = run_driver(two_hosts[0], PLACEMENT, timeout=180)
    out = done.stdout
    assert done.returncode == 0, f"{out[-2000:]}\n{done.stderr[-3000:]}"
    ip, _, assigned = eval(lines(out, "HARD_MEMBER")[0])
    assert (ip, assigned) == ("127.0.0.2", {"CPU": 1.0}), out
    ip, _, assigned = eval(lines(out, "HARD_HEAD")[0])
    assert (ip, assigned) == ("127.0.0.1", {"CPU": 1.0, "GPU": 0.5}), out  # as Ray: asking for a GPU holds a CPU too
    for tag in ("HARD_UNKNOWN", "HARD_TOO_SMALL"):
        assert lines(out, tag) == ["ERR ActorUnschedulableError " + UNSCHEDULABLE], out
    assert eval(lines(out, "SOFT_UNKNOWN")[0])[2] == {}, out
    assert lines(out, "BAD_ID")[0].startswith("Invalid node_id 'zz'. Node ID must be a valid hex string."), out
    assert lines(out, "SPREAD") == ["['127.0.0.1', '127.0.0.2']"], out
    assert lines(out, "INFEASIBLE") == ["PENDING INFEASIBLE"], out
    assert lines(out, "INFEASIBLE_ALL") == ["INFEASIBLE"], out
    assert eval(lines(out, "BUNDLES_TOTAL")[0]) == [
        ("CPU_group_0_PG", 0.5), ("CPU_group_1_PG", 0.5), ("CPU_group_PG", 1.0),
        ("bundle_group_0_PG", 1000.0), ("bundle_group_1_PG", 1000.0), ("bundle_group_PG", 2000.0)], out
    assert eval(lines(out, "IN_BUNDLE")[0]) == {"CPU": 0.5}, out  # Ray gives the plain name inside a group
    assert eval(lines(out, "BUNDLES_AVAILABLE")[0]) == [
        ("CPU_group_0_PG", 0.5), ("CPU_group_PG", 0.5), ("bundle_group_0_PG", 1000.0),
        ("bundle_group_1_PG", 999.999), ("bundle_group_PG", 1999.999)], out
    assert lines(out, "BUNDLES_REMOVED") == ["[]"], out


PINNED_WAITING = PREAMBLE + """
    full = Where.options(num_cpus=2, scheduling_strategy=Affinity(member, soft=False)).remote()
    print("FULL", ray.get(full.where.remote(), timeout=60)[0], flush=True)
    waiting = Where.options(num_cpus=1, scheduling_strategy=Affinity(member, soft=False)).remote()
    ref = waiting.where.remote()
    ready, _ = ray.wait([ref], timeout=1.0)
    print("WAITING", len(ready), flush=True)  # the test kills the joined node on this line
    try:
        ray.get(ref, timeout=60)
        print("LOST placed", flush=True)
    except Exception as e:
        print("LOST", type(e).__name__, str(e), flush=True)
"""


def test_a_hard_pinned_actor_waiting_on_a_node_that_dies_is_unschedulable(two_hosts):
    head, member = two_hosts
    driver = spawn_driver(head, PINNED_WAITING)
    try:
        first = [driver.stdout.readline().strip() for _ in range(2)]
        assert first == ["FULL 127.0.0.2", "WAITING 0"], first
        with open(os.path.join(member, "session_latest", "node.json")) as f:
            os.kill(int(json.load(f)["pid"]), signal.SIGKILL)
        out, err = driver.communicate(timeout=90)
    finally:
        if driver.poll() is None:
            driver.kill()
    assert lines(out, "LOST") == ["ActorUnschedulableError " + UNSCHEDULABLE], f"{out}\n{err[-3000:]}"
