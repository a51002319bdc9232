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
import signal
import sys

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


def prepare_process() -> None:
    """What every worker does first, from its (final) environment."""
    run_as_batch_task()  # first: threads started later inherit the policy
    extend_sys_path()
    die_with_parent()


def extend_sys_path() -> None:
    """Make the driver's modules importable (classes pickled by reference need them)."""
    try:
        entries = json.loads(os.environ.get("BEAM_DRIVER_SYS_PATH") or "[]")
    except ValueError:
        return
    for entry in entries:
        if isinstance(entry, str) and entry not in sys.path:
            sys.path.append(entry)


def die_with_parent() -> None:
    """PR_SET_PDEATHSIG(SIGKILL): die with the daemon even if user code is stuck.

    Linux sends this when the *thread* that spawned us exits, so the daemon must spawn
    workers from a long-lived thread; BEAM_NO_PDEATHSIG=1 turns it off (also for a pooled
    worker, which set it when it started, under the daemon's environment).
    """
    if not sys.platform.startswith("linux"):
        return
    sig = 0 if os.environ.get("BEAM_NO_PDEATHSIG") == "1" else int(signal.SIGKILL)
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, sig, 0, 0, 0)  # 1 = PR_SET_PDEATHSIG
    except (OSError, AttributeError):
        pass


def run_as_batch_task() -> None:
    """SCHED_BATCH for this process and every thread and child it starts later.

    A batch task keeps its share of the CPU but does not preempt the task running when it
    wakes up: when the daemon hands a broadcast's calls to several workers one after another,
    each woken worker no longer interrupts it halfway through (docs/PERFORMANCE.md).
    ``BEAM_ACTOR_SCHED=normal`` (on ``ray start`` or in an actor's runtime_env env_vars)
    keeps the default policy; so does a worker started under another policy than the
    default (``chrt``), which is left as it is.
    """
    choice = os.environ.get("BEAM_ACTOR_SCHED", "batch")
    if choice == "normal" or not hasattr(os, "SCHED_BATCH"):
        return
    if choice != "batch":
        print(f"beam worker: BEAM_ACTOR_SCHED={choice!r} is neither 'batch' nor 'normal'; "
              "using 'batch'", file=sys.stderr, flush=True)
    try:
        if os.sched_getscheduler(0) == os.SCHED_OTHER:
            os.sched_setscheduler(0, os.SCHED_BATCH, os.sched_param(0))
    except OSError:  # a sandbox that forbids it: run as the daemon does
        pass


if __name__ == "__main__":
    pooled_main(sys.argv[1:])
