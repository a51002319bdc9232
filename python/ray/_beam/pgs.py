"""Placement groups: the PlacementGroup object, Ray's argument checks, and ready tracking.

State machine of a group as this process sees it: unknown -> ready (``pg_ready`` pushed)
-> removed (``pg_removed`` pushed, or we removed it); unknown -> failed (``pg_failed``: the
daemon refused the group). ``ready()`` hands out an ObjectRef resolved with the
PlacementGroup when the group is placed, so it works in ray.get and ray.wait. The daemon
pushes events to the connection that created a group; for a group made elsewhere (handed
to us, or the actor's own) we subscribe with ``pg_watch`` (the daemon then pushes that
group's events to us too).

A group of our own costs one round trip from create to remove (docs/PERFORMANCE.md,
"Placement groups"): ``pg_create`` is one-way (the id is made here, the arguments were
checked here as Ray checks them, and the daemon's own refusal comes back as ``pg_failed``
to ``ready()``), ``ready()`` resolves from the push, and ``pg_remove`` is one-way and
deferred: written with the next frame or when a wait starts (outbox.py).
"""

from __future__ import annotations

import collections
import logging
import threading
from typing import Dict, List, Optional, Tuple

from ray._beam import ids
from ray._beam.ids import PlacementGroupID
from ray.exceptions import RaySystemError, TaskPlacementGroupRemoved

logger = logging.getLogger("ray")

# Removed groups remembered (a late ready() fails at once); for older ones ready() asks the daemon.
MAX_REMEMBERED_REMOVED = 10_000

VALID_STRATEGIES = {"PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD"}
_EXAMPLE = "For example: `[{'CPU': 1.0}, {'GPU': 1.0}]`."


class PlacementGroup:
    """A handle to a placement group (Ray's ``ray.util.placement_group.PlacementGroup``)."""

    def __init__(self, id: PlacementGroupID, bundle_cache: Optional[List[Dict]] = None):
        self.id = id
        self.bundle_cache = bundle_cache

    @staticmethod
    def empty() -> "PlacementGroup":
        return PlacementGroup(PlacementGroupID("f" * 36))

    @property
    def is_empty(self) -> bool:
        return self.id.is_nil()

    @property
    def bundle_specs(self) -> List[Dict[str, float]]:
        if self.bundle_cache is None:
            entry = table(self)
            bundles = entry.get("bundles", {})
            self.bundle_cache = [bundles[i] for i in sorted(bundles)]
        return self.bundle_cache

    @property
    def bundle_count(self) -> int:
        return len(self.bundle_specs)

    def ready(self):
        """An ObjectRef resolved with this group once it is placed."""
        from ray._beam import client

        c = client.ensure()
        ref = c.table.register(ids.new_object_id())
        c.pgs.watch(self, ref.hex())
        return ref

    def wait(self, timeout_seconds: float = 30) -> bool:
        """True if the group is placed within ``timeout_seconds``."""
        import ray

        ready, _ = ray.wait([self.ready()], timeout=timeout_seconds)
        return len(ready) == 1

    def __eq__(self, other):
        return isinstance(other, PlacementGroup) and other.id == self.id

    def __hash__(self):
        return hash(self.id)


PlacementGroup.__module__ = "ray.util.placement_group"


def validate(bundles, strategy: str, lifetime) -> List[Dict[str, float]]:
    """Ray's checks on placement_group() arguments; returns the bundles with float amounts."""
    if not isinstance(bundles, list):
        raise ValueError(f"Placement group bundles must be a list, got {type(bundles)}.")
    if len(bundles) == 0:
        raise ValueError("Bundles must be a non-empty list of resource dictionaries. "
                         f"{_EXAMPLE} Got empty list instead.")
    out = []
    for bundle in bundles:
        if (not isinstance(bundle, dict)
                or not all(isinstance(k, str) for k in bundle)
                or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                           for v in bundle.values())):
            raise ValueError(f"Bundles must be a non-empty list of resource dictionaries. {_EXAMPLE}")
        if len(bundle) == 0 or all(v == 0 for v in bundle.values()):
            raise ValueError("Bundles cannot be an empty dictionary or resources with only 0 "
                             f"values. Bundles: {bundles}")
        if any(v < 0 for v in bundle.values()):
            raise ValueError(f"Bundle resource amounts must be non-negative. Bundles: {bundles}")
        out.append({k: float(v) for k, v in bundle.items()})
    if strategy not in VALID_STRATEGIES:
        raise ValueError(f"Invalid placement group strategy {strategy}. Supported strategies "
                         f"are: {sorted(VALID_STRATEGIES)}.")
    if lifetime not in (None, "detached"):
        raise ValueError("Placement group `lifetime` argument must be either `None` or "
                         f"'detached'. Got {lifetime}.")
    return out


