"""``num_returns=N`` on actor methods: one call, N ObjectRefs.

The worker sends one result, the method's return value, as for any call; the caller splits
it into N objects of its own table when it arrives (no change to the wire, and the daemon
never sees the difference). A value that is not a sequence of exactly N items fails all N
objects with Ray's error for it.
"""

from __future__ import annotations

import traceback
from typing import List, Optional

from ray._beam.api import ids
from ray._beam.api.objects import FAILED, ObjectRef, ObjectTable
from ray.exceptions import RayTaskError


def check(num_returns) -> None:
    """Ray's checks of a num_returns option."""
    if not isinstance(num_returns, int) or isinstance(num_returns, bool):
        raise TypeError("an integer is required")
    if num_returns < 0:
        raise ValueError(f"num_returns must be >= 0, but got {num_returns}.")


def split(table: ObjectTable, ref: ObjectRef, n: int, method: str) -> Optional[List[ObjectRef]]:
    """N refs that complete from ``ref``'s result; None for 0 (the call still runs)."""
    if n == 0:
        return None
    parts = [table.register(ids.new_object_id()) for _ in range(n)]
    oids = [p.hex() for p in parts]

    def done(entry, _keep=ref):  # holds the call's ref until its result is split
        if entry.state == FAILED:
            for oid in oids:
                table.resolve(oid, error=entry.error)
            return
        try:
            values = entry.load()
            count = len(values)
            if count != n:
                raise ValueError(f"Task returned {count} objects, but num_returns={n}.")
            values = list(values)
        except Exception as e:  # noqa: BLE001 - every part fails with it, as the task's error
            error = RayTaskError(method, "".join(traceback.format_exception(e)), e)
            for oid in oids:
                table.resolve(oid, error=error)
            return
        for oid, value in zip(oids, values):
            table.resolve(oid, value=value)

    table.on_done(ref.hex(), done)
    return parts
