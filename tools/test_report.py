#!/usr/bin/env python3
"""Reads the test layers' JUnit-XML reports and says what failed: `./dev test`'s summary and
`./dev flakes`' table come from here, so both read reports the same way.

    test_report.py summary --layer NAME:EXIT[:REPORT] ...
        one line per layer (its counts, or why it has none) and each failed test under it,
        then the closing line `dev: N passed, N failed, N skipped`; exits 1 if any layer
        failed. REPORT is a JUnit-XML file or a folder of them (Surefire writes one per class).
    test_report.py flakes DIR
        DIR holds one report per run, named LAYER-N (`junit-1/`, `pytest-1.xml`, `vllm-1.xml`;
        other files, the runs' logs, are skipped): every test that failed in at least one run,
        with how often, grouped by layer.

Standard library only: it runs with the system python3 before any venv exists.
"""
from __future__ import annotations

import argparse
import collections
import pathlib
import sys
import xml.etree.ElementTree as ET

PASSED, FAILED, SKIPPED = "passed", "failed", "skipped"


def _report_files(path: pathlib.Path) -> list[pathlib.Path]:
    if path.is_dir():
        return sorted(path.glob("TEST-*.xml")) or sorted(path.glob("*.xml"))
    return [path] if path.is_file() else []


def outcomes(path: pathlib.Path) -> dict[str, str]:
    """test id -> passed|failed|skipped, from every report under `path`."""
    found: dict[str, str] = {}
    for f in _report_files(path):
        try:
            root = ET.parse(f).getroot()
        except ET.ParseError as e:  # a run killed mid-write: the layer is counted failed by its exit code
            found[f"{f.name} (unreadable report: {e})"] = FAILED
            continue
        for case in root.iter("testcase"):
            test_id = _test_id(case)
            if case.find("failure") is not None or case.find("error") is not None:
                found[test_id] = FAILED
            elif case.find("skipped") is not None:
                found.setdefault(test_id, SKIPPED)
            else:
                found.setdefault(test_id, PASSED)
    return found


def _test_id(case: ET.Element) -> str:
    cls, name = case.get("classname", ""), case.get("name", "")
    if cls.startswith("tests.") or cls.startswith("tests/"):  # pytest: back to the path form it prints
        parts = cls.split(".")
        path = "/".join(p for p in parts if not p[:1].isupper()) + ".py"
        owners = [p for p in parts if p[:1].isupper()]
        return "::".join([path, *owners, name])
    return f"{cls}.{name}" if cls else name


def _counts(found: dict[str, str]) -> collections.Counter:
    return collections.Counter(found.values())


def summary(layers: list[str]) -> int:
    totals: collections.Counter = collections.Counter()
    any_failed = False
    print("dev: summary of every layer")
    for spec in layers:
        name, exit_code, *report = spec.split(":", 2)
        code = int(exit_code)
        found = outcomes(pathlib.Path(report[0])) if report else {}
        counts = _counts(found)
        totals.update(counts)
        failed = sorted(t for t, o in found.items() if o == FAILED)
        layer_failed = code != 0 or bool(failed)
        any_failed |= layer_failed
        if report and found:
            line = f"{counts[PASSED]} passed, {counts[FAILED]} failed, {counts[SKIPPED]} skipped"
        elif report:
            line = "no test report"
        else:
            line = "ok" if code == 0 else "failed"
        if code != 0 and not failed:
            line += f" (exit {code}: see its output above)"
        print(f"  {'FAILED' if layer_failed else 'ok':6} {name:10} {line}")
        for t in failed:
            print(f"           {t}")
    print(f"dev: {totals[PASSED]} passed, {totals[FAILED]} failed, {totals[SKIPPED]} skipped")
    return 1 if any_failed else 0


def flakes(run_dir: pathlib.Path) -> int:
    runs: dict[str, int] = collections.Counter()
    failures: dict[str, collections.Counter] = collections.defaultdict(collections.Counter)
    for report in sorted(run_dir.iterdir()):
        if not (report.is_dir() or report.suffix == ".xml"):
            continue  # the runs' logs lie beside their reports
        layer = report.name.split("-")[0]
        found = outcomes(report)
        if not found:
            continue
        runs[layer] += 1
        for t, o in found.items():
            if o == FAILED:
                failures[layer][t] += 1
    print(f"flakes: {', '.join(f'{layer} {n} runs' for layer, n in sorted(runs.items())) or 'no runs'}")
    flaky = 0
    for layer in sorted(runs):
        for t, n in failures[layer].most_common():
            flaky += 1
            print(f"  {layer:7} failed {n} of {runs[layer]}: {t}")
    print("flakes: no test failed in any run" if not flaky else f"flakes: {flaky} tests failed at least once")
    return 1 if flaky else 0


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("summary")
    s.add_argument("--layer", action="append", default=[], help="NAME:EXIT[:REPORT]")
    f = sub.add_parser("flakes")
    f.add_argument("dir", type=pathlib.Path)
    args = parser.parse_args(argv)
    return summary(args.layer) if args.cmd == "summary" else flakes(args.dir)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