def create(bundles, strategy="PACK", name="", lifetime=None, **_ignored) -> PlacementGroup:
    from ray._beam import client

    specs = validate(bundles, strategy, lifetime)
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name)}")
    c = client.ensure()
    pg_id = ids.new_pg_id(c.job_id)
    c.pgs.created(pg_id)
    c.conn.send("pg_create", {"pg_id": pg_id, "name": name, "strategy": strategy,
                              "bundles": specs, "lifetime": lifetime})
    return PlacementGroup(PlacementGroupID(pg_id), [dict(b) for b in specs])


def remove(pg: PlacementGroup) -> None:
    from ray._beam import client

    if not isinstance(pg, PlacementGroup):
        raise TypeError(f"remove_placement_group expects a PlacementGroup, got {type(pg)}")
    c = client.ensure()
    pg_id = pg.id.hex()
    own = c.pgs.removing(pg_id)
    if own is None:
        return  # refused at creation or removed already: nothing to remove
    if own:
        c.conn.send_later("pg_remove", {"pg_id": pg_id})
    else:  # made elsewhere: the daemon's answer says whether it exists
        c.request("pg_remove", {"pg_id": pg_id})
    c.pgs.on_removed({"pg_id": pg_id}, b"")


def table(pg: Optional[PlacementGroup] = None) -> dict:
    """Ray's placement_group_table(): one entry for ``pg``, else all keyed by id hex."""
    from ray._beam import client

    c = client.ensure()
    fields = {"pg_id": pg.id.hex()} if pg is not None else {}
    reply = c.request("pg_table", fields)
    if pg is not None:
        return normalize_entry(reply.get("table") or {})
    return {row[0]: entry_of_row(row, reply["nodes"]) for row in reply["rows"]}


_SCHEDULING_STATE = {"PENDING": "NO_RESOURCES", "RESCHEDULING": "NO_RESOURCES", "CREATED": "FINISHED",
                     "REMOVED": "REMOVED"}


def entry_of_row(row: list, nodes: list) -> dict:
    """Ray's table entry for one compact row of the daemon's pg_table (docs/PROTOCOL.md):
    the same dict placement_group_table(pg) returns for that group."""
    pg_id, name, strategy, state, bundles, bundle_nodes, latency, attempts, waiting = row
    entry = {
        "placement_group_id": pg_id,
        "name": name,
        "bundles": {i: {k: float(v) for k, v in b.items()} for i, b in enumerate(bundles)},
        "bundles_to_node_id": {i: nodes[n] for i, n in enumerate(bundle_nodes) if n >= 0},
        "strategy": strategy,
        "state": state,
        "stats": {"end_to_end_creation_latency_ms": latency, "scheduling_latency_ms": latency,
                  "scheduling_attempt": attempts, "highest_retry_delay_ms": 0.0,
                  "scheduling_state": _SCHEDULING_STATE[state]},
    }
    if waiting is not None:
        entry["beam_waiting_reason"] = waiting
    return entry


def normalize_entry(entry: dict) -> dict:
    """Bundle indices as ints and amounts as floats, as Ray's table has them."""
    entry = dict(entry)
    if isinstance(entry.get("bundles"), dict):
        entry["bundles"] = {int(i): {k: float(v) for k, v in b.items()}
                            for i, b in entry["bundles"].items()}
    if isinstance(entry.get("bundles_to_node_id"), dict):
        entry["bundles_to_node_id"] = {int(i): n for i, n in entry["bundles_to_node_id"].items()}
    return entry


def current() -> Optional[PlacementGroup]:
    """The placement group of the actor we run in; None in a driver or outside any group."""
    from ray._beam import client

    c = client.get_client()
    pg_id = (c.actor or {}).get("pg_id") if c is not None else None
    return PlacementGroup(PlacementGroupID(pg_id)) if pg_id else None


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
