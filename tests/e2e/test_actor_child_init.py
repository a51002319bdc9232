"""A process started by an actor that calls ``ray.init()`` joins the actor's cluster, as under
Ray. vLLM relies on it: ``LLM(...)`` inside an actor (RL frameworks, a driver inside a
placement group) spawns its EngineCore, which sets ``RAY_ADDRESS`` to the actor's
``gcs_address`` and calls ``ray.init()``, then reads the actor's placement group. Before the
daemon put ``RAY_TMPDIR`` into workers' environment, such a child started a private
cluster (or, given the head's TCP address, failed without a token) and saw no group."""

import os
import subprocess
import sys

import pytest

import ray
from ray.util.placement_group import placement_group, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

CHILD = r"""
import json, pickle, sys
import ray
ray.init()
pg = pickle.loads(bytes.fromhex(sys.argv[1]))
print(json.dumps({"node": ray.get_runtime_context().get_node_id(), "nodes": len(ray.nodes()),
                  "bundles": pg.bundle_specs}))
"""


@ray.remote(num_cpus=0)
class Spawner:
    def child(self, set_address):
        import pickle

        env = dict(os.environ)
        if set_address:  # what vLLM's _maybe_force_spawn does before it spawns EngineCore
            env["RAY_ADDRESS"] = ray.get_runtime_context().gcs_address
        else:
            env.pop("RAY_ADDRESS", None)
        pg = ray.util.get_current_placement_group()
        done = subprocess.run([sys.executable, "-c", CHILD, pickle.dumps(pg).hex()], env=env,
                              capture_output=True, text=True, timeout=60)
        return {"rc": done.returncode, "out": done.stdout, "err": done.stderr[-3000:],
                "node": ray.get_runtime_context().get_node_id()}


@pytest.mark.parametrize("set_address", [False, True], ids=["no-address", "gcs-address"])
def test_child_of_an_actor_joins_the_cluster_and_sees_its_group(cluster, set_address):
    import json

    pg = placement_group([{"CPU": 1}, {"GPU": 1}], strategy="PACK")
    try:
        assert pg.wait(10)
        actor = Spawner.options(scheduling_strategy=PlacementGroupSchedulingStrategy(
            placement_group=pg, placement_group_bundle_index=0)).remote()
        got = ray.get(actor.child.remote(set_address), timeout=90)
        assert got["rc"] == 0, got["err"]
        seen = json.loads(got["out"].strip().splitlines()[-1])
        assert seen["node"] == got["node"], f"the child joined another cluster: {seen} vs {got}"
        assert seen["nodes"] == len(ray.nodes())
        assert seen["bundles"] == [{"CPU": 1.0}, {"GPU": 1.0}]
        ray.kill(actor)
    finally:
        remove_placement_group(pg)
