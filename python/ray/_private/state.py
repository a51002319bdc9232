"""``ray._private.state``: per-node resource maps (vLLM imports these at module top)."""

from ray._beam.api.state import (  # noqa: F401
    available_resources_per_node,
    total_resources_per_node,
)


class _GlobalState:
    """Ray's ``state`` singleton, reduced to the methods that map onto beam."""

    def _available_resources_per_node(self):
        return available_resources_per_node()

    def _total_resources_per_node(self):
        return total_resources_per_node()

    def available_resources_per_node(self):
        return available_resources_per_node()

    def total_resources_per_node(self):
        return total_resources_per_node()


state = _GlobalState()

__all__ = ["available_resources_per_node", "total_resources_per_node", "state"]
