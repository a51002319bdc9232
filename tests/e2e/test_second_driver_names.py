"""A named actor that is not detached belongs to the driver that made it: made by a second
driver (one that joined another driver's private cluster), it dies with that driver, and its
name can be taken again at once, as in Ray (whose driver marks its job finished, ending its
actors, before ray.shutdown() returns)."""

import contextlib
import os
import shutil
import signal
import subprocess
import tempfile

import pytest

from conftest import (ROOT, VENV_PYTHON, beam_env, cluster_processes, driver_script, finish,
                      pid_alive, read_line_with, wait_until)

# The first driver: starts a private cluster, prints its address; on each line "take" it
# creates the named, non-detached actor "owned" and prints TAKEN or the error; "" ends it.
FIRST = """
import sys, ray
ctx = ray.init(namespace="names")
print("ADDRESS", ctx.address_info["gcs_address"], flush=True)
@ray.remote(num_cpus=0)
class Owned:
    def ping(self):
        return 1
while sys.stdin.readline().strip() == "take":
    try:
        a = Owned.options(name="owned").remote()
        print("TAKEN", ray.get(a.ping.remote(), timeout=60), flush=True)
        ray.kill(a)
    except Exception as e:
        print("ERROR", type(e).__name__, e, flush=True)
ray.shutdown()
"""

# A joined driver: creates "owned", prints its actor's pid, then ends as argv[2] says:
# "shutdown" (ray.shutdown(), then it stays until stdin closes) or "kill" (SIGKILL itself).
SECOND = """
import os, sys, ray
ray.init(address=sys.argv[1], namespace="names")
@ray.remote(num_cpus=0)
class Owned:
    def pid(self):
        return os.getpid()
a = Owned.options(name="owned").remote()
print("PID", ray.get(a.pid.remote(), timeout=60), flush=True)
if sys.argv[2] == "kill":
    os.kill(os.getpid(), 9)
ray.shutdown()
print("DOWN", flush=True)
sys.stdin.read()
"""


@pytest.fixture
def dirs():
    made = [tempfile.mkdtemp(prefix="sn-"), tempfile.mkdtemp(prefix="sq-")]
    yield made
    for pid, _ in cluster_processes(made[1]):  # only what a failed test left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def _driver(temp, priv, code, *argv):
    return subprocess.Popen([VENV_PYTHON, "-c", driver_script(code), *argv],
                            env=beam_env(temp, TMPDIR=priv), cwd=ROOT, text=True,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE)


def test_a_second_drivers_name_is_free_once_its_shutdown_returns(dirs):
    temp, priv = dirs
    first = _driver(temp, priv, FIRST)
    second = None
    try:
        address = read_line_with(first, "ADDRESS")[-1].split()[1]
        second = _driver(temp, priv, SECOND, address, "shutdown")
        pid = int(read_line_with(second, "PID", timeout=90)[-1].split()[1])
        read_line_with(second, "DOWN", timeout=60)
        first.stdin.write("take\n")  # at once: no wait between the shutdown and the new name
        first.stdin.flush()
        answer = read_line_with(first, "TAKEN", timeout=60)[-1]
        assert answer.startswith("TAKEN 1"), answer
        wait_until(lambda: not pid_alive(pid), 60, f"the second driver's actor (pid {pid}) never ended")
        first.stdin.write("\n")
        first.stdin.flush()
        first.wait(timeout=60)
    finally:
        for p in (first, second):
            if p is not None:
                finish(p)


def test_a_killed_second_drivers_actor_ends_and_frees_its_name(dirs):
    temp, priv = dirs
    first = _driver(temp, priv, FIRST)
    try:
        address = read_line_with(first, "ADDRESS")[-1].split()[1]
        second = _driver(temp, priv, SECOND, address, "kill")
        pid = int(read_line_with(second, "PID", timeout=90)[-1].split()[1])
        second.wait(timeout=60)
        # the head hears of a SIGKILLed driver when its socket closes (as Ray's GCS does)
        wait_until(lambda: not pid_alive(pid), 60, f"the killed driver's actor (pid {pid}) never ended")
        first.stdin.write("take\n")
        first.stdin.flush()
        answer = read_line_with(first, "TAKEN", timeout=60)[-1]
        assert answer.startswith("TAKEN 1"), answer
    finally:
        finish(first)
