"""An actor worker's start: its two arguments (parsed without argparse, which alone cost
every worker ~2 ms of imports) and what it does not import before it connects."""

import json
import os
import subprocess
import sys

import pytest

from _paths import ROOT

from ray._beam import worker


@pytest.mark.parametrize("argv", [["--socket", "/s.sock", "--actor-id", "ab12"],
                                  ["--actor-id", "ab12", "--socket", "/s.sock"],
                                  ["--socket=/s.sock", "--actor-id=ab12"]])
def test_the_daemons_two_arguments_in_any_order(argv):
    assert worker.parse_args(argv) == ("/s.sock", "ab12")


@pytest.mark.parametrize("argv, says", [
    ([], "the following arguments are required: --socket, --actor-id"),
    (["--socket", "/s.sock"], "the following arguments are required: --actor-id"),
    (["--socket", "/s.sock", "--actor-id"], "argument --actor-id: expected one argument"),
    (["--socket", "/s.sock", "--actor-id", "ab", "--extra"], "unrecognized argument: --extra"),
])
def test_anything_else_is_a_usage_error_with_exit_2(argv, says, capsys):
    with pytest.raises(SystemExit) as exit_:
        worker.parse_args(argv)
    assert exit_.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith(worker.USAGE) and says in err


def test_a_fresh_worker_imports_nothing_it_needs_only_later():
    # argparse, shutil (with bz2, lzma, zlib) and signal are not needed to start an actor;
    # garbage collection is back on once the imports are done (user code runs with it)
    code = ("import gc, json, sys\n"
            f"sys.path.insert(0, {os.path.join(ROOT, 'python')!r})\n"
            "import ray._beam.worker\n"
            "print(json.dumps([[m for m in ('argparse', 'shutil', 'bz2', 'lzma', 'signal') if m in sys.modules],"
            " gc.isenabled()]))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == [[], True]
