"""``ray.util.state``: the state API slice vLLM uses (``list_nodes``)."""

from ray._beam.api.state import NodeState, list_nodes  # noqa: F401

__all__ = ["NodeState", "list_nodes"]
