"""tests/golden/ready_report_cases.json against the two launchers that relay a daemon's report
without a JVM of their own: the bash script's relay_report (python/bin/ray, sourced for its
functions) and launcher.start_detached, a shell standing in for the daemon. The Java CLI runs
the same table in java/src/test/java/beam/cli/ReadyReportGoldenTest.java."""

import io
import json
import os
import subprocess

import pytest

from _paths import ROOT
from ray._beam.launch import launcher

CASES = json.load(open(os.path.join(ROOT, "tests", "golden", "ready_report_cases.json")))["cases"]
RAY_SCRIPT = os.path.join(ROOT, "python", "bin", "ray")
DAEMON = 'for l in "$@"; do printf "%s\\n" "$l"; done; exit "$EXIT"'


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_python_launcher(case, tmp_path, monkeypatch):
    monkeypatch.setattr(launcher, "daemon_command", lambda argv: ["/bin/sh", "-c", DAEMON, "daemon", *case["lines"]])
    monkeypatch.setattr(launcher, "temp_root", lambda argv: str(tmp_path))
    monkeypatch.setenv("EXIT", str(case["exit"]))
    out, err = io.BytesIO(), io.BytesIO()
    status = launcher.start_detached([], out, err, reap=True)
    log = os.path.join(str(tmp_path), "beamd-stderr.log")
    assert (status, out.getvalue().decode(), err.getvalue().decode()) == (
        case["status"], case["stdout"], case["stderr"].replace("{log}", log))


@pytest.mark.parametrize("case", CASES, ids=[c["name"] for c in CASES])
def test_bash_launcher(case, tmp_path):
    log = str(tmp_path / "beamd-stderr.log")
    script = ('source "$1"; shift; log=$LOG; exec {report}< <(sh -c "$DAEMON" daemon "$@"); daemon=$!; '
              'relay_report <&"$report"')
    env = {"PATH": os.environ["PATH"], "LOG": log, "DAEMON": DAEMON, "EXIT": str(case["exit"])}
    done = subprocess.run(["bash", "-c", script, "bash", RAY_SCRIPT, *case["lines"]], env=env,
                          capture_output=True, text=True, timeout=30)
    assert (done.returncode, done.stdout, done.stderr) == (
        case["status"], case["stdout"], case["stderr"].replace("{log}", log))
