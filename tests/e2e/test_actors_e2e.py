"""The ray API end to end against the real daemon: shapes, errors, ordering, threads."""

import asyncio
import json
import os
import threading
import time

import pytest

import ray
from ray.exceptions import ActorDiedError, GetTimeoutError, RayActorError, RayTaskError
from ray.util.placement_group import (get_current_placement_group, placement_group,
                                      placement_group_table, remove_placement_group)
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

SHAPES = json.load(open(os.environ.get("BEAM_RAY_SHAPES", os.path.join(
    os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "golden", "ray-2.60-shapes.json"))))


@ray.remote
class Probe:
    def probe(self):
        c = ray.get_runtime_context()
        return {"node_id": c.get_node_id(), "actor_id": c.get_actor_id(),
                "accel": c.get_accelerator_ids(), "gpu_ids": ray.get_gpu_ids(),
                "CUDA_VISIBLE_DEVICES": os.environ.get("CUDA_VISIBLE_DEVICES"),
                "FOO": os.environ.get("FOO"), "runtime_env": dict(c.runtime_env),
                "cur_pg": get_current_placement_group(), "ip": ray.util.get_node_ip_address()}

    def boom(self):
        raise ValueError("bad thing")

    def sleep(self, s):
        time.sleep(s)
        return s

    def echo(self, x):
        return x


def test_cluster_shapes(cluster):
    nodes = ray.nodes()
    assert list(nodes[0]) == list(SHAPES["nodes"][0])
    assert ray.cluster_resources()["GPU"] == 4.0
    per_node = ray._private.state.available_resources_per_node()
    assert list(per_node) == [nodes[0]["NodeID"]]
    ctx = ray.get_runtime_context()
    assert ctx.get_node_id() == nodes[0]["NodeID"] and ctx.get_actor_id() is None
    assert set(ctx.get_accelerator_ids()) == set(SHAPES["driver.ctx.get_accelerator_ids"])
    assert ray.get_gpu_ids() == [] and get_current_placement_group() is None
    rows = ray.util.state.list_nodes()
    assert rows[0].state == "ALIVE" and rows[0].is_head_node


def test_placement_group_and_actor_probe(cluster):
    pg = placement_group([{"GPU": 1, "CPU": 1}, {"GPU": 1}], strategy="PACK", name="demo")
    assert ray.get(pg.ready(), timeout=60) == pg and pg.wait(30)
    assert pg.bundle_specs == SHAPES["pg.bundle_specs"]
    table = placement_group_table(pg)
    assert table["state"] == "CREATED" and set(table["bundles_to_node_id"]) == {0, 1}
    assert pg.id.hex() in placement_group_table()
    a = Probe.options(num_cpus=0, num_gpus=1, runtime_env={"env_vars": {"FOO": "bar"}},
                      scheduling_strategy=PlacementGroupSchedulingStrategy(
                          placement_group=pg, placement_group_bundle_index=1)).remote()
    out = ray.get(a.probe.remote(), timeout=30)
    assert out["FOO"] == "bar" and out["runtime_env"] == {"env_vars": {"FOO": "bar"}}
    assert out["accel"]["GPU"] == [str(g) for g in out["gpu_ids"]] and len(out["gpu_ids"]) == 1
    assert out["CUDA_VISIBLE_DEVICES"] == out["accel"]["GPU"][0]
    assert out["cur_pg"] == pg and out["actor_id"] == a._actor_id.hex()
    assert repr(a) == f"Actor(Probe, {a._actor_id.hex()})"
    remove_placement_group(pg)
    with pytest.raises(ActorDiedError):
        ray.get(a.probe.remote(), timeout=10)
    assert placement_group_table(pg)["state"] == "REMOVED"


def test_errors(cluster):
    a = Probe.remote()
    with pytest.raises(ValueError) as e:
        ray.get(a.boom.remote(), timeout=30)
    assert isinstance(e.value, RayTaskError)
    assert [c.__name__ for c in type(e.value).__mro__] == SHAPES["boom: exception types"]
    assert str(e.value).startswith("\x1b[36mray::Probe.boom()\x1b[39m (pid=")
    assert str(e.value).endswith("ValueError: bad thing")
    with pytest.raises(GetTimeoutError, match="Get timed out"):
        ray.get(a.sleep.remote(2), timeout=0.1)
    pending = a.sleep.remote(10)
    ray.kill(a, no_restart=True)
    with pytest.raises(RayActorError, match="killed by `ray.kill`"):
        ray.get(pending, timeout=10)
    with pytest.raises(ActorDiedError):
        ray.get(a.echo.remote(1), timeout=30)
    ready, not_ready = ray.wait([pending], timeout=30)
    assert ready == [pending] and not_ready == []


