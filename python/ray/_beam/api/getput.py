"""``ray.get``, ``ray.wait`` and ``ray.put`` with Ray's argument checks and messages.

All three work on the local object table; they wait on its condition variable, so they are
safe to call from several threads at once (vLLM waits in a monitor thread while its main
thread gets).
"""

from __future__ import annotations

from typing import List, Optional


from ray._beam.api import pickling
from ray._beam.api import client, ids
from ray._beam.api.objects import ObjectRef

_WAIT_TYPE_MSG = "wait() expected a list of ray.ObjectRef or ray.ObjectRefGenerator, "


def get(object_refs, *, timeout: Optional[float] = None):
    """Values of one ObjectRef or a list of them; raises the task's error if it failed."""
    is_single = isinstance(object_refs, ObjectRef)
    if is_single:
        refs = [object_refs]
    elif isinstance(object_refs, list):
        refs = object_refs
        for r in refs:
            if not isinstance(r, ObjectRef):
                raise TypeError("Attempting to call `get` on the value "
                                f"{r}, which is not an ray.ObjectRef.")
    else:
        raise ValueError(f"Invalid type of object refs, {type(object_refs)}, is given. "
                         "'object_refs' must either be an ObjectRef or a list of ObjectRefs. ")
    _check_timeout(timeout)
    c = client.ensure()
    if not refs:
        return []
    values = c.table.get([r.hex() for r in refs], timeout)
    return values[0] if is_single else values


def wait(object_refs, *, num_returns: int = 1, timeout: Optional[float] = None,
         fetch_local: bool = True):
    """(ready, not_ready): the first ``num_returns`` done refs in input order, and the rest."""
    if isinstance(object_refs, ObjectRef):
        raise TypeError(_WAIT_TYPE_MSG + "got a single ray.ObjectRef or ray.ObjectRefGenerator "
                        f"{object_refs}")
    if not isinstance(object_refs, list):
        raise TypeError(_WAIT_TYPE_MSG + f"got {type(object_refs)}")
    if timeout is not None and timeout < 0:
        raise ValueError(f"The 'timeout' argument must be nonnegative. Received {timeout}")
    for r in object_refs:
        if not isinstance(r, ObjectRef):
            raise TypeError(_WAIT_TYPE_MSG + f"got list containing {type(r)}")
    if len(object_refs) == 0:
        return [], []
    if len(object_refs) != len(set(object_refs)):
        raise ValueError("Wait requires a list of unique ray_waitables.")
    if num_returns <= 0:
        raise ValueError("Invalid number of objects to return %d." % num_returns)
    if num_returns > len(object_refs):
        raise ValueError("num_returns cannot be greater than the number of ray_waitables "
                         "provided to ray.wait.")
    c = client.ensure()
    mask = c.table.ready_mask([r.hex() for r in object_refs], num_returns, timeout)
    ready: List[ObjectRef] = []
    not_ready: List[ObjectRef] = []
    for ref, done in zip(object_refs, mask):
        (ready if done and len(ready) < num_returns else not_ready).append(ref)
    return ready, not_ready


def put(value, *, _owner=None) -> ObjectRef:
    """Store a value in this process (pickled now, so later mutation does not leak in)."""
    if isinstance(value, ObjectRef):
        raise TypeError("Calling 'put' on an ray.ObjectRef is not allowed. If you really "
                        "want to do this, you can wrap the ray.ObjectRef in a list and call "
                        "'put' on it.")
    c = client.ensure()
    return c.table.put_bytes(ids.new_object_id(), pickling.dumps(value))


def _check_timeout(timeout) -> None:
    if timeout is not None and (not isinstance(timeout, (int, float)) or timeout < 0):
        raise ValueError(f"'timeout' must be a non-negative number or None, got {timeout!r}")
