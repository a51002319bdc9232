"""Per-actor submission queues: resolve top-level ObjectRef arguments before sending.

As Ray's owner does, the caller replaces every top-level ObjectRef argument by its value
before a call leaves the process. If all are ready the call is sent at once. Otherwise it
waits in this actor's queue, and every later call to the same actor queues behind it so
calls stay in order; the queue drains from the result callback (on the reader thread),
which only pickles and writes, never waits. A failed dependency fails the call with the
dependency's error, as in Ray.

Thread rules: ``_lock`` guards ``_queues`` and is held while a call is written so that a
drain and a direct send cannot overtake each other. It is re-entrant: a call whose write
fails is failed on the spot, which runs, on the same thread, the callbacks of calls waiting
for its result, and those drain their own queues. Lock order: ``_lock`` then the object
table's lock (never the reverse: table callbacks run after the table lock is released).
"""

from __future__ import annotations

import threading
from collections import deque
from typing import Deque, Dict, List


from ray._beam.wire import framing
from ray._beam.api import pickling
from ray._beam.api import ids
from ray._beam.wire.connection import Connection
from ray._beam.api.objects import FAILED, PENDING, ObjectRef, ObjectTable
from ray.exceptions import ActorDiedError


class _Call:
    __slots__ = ("actor_id", "method", "oid", "args", "kwargs", "deps", "label")

    def __init__(self, actor_id, method, oid, args, kwargs, deps):
        self.actor_id, self.method, self.oid = actor_id, method, oid
        self.args, self.kwargs, self.deps = args, kwargs, deps
        self.label = framing.call_label(args)


def top_level_refs(args, kwargs) -> List[ObjectRef]:
    return [a for a in (*args, *kwargs.values()) if isinstance(a, ObjectRef)]


class Submitter:
    """Sends ``call`` frames in order per actor, after their arguments are ready."""

    def __init__(self, conn: Connection, table: ObjectTable):
        self._conn = conn
        self._table = table
        self._lock = threading.RLock()  # re-entrant: see the module doc
        self._queues: Dict[str, Deque[_Call]] = {}

    def submit(self, actor_id: str, method: str, args: tuple, kwargs: dict) -> ObjectRef:
        """Return the result's ref at once; send now or queue until the arguments resolve."""
        oid = ids.new_object_id()
        ref = self._table.register(oid)
        deps = top_level_refs(args, kwargs)
        if not deps:  # the common call: nothing to resolve first
            with self._lock:
                if not self._queues.get(actor_id):  # else it queues behind earlier calls
                    self._send(actor_id, method, oid, _pickle_args(method, args, kwargs), framing.call_label(args))
                    return ref
        call = _Call(actor_id, method, oid, args, kwargs, [d.hex() for d in deps])
        with self._lock:
            queue = self._queues.get(actor_id)
            blocked = any(self._table.entry(d).state == PENDING for d in call.deps)
            if not queue and not blocked:
                failed = next((e for e in map(self._table.entry, call.deps)
                               if e.state == FAILED), None)
                if failed is not None:
                    self._table.resolve(oid, error=failed.error)
                    return ref
                payload = self._payload(call)  # raises on unpicklable args, as Ray does
                self._send(call.actor_id, call.method, call.oid, payload, call.label)
                return ref
            self._queues.setdefault(actor_id, deque()).append(call)
        for dep in call.deps:
            self._table.on_done(dep, lambda _entry, a=actor_id: self._drain(a))
        return ref

    def _drain(self, actor_id: str) -> None:
        with self._lock:
            queue = self._queues.get(actor_id)
            while queue:
                call = queue[0]
                entries = [self._table.entry(d) for d in call.deps]
                if any(e.state == PENDING for e in entries):
                    break
                queue.popleft()
                failed = next((e for e in entries if e.state == FAILED), None)
                if failed is not None:
                    self._table.resolve(call.oid, error=failed.error)
                    continue
                try:
                    payload = self._payload(call)
                except Exception as e:  # noqa: BLE001 - becomes the call's result
                    self._table.resolve(call.oid, error=e)
                    continue
                self._send(call.actor_id, call.method, call.oid, payload, call.label)
            # A drain re-entered from a callback above may have emptied and removed this
            # queue already, or a callback may have started a new one: remove only ours.
            if queue is not None and not queue and self._queues.get(actor_id) is queue:
                del self._queues[actor_id]

    def _payload(self, call: _Call) -> bytes:
        def value(a):
            return self._table.entry(a.hex()).load() if isinstance(a, ObjectRef) else a

        args = tuple(value(a) for a in call.args)
        kwargs = {k: value(v) for k, v in call.kwargs.items()}
        call.args = call.kwargs = None  # drop the refs (and values) we no longer need
        return _pickle_args(call.method, args, kwargs)

    def _send(self, actor_id: str, method: str, oid: str, payload: bytes, label=None) -> None:
        try:
            self._conn.send_call(framing.call_head(actor_id, method, oid, len(payload), label), payload)
        except ConnectionError as e:
            self._table.resolve(oid, error=ActorDiedError(
                f"{ActorDiedError.BASE_ERROR_MSG}\nThe actor is unreachable because {e}."))


def _pickle_args(method: str, args: tuple, kwargs: dict) -> bytes:
    try:
        return pickling.dumps_call_args(args, kwargs)
    except Exception as e:  # noqa: BLE001 - any pickling failure: say which call
        raise TypeError(
            f"Could not serialize the arguments of the actor method '{method}': {e}. "
            f"Arguments are sent with cloudpickle; pass picklable values (locks, sockets, "
            f"open files and generators are not).") from e
