"""Fixtures shared by the real-vLLM tests: the venv (skip, or fail under CI, when it cannot be
made) and one mp-executor reference run per session (every Ray mode must give its tokens)."""

from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: isolation.py

import _vllm  # noqa: E402
from isolation import private_home  # noqa: E402

private_home()  # no user's ~/.ray/auth_token in any daemon the tests start (tests/isolation.py)


@pytest.fixture(scope="session")
def vllm_venv():
    _vllm.require()
    return _vllm.VENV


@pytest.fixture(scope="session")
def model_dir(tmp_path_factory):
    """Where vllm_generate.py writes its tiny Llama config (the same for every test)."""
    from vllm_generate import write_model

    return write_model(str(tmp_path_factory.mktemp("vllm-model") / "tiny-llama"))


@pytest.fixture(scope="session")
def mp_tokens(vllm_venv, model_dir):
    """Greedy tokens of vllm_generate.py's prompts, TP=2 on vLLM's mp executor (no Ray)."""
    return _vllm.run_mp(model_dir)


@pytest.fixture(autouse=True)
def no_stale_cpu_shm():
    """Each test starts without the shared memory a killed host left behind (_vllm's doc)."""
    _vllm.remove_orphaned_shm()
    before = _vllm.shm_names()
    yield
    _vllm.remove_orphaned_shm(also=_vllm.shm_names() - before)
