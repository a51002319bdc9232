"""Waiting in tests on the state they check, never on an assumed timing (one helper for the
unit and end-to-end tests: tests/unit/conftest.py and tests/e2e/conftest.py put it on sys.path).

A signal, a kill, a process start or a write another thread makes takes effect when the
machine gets round to it; on a loaded 2-core machine (CI, a flake hunt) that can be seconds
for what takes milliseconds idle.
"""

import time

import pytest

# How long a test waits for something that normally takes milliseconds: a loaded 2-core
# machine (CI, a flake hunt) can take seconds, and a wait that ends early costs nothing.
WAIT_S = 30.0


def wait_until(condition, within, what, interval=0.05):
    """Poll ``condition`` until it returns something truthy (returned); fail naming ``what``
    never happened after ``within`` s. Tests wait on the state they check with this, never
    on a fixed sleep: a signal, kill or process start takes effect when the machine gets to it."""
    deadline = time.monotonic() + within
    while True:
        value = condition()
        if value:
            return value
        if time.monotonic() > deadline:
            pytest.fail(f"never happened within {within} s: {what}")
        time.sleep(interval)
