"""The daemon's error names and the exceptions they become: one table, here.

An error reply (``{"op": "reply", "ok": false, "kind", "error"}``) and a failed result
(``{"op": "result", "status": "error", "kind", "message"}``) name their error by ``kind``
(docs/PROTOCOL.md, "Requests and replies"). ``ERRORS`` maps every kind the daemon sends to
the class raised here; tests/unit/test_errors.py reads the daemon's source and fails if the
two disagree. A kind the table lacks (from a newer daemon) becomes ``DEFAULT_ERROR`` with the
daemon's message, so the message is never lost.
"""

from __future__ import annotations

from typing import Dict, Optional

from ray.exceptions import ActorDiedError, ActorUnschedulableError, RaySystemError

ERRORS: Dict[str, type] = {
    "ValueError": ValueError,  # the request was wrong; the message says what and how to fix it
    "ConnectionError": ConnectionError,  # the daemon refused or ended this connection
    "RuntimeError": RuntimeError,  # a bug in the daemon (the message says "internal error")
    "RaySystemError": RaySystemError,  # a frame the daemon could not take (over a limit)
    "ActorDiedError": ActorDiedError,  # the actor a call went to is dead
    "ActorUnschedulableError": ActorUnschedulableError,  # it could never be placed (hard node affinity)
}
DEFAULT_ERROR = RuntimeError


def error_class(kind: Optional[str]) -> type:
    """The exception class for a ``kind`` (``DEFAULT_ERROR`` if the table lacks it)."""
    return ERRORS.get(kind, DEFAULT_ERROR) if kind else DEFAULT_ERROR


def make_error(kind: Optional[str], message: str) -> Exception:
    """Build the exception for an error reply; classes with odd constructors get a plain init."""
    cls = error_class(kind)
    try:
        return cls(message)
    except Exception:
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)
        return exc
