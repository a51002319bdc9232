"""``ray.util.state``: Ray's state API (list, get and summarize actors, nodes, placement
groups and tasks), answered by the daemon, which filters and limits before it replies."""

from ray._beam.api.state import (  # noqa: F401
    NodeState, StateRow, get_actor, get_node, get_placement_group, get_task, list_actors,
    list_nodes, list_placement_groups, list_tasks, summarize_actors, summarize_tasks)

__all__ = ["NodeState", "StateRow", "get_actor", "get_node", "get_placement_group", "get_task",
           "list_actors", "list_nodes", "list_placement_groups", "list_tasks", "summarize_actors",
           "summarize_tasks"]
