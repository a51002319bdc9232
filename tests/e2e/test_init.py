"""ray.init / ray.shutdown: joining, private clusters and their end, errors, version."""

import contextlib
import importlib.metadata
import os
import shutil
import signal
import tempfile

import pytest

import ray
from ray._version import RAY as RAY_VERSION
from conftest import (assert_no_processes, cluster_processes, finish, read_line_with,
                      run_driver, spawn_driver)

# A driver with no cluster to join: ray.init() starts a private one under $TMPDIR.
PRIVATE = """
import os, sys, time, ray
ray.init()
@ray.remote(num_cpus=0)
class A:
    def pid(self):
        return os.getpid()
a = A.remote()
print("UP", ray.get(a.pid.remote(), timeout=60), flush=True)
if {shutdown}:
    while not os.path.exists(os.environ["GO_FILE"]):  # the test has seen the cluster up
        time.sleep(0.05)
    ray.shutdown()
    print("DOWN", ray.is_initialized(), flush=True)
time.sleep(120)
"""


@pytest.fixture
def dirs():
    """(an empty RAY_TMPDIR, a TMPDIR for the private cluster): short paths under /tmp,
    since a unix socket path must stay under 108 bytes."""
    made = [tempfile.mkdtemp(prefix="bi-"), tempfile.mkdtemp(prefix="bp-")]
    yield made
    for pid, _ in cluster_processes(made[1]):  # only what a failed test left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def test_private_cluster_stops_at_shutdown(dirs):
    empty, priv = dirs
    go = os.path.join(priv, "go")
    driver = spawn_driver(empty, PRIVATE.format(shutdown=True), TMPDIR=priv, GO_FILE=go)
    try:
        actor = int(read_line_with(driver, "UP")[-1].split()[1])
        procs = cluster_processes(priv)
        assert any("beam.cli.Main" in c for _, c in procs), \
            f"ray.init() started no daemon under TMPDIR={priv}: {procs}"
        assert actor in [p for p, _ in procs]
        open(go, "w").close()  # only now may the driver shut down: its shutdown raced this look before
        assert "DOWN False" in read_line_with(driver, "DOWN")[-1]
        assert driver.poll() is None  # the driver lives on: shutdown() alone must stop it
        assert_no_processes(priv, [actor], what="the private cluster after shutdown()")
    finally:
        finish(driver)
    assert os.listdir(empty) == [], "the private cluster wrote into RAY_TMPDIR"


def test_private_cluster_dies_with_sigkilled_driver(dirs):
    empty, priv = dirs
    driver = spawn_driver(empty, PRIVATE.format(shutdown=False), TMPDIR=priv)
    try:
        actor = int(read_line_with(driver, "UP")[-1].split()[1])
        daemons = [p for p, c in cluster_processes(priv) if "beam.cli.Main" in c]
        assert daemons, "ray.init() started no daemon"
    finally:
        finish(driver, signal.SIGKILL)
    assert_no_processes(priv, [actor, *daemons], what="the private cluster of a SIGKILLed driver")


def test_a_private_cluster_that_cannot_start_says_why(dirs):
    empty, priv = dirs
    done = run_driver(empty, """
        import ray
        try:
            ray.init(num_gpus=-1)
        except RuntimeError as e:
            print("FAILED", e)
    """, TMPDIR=priv)
    assert done.returncode == 0, done.stderr
    assert "could not start a local beam cluster" in done.stdout, done.stdout
    assert "--num-gpus must be >= 0" in done.stdout, done.stdout  # the daemon's own words
    assert not cluster_processes(priv), "a daemon outlived its failed start"


def test_init_auto_with_nothing_running_raises_connection_error(dirs):
    empty, priv = dirs
    done = run_driver(empty, """
        import ray
        try:
            ray.init(address="auto")
        except ConnectionError as e:
            print("CONNECTION_ERROR", type(e).__name__, ray.is_initialized())
        else:
            print("CONNECTED")
    """, TMPDIR=priv)
    assert done.returncode == 0, done.stderr
    assert "CONNECTION_ERROR" in done.stdout and "False" in done.stdout, done.stdout
    assert not cluster_processes(priv), "address='auto' started a cluster"


def test_init_twice_needs_ignore_reinit_error(cluster):
    assert ray.is_initialized()
    with pytest.raises(RuntimeError):
        ray.init()
    with pytest.raises(RuntimeError):
        ray.init(address="auto")
    ray.init(ignore_reinit_error=True)
    assert ray.is_initialized()

    @ray.remote(num_cpus=0)
    class Echo:
        def echo(self, x):
            return x
    assert ray.get(Echo.remote().echo.remote(7), timeout=60) == 7


def test_version_and_distribution_metadata():
    assert ray.__version__ == RAY_VERSION
    assert importlib.metadata.version("ray") == RAY_VERSION
