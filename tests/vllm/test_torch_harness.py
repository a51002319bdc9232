"""vLLM's RayExecutorV2 call sequence with real torch.distributed (gloo) on a 2-host beam
cluster: examples/vllm_torch_harness.py, run with the torch venv's Python.

Per host kind (127.0.0.1/127.0.0.2 on lo always; network namespaces when root can make
them): PACK placement group of {"GPU": 1} bundles over 2 hosts x 2 declared GPUs, actors
with num_cpus=0, num_gpus=1 and RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1, node and GPU
ids, a torch TCPStore opened by actor 0 on its node IP (port 0, multi_tenant, as vLLM
does), init_process_group("gloo") on all actors at once, an all_reduce checked, run()
calls watched by a ray.wait(timeout=5) monitor thread, host 2 killed (daemon and every
process) and seen by the monitor within 5 s, shutdown with ray.kill, nothing left.
In namespaces also: host 2's link cut (silence, no FIN/RST), seen within 5 s.

Needs the torch venv (tools/setup_torch_venv.sh; `./dev test` makes it). Without it the
test is skipped, except under CI (CI=true), where it fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import netns  # noqa: E402

VENV = os.environ.get("BEAM_TORCH_VENV", os.path.join(ROOT, ".bench", "torch-venv"))
PYTHON = os.path.join(VENV, "bin", "python")
HARNESS = os.path.join(ROOT, "examples", "vllm_torch_harness.py")


@pytest.fixture(scope="module")
def torch_python():
    ok = os.path.exists(PYTHON) and subprocess.run(
        [os.path.join(ROOT, "tools", "setup_torch_venv.sh"), "--check"],
        capture_output=True, timeout=300).returncode == 0
    if not ok:
        msg = f"no torch venv at {VENV}: run tools/setup_torch_venv.sh (./dev test does)"
        if os.environ.get("CI", "").lower() in ("1", "true"):
            pytest.fail(msg)
        pytest.skip(msg)
    return PYTHON


CASES = [("loopback", "kill"), ("netns", "kill"), ("netns", "cut")]


@pytest.mark.parametrize("kind,failure", CASES, ids=[f"{k}-{f}" for k, f in CASES])
def test_vllm_sequence_with_torch(torch_python, kind, failure):
    if kind == "netns" and netns.unavailable_reason():
        pytest.skip(netns.unavailable_reason())
    env = dict(os.environ)
    for k in ("RAY_ADDRESS", "RAY_TMPDIR", "RAY_AUTH_TOKEN", "CUDA_VISIBLE_DEVICES"):
        env.pop(k, None)
    done = subprocess.run([torch_python, "-u", HARNESS, "--hosts", kind, "--failure", failure],
                          env=env, cwd=ROOT, capture_output=True, text=True, timeout=300)
    results = [line[len("@@RESULT "):] for line in done.stdout.splitlines()
               if line.startswith("@@RESULT ")]
    assert results, f"no result (exit {done.returncode}); stderr: {done.stderr[-4000:]}"
    result = json.loads(results[-1])
    assert not result["checks"], "\n".join(result["checks"]) + f"\nlog:\n{done.stderr[-4000:]}"
    assert done.returncode == 0, done.stderr[-4000:]

    init = result["initialized"]
    world = len(result["placed"]["workers"])
    assert world == 4
    assert init["all_reduce"] == [float(world * (world + 1) // 2), float(world)]
    assert init["init_method"].startswith("tcp://")
    # Rank 0 hosts the store on the driver's node (bundles sorted driver's node first).
    assert init["init_method"][len("tcp://"):].rsplit(":", 1)[0] == result["placed"]["workers"][0]["ip"]
    assert result["detect_s"] <= 5.0
    print(f"\n{kind}/{failure}: cluster up {result['cluster_start_s']} s, setup "
          f"{init['setup_s']} s, host 2 {failure} seen in {result['detect_s']} s "
          f"({result['detected']['error']})")
