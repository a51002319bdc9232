"""The read role of a connection: who reads its socket, and when.

Reading follows a leader/follower pattern, so a reply reaches the thread that waits for it
without a hand-off between threads (each hand-off costs a wake-up, tens of microseconds):

- A thread that waits (a request's reply, ``ray.get``, a worker's next call) calls
  ``wait_for(done)``. If no thread holds the *read role*, it takes it, reads the socket
  itself and dispatches every frame that arrives, until ``done()`` holds; then it gives the
  role back. Otherwise it sleeps on ``cond`` until the reader's dispatch or the role's
  release wakes it.
- The *idle reader* thread reads only while no thread waits: it checks whether that is so,
  then polls the socket without the role, and takes the role for what has arrived. It keeps
  pushes flowing while the program does something else. How often it checks depends on who
  needs those pushes:
  - *prompt*, while a callback or future waits for an object (``prompt_pushes()``, which the
    client points at its object table): every IDLE_RECHECK_S, so such a push is handled
    within that once the last waiter has left. While one wait goes on (no waiter left since
    the last check: a driver in a long ``ray.get``) the checks back off, doubling up to
    IDLE_RECHECK_MAX_S, and the waiter that leaves such a wait wakes the idle reader itself.
  - *slow*, otherwise: every IDLE_RECHECK_MAX_S. What then arrives while nobody waits (logs,
    warnings, results nobody asked for yet) can wait that long; a waiter dispatches it
    anyway. A program that waits call after call (a broadcast loop, a worker between calls)
    then does not wake its idle reader 200 times a second (docs/PERFORMANCE.md, "Sleeping in
    poll, not in recv").
  Registering the first callback on a pending object wakes the idle reader
  (``pushes_now_prompt``), so it turns prompt at once.

``ReadRole`` is Connection's base class and holds the role's state and rules; the
connection supplies the reading itself (``_read_some``), its socket, outbox and closing.
"""

from __future__ import annotations

import logging
import select
import threading
import time
from typing import Callable, Optional, Union

logger = logging.getLogger("ray")

# How soon the idle reader takes over once the last waiter has left, while a callback or
# future waits for a push. Waking it on every leave would cost two extra thread wake-ups per sync
# call (leave, then the next reply's poll).
IDLE_RECHECK_S = 0.005
IDLE_RECHECK_MAX_S = 0.2  # the check's period otherwise, and while one wait goes on


class ReadRole:
    """Leader/follower reading (the module doc). Thread rules: every field under ``_mutex``."""

    def _init_read_role(self, lock: threading.RLock) -> None:
        self._mutex = lock  # `with` on the lock itself where nothing waits or notifies: no Python-level __enter__
        self.cond = threading.Condition(lock)  # waiters sleep here; dispatch and the role's release wake them
        self._idle = threading.Condition(lock)  # the idle reader sleeps here while anyone waits
        self._reading = False  # a thread holds the read role
        self._waiting = 0  # threads inside wait_for
        self._leaves = 0  # waits ended so far: unchanged between two checks means one long wait
        self._idle_backed_off = False  # the idle reader checks less often; the next leave wakes it
        # Whether something waits for a push outside wait_for, so that the idle reader must
        # check often (the module doc); called under the lock. The client installs its
        # object table's answer.
        self.prompt_pushes: Callable[[], bool] = lambda: False

    def wait_for(self, done: Callable[[], bool], timeout: Optional[float] = None,
                 replies: Union[int, Callable[[], int]] = 1) -> bool:
        """Block until ``done()`` (called under ``cond``) is true; False if ``timeout`` passed.
        ``replies``: how many frames must still arrive for that (or a function that says so
        after each ``done()``), which decides whether to poll before sleeping (spin.py).

        Reads and dispatches frames itself while no other thread holds the read role (the
        module doc). Once the link is closed it only waits: closing fails every pending
        reply and object, which makes ``done()`` true for those. When the time is up it
        still takes what has arrived, if it can take the role, before it gives up: so
        ``ray.wait(refs, timeout=0)`` in a loop sees results as they come, without relying
        on the idle reader.
        """
        deadline = None if timeout is None else time.monotonic() + timeout
        looked = False  # whether it has read without blocking since the time was up
        try:
            self._outbox.flush()  # what we wait for may hang on calls still held back
        except ConnectionError:
            pass  # the link failed: done() learns it from the failed objects and replies
        cond, mutex = self.cond, self._mutex
        with mutex:
            self._waiting += 1
        try:
            while True:
                with mutex:
                    while True:
                        if done():
                            return True
                        remaining = None if deadline is None else deadline - time.monotonic()
                        expired = remaining is not None and remaining <= 0
                        if not self._reading and self._closed is None and not (expired and looked):
                            self._reading = True
                            looked = expired
                            break
                        if expired:
                            return False
                        cond.wait(remaining)
                try:
                    self._read_some(remaining, block=not looked,
                                    replies=replies() if callable(replies) else replies)
                finally:
                    with mutex:
                        self._reading = False
                        if self._waiting > 1:  # another waiter may need the role or what we read
                            cond.notify_all()
        finally:
            with mutex:
                self._leave()

    def pushes_now_prompt(self) -> None:
        """Something has begun to wait for a push outside wait_for (``prompt_pushes()`` now
        holds): wake the idle reader, which may be in a slow check, to check promptly."""
        with self._mutex:
            self._idle.notify()

    def _leave(self) -> None:
        """One waiter fewer (under ``cond``). The idle reader is not woken: it looks again
        within its check period, so a program that waits call after call never wakes it;
        unless it is prompt and has backed off (a long wait ends), then it is woken here."""
        self._waiting -= 1
        self._leaves += 1
        if self._waiting == 0 and self._idle_backed_off:
            self._idle_backed_off = False
            self._idle.notify()

    def _idle_loop(self) -> None:
        """Read while nobody waits (the module doc); exits once the link is closed."""
        poller = select.poll()
        poller.register(self._sock.fileno(), select.POLLIN)
        while True:
            with self._idle:
                period, seen = IDLE_RECHECK_S, self._leaves
                while (self._waiting or self._reading) and self._closed is None:
                    if not self.prompt_pushes():  # slow: a waiter dispatches what comes
                        self._idle_backed_off = False
                        self._idle.wait(IDLE_RECHECK_MAX_S)
                        period, seen = IDLE_RECHECK_S, self._leaves
                        continue
                    self._idle_backed_off = period > IDLE_RECHECK_S
                    self._idle.wait(period)
                    if self._leaves == seen:  # the same wait goes on: look less often
                        period = min(2 * period, IDLE_RECHECK_MAX_S)
                    else:
                        period, seen = IDLE_RECHECK_S, self._leaves
                self._idle_backed_off = False
                if self._closed is not None:
                    return
            try:
                poller.poll()  # without the role: a waiter that comes now reads for itself
            except OSError:
                pass
            with self._idle:
                if self._waiting or self._reading or self._closed is not None:
                    continue
                self._reading = True
            try:
                self._read_some(block=False)
            except Exception:  # a bug in a handler is logged in _dispatch; this is a bug here
                logger.exception("beam: idle reader failed")
                self._fail(self._gone("reader thread failed"))
            finally:
                with self._idle:
                    self._reading = False
                    if self._waiting:
                        self.cond.notify_all()