def test_ordering_ref_args_and_threads(cluster):
    a, b = Probe.remote(), Probe.remote()
    slow = a.sleep.remote(0.3)
    chained = b.echo.remote(slow)
    after = b.echo.remote("after")  # queued behind the pending-arg call, order kept
    assert ray.get([chained, after], timeout=20) == [0.3, "after"]
    assert ray.get(b.echo.remote(ray.put({"x": 1})), timeout=10) == {"x": 1}
    refs = [Probe.remote().sleep.remote(0.5) for _ in range(3)]
    seen = {}
    t = threading.Thread(target=lambda: seen.update(w=ray.wait(refs, num_returns=3, timeout=20)))
    t.start()
    assert ray.get(refs, timeout=20) == [0.5] * 3
    t.join(10)
    assert [len(x) for x in seen["w"]] == [3, 0]


def test_named_async_and_threaded_actors(cluster):
    @ray.remote
    class Async:
        def __init__(self):
            self.arrived = 0

        async def meet(self, n, limit_s=60):
            """Returns once ``n`` calls are under way at once: calls run one at a time never
            get there (the first gives up after ``limit_s``), however slow the machine."""
            self.arrived += 1
            deadline = time.monotonic() + limit_s
            while self.arrived < n and time.monotonic() < deadline:
                await asyncio.sleep(0.01)
            return self.arrived >= n

    x = Async.options(name="async_one").remote()
    assert ray.get([x.meet.remote(8) for _ in range(8)], timeout=120) == [True] * 8, \
        "8 calls to an async actor were not under way at once"
    assert ray.get_actor("async_one") == x

    @ray.remote(max_concurrency=2)
    class Threaded:
        def __init__(self):
            self.ev = threading.Event()

        def block(self):
            return self.ev.wait(10)

        def release(self):
            self.ev.set()

    t = Threaded.remote()
    blocked = t.block.remote()
    t.release.remote()
    assert ray.get(blocked, timeout=20) is True


def test_many_threads_and_refs_are_freed(cluster):
    from ray._beam.api import client

    a = Probe.remote()
    ray.get(a.echo.remote(0), timeout=30)
    table = client.get_client().table
    before = len(table)
    errors = []

    def worker(k):
        try:
            refs = [a.echo.remote((k, i)) for i in range(200)]
            assert ray.get(refs, timeout=30) == [(k, i) for i in range(200)]
        except Exception as e:  # noqa: BLE001
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert not errors
    assert len(table) <= before + 2  # every result's entry went with its last ref


def test_omp_num_threads_follows_the_actors_cpus_as_in_ray(cluster):
    @ray.remote
    class Env:
        def omp(self):
            return os.environ.get("OMP_NUM_THREADS")

    # vLLM's workers ask for num_cpus=0: each gets one OpenMP thread, not one per core.
    assert ray.get(Env.options(num_cpus=0).remote().omp.remote()) == "1"
    assert ray.get(Env.options(num_cpus=2).remote().omp.remote()) == "2"
    pinned = Env.options(runtime_env={"env_vars": {"OMP_NUM_THREADS": "5"}}).remote()
    assert ray.get(pinned.omp.remote()) == "5"


def test_unpicklable_arguments_and_results_get_clear_errors(cluster):
    @ray.remote
    class Bag:
        def echo(self, x):
            return x

        def lock(self):
            return threading.Lock()

    bag = Bag.remote()
    with pytest.raises(TypeError, match="Could not serialize the arguments of the actor method 'echo'"):
        bag.echo.remote(threading.Lock())
    with pytest.raises(TypeError, match=r"Could not serialize the return value of Bag.lock\(\)"):
        ray.get(bag.lock.remote())
    assert ray.get(bag.echo.remote(7)) == 7, "the actor and the connection survive both"


def test_actor_workers_run_as_batch_tasks_unless_told_otherwise(cluster):
    @ray.remote
    class Policy:
        def here(self):
            return os.sched_getscheduler(0)

        def in_a_new_thread(self):
            out = []
            t = threading.Thread(target=lambda: out.append(os.sched_getscheduler(0)))
            t.start()
            t.join()
            return out[0]

    batch = Policy.remote()
    assert ray.get(batch.here.remote()) == os.SCHED_BATCH
    assert ray.get(batch.in_a_new_thread.remote()) == os.SCHED_BATCH
    threaded = Policy.options(max_concurrency=4).remote()  # methods run on pool threads
    assert ray.get(threaded.here.remote()) == os.SCHED_BATCH
    normal = Policy.options(runtime_env={"env_vars": {"BEAM_ACTOR_SCHED": "normal"}}).remote()
    assert ray.get(normal.here.remote()) == os.SCHED_OTHER
    assert os.sched_getscheduler(0) == os.SCHED_OTHER, "the driver is left as it was"
