"""One-node placement program whose printout Ray 2.60 defines: get_assigned_resources(),
a placed group's bundle resources, an INFEASIBLE group, NodeAffinitySchedulingStrategy hard
and soft, and "SPREAD". tools/placement_sbs.py runs it under beam and Ray and compares the
lines; each line is a tag and a value with the group id replaced by PG."""

import time

import ray
from ray.util.placement_group import placement_group, placement_group_table
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy as Affinity
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy as InGroup

ray.init(num_cpus=4, num_gpus=2)
me = ray.get_runtime_context().get_node_id()


@ray.remote
class Probe:
    def assigned(self):
        return ray.get_runtime_context().get_assigned_resources()


kept = []  # every actor lives to the end: an actor whose handle is dropped ends and frees what it held


def show(tag, options):
    try:
        kept.append(Probe.options(**options).remote())
        print(tag, sorted(ray.get(kept[-1].assigned.remote(), timeout=60).items()), flush=True)
    except Exception as e:
        print(tag, type(e).__name__, str(e), flush=True)


show("DEFAULT", {})
show("CPU1", {"num_cpus": 1})
show("GPU_HALF", {"num_gpus": 0.5})
pg = placement_group([{"CPU": 1, "GPU": 1}, {"CPU": 1}])
ray.get(pg.ready(), timeout=60)
pgid = pg.id.hex()


def bundle_view(resources):
    return sorted((k.replace(pgid, "PG"), v) for k, v in resources.items() if pgid in k)


def settled(read, done):
    """Ray's resource view catches up a moment after a change (beam's at once): read until
    ``done`` holds, 10 s at most, and print what was read last either way."""
    deadline = time.monotonic() + 10
    while True:
        view = bundle_view(read())
        if done(view) or time.monotonic() > deadline:
            return view
        time.sleep(0.1)


print("BUNDLES_TOTAL", settled(ray.cluster_resources, bool), flush=True)
show("IN_BUNDLE_0", {"num_cpus": 0.5, "num_gpus": 1, "scheduling_strategy": InGroup(pg, 0)})
print("BUNDLES_AVAILABLE", settled(ray.available_resources, lambda v: ("bundle_group_0_PG", 999.999) in v), flush=True)
never = placement_group([{"CPU": 64}])
print("INFEASIBLE", placement_group_table(never)["state"], placement_group_table(never)["stats"]["scheduling_state"],
      flush=True)
show("HARD_SELF", {"scheduling_strategy": Affinity(me, soft=False)})
show("HARD_UNKNOWN", {"scheduling_strategy": Affinity("ab" * 28, soft=False)})
show("HARD_TOO_SMALL", {"num_cpus": 8, "scheduling_strategy": Affinity(me, soft=False)})
show("SOFT_UNKNOWN", {"scheduling_strategy": Affinity("ab" * 28, soft=True)})
try:
    Probe.options(scheduling_strategy=Affinity("zz", soft=False)).remote()
except ValueError as e:
    print("BAD_ID", str(e).split(".")[0], flush=True)
show("SPREAD", {"scheduling_strategy": "SPREAD"})
ray.util.remove_placement_group(pg)
print("BUNDLES_REMOVED", settled(ray.cluster_resources, lambda v: not v), flush=True)
