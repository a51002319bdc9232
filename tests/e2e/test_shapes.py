"""beam's answers have the shapes real Ray 2.60 gives: tests/golden/ray_shapes.py (the script
that recorded tests/golden/ray-2.60-shapes.json from real Ray) run against a beam cluster."""

import copy
import json
import os

from conftest import ROOT, run_driver
from shapes_compare import differences

SCRIPT = os.path.join(ROOT, "tests", "golden", "ray_shapes.py")
EXPECTED = os.environ.get("BEAM_RAY_SHAPES",
                          os.path.join(ROOT, "tests", "golden", "ray-2.60-shapes.json"))


def _expected():
    with open(EXPECTED) as f:
        return json.load(f)


def test_ray_shapes_dump_matches_ray_2_60(clusters):
    base = clusters.start("--num-gpus", "4", "--num-cpus", "8")
    with open(SCRIPT) as f:
        code = f.read()
    done = run_driver(base, code, timeout=120)
    assert done.returncode == 0, f"ray_shapes.py failed:\n{done.stderr[-4000:]}"
    start = done.stdout.index("{\n")  # actor log lines may come first
    actual = json.loads(done.stdout[start:])
    diffs = differences(actual, _expected())
    assert not diffs, f"{len(diffs)} differences from Ray 2.60:\n" + "\n".join(diffs)


def test_shapes_compare_catches_differences():
    expected = _expected()
    assert differences(copy.deepcopy(expected), expected) == []
    broken = copy.deepcopy(expected)
    del broken["nodes"][0]["Labels"]
    broken["cluster_resources"]["GPU"] = 4  # int instead of float
    broken["boom: exception types"][0] = "ValueError"
    broken["placement_group_table(pg)"]["state"] = "PENDING"
    broken["wait: ready/notready lens"] = [1, 1]
    broken["actor.probe (bundle 0, num_gpus=0.5, NOSET)"]["CUDA_VISIBLE_DEVICES"] = "0"
    broken["extra"] = 1
    diffs = "\n".join(differences(broken, expected))
    for needle in ("missing key 'Labels'", "['cluster_resources']['GPU']: type int",
                   "['boom: exception types'][0]", "['state']: 'PENDING'",
                   "['wait: ready/notready lens'][0]", "['CUDA_VISIBLE_DEVICES']: type str",
                   "extra key 'extra'"):
        assert needle in diffs, f"{needle!r} not reported in:\n{diffs}"
    ignorable = copy.deepcopy(expected)
    ignorable["nodes"][0]["NodeManagerPort"] = 1
    ignorable["nodes"][0]["Resources"]["memory"] = 1.0
    ignorable["get timeout: str"] = "other text"
    ignorable["driver.ctx.get_node_id"] = "ab" * 28
    assert differences(ignorable, expected) == []
