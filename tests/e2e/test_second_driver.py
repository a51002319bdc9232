"""A second driver joins the private cluster that another driver's ray.init() started, by
"auto" or by its address, as after `ray start`; address=None starts its own (as Ray); and
the cluster ends with the driver that started it (as Ray's), the joined driver told so."""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

from conftest import (ROOT, VENV_PYTHON, beam_env, cluster_processes, driver_script, finish,
                      ray_cli, read_line_with, run_driver, spawn_driver)

# The first driver: starts a private cluster, hosts a named actor, prints its address, waits
# for a line on stdin, then shuts down (or, told "exit", exits without shutdown()).
FIRST = """
import os, sys, ray
ctx = ray.init(namespace="joint")
@ray.remote(num_cpus=0)
class Counter:
    def __init__(self):
        self.n = 0
    def add(self):
        self.n += 1
        return self.n
c = Counter.options(name="shared", lifetime="detached").remote()
ray.get(c.add.remote(), timeout=60)
print("ADDRESS", ctx.address_info["gcs_address"], flush=True)
sys.stdin.readline()
ray.shutdown()
print("DOWN", flush=True)
"""

# A second driver: joins by argv[1], uses the first driver's actor and makes one of its own.
SECOND = """
import os, sys, ray
ctx = ray.init(address=sys.argv[1], namespace="joint")
shared = ray.get_actor("shared")
print("ADD", ray.get(shared.add.remote(), timeout=60), flush=True)
@ray.remote(num_cpus=0)
class Own:
    def pid(self):
        return os.getpid()
print("OWN", ray.get(Own.remote().pid.remote(), timeout=60), flush=True)
print("GCS", ctx.address_info["gcs_address"], flush=True)
"""


@pytest.fixture
def dirs():
    """(RAY_TMPDIR shared by both drivers, TMPDIR for the private cluster): short paths."""
    made = [tempfile.mkdtemp(prefix="sd-"), tempfile.mkdtemp(prefix="sp-")]
    yield made
    for pid, _ in cluster_processes(made[1]):  # only what a failed test left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


ALONE = """
import ray
print("GCS", ray.init().address_info["gcs_address"], flush=True)
"""


def _driver(temp, priv, code, *argv, stdin=False):
    """A driver subprocess with RAY_TMPDIR=temp, its private clusters under TMPDIR=priv."""
    return subprocess.Popen([VENV_PYTHON, "-c", driver_script(code), *argv],
                            env=beam_env(temp, TMPDIR=priv), cwd=ROOT, text=True,
                            stdin=subprocess.PIPE if stdin else subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def _run(temp, priv, code, *argv):
    proc = _driver(temp, priv, code, *argv)
    out, err = proc.communicate(timeout=90)
    return proc.returncode, out, err


def test_second_driver_joins_by_auto_and_by_address(dirs):
    temp, priv = dirs
    first = _driver(temp, priv, FIRST, stdin=True)
    try:
        address = read_line_with(first, "ADDRESS")[-1].split()[1]
        for how, count in ((address, 2), ("auto", 3)):
            code, out, err = _run(temp, priv, SECOND, how)
            assert code == 0, f"address={how!r}: {err[-3000:]}"
            assert f"ADD {count}" in out and f"GCS {address}" in out, out
        # address=None does not take another driver's private cluster: it starts its own
        code, out, err = _run(temp, priv, ALONE)
        assert code == 0, err[-3000:]
        assert "GCS " in out and f"GCS {address}" not in out, out
        first.stdin.write("\n")
        first.stdin.flush()
        assert "DOWN" in read_line_with(first, "DOWN")[-1]
    finally:
        finish(first)


def test_the_cli_finds_a_drivers_private_cluster_as_ray_status_does(dirs):
    temp, priv = dirs
    first = _driver(temp, priv, FIRST, stdin=True)
    try:
        address = read_line_with(first, "ADDRESS")[-1].split()[1]
        for args in (["status"], ["status", "--address", address]):
            done = ray_cli(args, temp)
            assert done.returncode == 0, f"{args}: {done.stderr[-2000:]}"
            assert "Cluster status" in done.stdout, done.stdout
        listed = ray_cli(["list", "actors"], temp)
        assert listed.returncode == 0 and "Counter" in listed.stdout, listed.stdout + listed.stderr
    finally:
        finish(first)


def test_joined_driver_loses_the_cluster_when_its_starter_exits(dirs):
    temp, priv = dirs
    first = _driver(temp, priv, FIRST, stdin=True)
    waiter = None
    try:
        read_line_with(first, "ADDRESS")
        waiter = spawn_driver(temp, """
            import time, ray
            ray.init(address="auto")
            print("JOINED", flush=True)
            try:
                while True:
                    ray.cluster_resources()
                    time.sleep(0.2)
            except Exception as e:
                print("LOST", type(e).__name__, e, flush=True)
            """, TMPDIR=priv)
        read_line_with(waiter, "JOINED")
        finish(first, signal.SIGKILL)  # the starter dies without shutdown(): its cluster ends
        lost = read_line_with(waiter, "LOST", timeout=30)[-1]
        assert "LOST ConnectionError the beam daemon went away" in lost, lost
        assert waiter.wait(timeout=20) == 0
    finally:
        finish(first)
        if waiter is not None:
            finish(waiter)


def test_auto_from_another_temp_dir_does_not_take_a_private_cluster(dirs):
    temp, priv = dirs
    other = tempfile.mkdtemp(prefix="so-")
    first = _driver(temp, priv, FIRST, stdin=True)
    try:
        read_line_with(first, "ADDRESS")
        done = run_driver(other, "import ray; ray.init(address='auto')", TMPDIR=priv)
        assert done.returncode != 0
        assert "Could not find any running Ray instance" in done.stderr, done.stderr[-2000:]
    finally:
        finish(first)
        shutil.rmtree(other, ignore_errors=True)
