"""How long a waiting thread polls its socket before it sleeps (adaptive spinning).

On a virtual machine a thread that sleeps in ``recv`` and is woken by the kernel costs
20-40 microseconds more than one that is already running and finds the bytes there
(docs/PERFORMANCE.md, "Spinning before sleeping"). A sync call that waits for its reply is
usually answered within a few hundred microseconds, so the waiting thread first polls the
socket without blocking for up to ``budget`` seconds and only then sleeps.

Polling burns a core, so it is only worth it while waits are short. (It yields the core
between two looks, so a thread that waits for a core on the same one, such as the worker
computing the reply, runs first; see Connection._poll.) ``window()`` is asked
before each receive that would sleep (one or more per wait) how long to poll first;
``record()`` is told whether that poll found bytes. The policy keeps a moving average of the
hit rate (each poll weighs 1/8); while it is at least ``MIN_HIT_RATE`` the thread polls before
every such receive, below that it sleeps at once and polls again only on every
``PROBE_EVERY``-th one, to notice when replies have become quick. So a process whose replies
take milliseconds (a model step) polls about once in 16 waits, while one in a tight call loop
polls on every wait, even when a few replies come late.

While more replies than ``max_replies`` are missing (max(1, cores - 2): one core for the
daemon, one for the poller; cores as this process may use them, affinity and cgroup quota)
it never polls: the workers computing those replies need the cores, and on 2 cores a driver
polling through a broadcast to 4 actors slowed it (bench/ab_calls.py).
"""

from __future__ import annotations

import os

DEFAULT_BUDGET_US = 300.0
MIN_HIT_RATE = 0.25
WEIGHT = 1.0 / 8
PROBE_EVERY = 16

def budget_from_env(name: str = "BEAM_SPIN_US", default: float = DEFAULT_BUDGET_US) -> float:
    """The polling budget in seconds from the environment (microseconds; 0 turns it off)."""
    raw = os.environ.get(name, "")
    try:
        return max(0.0, float(raw)) * 1e-6 if raw.strip() else default * 1e-6
    except ValueError:
        raise ValueError(f"{name}={raw!r} is not a number of microseconds; set it to e.g. "
                         f"{int(default)}, or 0 to turn polling off") from None


def _cores() -> int:
    """CPUs this process may use: its affinity, capped by a cgroup v2 quota (a container)."""
    try:
        cores = len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        cores = os.cpu_count() or 1
    try:
        with open("/sys/fs/cgroup/cpu.max") as f:
            quota, period = f.read().split()[:2]
        if quota != "max":
            cores = min(cores, max(1, -(-int(quota) // int(period))))
    except (OSError, ValueError):
        pass
    return cores


class SpinPolicy:
    """The per-connection predictor. Used only by the thread that holds the read role."""

    __slots__ = ("budget", "max_replies", "hit_rate", "skipped")

    def __init__(self, budget: float, max_replies: int | None = None):
        self.budget = budget
        self.max_replies = max_replies if max_replies is not None else max(1, _cores() - 2)
        self.hit_rate = 1.0
        self.skipped = 0

    def window(self, replies: int = 1) -> float:
        """Seconds to poll before sleeping on a wait for ``replies`` replies (0: sleep at once)."""
        if self.budget <= 0.0 or replies > self.max_replies:
            return 0.0
        if self.hit_rate >= MIN_HIT_RATE:
            return self.budget
        self.skipped += 1
        if self.skipped >= PROBE_EVERY:
            self.skipped = 0
            return self.budget
        return 0.0

    def record(self, hit: bool) -> None:
        """The poll that ``window()`` allowed found bytes (hit) or ran out (miss)."""
        self.hit_rate += WEIGHT * ((1.0 if hit else 0.0) - self.hit_rate)
