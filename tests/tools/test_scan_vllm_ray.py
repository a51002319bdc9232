"""tools/scan_vllm_ray.py on a tiny vLLM-shaped tree written here (offline).

Most tests resolve against a fake ``ray`` package, also written here, so the expected
classification does not move while beam's real package grows; one test resolves against
beam's own python/ to prove the default path works and that compiled_dag_ref stays absent.
"""

import importlib.util
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "scan_vllm_ray.py"

_spec = importlib.util.spec_from_file_location("scan_vllm_ray", TOOL)
scan_tool = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(scan_tool)


def write(root, files):
    for rel, text in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))


# A vLLM-like tree: one file per way vLLM reaches Ray.
VLLM = {
    "vllm/__init__.py": "",
    "vllm/executor/ray_utils.py": """
        try:
            import ray
            from ray.util import placement_group_table
            from ray.util.placement_group import PlacementGroup
        except ImportError:
            ray = None

        def node_id():
            return ray.get_runtime_context().get_node_id()

        def table(pg: PlacementGroup):
            return placement_group_table(pg)
        """,
    "vllm/executor/aliases.py": """
        from ray.util import scheduling_strategies as ss
        import ray.util.metrics as m

        def outer():
            def inner():
                from ray.exceptions import RayActorError as RAE
                return RAE, ss.PlacementGroupSchedulingStrategy(), m.Gauge
            return inner
        """,
    "vllm/reexport.py": """
        from vllm.executor.ray_utils import ray

        def register(mod):
            ray.cloudpickle.register_pickle_by_value(mod)
        """,
    "vllm/legacy.py": """
        import importlib.util

        def check():
            return importlib.util.find_spec("ray.experimental.compiled_dag_ref")

        def tag():
            from ray import serve
            return serve.get_replica_context()
        """,
    "vllm/typing_only.py": """
        from typing import TYPE_CHECKING
        if TYPE_CHECKING:
            from ray.actor import NoSuchHandle

        def f():
            import ray
            handles: list[ray.NoSuchType] = []
            return handles
        """,
    "vllm/missing.py": """
        def start():
            import ray
            ray.util.not_in_beam(1)
        """,
    "tests/test_only.py": """
        import ray
        ray.only_in_tests()
        """,
}

# A fake ``ray``: util.placement_group is both a submodule and (as in Ray) a function.
FAKE_RAY = {
    "ray/__init__.py": """
        from ray import util, cloudpickle, exceptions
        def get_runtime_context(): pass
        """,
    "ray/cloudpickle.py": "def register_pickle_by_value(m): pass\n",
    "ray/exceptions.py": "class RayActorError(Exception): pass\n",
    "ray/actor.py": "class ActorHandle: pass\n",
    "ray/util/__init__.py": """
        from ray.util.placement_group import placement_group, placement_group_table
        """,
    "ray/util/placement_group.py": """
        class PlacementGroup: pass
        def placement_group(*a): pass
        def placement_group_table(pg=None): pass
        """,
    "ray/util/scheduling_strategies.py": "class PlacementGroupSchedulingStrategy: pass\n",
    "ray/util/metrics.py": "class Gauge: pass\n",
}

EXPECTED = {
    "ray": "present",
    "ray.cloudpickle.register_pickle_by_value": "present",
    "ray.exceptions.RayActorError": "present",
    "ray.get_runtime_context": "present",
    "ray.util.metrics": "present",
    "ray.util.metrics.Gauge": "present",
    "ray.util.placement_group.PlacementGroup": "present",
    "ray.util.placement_group_table": "present",
    "ray.util.scheduling_strategies": "present",
    "ray.util.scheduling_strategies.PlacementGroupSchedulingStrategy": "present",
    "ray.experimental.compiled_dag_ref": "out of scope",
    "ray.serve": "out of scope",
    "ray.serve.get_replica_context": "out of scope",
    "ray.actor.NoSuchHandle": "out of scope",
    "ray.NoSuchType": "out of scope",
    "ray.util.not_in_beam": "missing",
}


@pytest.fixture
def trees(tmp_path):
    write(tmp_path / "src", VLLM)
    write(tmp_path / "beam", FAKE_RAY)
    return tmp_path / "src", tmp_path / "beam"


def run_json(src, beam, *extra):
    code = scan_tool.main(["--src", str(src), "--beam-python", str(beam),
                           "--json", str(src.parent / "out.json"), *extra])
    return code, json.loads((src.parent / "out.json").read_text())


def test_classification_is_exact(trees, capsys):
    code, doc = run_json(*trees)
    got = {r["symbol"]: r["status"] for r in doc["symbols"]}
    assert got == EXPECTED
    assert code == 1
    assert doc["summary"] == {"present": 10, "out of scope": 5, "missing": 1,
                              "must be absent": 0}
    assert "present 10, out of scope 5, missing 1" in capsys.readouterr().out


