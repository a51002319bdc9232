"""Returned refs, num_returns and graceful exits on the paths tests/e2e/ray_sbs does not
take: thread-pool and async actors, refs nested in a result, handles passed to another
actor, sys.exit(). The pytest process is the driver (the module's `cluster`)."""

import os
import sys

import pytest

import ray
from ray.exceptions import ActorDiedError


@ray.remote(num_cpus=0, max_concurrency=4)
class Pool:
    def refs(self, me):
        return [ray.put("put"), me.value.remote(7)]

    def value(self, x):
        return x

    def two(self):
        return "a", "b"

    @ray.method(num_returns=2)
    def declared_two(self):
        return "c", "d"

    def leave(self, mark):
        import atexit
        atexit.register(lambda: open(mark, "w").close())
        sys.exit(0)


@ray.remote(num_cpus=0)
class AsyncRefs:
    async def own(self, me):
        return me.value.remote()

    async def value(self):
        return "async"


@ray.remote(num_cpus=0)
class Caller:
    def split(self, handle):
        first, second = handle.declared_two.remote()
        return ray.get([first, second], timeout=30)


def test_refs_nested_in_a_result_stay_refs_and_resolve(cluster):
    a = Pool.remote()
    put_ref, call_ref = ray.get(a.refs.remote(a), timeout=30)
    assert isinstance(put_ref, ray.ObjectRef) and isinstance(call_ref, ray.ObjectRef)
    assert ray.get([put_ref, call_ref], timeout=30) == ["put", 7]


def test_an_async_actor_returns_a_ref_to_its_own_call(cluster):
    a = AsyncRefs.remote()
    ref = ray.get(a.own.remote(a), timeout=30)
    assert isinstance(ref, ray.ObjectRef)
    assert ray.get(ref, timeout=30) == "async"


def test_num_returns_on_a_thread_pool_actor_and_through_a_passed_handle(cluster):
    a = Pool.remote()
    refs = a.two.options(num_returns=2).remote()
    assert len(refs) == 2 and ray.get(refs, timeout=30) == ["a", "b"]
    assert ray.get(Caller.remote().split.remote(a), timeout=30) == ["c", "d"]
    with pytest.raises(TypeError, match="an integer is required"):
        a.two.options(num_returns="2")


def test_sys_exit_in_a_method_is_a_graceful_exit(cluster, tmp_path):
    a = Pool.remote()
    mark = str(tmp_path / "atexit-ran")
    with pytest.raises(ActorDiedError, match="INTENDED_USER_EXIT"):
        ray.get(a.leave.remote(mark), timeout=30)
    assert os.path.exists(mark)
