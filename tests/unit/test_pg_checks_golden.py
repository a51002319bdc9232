"""tests/golden/pg_checks.json against the Python shim's checks (ray/_beam/api/pgs.py), which run
before the cluster is touched, as Ray's do. The daemon runs the same table
(java/src/test/java/beam/cluster/GroupRulesGoldenTest.java)."""

import json
import os

import pytest

from _paths import ROOT
from ray._beam.api import pgs
from ray.util.placement_group import VALID_PLACEMENT_GROUP_STRATEGIES

GOLDEN = json.load(open(os.path.join(ROOT, "tests", "golden", "pg_checks.json")))


def test_the_strategies_are_the_golden_ones():
    assert sorted(VALID_PLACEMENT_GROUP_STRATEGIES) == sorted(GOLDEN["strategies"])


@pytest.mark.parametrize("case", GOLDEN["cases"], ids=[c["name"] for c in GOLDEN["cases"]])
def test_every_case(case):
    if case["error"] is None:
        specs = pgs.validate(case["bundles"], case["strategy"], None)
        assert specs == [{k: float(v) for k, v in b.items()} for b in case["bundles"]]
        return
    with pytest.raises(ValueError, match=case["error"]):
        pgs.validate(case["bundles"], case["strategy"], None)
