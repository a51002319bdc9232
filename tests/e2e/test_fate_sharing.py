"""Fate sharing: a driver's actors die with it and their GPUs come back."""

import json
import signal

import ray
from conftest import WAIT_S, assert_no_processes, finish, pid_alive, read_line_with, spawn_driver, wait_until

THREE_GPU_ACTORS = """
import os, time, ray
ray.init(address="auto")
@ray.remote(num_gpus=1, num_cpus=0)
class G:
    def pid(self):
        return os.getpid()
gs = [G.remote() for _ in range(3)]
print("PIDS", ray.get([g.pid.remote() for g in gs], timeout=60), flush=True)
time.sleep(120)
"""


def _gpus_available():
    return ray.available_resources().get("GPU", 0.0)


def test_sigkilled_driver_takes_its_actors_and_frees_their_gpus(cluster):
    assert _gpus_available() == 4.0
    driver = spawn_driver(cluster, THREE_GPU_ACTORS)
    try:
        line = read_line_with(driver, "PIDS")[-1]
        pids = json.loads(line.split(" ", 1)[1])
        assert len(set(pids)) == 3 and all(pid_alive(p) for p in pids)
        assert _gpus_available() == 1.0, "the driver's actors do not hold 3 GPUs"
    finally:
        finish(driver, signal.SIGKILL)
    assert_no_processes(cluster, pids, what="the SIGKILLed driver's actors", workers_only=True)
    wait_until(lambda: _gpus_available() == 4.0, WAIT_S, "the dead actors' 3 GPUs free again")
