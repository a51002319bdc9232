"""The test suite's own HOME, made before any test starts a daemon or a driver.

Ray 2.59+ writes the user's cluster token to ``~/.ray/auth_token`` and beam reads it there
as Ray does (auth/TokenSource). A machine where someone once ran real Ray therefore has one,
and every daemon a test starts would share it: a join the test sends without a token is
then admitted, and a stray node joins another test's cluster. The suite gets an empty HOME
of its own (tests that need a token file write one there, or in a HOME of the test's own).
"""

import atexit
import os
import shutil
import tempfile


def private_home() -> str:
    """Point HOME at a new empty directory for this process and what it starts; removed at exit."""
    if os.environ.get("BEAM_TEST_HOME"):  # set by an outer test process: share it
        return os.environ["HOME"]
    home = tempfile.mkdtemp(prefix="beam-test-home-")
    atexit.register(shutil.rmtree, home, True)
    os.environ["HOME"] = home
    os.environ["BEAM_TEST_HOME"] = home
    return home
