"""Paths the unit tests share (golden frames, the recorded Ray shapes)."""

import os

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
GOLDEN = os.path.join(ROOT, "tests", "golden")
SHAPES = os.environ.get("BEAM_RAY_SHAPES", os.path.join(GOLDEN, "ray-2.60-shapes.json"))
