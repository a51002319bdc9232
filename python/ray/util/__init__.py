"""``ray.util``: placement groups, node IP, and the submodules vLLM imports."""

from ray._beam.api import client
from ray._beam.api.context import get_node_ip_address
from ray.util.placement_group import (
    PlacementGroup,
    get_current_placement_group,
    placement_group,
    placement_group_table,
    remove_placement_group,
)
from ray.util import metrics, scheduling_strategies, state  # noqa: F401


def list_named_actors(all_namespaces: bool = False) -> list:
    """Names of live named actors, from the daemon's status."""
    actors = client.ensure().request("status", {}).get("actors") or []
    names = [a.get("name") for a in actors if a.get("name") and a.get("state") != "DEAD"]
    if all_namespaces:
        return [{"name": n, "namespace": ""} for n in names]
    return names


__all__ = [
    "PlacementGroup", "get_current_placement_group", "get_node_ip_address",
    "list_named_actors", "placement_group", "placement_group_table", "remove_placement_group",
    "metrics", "scheduling_strategies",
]
