"""The per-process object table behind ray.get / ray.wait / ray.put.

Results are pushed to the caller's connection, so every object a process can wait on lives
in this process's table: call results (filled by the reader thread), ``put`` values and
placement-group ``ready()`` refs. Waiters block on one condition variable that the reader
thread notifies (no polling). An entry is dropped when the last ObjectRef to it is garbage
collected; a result for a dropped entry is ignored.

The refs themselves are in refs.py; a ref sent to another process carries its value
(``value_to_send``).
"""

from __future__ import annotations

import logging
import threading
from typing import Callable, Dict, List, Optional

from ray._beam.api import pickling
from ray._beam.api.refs import ObjectRef
from ray.exceptions import GetTimeoutError, ObjectLostError, RayTaskError

PENDING, READY, FAILED = 0, 1, 2
_NO_VALUE = object()


class _Entry:
    """One object: pending, ready (pickled bytes or a live value) or failed (an exception)."""

    __slots__ = ("state", "data", "value", "error", "callbacks", "refs")

    def __init__(self):
        self.state = PENDING
        self.data: Optional[bytes] = None
        self.value = _NO_VALUE
        self.error: Optional[BaseException] = None
        self.callbacks: List[Callable[["_Entry"], None]] = []
        self.refs = 0

    def load(self):
        """The value, or raise the stored error (a task error as its cause's class)."""
        if self.state == FAILED:
            err = self.error
            raise err.as_instanceof_cause() if isinstance(err, RayTaskError) else err
        if self.value is not _NO_VALUE:
            return self.value
        return pickling.loads(self.data)

    def dumps(self) -> Optional[bytes]:
        if self.state != READY:
            return None
        return self.data if self.data is not None else pickling.dumps(self.value)


