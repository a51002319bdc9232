"""``ray.util.state``: the state API slice vLLM and operators use (nodes, actor calls as tasks)."""

from ray._beam.api.state import NodeState, list_nodes  # noqa: F401
from ray._beam.api.tasks import TaskState, get_task, list_tasks  # noqa: F401

__all__ = ["NodeState", "TaskState", "get_task", "list_nodes", "list_tasks"]
