"""What the actor worker does around each call: find the method as Ray does, tell whether a
result must wait for refs it holds, and format the traceback a caller sees."""

from __future__ import annotations

import inspect
import sys
import traceback

from ray._beam.api.objects import PENDING, ObjectRef


def safe_repr(obj) -> str:
    try:
        return repr(obj)
    except Exception:  # noqa: BLE001
        return f"<{type(obj).__name__} object>"


def first_pending_ref(table, result):
    """A still pending ObjectRef that ``result`` is or holds at its top level, else None."""
    if isinstance(result, ObjectRef):
        candidates = (result,)
    elif isinstance(result, (list, tuple)):
        candidates = result
    elif isinstance(result, dict):
        candidates = result.values()
    else:
        return None
    for item in candidates:
        if isinstance(item, ObjectRef) and table.entry(item.hex()).state == PENDING:
            return item
    return None


def bound_method(instance, name: str):
    """The method ``name`` as Ray finds it: on the class, so an instance attribute of the
    same name does not hide it (staticmethods and classmethods bind as usual)."""
    cls = type(instance)
    try:
        member = inspect.getattr_static(cls, name)
    except AttributeError:
        return getattr(instance, name)  # e.g. supplied by the class's __getattr__
    getter = getattr(type(member), "__get__", None)
    return getter(member, instance, cls) if getter is not None else member


def format_exc(exc: BaseException, skip_frames: int) -> str:
    """The traceback text without this module's own frames (users care about theirs)."""
    tb = exc.__traceback__
    for _ in range(skip_frames):
        if tb is not None and tb.tb_next is not None:
            tb = tb.tb_next
    text = "".join(traceback.format_exception(type(exc), exc, tb))
    if not text.startswith("Traceback "):
        text = "Traceback (most recent call last):\n" + text
    return text


def run_shutdown_hook(instance) -> None:
    """Ray's clean-up hook, on graceful termination only (never on ray.kill)."""
    hook = getattr(instance, "__ray_shutdown__", None)
    if hook is None:
        return
    try:
        hook()
    except Exception:  # noqa: BLE001 - logged, as Ray does; the actor ends regardless
        print("Error in __ray_shutdown__:\n" + traceback.format_exc(), file=sys.stderr, flush=True)
