"""tools/test_report.py: `./dev test`'s summary and `./dev flakes`' table, read from reports that
real runners wrote (pytest here; Surefire's layout as Maven writes it), so a red layer is never
summed as green and a failure is never lost between layers."""
import os
import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parents[2]
TOOL = ROOT / "tools" / "test_report.py"

SUREFIRE = """<?xml version="1.0" encoding="UTF-8"?>
<testsuite name="beam.node.{cls}" tests="2" failures="{n}" errors="0" skipped="0">
  <testcase name="passes" classname="beam.node.{cls}" time="0.1"/>
  <testcase name="stops" classname="beam.node.{cls}" time="0.2">{failure}</testcase>
</testsuite>
"""


def surefire(folder: pathlib.Path, cls: str, failing: bool) -> pathlib.Path:
    folder.mkdir(parents=True, exist_ok=True)
    failure = '<failure message="expected T">trace</failure>' if failing else ""
    (folder / f"TEST-beam.node.{cls}.xml").write_text(SUREFIRE.format(cls=cls, n=int(failing), failure=failure))
    return folder


def pytest_report(tmp: pathlib.Path, name: str, body: str) -> tuple[int, pathlib.Path]:
    """Runs real pytest on a small module under tests/ of a scratch tree; returns its exit and report."""
    pkg = tmp / name / "tests" / "e2e"
    pkg.mkdir(parents=True)
    (pkg / "test_sample.py").write_text(body)
    report = tmp / f"{name}.xml"
    done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", f"--junitxml={report}",
                           "tests/e2e/test_sample.py"], cwd=tmp / name, capture_output=True, text=True, timeout=120)
    return done.returncode, report


def run_tool(*args):
    return subprocess.run([sys.executable, str(TOOL), *args], capture_output=True, text=True, timeout=60)


MIXED = """
import pytest
def test_ok(): pass
def test_red(): assert 1 == 2
@pytest.mark.skip(reason="x")
def test_skipped(): pass
class TestGroup:
    def test_in_class(self): assert False
"""


def test_the_summary_lists_every_layers_failures_and_exits_non_zero(tmp_path):
    junit = surefire(tmp_path / "surefire", "StackDumpsTest", failing=True)
    code, report = pytest_report(tmp_path, "run", MIXED)
    assert code == 1
    done = run_tool("summary", "--layer", f"JUnit:1:{junit}", "--layer", "vLLM-scan:0",
                    "--layer", f"pytest:{code}:{report}")
    assert done.returncode == 1, done.stdout
    out = done.stdout
    assert "beam.node.StackDumpsTest.stops" in out
    assert "tests/e2e/test_sample.py::test_red" in out
    assert "tests/e2e/test_sample.py::TestGroup::test_in_class" in out
    assert "test_ok" not in out
    assert out.splitlines()[-1] == "dev: 2 passed, 3 failed, 1 skipped"


def test_a_layer_that_failed_without_a_report_still_fails_the_run(tmp_path):
    done = run_tool("summary", "--layer", f"JUnit:1:{tmp_path / 'none'}", "--layer", "vLLM-scan:0")
    assert done.returncode == 1
    assert "no test report (exit 1: see its output above)" in done.stdout
    green = run_tool("summary", "--layer", "vLLM-scan:0", "--layer", f"JUnit:0:{surefire(tmp_path / 's', 'A', False)}")
    assert green.returncode == 0, green.stdout
    assert green.stdout.splitlines()[-1] == "dev: 2 passed, 0 failed, 0 skipped"


def test_flakes_counts_each_failing_test_over_the_runs(tmp_path):
    runs = tmp_path / "runs"
    surefire(runs / "junit-1", "StackDumpsTest", failing=True)
    surefire(runs / "junit-2", "StackDumpsTest", failing=False)
    surefire(runs / "junit-3", "StackDumpsTest", failing=True)
    for i, body in enumerate(["def test_a(): pass\n", "def test_a(): assert False\n"], start=1):
        _, report = pytest_report(tmp_path, f"p{i}", body)
        os.replace(report, runs / f"pytest-{i}.xml")
    (runs / "junit-1.log").write_text("[ERROR] Tests run: 2, Failures: 1\n")  # logs lie beside the reports
    done = run_tool("flakes", str(runs))
    assert done.returncode == 1
    assert "failed 2 of 3: beam.node.StackDumpsTest.stops" in done.stdout
    assert "failed 1 of 2: tests/e2e/test_sample.py::test_a" in done.stdout
    assert ".log" not in done.stdout and done.stdout.splitlines()[-1] == "flakes: 2 tests failed at least once"
    quiet = tmp_path / "quiet"
    surefire(quiet / "junit-1", "A", failing=False)
    assert run_tool("flakes", str(quiet)).stdout.splitlines()[-1] == "flakes: no test failed in any run"
