"""Caps with clear errors: a node runs at most --max-actor-processes actor
processes; the creation past it fails with a RayActorError naming the limit and the flag,
and the actors already there, and the next creation once one is gone, are not disturbed."""
import shutil
import tempfile

import pytest

from conftest import ray_cli, run_driver, wait_gone


@pytest.fixture
def head():
    base = tempfile.mkdtemp(prefix="beam-caps-")
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-cpus", "8",
                    "--max-actor-processes", "3"], timeout=60)
    assert done.returncode == 0, done.stderr
    yield base
    ray_cli(["stop", "--temp-dir", base], timeout=30)
    wait_gone(base=base, within=10)
    shutil.rmtree(base, ignore_errors=True)


def test_the_actor_past_the_process_limit_fails_naming_it(head):
    out = run_driver(head, """
        import time, ray
        from ray.exceptions import RayActorError
        ray.init()
        @ray.remote(num_cpus=0)
        class A:
            def pid(self):
                import os
                return os.getpid()
        first = [A.remote() for _ in range(3)]
        pids = ray.get([a.pid.remote() for a in first], timeout=60)
        extra = A.remote()
        try:
            ray.get(extra.pid.remote(), timeout=60)
            print("no error")
        except RayActorError as e:
            print("refused:", type(e).__name__, str(e).replace("\\n", " "))
        print("others", ray.get([a.pid.remote() for a in first], timeout=60) == pids)
        ray.kill(first[0])
        deadline = time.time() + 30
        while True:  # the killed actor's process takes a moment to be gone
            try:
                print("after kill", ray.get(A.remote().pid.remote(), timeout=60) > 0)
                break
            except RayActorError:
                if time.time() > deadline:
                    raise
                time.sleep(0.2)
    """, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "refused: ActorDiedError" in out.stdout, out.stdout
    assert "already runs 3 actor processes" in out.stdout and "--max-actor-processes" in out.stdout, out.stdout
    assert "others True" in out.stdout and "after kill True" in out.stdout, out.stdout


def test_the_flag_is_checked():
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", tempfile.gettempdir() + "/beam-caps-bad",
                    "--max-actor-processes", "-2"], timeout=60)
    assert done.returncode != 0
    assert "--max-actor-processes" in done.stdout + done.stderr
