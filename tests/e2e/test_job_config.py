"""``ray.init(job_config=JobConfig(default_actor_lifetime=...))`` as Ray: a driver's actors
created without ``lifetime=`` outlive it when the job config says "detached"; and
``ray.get_runtime_context()`` connects a driver that is not connected yet, as Ray 2.60."""

import subprocess
import sys

import pytest

import ray
from ray.job_config import JobConfig

from conftest import run_driver, wait_until

DRIVER = """
import ray
from ray.job_config import JobConfig
ray.init(address="auto", namespace="jc", job_config=JobConfig(default_actor_lifetime="{lifetime}"))
@ray.remote(num_cpus=0)
class Kept:
    def ping(self):
        return 1
a = Kept.options(name="kept-{lifetime}").remote()
print("PING", ray.get(a.ping.remote(), timeout=60), flush=True)
"""


def _named_alive(name):
    try:
        return ray.get(ray.get_actor(name, namespace="jc").ping.remote(), timeout=60) == 1
    except ValueError:
        return False


def test_default_lifetime_detached_outlives_its_driver(cluster):
    done = run_driver(cluster, DRIVER.format(lifetime="detached"))
    assert done.returncode == 0 and "PING 1" in done.stdout, done.stderr[-3000:]
    assert _named_alive("kept-detached")  # its driver is gone: a detached actor stays
    ray.kill(ray.get_actor("kept-detached", namespace="jc"))


def test_default_lifetime_non_detached_dies_with_its_driver(cluster):
    done = run_driver(cluster, DRIVER.format(lifetime="non_detached"))
    assert done.returncode == 0 and "PING 1" in done.stdout, done.stderr[-3000:]
    wait_until(lambda: not _named_alive("kept-non_detached"), 60,
               "the non-detached actor outlived its driver")


def test_a_bad_default_lifetime_is_refused_as_ray_does(cluster):
    with pytest.raises(ValueError, match="^Default actor lifetime must be one of `detached`, `non_detached`$"):
        JobConfig(default_actor_lifetime="forever")

def test_ray_job_config_is_reached_from_ray_alone():
    # a fresh interpreter: nothing has imported ray.job_config yet
    done = subprocess.run([sys.executable, "-c", "import ray; print(ray.job_config.JobConfig.__name__)"],
                          capture_output=True, text=True, timeout=60)
    assert done.stdout.strip() == "JobConfig", done.stderr


def test_get_runtime_context_starts_ray_as_ray_does(tmp_path):
    # a driver alone: get_runtime_context() itself connects (a private cluster), as Ray 2.60
    done = run_driver(tmp_path, """
        import ray
        ctx = ray.get_runtime_context()
        print("INIT", ray.is_initialized(), ctx.get_job_id(), flush=True)
        ray.shutdown()
    """, TMPDIR=str(tmp_path))
    assert done.returncode == 0, done.stderr[-3000:]
    assert "INIT True " in done.stdout, done.stdout
