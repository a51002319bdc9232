"""The placement group fast path (python/ray/_beam/pgs.py): create and remove are one-way
frames, so errors that Ray raises must still surface, and nothing sent may be lost when the
driver does not wait: a refusal by the daemon reaches ready(), a remove leaves without any
later wait, and a group handed to another process is the same group there."""

import json

import pytest

import ray
from ray.exceptions import GetTimeoutError, TaskPlacementGroupRemoved
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group

from conftest import WAIT_S, run_driver, wait_until


def test_a_refusal_by_the_daemon_reaches_ready(cluster):
    # Ray's checks here pass it; the daemon's resolution (0.0001) refuses it
    pg = placement_group([{"CPU": 0.00001}])
    with pytest.raises(ValueError, match="below the resolution"):
        ray.get(pg.ready(), timeout=10)
    remove_placement_group(pg)  # refused: nothing to remove, and no error
    ok = placement_group([{"CPU": 1}])  # the connection and the next group are unharmed
    ray.get(ok.ready(), timeout=10)
    remove_placement_group(ok)


def test_a_remove_leaves_without_a_later_wait(cluster):
    pg = placement_group([{"CPU": 8}], name="whole-node")
    ray.get(pg.ready(), timeout=10)
    remove_placement_group(pg)
    with pytest.raises(TaskPlacementGroupRemoved):
        ray.get(pg.ready(), timeout=10)
    # another process sees it removed without this driver sending or waiting for anything
    def state_seen_by_another_driver():
        done = run_driver(cluster, f"""
            import json, ray
            from ray.util.placement_group import placement_group_table
            ray.init()
            print(json.dumps(placement_group_table()["{pg.id.hex()}"]["state"]))
        """)
        assert done.returncode == 0, done.stderr
        return json.loads(done.stdout.strip().splitlines()[-1])
    wait_until(lambda: state_seen_by_another_driver() == "REMOVED", WAIT_S, "another driver seeing the group REMOVED")


def test_resources_are_free_for_the_next_group_at_once(cluster):
    for _ in range(50):  # each group takes every CPU: it fits only if the last remove went first
        pg = placement_group([{"CPU": 8}])
        ray.get(pg.ready(), timeout=10)
        remove_placement_group(pg)
    assert ray.available_resources()["CPU"] == 8.0


def test_a_group_that_cannot_fit_waits_and_warns(cluster):
    pg = placement_group([{"CPU": 1000}])
    with pytest.raises(GetTimeoutError):
        ray.get(pg.ready(), timeout=0.5)
    assert placement_group_table(pg)["state"] == "PENDING"
    remove_placement_group(pg)
    with pytest.raises(TaskPlacementGroupRemoved):
        ray.get(pg.ready(), timeout=10)
