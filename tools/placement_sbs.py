"""Placement beside Ray: runs tests/e2e/ray_sbs/placement_program.py under beam (this
interpreter, a private cluster) and, where Ray 2.60 is installed, under Ray, and prints each
line with whether the two agree. Exit status 1 when a line differs.

    .venv/bin/python tools/placement_sbs.py [--ray-python /opt/ray260-venv/bin/python]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PROGRAM = os.path.join(ROOT, "tests", "e2e", "ray_sbs", "placement_program.py")
RAY_PYTHON = "/opt/ray260-venv/bin/python"
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from actor_sbs import beam_env, ray_env  # noqa: E402  (one definition of each environment)


def run(python: str, env: dict) -> list:
    """The tagged lines the program prints under one implementation."""
    done = subprocess.run([python, PROGRAM], env=env, capture_output=True, text=True, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"{python} {PROGRAM} failed ({done.returncode}):\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}")
    return [line for line in done.stdout.splitlines() if line[:1].isupper() and " " in line]


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ray-python", default=RAY_PYTHON if os.path.exists(RAY_PYTHON) else None)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="placement-sbs-beam-") as temp_dir:
        beam = run(sys.executable, beam_env(temp_dir))
    if not args.ray_python:
        print("\n".join(beam) + "\n(Ray not installed: nothing to compare)")
        return 0
    with tempfile.TemporaryDirectory(prefix="placement-sbs-ray-") as temp_dir:
        ray = run(args.ray_python, {**ray_env(temp_dir), "RAY_AUTH_MODE": "disabled"})
    differs = False
    for i in range(max(len(beam), len(ray))):
        b = beam[i] if i < len(beam) else "(missing)"
        r = ray[i] if i < len(ray) else "(missing)"
        print(("same     " if b == r else "DIFFERS  ") + b + ("" if b == r else "\n   Ray:  " + r))
        differs |= b != r
    return 1 if differs else 0


if __name__ == "__main__":
    sys.exit(main())
