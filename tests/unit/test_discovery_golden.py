"""tests/golden/discovery_cases.json against the Python client (ray/_beam/launch/tempdirs.py) and the
bash launcher (set_temp_root and temp_usable in python/bin/ray, sourced for its functions):
the same flag, environment and files must give the same temp dir, trusted or not. The Java
CLI runs the same table in java/src/test/java/beam/cli/DiscoveryGoldenTest.java."""

import json
import os
import shutil
import subprocess
import tempfile

import pytest

from _paths import ROOT
from ray._beam.launch import tempdirs

CASES = json.load(open(os.path.join(ROOT, "tests", "golden", "discovery_cases.json")))["cases"]
OTHER_UID = 65534
RAY_SCRIPT = os.path.join(ROOT, "python", "bin", "ray")


def _lay_out(case, base):
    """Make the case's files under ``base``; returns the case with {base} and {uid} filled in."""
    text = json.dumps(case).replace("{base}", base).replace("{uid}", str(os.geteuid()))
    case = json.loads(text)
    for f in case.get("files", []):
        os.makedirs(f["path"], exist_ok=True)
        os.chmod(f["path"], int(f["mode"], 8))
        if f["owner"] == "other":
            os.chown(f["path"], OTHER_UID, OTHER_UID)
    case.setdefault("cwd", base)
    return case


@pytest.fixture
def base():
    """A short folder: the bash launcher leaves a temp dir too long for the daemon's socket to
    the Java CLI (temp_usable), and pytest's tmp_path can be that long."""
    path = tempfile.mkdtemp(prefix="bgold-", dir="/tmp")
    yield path
    shutil.rmtree(path, ignore_errors=True)


def _needs_root(case):
    if any(f["owner"] == "other" for f in case.get("files", [])) and os.geteuid() != 0:
        pytest.skip("files of another user need root to make")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_client(case, base):
    _needs_root(case)
    case = _lay_out(case, base)
    chosen = tempdirs.temp_dir(case.get("flag"), case["env"], case["cwd"])
    assert chosen == case["expect"]
    assert (tempdirs.problem(chosen, "temp dir") is None) == case["trusted"], tempdirs.problem(chosen, "temp dir")


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bash_launcher(case, base):
    _needs_root(case)
    case = _lay_out(case, base)
    flag = [] if case.get("flag") is None else [f"--temp-dir={case['flag']}"]
    env = {"PATH": os.environ["PATH"], **case["env"]}
    script = ('source "$1"; shift; set_temp_root "$@"; echo "$temp"; '
              'if temp_usable; then echo trusted; else echo refused; fi')
    out = subprocess.run(["bash", "-c", script, "bash", RAY_SCRIPT, *flag], env=env, cwd=case["cwd"],
                         capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[:2] == [case["expect"], "trusted" if case["trusted"] else "refused"]
