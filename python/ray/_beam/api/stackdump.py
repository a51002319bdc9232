"""Lets the daemon read this process's Python stacks (``ray stack``) without ptrace or py-spy.

faulthandler's handler is C code: it writes every thread's stack to the file without taking
the GIL, so it answers even while a thread sits in C code holding the GIL (where no Python
signal handler could run). The daemon truncates the file, sends the signal, and reads the
dump back once its size stops changing (beam.node.StackDumps). Registration is all this does.
"""

from __future__ import annotations

import faulthandler
import os

# Signal 40 (SIGRTMIN+6 under glibc, SIGRTMIN+5 under musl) and not SIGUSR1/SIGUSR2: those are
# the ones other tools claim in this stack's neighbourhood (Slurm's --signal=USR1@T, PyTorch
# Lightning's requeue handler and NVIDIA's resiliency kit's rank termination on SIGUSR1,
# server reload on SIGUSR2). Real-time signals are left to applications, and glibc keeps the
# first ones for its threads. The daemon hard-codes the same number and only signals a process
# whose /proc/PID/status shows it catches 40, so a process that never registered is never hit.
STACK_SIGNAL = 40
_dump_file = None  # kept open for the process's life: faulthandler writes to its fd


def register(session_dir: str) -> None:
    """Dump every thread's stack to SESSION/stacks/PID on STACK_SIGNAL. Once per process."""
    global _dump_file
    if _dump_file is not None or not session_dir:
        return
    path = os.path.join(session_dir, "stacks", str(os.getpid()))
    try:
        # O_APPEND: the daemon truncates the file before each dump; an fd with its own offset
        # would then write past the end and leave a hole of NULs ahead of the stack.
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND | os.O_CLOEXEC | os.O_NOFOLLOW, 0o600)
    except OSError:
        return  # a session dir without stacks/ (an older daemon): ray stack says it has no handler
    _dump_file = os.fdopen(fd, "w")
    # chain=False: with no earlier handler, chaining would re-raise the signal's default
    # action, which for a real-time signal ends the process.
    faulthandler.register(STACK_SIGNAL, file=_dump_file, all_threads=True, chain=False)
    # A forked child (multiprocessing) would dump into this process's file: it forgets the handler.
    os.register_at_fork(after_in_child=_forget_in_child)


def _forget_in_child() -> None:
    global _dump_file
    faulthandler.unregister(STACK_SIGNAL)
    _dump_file = None
