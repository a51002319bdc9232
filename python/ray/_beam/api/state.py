"""Cluster state in Ray's shapes, from the daemon's ``cluster_state`` reply.

``ray.nodes()``, ``cluster_resources()``, ``available_resources()``, the per-node maps in
``ray._private.state`` and ``ray.util.state.list_nodes()`` are all views of one reply.
Resource amounts are floats, as in Ray.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Dict, List, Optional

from ray._beam.api import client


def _floats(resources: Optional[dict]) -> Dict[str, float]:
    return {k: float(v) for k, v in (resources or {}).items()}


def cluster_state() -> dict:
    return client.ensure().request("cluster_state", {})


def nodes() -> List[dict]:
    """Ray's node dicts: the keys the daemon names as Ray's (``ray_node_keys``), extras dropped."""
    state = cluster_state()
    keys = state.get("ray_node_keys") or []
    out = []
    for node in state.get("nodes") or []:
        node = dict(node, Resources=_floats(node.get("Resources")))
        out.append({k: node[k] for k in keys if k in node})
    return out


def cluster_resources() -> Dict[str, float]:
    return _floats(cluster_state().get("total"))


def available_resources() -> Dict[str, float]:
    return _floats(cluster_state().get("available"))


def available_resources_per_node() -> Dict[str, Dict[str, float]]:
    """Each live node's free resources, its placement groups' bundle resources among them (as Ray's)."""
    return {n["NodeID"]: _floats({**(n.get("Available") or {}), **(n.get("BeamBundleAvailable") or {})})
            for n in cluster_state().get("nodes") or [] if n.get("Alive", True)}


def total_resources_per_node() -> Dict[str, Dict[str, float]]:
    return {n["NodeID"]: _floats({**(n.get("Resources") or {}), **(n.get("BeamBundleResources") or {})})
            for n in cluster_state().get("nodes") or [] if n.get("Alive", True)}


@dataclass
class NodeState:
    """One row of ``ray.util.state.list_nodes()``."""

    node_id: str
    node_ip: str
    is_head_node: bool
    state: str
    state_message: Optional[str] = None
    node_name: str = ""
    resources_total: Dict[str, float] = field(default_factory=dict)
    resources_available: Dict[str, float] = field(default_factory=dict)
    labels: Dict[str, str] = field(default_factory=dict)
    start_time_ms: Optional[int] = None
    end_time_ms: Optional[int] = None

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def asdict(self) -> dict:
        return asdict(self)


class StateRow(dict):
    """One row of ``list_actors()``/``list_placement_groups()``/``list_tasks()``: Ray's field
    names, read as ``row.state`` or ``row["state"]`` as Ray's state dataclasses are."""

    def __getattr__(self, key):
        try:
            return self[key]
        except KeyError:
            raise AttributeError(key) from None

    def asdict(self) -> dict:
        return dict(self)


def _query(table: str, filters, limit: int, detail: bool, id: Optional[str] = None) -> dict:
    """The daemon's answer to one state query: it filters and limits, and names bad input."""
    fields = {"table": table, "filters": [list(f) for f in filters or []], "limit": int(limit), "detail": bool(detail)}
    if id is not None:
        fields["id"] = str(id)
    return client.ensure().request("state_list", fields)


def _listed(table: str, filters, limit: int, detail: bool, raise_on_missing_output: bool) -> List[dict]:
    for f in filters or []:
        if len(f) != 3:
            raise ValueError(f"A filter is (key, predicate, value), got {f!r}.")
        if f[1] not in ("=", "!="):
            raise ValueError(f"Unsupported filter predicate {f[1]} is given. Available predicates: =, !=.")
    return _query(table, filters, limit, detail).get("result") or []


def _node(row: dict) -> NodeState:
    return NodeState(**{k: row.get(k) for k in NodeState.__dataclass_fields__ if k in row
                        and not (k in ("resources_total", "labels") and row.get(k) is None)})


def list_nodes(address=None, filters=None, limit: int = 100, timeout: int = 30,
               detail: bool = False, raise_on_missing_output: bool = True,
               _explain: bool = False) -> List[NodeState]:
    rows = _listed("nodes", filters, limit, True, raise_on_missing_output)
    for r in rows:
        r["resources_total"] = _floats(r.get("resources_total"))
        r["resources_available"] = _floats(r.get("resources_available"))
    return [_node(r) for r in rows]


def list_actors(address=None, filters=None, limit: int = 100, timeout: int = 30,
                detail: bool = False, raise_on_missing_output: bool = True,
                _explain: bool = False) -> List[StateRow]:
    return [StateRow(r) for r in _listed("actors", filters, limit, detail, raise_on_missing_output)]


def list_placement_groups(address=None, filters=None, limit: int = 100, timeout: int = 30,
                          detail: bool = False, raise_on_missing_output: bool = True,
                          _explain: bool = False) -> List[StateRow]:
    return [StateRow(r) for r in _listed("placement_groups", filters, limit, detail, raise_on_missing_output)]


def list_tasks(address=None, filters=None, limit: int = 100, timeout: int = 30,
               detail: bool = False, raise_on_missing_output: bool = True,
               _explain: bool = False) -> List[StateRow]:
    return [StateRow(r) for r in _listed("tasks", filters, limit, detail, raise_on_missing_output)]


def _get(table: str, id: str) -> Optional[dict]:
    rows = _query(table, None, 1, True, id=id).get("result") or []
    return rows[0] if rows else None


def get_actor(id: str, address=None, timeout: int = 30, _explain: bool = False) -> Optional[StateRow]:
    row = _get("actors", id)
    return StateRow(row) if row is not None else None


def get_placement_group(id: str, address=None, timeout: int = 30, _explain: bool = False) -> Optional[StateRow]:
    row = _get("placement_groups", id)
    return StateRow(row) if row is not None else None


def get_node(id: str, address=None, timeout: int = 30, _explain: bool = False) -> Optional[NodeState]:
    row = _get("nodes", id)
    if row is None:
        return None
    row["resources_total"] = _floats(row.get("resources_total"))
    row["resources_available"] = _floats(row.get("resources_available"))
    return _node(row)


def get_task(id, address=None, timeout: int = 30, _explain: bool = False) -> Optional[StateRow]:
    row = _get("tasks", getattr(id, "hex", lambda: id)())
    return StateRow(row) if row is not None else None


def _summary(table: str) -> dict:
    reply = client.ensure().request("state_summary", {"table": table})
    return reply["result"]["node_id_to_summary"]


def summarize_actors(address=None, timeout: int = 30, raise_on_missing_output: bool = True,
                     _explain: bool = False) -> dict:
    """Ray's shape: ``{"cluster": {"summary": {class: {"class_name", "state_counts"}}, "total_actors", ...}}``."""
    return _summary("actors")


def summarize_tasks(address=None, timeout: int = 30, raise_on_missing_output: bool = True,
                    _explain: bool = False) -> dict:
    return _summary("tasks")
