"""``ray.util.state.list_tasks()`` / ``get_task()``: actor calls as Ray's task rows.

The daemon's ``status`` reply carries them (``tasks``, rendered by the head's
``views/TaskRows``): every call pending or running, then the most recent ended ones (at most
1,000). Field names and state names are Ray 2.58's; ``beam_label`` is the call's first
argument when it is a short string (``execute_method("init_device", ...)``).
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, fields
from typing import List, Optional

from ray._beam.api import client


@dataclass
class TaskState:
    """One row of ``ray.util.state.list_tasks()`` (Ray's ``TaskState``)."""

    task_id: str
    name: str
    state: str
    type: str = "ACTOR_TASK"
    attempt_number: int = 0
    job_id: str = ""
    actor_id: Optional[str] = None
    func_or_class_name: str = ""
    parent_task_id: str = ""
    node_id: Optional[str] = None
    worker_id: Optional[str] = None
    worker_pid: Optional[int] = None
    error_type: Optional[str] = None
    error_message: Optional[str] = None
    language: str = "PYTHON"
    required_resources: dict = field(default_factory=dict)
    runtime_env_info: dict = field(default_factory=dict)
    placement_group_id: Optional[str] = None
    events: list = field(default_factory=list)
    profiling_data: dict = field(default_factory=dict)
    creation_time_ms: Optional[int] = None
    start_time_ms: Optional[int] = None
    end_time_ms: Optional[int] = None
    task_log_info: Optional[dict] = None
    call_site: Optional[str] = None
    is_debugger_paused: Optional[bool] = None
    label_selector: dict = field(default_factory=dict)
    fallback_strategy: dict = field(default_factory=dict)
    beam_label: Optional[str] = None

    def __getitem__(self, key):
        return getattr(self, key)

    def get(self, key, default=None):
        return getattr(self, key, default)

    def asdict(self) -> dict:
        return asdict(self)


_FIELDS = {f.name for f in fields(TaskState)}


def _rows() -> List[TaskState]:
    return [TaskState(**{k: v for k, v in row.items() if k in _FIELDS})
            for row in client.ensure().request("status", {}).get("tasks") or []]


def list_tasks(address=None, filters=None, limit: int = 100, timeout: int = 30,
               detail: bool = False, raise_on_missing_output: bool = True,
               _explain: bool = False) -> List[TaskState]:
    rows = _rows()
    for key, op, value in filters or []:
        if op not in ("=", "!="):
            raise ValueError(f"Unsupported filter predicate {op!r}; use '=' or '!='.")
        if key not in _FIELDS:
            raise ValueError(f"{key!r} is not a task field; filter on one of: {', '.join(sorted(_FIELDS))}")
        rows = [r for r in rows if (str(getattr(r, key)) == str(value)) == (op == "=")]
    return rows[:limit]


def get_task(id, address=None, timeout: int = 30, _explain: bool = False) -> Optional[List[TaskState]]:
    """The call's attempts (beam makes one), or None when no listed call has that id."""
    task_id = id if isinstance(id, str) else id.hex()[:48]
    found = [r for r in _rows() if r.task_id == task_id]
    return found or None
