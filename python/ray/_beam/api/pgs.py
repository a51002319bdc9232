"""Placement groups: the PlacementGroup object and Ray's argument checks.

How this process follows a group (its state machine, and ``pg_watch`` for a group made
elsewhere) is written once, in pgtracker.py; ``ready()`` hands out an ObjectRef the tracker
resolves with the PlacementGroup when the group is placed, so it works in ray.get and ray.wait.

A group of our own costs one round trip from create to remove (docs/PERFORMANCE.md,
"Placement groups"): ``pg_create`` is one-way (the id is made here, the arguments were
checked here as Ray checks them, and the daemon's own refusal comes back as ``pg_failed``
to ``ready()``), ``ready()`` resolves from the push, and ``pg_remove`` is one-way and
deferred: written with the next frame or when a wait starts (outbox.py). A group with a
``bundle_label_selector`` is asked for instead, so that a selector the daemon refuses raises
at ``placement_group()`` as Ray's does.
"""

from __future__ import annotations

import warnings
from typing import Dict, List, Optional

from ray._version import RAY as RAY_VERSION
from ray._beam.api import client, ids, process
from ray._beam.api.ids import PlacementGroupID
from ray.exceptions import RaySystemError

# The daemon checks the same (beam.cluster.GroupRules); tests/golden/pg_checks.json binds the two.
VALID_STRATEGIES = {"PACK", "SPREAD", "STRICT_PACK", "STRICT_SPREAD"}
# Ray's warning, for bundles and (options.py) for actors
OBJECT_STORE_MEMORY_DEPRECATED = (
    "Setting 'object_store_memory' for {} is deprecated since it doesn't actually reserve the "
    "required object store memory. Use object spilling that's enabled by default "
    f"(https://docs.ray.io/en/releases-{RAY_VERSION}/ray-core/objects/object-spilling.html) instead "
    "to bypass the object store memory size limitation.")
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
        c = client.ensure()
        ref = c.table.register(ids.new_object_id())
        c.pgs.watch(self, ref.hex())
        return ref

    def wait(self, timeout_seconds: float = 30) -> bool:
        """True if the group is placed within ``timeout_seconds``."""
        ref = self.ready()
        return bool(client.ensure().table.ready_mask([ref.hex()], 1, timeout_seconds)[0])

    def __eq__(self, other):
        return isinstance(other, PlacementGroup) and other.id == self.id

    def __hash__(self):
        return hash(self.id)


PlacementGroup.__module__ = "ray.util.placement_group"


class PlacementGroupSchedulingStrategy:
    """Place the actor in ``placement_group`` (bundle ``placement_group_bundle_index``,
    -1 meaning any bundle); Ray's ``ray.util.scheduling_strategies`` class, kept here beside
    the group so that options.py reads it without importing up into ray.util."""

    def __init__(self, placement_group, placement_group_bundle_index: int = -1,
                 placement_group_capture_child_tasks: Optional[bool] = None):
        self.placement_group = placement_group
        self.placement_group_bundle_index = placement_group_bundle_index
        self.placement_group_capture_child_tasks = placement_group_capture_child_tasks


PlacementGroupSchedulingStrategy.__module__ = "ray.util.scheduling_strategies"


def validate(bundles, strategy: str, lifetime) -> List[Dict[str, float]]:
    """Ray's checks on placement_group() arguments, made before the cluster is touched as Ray
    makes them; returns the bundles with float amounts."""
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
        if "bundle" in bundle:
            raise RaySystemError("bundle is a system reserved resource, which is not allowed "
                                 "to be used in placement group. ")
        if "object_store_memory" in bundle:
            warnings.warn(OBJECT_STORE_MEMORY_DEPRECATED.format("bundles"),
                          DeprecationWarning, stacklevel=2)
        out.append({k: float(v) for k, v in bundle.items()})
    if strategy not in VALID_STRATEGIES:
        raise ValueError(f"Invalid placement group strategy {strategy}. Supported strategies "
                         f"are: {sorted(VALID_STRATEGIES)}.")
    if lifetime not in (None, "detached"):
        raise ValueError("Placement group `lifetime` argument must be either `None` or "
                         f"'detached'. Got {lifetime}.")
    return out


def create(bundles, strategy="PACK", name="", lifetime=None, bundle_label_selector=None,
           **_ignored) -> PlacementGroup:
    specs = validate(bundles, strategy, lifetime)
    if not isinstance(name, str):
        raise TypeError(f"name must be a string, got {type(name)}")
    if bundle_label_selector is not None and not isinstance(bundle_label_selector, list):
        raise ValueError("Placement group bundle_label_selector must be a list, got "
                         f"{type(bundle_label_selector)}.")
    c = client.ensure()
    pg_id = ids.new_pg_id(c.job_id)
    header = {"pg_id": pg_id, "name": name, "strategy": strategy, "bundles": specs, "lifetime": lifetime}
    if bundle_label_selector:
        # the daemon checks the selectors (Ray's syntax rules live there): asked, not sent
        # one-way, so that a bad one raises here as Ray's does
        c.request("pg_create", {**header, "bundle_label_selector": bundle_label_selector})
        c.pgs.created(pg_id)
    else:
        c.pgs.created(pg_id)
        c.conn.send("pg_create", header)
    return PlacementGroup(PlacementGroupID(pg_id), [dict(b) for b in specs])


def remove(pg: PlacementGroup) -> None:
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
    c = client.ensure()
    fields = {"pg_id": pg.id.hex()} if pg is not None else {}
    reply = c.request("pg_table", fields)
    if pg is not None:
        return normalize_entry(reply.get("table") or {})
    return {row[0]: entry_of_row(row, reply["nodes"]) for row in reply["rows"]}


def entry_of_row(row: list, nodes: list) -> dict:
    """Ray's table entry for one compact row of the daemon's pg_table (docs/PROTOCOL.md):
    the same dict placement_group_table(pg) returns for that group."""
    pg_id, name, strategy, state, bundles, bundle_nodes, latency, attempts, waiting, scheduling_state = row
    entry = {
        "placement_group_id": pg_id,
        "name": name,
        "bundles": {i: {k: float(v) for k, v in b.items()} for i, b in enumerate(bundles)},
        "bundles_to_node_id": {i: nodes[n] for i, n in enumerate(bundle_nodes) if n >= 0},
        "strategy": strategy,
        "state": state,
        "stats": {"end_to_end_creation_latency_ms": latency, "scheduling_latency_ms": latency,
                  "scheduling_attempt": attempts, "highest_retry_delay_ms": 0.0,
                  "scheduling_state": scheduling_state},
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
    c = process.current()
    pg_id = (c.actor or {}).get("pg_id") if c is not None else None
    return PlacementGroup(PlacementGroupID(pg_id)) if pg_id else None
