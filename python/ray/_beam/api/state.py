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
    return {n["NodeID"]: _floats(n.get("Available"))
            for n in cluster_state().get("nodes") or [] if n.get("Alive", True)}


def total_resources_per_node() -> Dict[str, Dict[str, float]]:
    return {n["NodeID"]: _floats(n.get("Resources"))
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


def list_nodes(address=None, filters=None, limit: int = 100, timeout: int = 30,
               detail: bool = False, raise_on_missing_output: bool = True,
               _explain: bool = False) -> List[NodeState]:
    rows = []
    for n in cluster_state().get("nodes") or []:
        resources = _floats(n.get("Resources"))
        alive = bool(n.get("Alive", True))
        rows.append(NodeState(
            node_id=n.get("NodeID", ""), node_ip=n.get("NodeManagerAddress", ""),
            is_head_node="node:__internal_head__" in resources,
            state="ALIVE" if alive else "DEAD",
            state_message=None if alive else (n.get("DeathReasonMessage") or None),
            node_name=n.get("NodeName") or n.get("NodeManagerHostname", ""),
            resources_total=resources, resources_available=_floats(n.get("Available")),
            labels=dict(n.get("Labels") or {})))
    for key, op, value in filters or []:
        if op not in ("=", "!="):
            raise ValueError(f"Unsupported filter predicate {op!r}; use '=' or '!='.")
        rows = [r for r in rows
                if (str(getattr(r, key, None)) == str(value)) == (op == "=")]
    return rows[:limit]
