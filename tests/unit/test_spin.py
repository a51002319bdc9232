"""The adaptive polling policy (spin.py) on its own."""

import pytest

from ray._beam.wire import spin
from ray._beam.wire.spin import PROBE_EVERY, SpinPolicy


def test_polls_while_hits_stop_after_misses_and_probe_until_hits_return():
    p = SpinPolicy(300e-6)
    assert p.window() == 300e-6
    for _ in range(30):  # a few late replies among many quick ones: keeps polling
        p.record(True)
    p.record(False)
    p.record(False)
    assert p.window() == 300e-6
    for _ in range(20):  # replies have become slow (a model step): stop polling
        p.record(False)
    windows = [p.window() for _ in range(3 * PROBE_EVERY)]
    assert windows.count(300e-6) == 3 and windows[PROBE_EVERY - 1] == 300e-6
    for _ in range(12):  # quick again: the probes' hits bring polling back
        p.record(True)
    assert all(p.window() == 300e-6 for _ in range(5))


def test_zero_budget_never_polls():
    p = SpinPolicy(0.0)
    assert [p.window() for _ in range(3 * PROBE_EVERY)] == [0.0] * (3 * PROBE_EVERY)


def test_budget_from_env(monkeypatch):
    monkeypatch.delenv("BEAM_SPIN_US", raising=False)
    assert spin.budget_from_env() == pytest.approx(spin.DEFAULT_BUDGET_US * 1e-6)
    monkeypatch.setenv("BEAM_SPIN_US", "0")
    assert spin.budget_from_env() == 0.0
    monkeypatch.setenv("BEAM_SPIN_US", "120")
    assert spin.budget_from_env() == pytest.approx(120e-6)
    monkeypatch.setenv("BEAM_SPIN_US", "fast")
    with pytest.raises(ValueError, match="BEAM_SPIN_US='fast' is not a number of microseconds"):
        spin.budget_from_env()


def test_waits_for_more_replies_than_spare_cores_never_poll():
    p = SpinPolicy(300e-6, max_replies=2)
    assert p.window(1) == p.window(2) == 300e-6
    assert p.window(3) == 0.0  # the workers computing 3 replies need the cores
    assert SpinPolicy(300e-6).max_replies >= 1  # from this machine's cores, at least 1
