"""`import ray` loads its public names on first use (PEP 562): the `ray` command and actor
workers import only what they use, while `ray.X`, `from ray import X`, `dir(ray)` and
`__all__` behave as when `ray/__init__.py` imported everything. Each check runs in a fresh
interpreter, since the point is what an import pulls in and in which order."""

import json
import os
import subprocess
import sys

import pytest

from _paths import ROOT
from ray._version import RAY as RAY_VERSION

PYTHON_DIR = os.path.join(ROOT, "python")

# dir(ray) without dunders when ray/__init__.py imported everything eagerly (commit e55d6d8),
# and ray.job_config since (issue 40: Ray's `ray.job_config.JobConfig` without an import of it)
EAGER_DIR = ["ObjectRef", "_beam", "_private", "_version", "actor", "available_resources", "cluster_resources",
             "exceptions", "get", "get_actor", "get_gpu_ids", "get_runtime_context", "init",
             "is_initialized", "job_config", "kill", "method", "nodes", "put", "remote", "runtime_env", "shutdown",
             "types", "util", "wait"]

# what each public name is: (module, attribute; None for the module itself)
IMPLEMENTED_BY = {
    "exceptions": ("ray.exceptions", None), "get_actor": ("ray._beam.api.actors", "get_actor"),
    "kill": ("ray._beam.api.actors", "kill"), "remote": ("ray._beam.api.actors", "remote"),
    "get": ("ray._beam.api.getput", "get"), "put": ("ray._beam.api.getput", "put"), "wait": ("ray._beam.api.getput", "wait"),
    "init": ("ray._beam.api.client", "init"), "is_initialized": ("ray._beam.api.client", "is_initialized"),
    "shutdown": ("ray._beam.api.client", "shutdown"), "get_gpu_ids": ("ray._beam.api.context", "get_gpu_ids"),
    "get_runtime_context": ("ray._beam.api.context", "get_runtime_context"),
    "ObjectRef": ("ray._beam.api.objects", "ObjectRef"),
    "available_resources": ("ray._beam.api.state", "available_resources"),
    "cluster_resources": ("ray._beam.api.state", "cluster_resources"), "nodes": ("ray._beam.api.state", "nodes"),
    "actor": ("ray.actor", None), "runtime_env": ("ray.runtime_env", None), "types": ("ray.types", None),
    "job_config": ("ray.job_config", None),
    "util": ("ray.util", None), "_private": ("ray._private", None),
}

# the client, the actor machinery and cloudpickle: what the `ray` command does not need
HEAVY = ["cloudpickle", "ray.exceptions", "ray._beam.api.client", "ray._beam.api.actors", "ray._beam.api.getput",
         "ray._beam.api.objects", "ray._beam.api.context", "ray._beam.api.state", "ray.util", "ray.actor"]


def _run(code):
    """Run CODE in a fresh interpreter that imports beam from this checkout; its stdout as JSON."""
    done = subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {PYTHON_DIR!r})\n" + code],
                          capture_output=True, text=True, timeout=60, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_ray_command_imports_neither_cloudpickle_nor_the_client():
    loaded = _run("import json, ray._beam.launch.launcher\n"
                  f"print(json.dumps([m for m in {HEAVY!r} if m in sys.modules]))")
    assert loaded == []


def test_the_ray_command_imports_no_stdlib_module_it_can_do_without():
    # every module is a file read at each `ray start`, from disk once the host evicted it
    # (docs/PERFORMANCE.md, "A lean `ray` command"): re/enum alone cost ~14 ms
    avoidable = ["re", "enum", "json", "typing", "subprocess", "shutil", "glob", "threading", "locale"]
    loaded = _run("import json as _j\n"  # this probe's own output; dropped below
                  "for m in ('json', 'json.decoder', 'json.scanner', 'json.encoder', 're', 'enum'):\n"
                  "    sys.modules.pop(m, None)\n"
                  "before = set(sys.modules)\n"
                  "from ray._beam.launch import launcher\n"
                  "launcher.jvm_flags(launcher.find_java(), launcher.find_jar())\n"
                  "launcher.daemon_env()\n"
                  "new = set(sys.modules) - before\n"
                  f"_j.dump(sorted(m for m in {avoidable!r} if m in new), sys.stdout)")
    assert loaded == []


