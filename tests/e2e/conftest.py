"""End-to-end fixtures: a real beam daemon (Java) on a private temp dir, one per module.

Skipped when Java >= 21 or the jar is missing. The driver runs in the pytest process with
RAY_TMPDIR pointing at the daemon's temp dir, so ``ray.init(address="auto")`` finds it.
"""

import os
import shutil
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))

from ray._beam import launcher  # noqa: E402


@pytest.fixture(scope="module")
def cluster(monkeypatch_module):
    try:
        launcher.command([])
    except launcher.LauncherError as e:
        pytest.fail(f"no daemon available (run ./dev build first): {e}")
    base = tempfile.mkdtemp(prefix="beam-e2e-")
    done = launcher.run_cli(["start", "--head", "--port", "0", "--temp-dir", base,
                             "--num-gpus", "4", "--num-cpus", "8"])
    assert done.returncode == 0, done.stderr
    monkeypatch_module.setenv("RAY_TMPDIR", base)
    monkeypatch_module.delenv("RAY_ADDRESS", raising=False)
    import ray

    ray.init(address="auto")
    yield base
    ray.shutdown()
    launcher.run_cli(["stop", "--temp-dir", base])
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()
