"""An async actor's constructor runs in its event loop, as Ray's: it may start a task with
``asyncio.create_task``, and ``exit_actor()`` in that task ends the actor (Ray's
INTENDED_USER_EXIT) after running its atexit handlers. The pytest process is the driver."""

import asyncio
import atexit
import os

import pytest

import ray
from ray.exceptions import ActorDiedError

from conftest import wait_until


@ray.remote(num_cpus=0)
class SelfEnding:
    def __init__(self, mark, go):
        atexit.register(lambda: open(mark, "w").close())
        self.go = go
        self.task = asyncio.create_task(self.leave_when_told())

    async def leave_when_told(self):
        while not os.path.exists(self.go):  # the test says when: no assumed timing
            await asyncio.sleep(0.02)
        ray.actor.exit_actor()

    async def ping(self):
        return 1


def test_exit_actor_in_a_task_the_constructor_started(cluster, tmp_path):
    mark, go = str(tmp_path / "atexit-ran"), tmp_path / "go"
    actor = SelfEnding.remote(mark, str(go))
    assert ray.get(actor.ping.remote(), timeout=60) == 1  # the constructor's task did not fail it
    go.touch()
    wait_until(lambda: os.path.exists(mark), 60, "the actor's atexit handler never ran")
    with pytest.raises(ActorDiedError, match="INTENDED_USER_EXIT"):
        ray.get(actor.ping.remote(), timeout=60)