def test_the_ray_command_hashes_no_unchanged_jar(tmp_path):
    # hashlib loads OpenSSL (~8 ms): the launcher checks a jar's AOT cache by size and mtime
    # first and hashes only a jar that changed (aotcache.usable)
    jar = tmp_path / "beam.jar"
    jar.write_bytes(b"PK jar")
    loaded = _run("import json, os, sys\n"
                  "from ray._beam.launch import aotcache\n"
                  f"jar = {str(jar)!r}\n"
                  "cache, meta = aotcache.paths(jar)\n"
                  "open(cache, 'wb').close()\n"
                  "d = aotcache.describe(sys.executable, jar)\n"
                  "del sys.modules['hashlib'], sys.modules['_hashlib']\n"
                  "aotcache.write_description(meta, d)\n"
                  "ok = aotcache.usable(sys.executable, jar) == cache\n"
                  "print(json.dumps([ok, 'hashlib' in sys.modules]))")
    assert loaded == [True, False]


def test_import_ray_runs_only_the_coexist_check():
    loaded = _run("import json, ray\n"
                  f"print(json.dumps([[m for m in {HEAVY!r} if m in sys.modules], "
                  "'ray._beam.launch.coexist' in sys.modules]))")
    assert loaded == [[], True]


def test_an_actor_worker_imports_no_driver_api():
    loaded = _run("import json, ray._beam.worker\n"
                  "print(json.dumps([m for m in ['ray._beam.api.actors', 'ray._beam.api.getput', 'ray._beam.api.state', "
                  "'ray._beam.api.context', 'ray.util'] if m in sys.modules]))")
    assert loaded == []


@pytest.mark.parametrize("name", sorted(IMPLEMENTED_BY))
def test_each_name_resolves_when_used_first(name):
    """`from ray import NAME` and `ray.NAME` as the very first use: no import cycle whatever
    module comes first, and the name is the implementation's own object."""
    module, attr = IMPLEMENTED_BY[name]
    same = _run(f"from ray import {name} as first\n"
                "import importlib, json, ray\n"
                f"impl = importlib.import_module({module!r})\n"
                f"impl = impl if {attr!r} is None else getattr(impl, {attr!r})\n"
                f"print(json.dumps([first is impl, ray.{name} is impl, {name!r} in vars(ray)]))")
    assert same == [True, True, True]


def test_dir_all_and_missing_names_are_as_before():
    seen = _run("import json, ray\n"
                "d = [n for n in dir(ray) if not n.startswith('__')]\n"
                "missing = [n for n in ray.__all__ if getattr(ray, n, None) is None]\n"
                "try:\n"
                "    ray.no_such_name\n"
                "    err = None\n"
                "except AttributeError as e:\n"
                "    err = str(e)\n"
                "print(json.dumps([d, missing, err, hasattr(ray, 'dag'), ray.__version__]))")
    assert seen == [EAGER_DIR, [], "module 'ray' has no attribute 'no_such_name'", False, RAY_VERSION]


def test_star_import_gives_all_public_names():
    names = _run("import json\n"
                 "ns = {}\n"
                 "exec('from ray import *', ns)\n"
                 "print(json.dumps(sorted(n for n in ns if n != '__builtins__')))")
    assert names == sorted(["__version__", "ObjectRef", "available_resources", "cluster_resources",
                            "exceptions", "get", "get_actor", "get_gpu_ids", "get_runtime_context",
                            "init", "is_initialized", "kill", "method", "nodes", "put", "remote",
                            "shutdown", "wait", "actor", "util", "runtime_env", "types"])
