"""What this process knows of placement groups' progress, fed by the daemon's pushes.

State machine of a group as this process sees it: unknown -> ready (``pg_ready`` pushed)
-> removed (``pg_removed`` pushed, or we removed it). ``PlacementGroup.ready()`` registers
its ObjectRef here and the tracker resolves it. The daemon pushes events to the connection
that created a group; for a group made elsewhere (handed to us, or the actor's own) the
tracker subscribes with ``pg_watch``, and the daemon then pushes that group's events to us too.
"""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Dict, List, Tuple

from ray.exceptions import RaySystemError, TaskPlacementGroupRemoved

if TYPE_CHECKING:
    from ray._beam.api.pgs import PlacementGroup

logger = logging.getLogger("ray")


class PgTracker:
    """Resolves ready() refs from pushes. Thread rules: ``_lock`` guards the dicts."""

    def __init__(self, client):
        self._client = client
        self._lock = threading.Lock()
        self._state: Dict[str, str] = {}  # pg id -> "ready" | "removed"
        self._own: set = set()
        self._waiters: Dict[str, List[Tuple[str, PlacementGroup]]] = {}

    def created(self, pg_id: str) -> None:
        with self._lock:
            self._own.add(pg_id)

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
        elif foreign:
            self._watch_foreign(pg_id)

    def on_ready(self, header: dict, _payload: bytes = b"") -> None:
        for oid, pg in self._settle(header.get("pg_id"), "ready"):
            self._client.table.resolve(oid, value=pg)

    def on_removed(self, header: dict, _payload: bytes = b"") -> None:
        for oid, _pg in self._settle(header.get("pg_id"), "removed"):
            self._client.table.resolve(oid, error=TaskPlacementGroupRemoved())

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
            if self._state.get(pg_id) == "removed":
                state = "removed"
            self._state[pg_id] = state
            return self._waiters.pop(pg_id, [])

    def _watch_foreign(self, pg_id: str) -> None:
        """Subscribe to a group made elsewhere (``pg_watch``): the daemon then pushes its
        events to this connection too (at once if the group is already placed or removed)."""
        try:
            self._client.request("pg_watch", {"pg_id": pg_id})
        except ValueError:
            self.on_removed({"pg_id": pg_id})  # no such group
        except ConnectionError:
            pass  # fail_all runs when the link drops
