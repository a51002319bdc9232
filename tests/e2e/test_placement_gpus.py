"""Placement groups and GPU assignment on one node (4 declared GPUs), as vLLM uses them."""

import logging
import os
import time

import pytest

import ray
from ray.exceptions import ActorDiedError
from ray.util.placement_group import (get_current_placement_group, placement_group,
                                      placement_group_table, remove_placement_group)
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy


@ray.remote
class GpuProbe:
    def __init__(self):
        self.env_at_init = {k: os.environ.get(k)
                            for k in ("BEAM_TEST_VAR", "BEAM_TEST_UNSET_VAR")}

    def probe(self):
        pg = get_current_placement_group()
        return {"gpu_ids": ray.get_gpu_ids(),
                "accel": ray.get_runtime_context().get_accelerator_ids()["GPU"],
                "cvd": os.environ.get("CUDA_VISIBLE_DEVICES"),
                "pg": None if pg is None else pg.id.hex(),
                "env_at_init": self.env_at_init}


def _in(pg, index, num_gpus=1, **options):
    return GpuProbe.options(num_cpus=0, num_gpus=num_gpus, **options,
                            scheduling_strategy=PlacementGroupSchedulingStrategy(
                                placement_group=pg, placement_group_bundle_index=index))


@pytest.fixture
def groups(cluster):
    """Placement groups made by a test; all removed afterwards so GPUs are free again."""
    made = []

    def make(bundles, strategy="PACK", **kw):
        pg = placement_group(bundles, strategy=strategy, **kw)
        made.append(pg)
        return pg
    yield make
    for pg in made:
        remove_placement_group(pg)
    deadline = time.monotonic() + 30  # ends as soon as the GPUs are back
    while ray.available_resources().get("GPU") != 4.0 and time.monotonic() < deadline:
        time.sleep(0.05)


def test_one_actor_per_bundle_gets_its_own_gpu(groups):
    pg = groups([{"GPU": 1}] * 4)
    assert pg.wait(10)
    actors = [_in(pg, i).remote() for i in range(4)]
    probes = ray.get([a.probe.remote() for a in actors], timeout=60)
    cvds = [p["cvd"] for p in probes]
    assert sorted(cvds) == ["0", "1", "2", "3"], f"GPUs not distinct per bundle: {cvds}"
    for p in probes:
        assert p["gpu_ids"] == [int(p["cvd"])] and p["accel"] == [p["cvd"]], p
        assert p["pg"] == pg.id.hex()


def test_two_half_gpu_actors_in_one_bundle_share_the_gpu(groups):
    pg = groups([{"GPU": 1}, {"GPU": 1}])
    assert pg.wait(10)
    a, b = _in(pg, 1, num_gpus=0.5).remote(), _in(pg, 1, num_gpus=0.5).remote()
    pa, pb = ray.get([a.probe.remote(), b.probe.remote()], timeout=60)
    assert pa["gpu_ids"] == pb["gpu_ids"] and len(pa["gpu_ids"]) == 1, (pa, pb)
    assert pa["cvd"] == pb["cvd"] == str(pa["gpu_ids"][0])
    table = placement_group_table(pg)
    assert table["bundles"][1] == {"GPU": 1.0}


def test_noset_cuda_visible_devices_keeps_the_daemon_env(groups):
    pg = groups([{"GPU": 1}] * 2)
    assert pg.wait(10)
    noset = {"env_vars": {"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1"}}
    p = ray.get(_in(pg, 1, runtime_env=noset).remote().probe.remote(), timeout=60)
    # The daemon was started from this process's environment by the `cluster` fixture.
    assert p["cvd"] == os.environ.get("CUDA_VISIBLE_DEVICES"), p
    assert len(p["gpu_ids"]) == 1 and p["accel"] == [str(p["gpu_ids"][0])], p


def test_group_that_does_not_fit_waits_until_another_is_removed(groups):
    first = groups([{"GPU": 1}] * 3)
    assert first.wait(10)
    second = groups([{"GPU": 1}] * 2)
    assert second.wait(0.5) is False
    assert placement_group_table(second)["state"] == "PENDING"
    remove_placement_group(first)
    assert second.wait(10), "the waiting group was not placed after GPUs were freed"
    assert placement_group_table(second)["state"] == "CREATED"
    assert ray.get(second.ready(), timeout=10) == second


def test_infeasible_group_logs_a_warning_naming_gpu(groups, caplog):
    caplog.set_level(logging.WARNING)
    pg = groups([{"GPU": 8}])
    assert pg.wait(0.5) is False
    deadline = time.monotonic() + 30  # ends as soon as the warning is logged
    while time.monotonic() < deadline and not any(
            r.levelno >= logging.WARNING and "GPU" in r.getMessage() for r in caplog.records):
        time.sleep(0.05)
    warnings = [r.getMessage() for r in caplog.records if r.levelno >= logging.WARNING]
    assert any("GPU" in w for w in warnings), f"no warning naming GPU; got {warnings}"


def test_remove_group_kills_its_actors_and_second_remove_is_noop(groups):
    pg = groups([{"GPU": 1}, {"GPU": 1}])
    assert pg.wait(10)
    actors = [_in(pg, 0).remote(), _in(pg, 1).remote()]
    ray.get([a.probe.remote() for a in actors], timeout=60)
    assert ray.available_resources().get("GPU") == 2.0
    remove_placement_group(pg)
    for a in actors:
        with pytest.raises(ActorDiedError):
            ray.get(a.probe.remote(), timeout=10)
    remove_placement_group(pg)  # no-op, no error
    assert placement_group_table(pg)["state"] == "REMOVED"
    deadline = time.monotonic() + 30  # ends as soon as the GPUs are back
    while ray.available_resources().get("GPU") != 4.0 and time.monotonic() < deadline:
        time.sleep(0.05)
    assert ray.available_resources().get("GPU") == 4.0


def test_runtime_env_vars_are_visible_in_init_and_no_group_outside_one(cluster):
    assert get_current_placement_group() is None
    a = GpuProbe.options(num_cpus=0, runtime_env={"env_vars": {"BEAM_TEST_VAR": "v1"}}).remote()
    p = ray.get(a.probe.remote(), timeout=60)
    assert p["env_at_init"] == {"BEAM_TEST_VAR": "v1", "BEAM_TEST_UNSET_VAR": None}
    assert p["pg"] is None and p["gpu_ids"] == [] and p["accel"] == []
