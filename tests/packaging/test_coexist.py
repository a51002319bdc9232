"""ray._beam.launch.coexist: a beam/Ray mix in one environment is refused with the fix.

Each case lays out a fake site folder (a copy of python/ray plus dist-info folders and
Ray-only files) and runs the check in a fresh interpreter without site-packages.
"""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import cloudpickle
import pytest
from ray._version import RAY as RAY_VERSION

ROOT = Path(__file__).resolve().parents[2]
BEAM_SUMMARY = "beam: a small drop-in replacement for the slice of Ray that vLLM uses"
RAY_SUMMARY = "Ray provides a simple, universal API for building distributed applications."


def _dist_info(site, version, summary):
    meta = site / f"ray-{version}.dist-info"
    meta.mkdir(parents=True)
    (meta / "METADATA").write_text(f"Metadata-Version: 2.1\nName: ray\nVersion: {version}\n"
                                   f"Summary: {summary}\n\nlong description\n")
    return meta


def _beam_site(tmp_path, name="site"):
    site = tmp_path / name
    shutil.copytree(ROOT / "python" / "ray", site / "ray",
                    ignore=shutil.ignore_patterns("__pycache__", "lib", "runtime"))
    _dist_info(site, RAY_VERSION, BEAM_SUMMARY)
    return site


def _ray_site(tmp_path, name="ray-site"):
    site = tmp_path / name
    (site / "ray" / "core").mkdir(parents=True)
    (site / "ray" / "__init__.py").write_text("raise ImportError('this is the fake Ray')\n")
    (site / "ray" / "_raylet.so").write_bytes(b"")
    _dist_info(site, RAY_VERSION, RAY_SUMMARY)
    return site


def _check(tmp_path, *path, code="from ray._beam.launch import coexist; coexist.check(); print('OK')", **env):
    deps = tmp_path / "deps"
    if not deps.exists():
        shutil.copytree(Path(cloudpickle.__file__).parent, deps / "cloudpickle",
                        ignore=shutil.ignore_patterns("__pycache__"))
    full_env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(tmp_path),
                "PYTHONPATH": os.pathsep.join([*map(str, path), str(deps)]), **env}
    return subprocess.run([sys.executable, "-S", "-c", code], env=full_env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=60)


def test_beam_alone_passes(tmp_path):
    done = _check(tmp_path, _beam_site(tmp_path))
    assert done.stdout.strip() == "OK", done.stderr


def test_ray_files_in_beams_folder(tmp_path):
    site = _beam_site(tmp_path)
    (site / "ray" / "_raylet.cpython-311-x86_64-linux-gnu.so").write_bytes(b"")
    (site / "ray" / "dashboard").mkdir()
    done = _check(tmp_path, site)
    assert done.returncode != 0
    assert "MixedInstallError" in done.stderr
    assert "_raylet.cpython-311-x86_64-linux-gnu.so" in done.stderr and "dashboard" in done.stderr
    assert "pip uninstall -y ray" in done.stderr and f"rm -rf {site}/ray" in done.stderr


def test_two_dist_infos_in_one_folder(tmp_path):
    site = _beam_site(tmp_path)
    _dist_info(site, "2.49.0", RAY_SUMMARY)
    done = _check(tmp_path, site)
    assert done.returncode != 0 and "2 metadata folders" in done.stderr, done.stderr


def test_rays_metadata_over_beams_code(tmp_path):
    site = _beam_site(tmp_path)
    (site / f"ray-{RAY_VERSION}.dist-info" / "METADATA").write_text(
        f"Metadata-Version: 2.1\nName: ray\nVersion: {RAY_VERSION}\nSummary: {RAY_SUMMARY}\n")
    done = _check(tmp_path, site)
    assert done.returncode != 0 and "importlib.metadata reads `ray`" in done.stderr, done.stderr


def test_ray_later_on_sys_path_is_shadowed_not_mixed(tmp_path):
    """The one-mount bundle on PYTHONPATH in front of an image's own Ray."""
    done = _check(tmp_path, _beam_site(tmp_path), _ray_site(tmp_path),
                  code="import importlib.metadata as m; from ray._beam.launch import coexist; "
                       "coexist.check(); print(m.version('ray'), m.metadata('ray')['Summary'][:5])")
    assert done.stdout.strip() == f"{RAY_VERSION} beam:", done.stderr


def test_skip_switch(tmp_path):
    site = _beam_site(tmp_path)
    (site / "ray" / "_raylet.so").write_bytes(b"")
    done = _check(tmp_path, site, BEAM_SKIP_COEXIST_CHECK="1")
    assert done.stdout.strip() == "OK", done.stderr


def test_report_command(tmp_path):
    site = _beam_site(tmp_path)
    done = _check(tmp_path, site, code="from ray._beam.launch import coexist; raise SystemExit(coexist.main())")
    assert done.returncode == 0 and "ok: beam alone" in done.stdout, done.stdout + done.stderr
    (site / "ray" / "_raylet.so").write_bytes(b"")
    done = _check(tmp_path, site, code="from ray._beam.launch import coexist; raise SystemExit(coexist.main())")
    assert done.returncode == 1 and "pip uninstall" in done.stderr


def test_beam_never_ships_a_ray_only_name():
    from importlib.util import module_from_spec, spec_from_file_location

    spec = spec_from_file_location("coexist_src", ROOT / "python" / "ray" / "_beam" / "launch" / "coexist.py")
    mod = module_from_spec(spec)
    spec.loader.exec_module(mod)
    assert mod.ray_only_files(ROOT / "python" / "ray") == []


def test_import_ray_runs_the_check(tmp_path):
    """Once ray/__init__.py calls coexist.check() (see docs/PACKAGING.md), `import ray` refuses a mix."""
    if "coexist" not in (ROOT / "python" / "ray" / "__init__.py").read_text():
        pytest.skip("ray/__init__.py does not call ray._beam.launch.coexist.check() yet")
    site = _beam_site(tmp_path)
    (site / "ray" / "_raylet.so").write_bytes(b"")
    done = _check(tmp_path, site, code="import ray")
    assert done.returncode != 0 and "MixedInstallError" in done.stderr, done.stderr
