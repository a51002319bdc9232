"""What every actor worker process does first, from its final environment, fresh or pooled
(worker.py, worker_start.py): its scheduling policy, the driver's sys.path, and dying with
the daemon."""

from __future__ import annotations

import json
import os
import sys


SIGKILL = 9  # Linux's number (this runs on Linux only); the signal module would cost every worker ~0.5 ms to import


def prepare_process() -> None:
    """What every worker does first, from its (final) environment."""
    run_as_batch_task()  # first: threads started later inherit the policy
    extend_sys_path()
    die_with_parent()
    line_buffered_output()


def line_buffered_output() -> None:
    """Each line the actor prints reaches its log (and the driver) as it is printed."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.reconfigure(line_buffering=True)
        except (AttributeError, ValueError):
            pass


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
    sig = 0 if os.environ.get("BEAM_NO_PDEATHSIG") == "1" else SIGKILL
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
