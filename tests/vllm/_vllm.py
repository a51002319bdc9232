"""What every real-vLLM test shares: the venv (and when it may be missing), vLLM's CPU
settings, the per-host environment, the mp-executor reference run, and cleanup.

The venvs are made by the project's own scripts (`./dev test` runs them first). A test may
skip only where its venv cannot be made, saying why; under CI (CI=true) it fails instead.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
from _cluster import ROOT  # noqa: E402

VENV = os.environ.get("BEAM_VLLM_VENV", os.path.join(ROOT, ".bench", "vllm-venv"))
PYTHON = os.path.join(VENV, "bin", "python")
RAY_BIN = os.path.join(VENV, "bin", "ray")
# The newest vLLM release's own wheel with beam's `ray` (no model runs with it: no GPU here),
# for test_vllm_latest.py and test_vllm_metrics.py; its version is the setup script's default.
LATEST_VERSION = "0.34.0"
LATEST_SETUP = "tools/setup_vllm_latest_venv.sh"
LATEST_VENV = os.environ.get("BEAM_VLLM_LATEST_VENV", os.path.join(ROOT, ".bench", "vllm-latest-venv"))
LATEST_PYTHON = os.path.join(LATEST_VENV, "bin", "python")
GENERATE = os.path.join(ROOT, "tests", "vllm", "vllm_generate.py")
CLIENT = os.path.join(ROOT, "tests", "vllm", "vllm_client.py")
# Small-machine settings for vLLM's CPU backend (the same for every executor): no thread
# binding (2 cores, one NUMA node), no warm-up.
VLLM_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "nobind", "VLLM_CPU_CI_ENV": "1"}
# The plugin's Ray device key: "GPU" (vLLM's CUDA path; hosts declare --num-gpus N) or
# another accelerator name such as "NPU" (hosts declare --resources '{"NPU": N}').
KEY = os.environ.get("BEAM_VLLM_RAY_DEVICE_KEY", "GPU")
if KEY != "GPU":
    VLLM_ENV["BEAM_VLLM_RAY_DEVICE_KEY"] = KEY
# What the server must do after a host is lost: stop serving and exit.
EXIT_WITHIN_S = 10.0


def device_args(n=1):
    if KEY == "GPU":
        return ["--num-gpus", str(n)]
    return ["--num-gpus", "0", "--resources", json.dumps({KEY: n})]


def in_ci():
    return os.environ.get("CI", "").lower() in ("1", "true")


def missing(venv_python, setup_script, what):
    """Why the venv is not usable (None when it is)."""
    if not os.path.exists(venv_python):
        return f"no {what} venv ({venv_python}): run {setup_script} (./dev test does)"
    done = subprocess.run([os.path.join(ROOT, setup_script), "--check"], capture_output=True,
                          text=True, timeout=300)
    if done.returncode != 0:
        return f"the {what} venv is incomplete ({setup_script} --check failed): rerun {setup_script}"
    return None


def require(venv_python=PYTHON, setup_script="tools/setup_vllm_venv.sh", what="vLLM"):
    """Skip (or, under CI, fail) the calling test when the venv is not there."""
    reason = missing(venv_python, setup_script, what)
    if reason:
        if in_ci():
            pytest.fail(f"CI runs every vLLM test, but {reason}", pytrace=False)
        pytest.skip(reason)


def host_env(h):
    # What a user sets per node for vLLM: the node's IP and the NIC gloo must use.
    return dict(VLLM_ENV, VLLM_HOST_IP=h.ip, GLOO_SOCKET_IFNAME=_cluster.interface_of(h))


def events_of(stdout):
    out = {}
    for line in stdout.splitlines():
        if line.startswith("@@"):
            tag, _, rest = line[2:].partition(" ")
            out[tag] = json.loads(rest) if rest.strip() else None
    return out


def run_mp(model_dir, extra=()):
    """Greedy tokens of vllm_generate.py's prompts with vLLM's own mp executor (no Ray)."""
    env = _cluster.clean_env(**VLLM_ENV)
    done = subprocess.run([PYTHON, "-u", GENERATE, "--backend", "mp", "--model-dir", model_dir,
                           *extra], env=env, cwd=ROOT, capture_output=True, text=True, timeout=600)
    events = events_of(done.stdout)
    assert done.returncode == 0 and "TOKENS" in events, \
        f"mp executor run failed ({done.returncode}): {done.stderr[-5000:]}"
    return events["TOKENS"]


def kill_tree(proc):
    """SIGKILL ``proc`` and its descendants (test cleanup only)."""
    if proc is None:
        return
    kids = _cluster.descendants(proc.pid)
    for p in [proc.pid, *kids]:
        with contextlib.suppress(ProcessLookupError):
            os.kill(p, signal.SIGKILL)
    with contextlib.suppress(Exception):
        proc.wait(timeout=10)


def client(host, *args, timeout=60):
    """tests/vllm/vllm_client.py run on ``host`` (its network namespace); returns its JSON."""
    done = host.run([sys.executable, CLIENT, *args], timeout=timeout)
    if done.returncode != 0:
        raise AssertionError(f"vllm_client {' '.join(args)} on {host} failed "
                             f"({done.returncode}): {done.stderr[-3000:]}")
    return json.loads(done.stdout)


SHM_DIR = "/dev/shm"


def shm_names():
    try:
        return set(os.listdir(SHM_DIR))
    except OSError:
        return set()


def remove_orphaned_shm(also=frozenset()):
    """Delete this user's shared-memory segments that no live process maps: vLLM CPU's
    (`<port>-tp:0-[0-1]-cpushm_<rank>`) whatever their age, and the names in ``also`` (those
    a test made: its message queues' `psm_*`). A killed host's workers cannot unlink theirs,
    and every "host" of these tests shares this machine's /dev/shm: the memory stays taken,
    and a later run whose distributed port repeats a name fails with `create shm in
    SHMManager failed. errno: 17` (EEXIST). On real hosts each node has its own /dev/shm."""
    names = [n for n in shm_names() if "-cpushm_" in n or n in also]
    if not names:
        return []
    mapped = set()
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/maps") as f:
                for line in f:
                    if SHM_DIR + "/" in line:
                        mapped.add(line.rsplit(SHM_DIR + "/", 1)[1].split(" (deleted)")[0].strip())
    removed = []
    for n in names:
        path = os.path.join(SHM_DIR, n)
        with contextlib.suppress(FileNotFoundError):
            if n not in mapped and os.stat(path).st_uid == os.geteuid():
                os.unlink(path)
                removed.append(n)
    return removed