class ObjectTable:
    """All objects this process can wait on. Thread rules: every field under ``_cond``."""

    def __init__(self, cond: Optional[threading.Condition] = None):
        # Re-entrant: ObjectRef.__del__ can run (via GC) while this thread holds the lock.
        # A client passes its connection's ``cond`` so results resolved by the reader wake
        # the waiters, and installs the connection's ``wait_for`` (which reads the socket
        # itself while no other thread does, see connection.py).
        self._cond = cond or threading.Condition(threading.RLock())
        # Blocks that neither wait nor notify take the condition's lock itself: the same lock,
        # without the Python-level Condition.__enter__ (a few of these run per call).
        self._mutex = getattr(self._cond, "_lock", self._cond)
        self.wait_for: Callable[..., bool] = self._wait_here
        # The client installs its connection's flush: a future or callback waits outside
        # wait_for, so the calls its object may hang on must not stay held (outbox.py).
        self.flush_writes: Callable[[], None] = lambda: None
        self._entries: Dict[str, _Entry] = {}
        self._closed: Optional[Callable[[], BaseException]] = None
        # Pending entries with callbacks: while there are any, their results must be handled
        # soon even when no thread waits (connection.py, the idle reader's prompt checks).
        # The client installs its connection's wake-up, called on the first such entry.
        self._watched = 0
        self.on_first_watch: Callable[[], None] = lambda: None

    def register(self, oid: str) -> "ObjectRef":
        """Create a pending entry and the first ref to it."""
        with self._mutex:
            entry = self._entries.get(oid)
            if entry is None:
                entry = self._entries[oid] = _Entry()
            entry.refs += 1
        return ObjectRef._counted(oid, self)

    def put_bytes(self, oid: str, data: bytes) -> "ObjectRef":
        ref = self.register(oid)
        self.resolve(oid, data=data)
        return ref

    def resolve(self, oid: str, data: Optional[bytes] = None, value=_NO_VALUE,
                error: Optional[BaseException] = None) -> None:
        """Complete an entry (first completion wins) and run its callbacks outside the lock."""
        with self._mutex:
            entry = self._entries.get(oid)
            if entry is None or entry.state != PENDING:
                return
            if error is not None:
                entry.state, entry.error = FAILED, error
            else:
                entry.state, entry.data, entry.value = READY, data, value
            callbacks, entry.callbacks = entry.callbacks, []
            if callbacks:
                self._watched -= 1
            self._cond.notify_all()
        for cb in callbacks:  # one that fails must not keep the others (drains, futures) from running
            try:
                cb(entry)
            except Exception:  # noqa: BLE001
                logging.getLogger("ray").exception("beam: a completion callback of object %s failed", oid)

    def on_done(self, oid: str, callback: Callable[[_Entry], None]) -> None:
        """Call ``callback(entry)`` once the object completes (now, if it already has)."""
        with self._mutex:
            entry = self._lookup(oid)
            if entry.state == PENDING:
                if not entry.callbacks:
                    self._watched += 1
                    if self._watched == 1:
                        self.on_first_watch()
                entry.callbacks.append(callback)
                return
        callback(entry)

    def watched(self) -> bool:
        """Whether a callback waits for a pending object (under the lock)."""
        return self._watched > 0

    def entry(self, oid: str) -> _Entry:
        with self._mutex:
            return self._lookup(oid)

    def fail_pending(self, make_error: Callable[[], BaseException]) -> None:
        """Fail every pending object (shutdown, or the daemon went away); later ones too."""
        with self._mutex:
            self._closed = make_error
            pending = [oid for oid, e in self._entries.items() if e.state == PENDING]
        for oid in pending:
            self.resolve(oid, error=make_error())

    def get(self, oids: List[str], timeout: Optional[float]) -> list:
        entries = self.wait_entries(oids, len(oids), timeout)
        if entries is None:
            raise GetTimeoutError("Get timed out: some object(s) not ready.")
        return [e.load() for e in entries]

    def wait_entries(self, oids: List[str], num_ready: int, timeout: Optional[float]):
        """Block until ``num_ready`` of the objects are done; None on timeout, else entries."""
        with self._mutex:
            entries = [self._lookup(oid) for oid in oids]
        # How many results must still arrive, as of the last done(): it decides whether the
        # reading thread polls before it sleeps (spin.py), e.g. for the last reply of a broadcast.
        missing = num_ready
        if num_ready == len(entries):  # ray.get: skip what is done once (results come in order)
            cursor = 0

            def done() -> bool:
                nonlocal cursor, missing
                while cursor < len(entries) and entries[cursor].state != PENDING:
                    cursor += 1
                missing = len(entries) - cursor  # at most; later ones may be in already
                return cursor == len(entries)
        else:
            def done() -> bool:
                nonlocal missing
                missing = num_ready - sum(e.state != PENDING for e in entries)
                return missing <= 0
        return entries if self.wait_for(done, timeout, lambda: max(1, missing)) else None

    def _wait_here(self, done: Callable[[], bool], timeout: Optional[float], replies=1) -> bool:
        """Waiting without a connection (a table on its own, in tests)."""
        with self._mutex:
            return self._cond.wait_for(done, timeout)

    def ready_mask(self, oids: List[str], num_ready: int, timeout: Optional[float]) -> List[bool]:
        """For ray.wait: which objects are done after waiting for ``num_ready`` or the timeout."""
        self.wait_entries(oids, num_ready, timeout)
        with self._mutex:
            return [self._lookup(oid).state != PENDING for oid in oids]

    def incref(self, oid: str) -> None:
        with self._mutex:
            entry = self._entries.get(oid)
            if entry is not None:
                entry.refs += 1

    def decref(self, oid: str) -> None:
        with self._mutex:
            entry = self._entries.get(oid)
            if entry is not None:
                entry.refs -= 1
                if entry.refs <= 0 and not entry.callbacks:
                    del self._entries[oid]

    def adopt(self, oid: str, data: Optional[bytes]) -> None:
        """Make an entry for a ref that arrived by pickle (with its value, if it had one)."""
        with self._mutex:
            if oid in self._entries:
                return
            entry = self._entries[oid] = _Entry()
            if data is not None:
                entry.state, entry.data = READY, data
            else:
                entry.state = FAILED
                entry.error = ObjectLostError(
                    oid, None, "The ObjectRef was still pending when it was sent to this "
                    "process; beam cannot fetch objects owned by another process. Pass the "
                    "ref as a top-level argument (it is then resolved by the caller).")

    def value_to_send(self, oid: str) -> Optional[bytes]:
        """The pickled value for a ref sent to another process; None while still pending."""
        entry = self.entry(oid)
        if entry.state == PENDING:  # its result may lie unread in the socket: take it
            self.wait_for(lambda: entry.state != PENDING, 0)
        return entry.dumps()

    def __len__(self):
        with self._mutex:
            return len(self._entries)

    def _lookup(self, oid: str) -> _Entry:
        entry = self._entries.get(oid)
        if entry is None:  # freed or foreign: it can never complete here (not stored)
            entry = _Entry()
            entry.state = FAILED
            entry.error = (self._closed() if self._closed else
                           ObjectLostError(oid, None, "The object is unknown in this process."))
        return entry
