"""The write side of one connection: whole frames, in order, with long bursts of calls coalesced.

Each write to the daemon's socket costs the sender a system call and, when the daemon's
reader has gone back to sleep, that reader's wake-up, charged to the sender (about 20 us
per call here: docs/PERFORMANCE.md, "Bursts of calls written together"). A program that
submits calls back to back (10,000 ``.remote()`` then one ``ray.get``) would pay it per
call. So in a *burst* (calls less than ``BURST_GAP_S`` apart, no wait in between) the first
``SEND_FIRST`` calls are written at once, which leaves a broadcast to a few actors as it was,
and later ones are held back and written together. Per connection:

    SENDING --a call among its burst's first SEND_FIRST, or any other frame: written--> SENDING
    SENDING --a later call of the burst: held-------------------------------------> HOLDING
    HOLDING --a call: held; at MAX_HELD_FRAMES or MAX_HELD_BYTES all written------> HOLDING/SENDING
    HOLDING --any other frame, a call after a gap, a wait starts, flush(): written-> SENDING
    HOLDING --the flusher's next tick (every FLUSH_PERIOD_S): written--------------> SENDING
    any     --a deferred frame (``defer``: nothing waits for it): held-------------> HOLDING

A wait (``ray.get``, ``ray.wait``, a request's reply, a worker's next call, a ref's future or
callback) ends the burst, so a sync call loop holds nothing back. Frames always leave in the
order they were given, held or not. The flusher thread starts at the first held frame and
ticks while frames were held in the last ``IDLE_AFTER_S``, then sleeps until the next hold:
a held call leaves within about FLUSH_PERIOD_S even if the program never waits (plus, while
another thread runs Python, up to the interpreter's switch interval).
"""

from __future__ import annotations

import os
import socket
import threading
import time
from typing import Callable, List, Optional

BURST_GAP_S = 0.0005
SEND_FIRST = 8  # the first calls of a burst go out at once: a broadcast to a few actors is not held
MAX_HELD_FRAMES = 32
MAX_HELD_BYTES = 256 * 1024
FLUSH_PERIOD_S = 0.002
IDLE_AFTER_S = 0.05
COALESCE_BYTES = 64 * 1024  # payloads up to this are copied behind the header and sent at once
_NO_BURST = float("-inf")

# Outboxes made before a fork belong to the parent: a forked child must never write the
# parent's held calls on the shared socket, nor wait on a lock the parent held at the fork.
_generation = 0


def _after_fork_in_child() -> None:
    global _generation
    _generation += 1


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)


class Outbox:
    """``write`` a frame now; ``call`` a call frame, held when it continues a burst; ``flush``."""

    def __init__(self, sock: socket.socket, on_error: Callable[[OSError], BaseException]):
        self._sock = sock
        self._on_error = on_error  # the write failed: fail the connection, return what to raise
        self._lock = threading.Lock()  # held while writing: frames leave whole and in order
        self._tick = threading.Condition(self._lock)  # the idle flusher waits here for a hold
        self._held: List[bytes] = []
        self._held_bytes = 0
        self._last_call = _NO_BURST  # when the last call was given; _NO_BURST after a wait
        self._burst_len = 0  # calls in the current burst so far
        self._last_hold = 0.0
        self._flusher: Optional[threading.Thread] = None
        self._flusher_ticking = False
        self._closed = False
        self._generation = _generation

    def write(self, head: bytes, body: bytes = b"") -> None:
        """Write one frame now, after whatever is held."""
        self._check_owner()
        try:
            with self._lock:
                self._send(head, body)
        except OSError as e:
            raise self._on_error(e) from None

    def defer(self, head: bytes, body: bytes = b"") -> None:
        """A frame nothing waits for (``remove_placement_group``): held, and written with the
        next frame, when a wait starts, or at the flusher's next tick, whichever comes first."""
        self._check_owner()
        try:
            with self._lock:
                self._hold(head + body, time.monotonic())
        except OSError as e:
            raise self._on_error(e) from None

    def call(self, head: bytes, body: bytes) -> None:
        """A call frame: held if it continues a burst (the module doc), else written now."""
        self._check_owner()
        now = time.monotonic()
        try:
            with self._lock:
                if len(body) > COALESCE_BYTES:  # a big call is never held
                    self._last_call = now
                    self._send(head, body)
                    return
                if now - self._last_call < BURST_GAP_S:
                    self._burst_len += 1
                else:
                    self._burst_len = 1
                self._last_call = now
                if self._burst_len <= SEND_FIRST:
                    self._send(head, body)
                else:
                    self._hold(head + body, now)
        except OSError as e:
            raise self._on_error(e) from None

    def flush(self, timeout: Optional[float] = None) -> None:
        """Write what is held and end the burst (a wait is about to start). With ``timeout``,
        gives up silently if the write lock stays taken that long (``ray.shutdown()`` from a
        signal handler that interrupted a write on this very thread)."""
        if self._generation != _generation:
            return  # a forked child: the parent's calls are not ours to send
        if not self._lock.acquire(timeout=-1 if timeout is None else timeout):
            return
        try:
            self._last_call = _NO_BURST
            if self._held:
                self._send()
        except OSError as e:
            raise self._on_error(e) from None
        finally:
            self._lock.release()

    def close(self) -> None:
        """Stop the flusher; frames still held are dropped (the connection is gone)."""
        with self._lock:
            self._closed = True
            self._clear_held()
            self._tick.notify_all()

    def _check_owner(self) -> None:
        if self._generation != _generation:
            raise ConnectionError("this connection to the beam daemon belongs to the process that "
                                  "forked this one; call ray.init() in the child")

    # -- under _lock -------------------------------------------------------------------------

    def _hold(self, frame: bytes, now: float) -> None:
        self._held.append(frame)
        self._held_bytes += len(frame)
        self._last_hold = now
        if len(self._held) >= MAX_HELD_FRAMES or self._held_bytes >= MAX_HELD_BYTES:
            self._send()
        elif not self._flusher_ticking:
            self._start_ticking()

    def _send(self, head: bytes = b"", body: bytes = b"") -> None:
        """Write the held frames, then ``head`` and ``body``; the held ones are cleared only once
        written (an error mid-way keeps them). Raises OSError; the public methods turn it into
        the connection's failure outside the lock."""
        if body and len(body) <= COALESCE_BYTES:  # one syscall for the common small frame
            head, body = head + body, b""
        held = self._held
        if held:
            head = b"".join(held) + head
        self._sock.sendall(head)
        if body:
            self._sock.sendall(body)
        if held:
            self._clear_held()

    def _clear_held(self) -> None:
        self._held.clear()
        self._held_bytes = 0

    def _start_ticking(self) -> None:
        self._flusher_ticking = True
        if self._flusher is None:
            self._flusher = threading.Thread(target=self._flush_loop, name="beam-flusher", daemon=True)
            self._flusher.start()
        else:
            self._tick.notify()

    # -- the flusher thread -------------------------------------------------------------------

    def _flush_loop(self) -> None:
        while True:
            with self._lock:
                while not self._flusher_ticking and not self._closed:
                    self._tick.wait()
                if self._closed:
                    return
            time.sleep(FLUSH_PERIOD_S)
            try:
                with self._lock:
                    if self._closed:
                        return
                    if self._held:
                        self._send()
                    if time.monotonic() - self._last_hold > IDLE_AFTER_S:
                        self._flusher_ticking = False
            except OSError as e:
                self._on_error(e)  # fails the connection: every waiter and pending object hears of it
                return
