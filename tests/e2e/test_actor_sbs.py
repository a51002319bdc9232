"""Actor behaviour as Ray 2.58 gives it, case by case (tests/e2e/ray_sbs/cases.py): each case
runs as a real driver with real actor processes on a private beam cluster, and, where
.bench/ray-venv holds Ray 2.58, on Ray too, so EXPECTED stays what Ray really does."""

import os
import shutil
import tempfile

import pytest

from conftest import ROOT, VENV_PYTHON

import sys
sys.path.insert(0, os.path.join(ROOT, "tools"))
import actor_sbs  # noqa: E402
from actor_sbs import cases  # noqa: E402


@pytest.fixture(scope="module")
def beam_observed(tmp_path_factory):
    return actor_sbs.run_cases(VENV_PYTHON, actor_sbs.beam_env(str(tmp_path_factory.mktemp("sbs"))))


@pytest.mark.parametrize("case", [c for c in cases.EXPECTED if c not in cases.OUT_OF_SCOPE])
def test_beam_behaves_as_ray(beam_observed, case):
    assert beam_observed[case] == cases.EXPECTED[case]


def test_out_of_scope_features_fail_with_a_clear_error(beam_observed):
    assert beam_observed["max_restarts"].startswith("ValueError: max_restarts=1: beam does not restart actors")
    assert beam_observed["remote_function"].startswith("TypeError: beam supports actors only")


@pytest.mark.skipif(not os.path.exists(actor_sbs.RAY_PYTHON), reason="no Ray 2.58 in .bench/ray-venv")
def test_expected_is_what_ray_gives():
    temp_dir = tempfile.mkdtemp(prefix="sbs-ray-")  # short: Ray's socket paths must fit
    try:
        ray_observed = actor_sbs.run_cases(actor_sbs.RAY_PYTHON, actor_sbs.ray_env(temp_dir))
    finally:
        shutil.rmtree(temp_dir, ignore_errors=True)
    assert ray_observed == cases.EXPECTED
