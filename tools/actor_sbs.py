"""Actor behaviour side by side: the same small programs on beam and on real Ray 2.60.

    .venv/bin/python tools/actor_sbs.py [--ray-python .bench/ray-venv/bin/python]

Runs tests/e2e/ray_sbs/cases.py under beam's Python (this interpreter, a private cluster
in a temp dir of its own) and, where given or found in .bench/ray-venv, under Ray's; prints
one row per case: what each gave, and whether it is what Ray 2.60 gives (the case's
EXPECTED). Cases beam leaves out of scope on purpose are marked so. Exit 1 when beam
differs outside those, or when Ray itself no longer gives EXPECTED.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
CASES = os.path.join(ROOT, "tests", "e2e", "ray_sbs", "cases.py")
RAY_PYTHON = os.path.join(ROOT, ".bench", "ray-venv", "bin", "python")
sys.path.insert(0, os.path.dirname(CASES))
import cases  # noqa: E402  (EXPECTED and OUT_OF_SCOPE only: nothing runs on import but ray's import)


def run_cases(python: str, env: dict, timeout: float = 600) -> dict:
    """The observations of one implementation: {case: text}."""
    with tempfile.TemporaryDirectory(prefix="actor-sbs-") as tmp:
        out = os.path.join(tmp, "observed.json")
        done = subprocess.run([python, CASES, out], env=env, cwd=tmp, timeout=timeout,
                              capture_output=True, text=True)
        if done.returncode != 0 or not os.path.exists(out):
            raise RuntimeError(f"{python} {CASES} failed ({done.returncode}):\n"
                               f"{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
        with open(out) as f:
            return json.load(f)


def beam_env(temp_dir: str) -> dict:
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    env["RAY_TMPDIR"] = temp_dir  # a private cluster, never someone's /tmp/ray
    env["PATH"] = os.path.dirname(sys.executable) + os.pathsep + env.get("PATH", "")
    return env


def ray_env(temp_dir: str) -> dict:
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    # Ray's session files go under it, not into /tmp/ray: Ray makes that mode 0777, which
    # beam then refuses as a default temp dir (its discovery tests run after this)
    env["RAY_TMPDIR"] = temp_dir
    env.pop("PYTHONPATH", None)  # beam's package must not shadow Ray's
    return env


def table(observed: dict) -> list:
    """Rows (case, verdicts per implementation) for the printout."""
    rows = []
    for name, expected in cases.EXPECTED.items():
        verdicts = {}
        for impl, results in observed.items():
            got = results.get(name)
            if got == expected:
                verdicts[impl] = "as Ray"
            elif impl == "beam" and name in cases.OUT_OF_SCOPE:
                verdicts[impl] = "out of scope: " + (got or "")[:60]
            else:
                verdicts[impl] = f"DIFFERS: {got}"
        rows.append((name, verdicts))
    return rows


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ray-python", default=RAY_PYTHON if os.path.exists(RAY_PYTHON) else None)
    args = parser.parse_args(argv)
    observed = {}
    with tempfile.TemporaryDirectory(prefix="actor-sbs-beam-") as temp_dir:
        observed["beam"] = run_cases(sys.executable, beam_env(temp_dir))
    if args.ray_python:
        with tempfile.TemporaryDirectory(prefix="sbs-ray-") as temp_dir:
            observed["Ray 2.60"] = run_cases(args.ray_python, ray_env(temp_dir))
    failed = False
    width = max(map(len, cases.EXPECTED))
    print(f"{'case':<{width}}  " + "  |  ".join(observed))
    for name, verdicts in table(observed):
        print(f"{name:<{width}}  " + "  |  ".join(verdicts.values()))
        failed |= any(v.startswith("DIFFERS") for v in verdicts.values())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
