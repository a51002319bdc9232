"""How a worker process becomes an actor's, before the worker connects (worker.py).

The daemon computes a worker's whole environment (beam.node.NodeAgent#environment): a fresh
process (``python -m ray._beam.worker --socket S --actor-id ID``) is started with it, cwd and
arguments. A pooled one (``python -m ray._beam.worker_start --pooled --socket S --daemon-pid
P``, started before any actor was asked for, beam.node.WorkerPool) imports the worker, beam
and cloudpickle at once and is then handed the same three as one JSON line on stdin, which it
applies as given here, so that the actor sees what a fresh process would: ``os.environ``,
``os.getcwd()``, ``sys.path``, ``sys.argv``, the scheduling policy and the parent-death
signal. While idle it is named ``beam-idle`` (``/proc/PID/comm``), so that tools and tests
can tell it from an actor's process; with the actor it takes the name a fresh worker has.
"""

from __future__ import annotations

import json
import os
import sys

from ray._beam.worker_process import die_with_parent

IDLE_NAME = b"beam-idle"


def _set_name(name: bytes) -> None:
    """PR_SET_NAME: the process's name in /proc/PID/comm and ps."""
    try:
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(15, ctypes.c_char_p(name[:15]), 0, 0, 0)  # 15 = PR_SET_NAME
    except (OSError, AttributeError):
        pass


def pooled_main(argv: list[str]) -> None:
    """An idle pooled worker: die with the daemon from the start (a daemon that exits in its
    first milliseconds leaves none behind), import the worker, wait for an actor, become it."""
    die_with_parent()
    daemon = argv[argv.index("--daemon-pid") + 1] if "--daemon-pid" in argv else None
    if daemon is not None and str(os.getppid()) != daemon:  # it died before we asked the kernel
        os._exit(0)
    _set_name(IDLE_NAME)
    from ray._beam import worker

    args = take_on_actor()
    _set_name(os.path.basename(sys.executable).encode())  # what exec gives a fresh worker run by that path
    sys.argv[0] = worker.__file__
    worker.main(args)


def take_on_actor() -> list[str]:
    """Pooled: wait for the daemon's hand-over and apply it; returns the worker's arguments.

    Reads stdin itself, up to the one newline: a buffered reader could read past it, and the
    actor's code finds stdin as a fresh worker's, an open pipe with nothing in it. End of
    file means the daemon retired this worker (or is gone): exit.
    """
    data = b""
    while not data.endswith(b"\n"):
        chunk = os.read(0, 65536)
        if not chunk:
            os._exit(0)
        data += chunk
    job = json.loads(data)
    os.environ.clear()
    os.environ.update(job["env"])
    cwd = job.get("cwd")
    if cwd:
        started_in = os.getcwd()
        os.chdir(cwd)
        # `python -m` put the directory it started in first on sys.path; a fresh worker has its cwd there
        if sys.path and sys.path[0] == started_in:
            sys.path[0] = os.getcwd()
    sys.argv[1:] = job["argv"]
    # the same file as ours in our folder (the daemon checked), under the name a fresh worker is run by
    sys.executable = job.get("python") or sys.executable
    # as a fresh worker's: PYTHON -u -m ray._beam.worker ARGV
    module = sys.orig_argv.index(__spec__.name) if __spec__ and __spec__.name in sys.orig_argv else 1
    sys.orig_argv[:] = [sys.executable, *sys.orig_argv[1:module], "ray._beam.worker", *job["argv"]]
    return list(job["argv"])


if __name__ == "__main__":
    pooled_main(sys.argv[1:])
