"""The ActorDiedError of each death cause begins with Ray 2.60's words (recorded from real
Ray 2.60 running the same program); beam's own account (exit code, signal, stderr tail)
follows on a line of its own. The pytest process is the driver (the module's `cluster`)."""

import os
import signal

import pytest

import ray
from ray.exceptions import ActorDiedError
from ray.util.placement_group import placement_group, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from conftest import wait_until

HEADER = "The actor died unexpectedly before finishing this task.\n\tclass_name: Mortal\n\tactor_id: "
SYSTEM_ERROR = ("The actor is dead because its worker process has died. Worker exit type: SYSTEM_ERROR "
                "Worker exit detail: Worker unexpectedly exits with a connection error code 2. End of file.")


@ray.remote(num_cpus=0)
class Mortal:
    def pid(self):
        return os.getpid()

    def ping(self):
        return 1

    def die(self, code):
        os._exit(code)

    def leave(self):
        ray.actor.exit_actor()

    def child(self):
        self.kept = Mortal.remote()
        ray.get(self.kept.ping.remote(), timeout=60)
        return [self.kept]


def _death(handle):
    """The ActorDiedError text a call to the (dying) actor gets, once it is dead."""
    texts = []

    def dead():
        try:
            ray.get(handle.ping.remote(), timeout=60)
            return False
        except ActorDiedError as e:
            texts.append(str(e))
            return True
    wait_until(dead, 60, "the actor never died")
    assert texts[-1].startswith(HEADER), texts[-1]
    return texts[-1]


def _started():
    actor = Mortal.remote()
    ray.get(actor.ping.remote(), timeout=60)
    return actor


def test_ray_kill(cluster):
    actor = _started()
    ray.kill(actor)
    assert _death(actor).endswith("\nThe actor is dead because it was killed by `ray.kill`.")


def test_worker_exit_code_is_system_error_then_beams_code(cluster):
    actor = _started()
    actor.die.remote(3)
    text = _death(actor)
    assert SYSTEM_ERROR in text and text.endswith("\nIts worker process exited with code 3."), text


def test_sigkill_is_system_error_then_beams_signal(cluster):
    actor = _started()
    os.kill(ray.get(actor.pid.remote(), timeout=60), signal.SIGKILL)
    text = _death(actor)
    assert SYSTEM_ERROR in text and "\nIts worker process was killed by signal 9 (SIGKILL)" in text, text


def test_exit_actor_is_intended_user_exit(cluster):
    actor = _started()
    actor.leave.remote()
    assert _death(actor).endswith(
        "\nThe actor is dead because its worker process has died. Worker exit type: INTENDED_USER_EXIT "
        "Worker exit detail: Worker exits by an user request. Worker exits with an exit code 0. "
        "exit_actor() is called.")


def test_owner_died(cluster):
    parent = _started()
    [child] = ray.get(parent.child.remote(), timeout=60)
    ray.kill(parent)
    text = _death(child)
    assert "\nThe actor is dead because its owner has died. Owner Id: " in text, text
    assert ("Owner worker exit type: INTENDED_SYSTEM_EXIT Worker exit detail: Owner's worker process has "
            "crashed.\nIts owner (worker of actor ") in text, text


def test_placement_group_removed(cluster):
    pg = placement_group([{"CPU": 1}])
    ray.get(pg.ready(), timeout=60)
    actor = Mortal.options(num_cpus=1, scheduling_strategy=PlacementGroupSchedulingStrategy(pg)).remote()
    ray.get(actor.ping.remote(), timeout=60)
    remove_placement_group(pg)
    text = _death(actor)
    assert ("\nThe actor is dead because its worker process has died. Worker exit type: INTENDED_SYSTEM_EXIT "
            "Worker exit detail: Destroying worker since its placement group was removed. Placement group id: "
            f"{pg.id.hex()}, bundle index: -1, actor id: {actor._actor_id.hex()}") in text, text
