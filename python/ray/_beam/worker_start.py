"""How a worker process becomes an actor's, before the worker connects (worker.py).

The daemon computes a worker's whole environment (beam.node.NodeAgent#environment): a fresh
process is started with it, cwd and arguments; a pooled one (``--pooled``, started before
any actor was asked for, beam.node.WorkerPool) has imported beam and cloudpickle already and
is handed the same three as one JSON line on stdin, which it applies as given here, so that
the actor sees what a fresh process would: ``os.environ``, ``os.getcwd()``, ``sys.path``,
``sys.argv``, the scheduling policy and the parent-death signal.
"""

from __future__ import annotations

import json
import os
import signal
import sys


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
    pooled = sys.orig_argv.index("--pooled") if "--pooled" in sys.orig_argv else len(sys.orig_argv)
    sys.orig_argv[:] = [sys.executable, *sys.orig_argv[1:pooled], *job["argv"]]
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