def test_uses_and_reasons(trees):
    _, doc = run_json(*trees)
    rows = {r["symbol"]: r for r in doc["symbols"]}
    where = lambda s: [(u["file"], u["line"]) for u in rows[s]["uses"]]  # noqa: E731
    assert where("ray.get_runtime_context") == [("vllm/executor/ray_utils.py", 10)]
    assert where("ray.util.scheduling_strategies.PlacementGroupSchedulingStrategy") == [
        ("vllm/executor/aliases.py", 8)]
    assert where("ray.exceptions.RayActorError") == [
        ("vllm/executor/aliases.py", 7), ("vllm/executor/aliases.py", 8)]
    assert where("ray") == [("vllm/executor/ray_utils.py", 3), ("vllm/missing.py", 3),
                            ("vllm/typing_only.py", 7)]
    assert where("ray.cloudpickle.register_pickle_by_value") == [("vllm/reexport.py", 5)]
    assert where("ray.experimental.compiled_dag_ref") == [("vllm/legacy.py", 5)]
    assert "Compiled Graph" in rows["ray.experimental.compiled_dag_ref"]["reason"]
    assert "typing only" in rows["ray.NoSuchType"]["reason"]
    assert "not_in_beam" in rows["ray.util.not_in_beam"]["reason"]
    assert "ray.only_in_tests" not in rows


def test_include_tests_scans_test_tree(trees):
    code, doc = run_json(*trees, "--include-tests")
    rows = {r["symbol"]: r for r in doc["symbols"]}
    assert rows["ray.only_in_tests"]["status"] == "missing"
    assert rows["ray.only_in_tests"]["uses"][0]["file"] == "tests/test_only.py"
    assert code == 1


def test_exit_code_zero_without_missing_and_cli(trees):
    src, beam = trees
    (src / "vllm" / "missing.py").unlink()
    proc = subprocess.run([sys.executable, str(TOOL), "--src", str(src), "--beam-python",
                           str(beam), "--json", "-"], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout)["summary"]["missing"] == 0
    assert "present 10, out of scope 5, missing 0" in proc.stderr


def test_compiled_dag_ref_present_is_an_error(trees):
    src, beam = trees
    write(beam, {"ray/experimental/__init__.py": "", "ray/experimental/compiled_dag_ref.py": ""})
    code, doc = run_json(src, beam)
    rows = {r["symbol"]: r["status"] for r in doc["symbols"]}
    assert rows["ray.experimental.compiled_dag_ref"] == "must be absent"
    assert code == 1


def test_callers_environment_cannot_answer(trees, monkeypatch):
    """A ``ray`` on the caller's PYTHONPATH must not stand in for beam's."""
    src, beam = trees
    impostor = src.parent / "impostor"
    write(impostor, {"ray/__init__.py": "def anything(): pass\n"})
    monkeypatch.setenv("PYTHONPATH", str(impostor))
    errors = scan_tool.resolve_in_beam(["ray.anything", "ray.util"], beam)
    assert errors["ray.util"] is None and "anything" in errors["ray.anything"]


def test_against_beams_own_ray(trees):
    """The default beam_python is this repo's python/: core names resolve there, and
    compiled_dag_ref must stay absent so vLLM keeps its compiled graphs switched off."""
    errors = scan_tool.resolve_in_beam(
        ["ray.get", "ray.util.placement_group_table", "ray.experimental.compiled_dag_ref"])
    assert errors["ray.get"] is None and errors["ray.util.placement_group_table"] is None
    assert errors["ray.experimental.compiled_dag_ref"] is not None


def test_cached_sdist_is_reused_without_pip(tmp_path, monkeypatch):
    write(tmp_path / "vllm-9.9.9" / "src", {"PKG-INFO": "Version: 9.9.9\n"})
    monkeypatch.setattr(scan_tool, "pip", lambda *a, **k: pytest.fail("pip was called"))
    assert scan_tool.fetch_sdist("9.9.9", tmp_path) == tmp_path / "vllm-9.9.9" / "src"


def test_fetch_keeps_the_tree_pip_unpacked(tmp_path, monkeypatch):
    """pip fails on vLLM's build step after unpacking; the unpacked tree is the sdist."""
    def fake_pip(*args, env=None):
        write(Path(env["TMPDIR"]) / "pip-download-x" / "vllm_abc",
              {"PKG-INFO": "Name: vllm\nVersion: 1.2.3\n", "vllm/__init__.py": ""})
        return subprocess.CompletedProcess(args, 1, "", "metadata-generation-failed")

    monkeypatch.setattr(scan_tool, "pip", fake_pip)
    src = scan_tool.fetch_sdist("1.2.3", tmp_path)
    assert src == tmp_path / "vllm-1.2.3" / "src" and (src / "vllm").is_dir()
    assert not (tmp_path / "vllm-1.2.3" / "tmp").exists()
