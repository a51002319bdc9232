"""Get-or-create (``.options(name=..., get_if_exists=True)``) as Ray: many threads and many
drivers asking at once all get the one actor, decided by the head under its lock; without a
name it is refused with Ray's error. The pytest process is the driver (the module's `cluster`)."""

import os
import subprocess
import threading

import pytest

import ray

from conftest import VENV_PYTHON, beam_env, driver_script, finish, lines_read, read_line_with


@ray.remote(num_cpus=0)
class Keeper:
    def __init__(self):
        self.n = 0

    def add(self):
        self.n += 1
        return self.n

    def pid(self):
        return os.getpid()


def test_ten_threads_get_or_create_one_detached_actor(cluster):
    start = threading.Barrier(10)
    handles, errors = [None] * 10, []

    def get_or_create(i):
        start.wait(timeout=60)
        try:
            handles[i] = Keeper.options(name="threads-one", get_if_exists=True,
                                        lifetime="detached").remote()
        except Exception as e:  # the test reports every one, "already taken" above all
            errors.append(repr(e))

    threads = [threading.Thread(target=get_or_create, args=(i,)) for i in range(10)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert errors == []
    assert len({h._actor_id.hex() for h in handles}) == 1, handles
    # the one actor answers through every handle: ten calls, ten increments of one counter
    assert sorted(ray.get([h.add.remote() for h in handles], timeout=60)) == list(range(1, 11))
    ray.kill(handles[0])


# A driver that joins the cluster, waits for the go file (so the three ask at once), then
# gets or creates the actor and prints its id and its process id.
DRIVER = """
import os, sys, time, ray
ray.init(address="auto", namespace="goc")
@ray.remote(num_cpus=0)
class Keeper:
    def pid(self):
        return os.getpid()
print("READY", flush=True)
deadline = time.monotonic() + 60
while not os.path.exists(sys.argv[1]):
    assert time.monotonic() < deadline, "the go file never appeared"
    time.sleep(0.01)
k = Keeper.options(name="drivers-one", get_if_exists=True, lifetime="detached").remote()
print("ACTOR", k._actor_id.hex(), ray.get(k.pid.remote(), timeout=60), flush=True)
"""


def test_three_drivers_get_or_create_one_detached_actor(cluster, tmp_path):
    go = tmp_path / "go"
    procs = [subprocess.Popen([VENV_PYTHON, "-c", driver_script(DRIVER), str(go)],
                              env=beam_env(cluster), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(3)]
    try:
        for p in procs:  # each driver is connected (ray.init returned) before any asks
            read_line_with(p, "READY", timeout=90)
        go.touch()
        answers = {next(line for line in read_line_with(p, "ACTOR", timeout=120) if "ACTOR" in line)
                   for p in procs}
    finally:
        for p in procs:
            finish(p)
    assert len(answers) == 1, answers
    ray.kill(ray.get_actor("drivers-one", namespace="goc"))


def test_get_if_exists_returns_an_actor_created_without_it(cluster):
    first = Keeper.options(name="plain-first").remote()
    again = Keeper.options(name="plain-first", get_if_exists=True).remote()
    assert again._actor_id == first._actor_id
    assert ray.get(again.add.remote(), timeout=60) == 1
    with pytest.raises(ValueError, match="The name plain-first .* is already taken"):
        Keeper.options(name="plain-first").remote()
    ray.kill(first)


def test_get_if_exists_without_a_name_is_refused_as_ray_does(cluster):
    message = "The actor name must be specified to use `get_if_exists`."
    with pytest.raises(ValueError) as options_error:
        Keeper.options(get_if_exists=True)
    assert str(options_error.value) == message
    with pytest.raises(ValueError) as decorator_error:
        ray.remote(get_if_exists=True)(type("Nameless", (), {}))
    assert str(decorator_error.value) == message
    # a name from the decorator counts, as in Ray (the options are checked together)
    named = ray.remote(name="from-decorator", num_cpus=0)(type("Named", (), {"ping": lambda self: 1}))
    handle = named.options(get_if_exists=True).remote()
    assert ray.get(handle.ping.remote(), timeout=60) == 1
    ray.kill(handle)


def test_an_empty_name_is_refused_as_ray_does(cluster):
    with pytest.raises(ValueError, match="^Actor name cannot be an empty string.$"):
        Keeper.options(name="").remote()
