"""What this process knows of placement groups' progress, fed by the daemon's pushes.

State machine of a group as this process sees it: unknown -> ready (``pg_ready`` pushed)
-> removed (``pg_removed`` pushed, or we removed it); unknown -> failed (``pg_failed``: the
daemon refused a group we created one-way). ``PlacementGroup.ready()`` registers
its ObjectRef here and the tracker resolves it. The daemon pushes events to the connection
that created a group; for a group made elsewhere (handed to us, or the actor's own) the
tracker subscribes with ``pg_watch``, and the daemon then pushes that group's events to us too.
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import TYPE_CHECKING, Dict, List, Optional, Tuple

from ray.exceptions import RaySystemError, TaskPlacementGroupRemoved

if TYPE_CHECKING:  # the groups' handles; pgs.py sits above this tracker (it asks the client)
    from ray._beam.api.pgs import PlacementGroup

logger = logging.getLogger("ray")

# Removed groups remembered (a late ready() fails at once); for older ones ready() asks the daemon.
MAX_REMEMBERED_REMOVED = 10_000


class PgTracker:
    """Resolves ready() refs from pushes. Thread rules: ``_lock`` guards the dicts."""

    def __init__(self, client):
        self._client = client
        self._lock = threading.Lock()
        self._state: Dict[str, str] = {}  # pg id -> "ready" | "removed" | "failed"
        self._failures: Dict[str, str] = {}  # pg id -> the daemon's reason (state "failed")
        self._removed = collections.deque()  # ids in state "removed"/"failed", oldest first
        self._own: set = set()  # created here and not removed yet
        self._waiters: Dict[str, List[Tuple[str, PlacementGroup]]] = {}

    def created(self, pg_id: str) -> None:
        with self._lock:
            self._own.add(pg_id)

    def removing(self, pg_id: str) -> Optional[bool]:
        """True if the group is ours (no answer needed), False if made elsewhere, None if gone."""
        with self._lock:
            if self._state.get(pg_id) in ("removed", "failed"):
                return None
            return pg_id in self._own

    def watch(self, pg: PlacementGroup, oid: str) -> None:
        pg_id = pg.id.hex()
        with self._lock:
            state = self._state.get(pg_id)
            if state is None:
                self._waiters.setdefault(pg_id, []).append((oid, pg))
                foreign = pg_id not in self._own
        if state == "ready":
            self._client.table.resolve(oid, value=pg)
        elif state == "removed":
            self._client.table.resolve(oid, error=TaskPlacementGroupRemoved())
        elif state == "failed":
            self._client.table.resolve(oid, error=self._failure(pg_id))
        elif foreign:
            self._watch_foreign(pg_id)

    def on_ready(self, header: dict, _payload: bytes = b"") -> None:
        for oid, pg in self._settle(header.get("pg_id"), "ready"):
            self._client.table.resolve(oid, value=pg)

    def on_removed(self, header: dict, _payload: bytes = b"") -> None:
        for oid, _pg in self._settle(header.get("pg_id"), "removed"):
            self._client.table.resolve(oid, error=TaskPlacementGroupRemoved())

    def on_failed(self, header: dict, _payload: bytes = b"") -> None:
        """The daemon refused a group we created one-way: its ready() raises the reason."""
        pg_id, reason = header.get("pg_id"), header.get("message") or "no reason given"
        logger.error("placement group %s was refused by the beam daemon: %s", pg_id, reason)
        with self._lock:
            self._failures[pg_id] = reason
        for oid, _pg in self._settle(pg_id, "failed"):
            self._client.table.resolve(oid, error=self._failure(pg_id))

    def _failure(self, pg_id: str) -> Exception:
        reason = self._failures.get(pg_id, "")  # one dict read: atomic
        return ValueError(f"placement group {pg_id} was refused by the beam daemon: {reason}")

    def on_waiting(self, header: dict, _payload: bytes = b"") -> None:
        message = header.get("message") or f"Placement group {header.get('pg_id')} is not placed yet."
        logger.warning("%s", message)

    def fail_all(self, message: str) -> None:
        with self._lock:
            waiters = [w for ws in self._waiters.values() for w in ws]
            self._waiters.clear()
        for oid, _pg in waiters:
            self._client.table.resolve(oid, error=RaySystemError(message))

    def _settle(self, pg_id: str, state: str):
        with self._lock:
            old = self._state.get(pg_id)
            if old in ("removed", "failed"):
                return self._waiters.pop(pg_id, [])  # final states stay
            self._state[pg_id] = state
            if state != "ready":
                self._own.discard(pg_id)
                self._removed.append(pg_id)
                while len(self._removed) > MAX_REMEMBERED_REMOVED:
                    gone = self._removed.popleft()
                    self._state.pop(gone, None)
                    self._failures.pop(gone, None)
            return self._waiters.pop(pg_id, [])

    def _watch_foreign(self, pg_id: str) -> None:
        """Subscribe to a group made elsewhere (``pg_watch``)."""
        try:
            self._client.request("pg_watch", {"pg_id": pg_id})
        except ValueError:
            self.on_removed({"pg_id": pg_id})  # no such group (or removed long ago)
        except ConnectionError:
            pass  # fail_all runs when the link drops
