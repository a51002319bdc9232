"""Turn failed ``result`` frames into the exceptions Ray raises.

``task_error`` becomes a RayTaskError (raised as ``RayTaskError(<Cause>)`` so ``except
ValueError`` still works), ``actor_died`` an ActorDiedError carrying the daemon's message,
``error`` the class the daemon's ``kind`` names in the wire's one table (wire/errors.py).
"""

from __future__ import annotations

from ray._beam.api import pickling
from ray._beam.wire.errors import make_error
from ray.exceptions import ActorDiedError, RaySystemError, RayTaskError


def from_result(header: dict, payload: bytes) -> BaseException:
    status = header.get("status")
    if status == "task_error":
        try:
            info = pickling.loads(payload)
        except Exception as e:  # the cause's class may not be importable here
            return RaySystemError(f"the task failed, and its error could not be unpickled: {e!r}")
        return task_error(info)
    if status == "actor_died":
        return ActorDiedError(header.get("message") or None, actor_id=header.get("actor_id"))
    return make_error(header.get("kind"), header.get("message") or f"call failed ({status})")


def task_error(info: dict) -> RayTaskError:
    """Build the RayTaskError for a task_error dict (see docs/PROTOCOL.md, results)."""
    cause = info.get("exc")
    if not isinstance(cause, BaseException):
        cause = plain_cause(info.get("type_name") or "Exception", info.get("message", ""))
    function_name = f"{info.get('class_name', '?')}.{info.get('method', '?')}"
    return RayTaskError(function_name, info.get("tb") or "", cause,
                        proctitle=f"ray::{function_name}", pid=info.get("pid"),
                        ip=info.get("ip"), actor_repr=info.get("repr"),
                        actor_id=info.get("actor_id"))


def plain_cause(type_name: str, message: str) -> Exception:
    """Stand-in for a user exception that could not be pickled: a plain Exception."""
    return Exception(f"{type_name}: {message}" if message else type_name)
