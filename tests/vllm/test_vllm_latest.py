"""The newest vLLM (0.34.0, its own wheel from PyPI) against beam, without a GPU.

vLLM 0.34 has only RayExecutorV2 (as 0.33): the legacy Ray executor and every Compiled Graphs
use are gone. In .bench/vllm-latest-venv (tools/setup_vllm_latest_venv.sh; `./dev test` makes it):

1. tools/scan_vllm_ray.py over the installed package: every ray symbol it uses resolves in
   beam, and none is Compiled Graphs (`ray.dag`, `ray.experimental.channel`);
2. its Ray executor and data-parallel engine modules import with beam as `ray`, and the
   classes vLLM's `--distributed-executor-backend ray` / `--data-parallel-backend ray`
   start are there (RayExecutorV2, its worker wrapper, CoreEngineActorManager, the DP
   engine-core actor).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _vllm  # noqa: E402
from _cluster import ROOT  # noqa: E402

VENV, PYTHON, SETUP, VERSION = _vllm.LATEST_VENV, _vllm.LATEST_PYTHON, _vllm.LATEST_SETUP, _vllm.LATEST_VERSION

PROBE = r"""
import importlib, inspect, json, sys
import ray, vllm
out = {"vllm": vllm.__version__, "vllm_file": vllm.__file__, "ray_file": ray.__file__}
from vllm.v1.executor import ray_executor_v2, ray_utils
from vllm.v1.engine import core, utils
out["executor"] = ray_executor_v2.RayExecutorV2.__name__
out["executor_ray"] = ray_utils.ray.__file__ if getattr(ray_utils, "ray", None) else None
out["actor_manager"] = utils.CoreEngineActorManager.__name__
out["dp_actor"] = sorted(n for n, c in inspect.getmembers(core, inspect.isclass)
                         if n.endswith("Actor") and c.__module__ == core.__name__)
try:
    importlib.import_module("vllm.v1.executor.ray_executor")
    out["legacy_executor"] = True
except ModuleNotFoundError:
    out["legacy_executor"] = False
print("@@PROBE " + json.dumps(out))
"""


@pytest.fixture(scope="module")
def latest_python():
    _vllm.require(PYTHON, SETUP, f"vLLM {VERSION}")
    return PYTHON


def test_scanner_finds_every_ray_symbol_of_vllm_latest_in_beam(latest_python, tmp_path):
    site = subprocess.run([latest_python, "-c", "import os, vllm; print(os.path.dirname("
                           "os.path.dirname(vllm.__file__)))"], capture_output=True, text=True,
                          check=True).stdout.strip()
    out = tmp_path / "scan.json"
    done = subprocess.run([sys.executable, os.path.join(ROOT, "tools", "scan_vllm_ray.py"),
                           "--src", site, "--json", str(out)], capture_output=True, text=True,
                          timeout=300, cwd=ROOT)
    assert done.returncode == 0, f"scan of vLLM {VERSION} failed: {done.stdout[-4000:]}{done.stderr[-2000:]}"
    report = json.loads(out.read_text())
    assert report["summary"]["missing"] == 0, report["summary"]
    symbols = [row["symbol"] for row in report["symbols"]]
    assert "ray.remote" in symbols and len(symbols) > 20, symbols
    graphs = [s for s in symbols if s.startswith(("ray.dag", "ray.experimental.channel"))]
    assert not graphs, f"vLLM {VERSION} still uses Compiled Graphs: {graphs}"
    print(f"\nvLLM {VERSION}: {report['summary']}")


def test_ray_executor_and_dp_engine_modules_import_against_beam(latest_python):
    env = dict(os.environ, **_vllm.VLLM_ENV)
    done = subprocess.run([latest_python, "-c", PROBE], capture_output=True, text=True,
                          timeout=300, env=env, cwd=ROOT)
    lines = [ln for ln in done.stdout.splitlines() if ln.startswith("@@PROBE ")]
    assert done.returncode == 0 and lines, f"import failed: {done.stderr[-5000:]}"
    probe = json.loads(lines[-1][len("@@PROBE "):])
    beam = os.path.realpath(os.path.join(ROOT, "python")) + "/"
    assert probe["vllm"] == VERSION and probe["vllm_file"].startswith(VENV), probe
    assert os.path.realpath(probe["ray_file"]).startswith(beam), probe
    assert probe["executor"] == "RayExecutorV2"
    assert probe["executor_ray"] is None or os.path.realpath(probe["executor_ray"]).startswith(beam), probe
    assert probe["actor_manager"] == "CoreEngineActorManager"
    assert probe["dp_actor"], f"no DP engine-core actor class in vllm.v1.engine.core: {probe}"
    assert probe["legacy_executor"] is False, f"vllm {VERSION} should have no legacy Ray executor"
    print(f"\nvLLM {VERSION} on beam: {probe}")
