"""Client-made identifiers with Ray's lengths (docs/PROTOCOL.md, "Identifiers").

Clients mint actor, object and placement group ids themselves so that ``.remote()`` never
waits for a round trip. Object ids are a per-process random prefix plus a counter, so they
are unique without coordination and cheap to make.
"""

from __future__ import annotations

import itertools
import os
import threading

ACTOR_ID_BYTES = 16
OBJECT_ID_BYTES = 28
PG_ID_BYTES = 18
JOB_ID_BYTES = 4
NODE_ID_BYTES = 28

_lock = threading.Lock()
_prefix = os.urandom(16).hex()  # 16 random bytes; 8 more bytes of counter follow
_counter = itertools.count(1)


def _reset_after_fork() -> None:
    global _prefix, _counter
    _prefix = os.urandom(16).hex()
    _counter = itertools.count(1)


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_reset_after_fork)


def new_object_id() -> str:
    """28 bytes: 24 bytes of random prefix + counter, then 4 zero bytes (56 hex chars)."""
    with _lock:
        n = next(_counter)
    return f"{_prefix}{n:016x}00000000"


def new_actor_id(job_id: str) -> str:
    """16 bytes: 12 random + the job id (32 hex chars)."""
    return os.urandom(12).hex() + _job(job_id)


def new_pg_id(job_id: str) -> str:
    """18 bytes: 14 random + the job id (36 hex chars)."""
    return os.urandom(14).hex() + _job(job_id)


def _job(job_id: str) -> str:
    job_id = (job_id or "").lower()
    if len(job_id) != 2 * JOB_ID_BYTES:
        raise ValueError(f"job id must be {2 * JOB_ID_BYTES} hex chars, got {job_id!r}")
    return job_id


class BaseID:
    """A hex id with Ray's ``hex()`` / ``binary()`` accessors; compares and hashes by value."""

    __slots__ = ("_hex",)

    def __init__(self, hex_id: str):
        self._hex = hex_id

    def hex(self) -> str:
        return self._hex

    def binary(self) -> bytes:
        return bytes.fromhex(self._hex)

    def is_nil(self) -> bool:
        return not self._hex or set(self._hex) == {"f"}

    def __eq__(self, other):
        return type(other) is type(self) and other._hex == self._hex

    def __hash__(self):
        return hash((type(self).__name__, self._hex))

    def __repr__(self):
        return f"{type(self).__name__}({self._hex})"

    __str__ = __repr__

    def __reduce__(self):
        return (type(self), (self._hex,))


class ActorID(BaseID):
    __slots__ = ()


class PlacementGroupID(BaseID):
    __slots__ = ()


class JobID(BaseID):
    __slots__ = ()


class NodeID(BaseID):
    __slots__ = ()
