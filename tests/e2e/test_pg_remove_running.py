"""What vLLM's elastic expert-parallel scale-down relies on: `remove_placement_group` of a group
whose actors are busy in a call ends them at once, their pending calls fail with Ray's
error (ActorDiedError, "... placement group was removed"), and their resources are free
again right away, so the next, differently sized group is placed without waiting.
(vLLM's scale-down removes the placement groups of the DP ranks it drops while their
engine actors are still in their busy loop.)"""

import os
import time

import pytest

import ray
from ray.exceptions import ActorDiedError
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from conftest import WAIT_S, pid_alive, wait_until


@ray.remote
class Busy:
    def pid(self):
        return os.getpid()

    def spin(self, seconds, marker=None):
        if marker:  # the test waits for this: the call is executing
            open(marker, "w").close()
        end = time.monotonic() + seconds
        while time.monotonic() < end:  # busy, as an engine loop: no await, no sleep
            sum(range(1000))
        return "finished"


def test_removing_a_group_ends_its_running_actors_and_frees_resources(cluster, tmp_path):
    total = ray.cluster_resources()["GPU"]
    bystander = Busy.options(num_cpus=0).remote()
    pg = placement_group([{"GPU": 1, "CPU": 1}] * 2, strategy="PACK")
    assert pg.wait(WAIT_S)
    actors = [Busy.options(num_cpus=1, num_gpus=1, scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=i)).remote() for i in range(2)]
    pids = ray.get([a.pid.remote() for a in actors], timeout=60)
    markers = [str(tmp_path / f"spinning-{i}") for i in range(len(actors))]
    running = [a.spin.remote(600, m) for a, m in zip(actors, markers)]
    wait_until(lambda: all(os.path.exists(m) for m in markers), WAIT_S, "both actors executing their spin() call")
    assert ray.available_resources().get("GPU", 0) == total - 2

    t0 = time.monotonic()
    remove_placement_group(pg)
    for ref in running:
        with pytest.raises(ActorDiedError) as err:
            ray.get(ref, timeout=60)  # a 600 s call: failed by the removal, not finished
        assert "placement group was removed" in str(err.value), str(err.value)
    failed_s = time.monotonic() - t0
    wait_until(lambda: ray.available_resources().get("GPU", 0) == total, WAIT_S, "the removed group's GPUs free")
    freed_s = time.monotonic() - t0
    wait_until(lambda: not any(pid_alive(p) for p in pids), WAIT_S, f"the removed group's actors {pids} ended")
    assert placement_group_table(pg)["state"] == "REMOVED"

    # What scale-up does next: a group needing every GPU is placed at once.
    bigger = placement_group([{"GPU": 1}] * int(total), strategy="PACK")
    try:
        assert bigger.wait(WAIT_S), f"the next group waits: {placement_group_table(bigger)}"
    finally:
        remove_placement_group(bigger)
    assert ray.get(bystander.pid.remote(), timeout=10) > 0  # others are untouched
    print(f"\nrunning calls failed {failed_s:.2f} s and GPUs were free {freed_s:.2f} s after "
          f"remove_placement_group")
