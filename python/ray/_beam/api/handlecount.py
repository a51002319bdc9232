"""Counts this process's actor handles, so the head can end an actor whose last handle is gone.

Per actor id, the live ``ActorHandle`` objects of this process: a new or unpickled handle
adds one, a collected one takes one away. The daemon hears of it only at the edges (no
traffic per call): ``borrow`` when an unpickled handle arrives (``lent``: it was pickled
elsewhere, and the head kept the actor alive for it meanwhile), ``lend`` when a handle is
pickled to leave, ``release`` when this process holds none of an actor any more. The
creator holds its actor from ``create_actor`` on, without a message. (cluster/ActorHolders
is the head's side.)

``release`` is sent by a thread of its own, never from ``__del__``: a collection may run in
any thread at any point, one holding the connection's write lock included.
"""

from __future__ import annotations

import sys
import threading
from collections import deque

from ray._beam.api import client

_lock = threading.Lock()
_order = threading.Lock()  # a borrow and a release of the same actor leave in the order decided
_live: dict = {}
_released: deque = deque()
_wake = threading.Event()
_sender = None


def created(actor_id: str) -> None:
    """A handle made here (by create, get_actor or unpickling): counted, nothing sent. The
    sender thread starts with the first handle, not in ``__del__``: starting a thread waits
    for it, which at interpreter exit never comes."""
    global _sender
    with _lock:
        _live[actor_id] = _live.get(actor_id, 0) + 1
        if _sender is None:
            _sender = threading.Thread(target=_send_releases, name="beam-handle-release", daemon=True)
            _sender.start()


def arrived(actor_id: str) -> None:
    """An unpickled handle (counted by ``created`` already): the head takes this process as a
    holder, and back the lent one."""
    with _order:
        _send("borrow", {"actor_id": actor_id, "lent": True})


def leaving(actor_id: str) -> None:
    """A handle being pickled: the head keeps the actor for it until the receiver borrows it."""
    _send("lend", {"actor_id": actor_id})


def dropped(actor_id: str) -> None:
    """A handle was collected (``__del__``): the last one of an actor queues its release."""
    if not actor_id or sys.is_finalizing():  # at exit the daemon releases what we held
        return
    try:
        with _lock:
            n = _live.get(actor_id, 0) - 1
            if n > 0:
                _live[actor_id] = n
                return
            _live.pop(actor_id, None)
            _released.append(actor_id)
        _wake.set()
    except Exception:  # noqa: BLE001 - interpreter shutdown: nothing is left to tell
        pass


def _send_releases() -> None:
    while True:
        _wake.wait()
        _wake.clear()
        while _released:
            actor_id = _released.popleft()
            with _order:
                with _lock:
                    if actor_id in _live:  # held again since (a handle arrived): not released
                        continue
                _send("release", {"actor_id": actor_id})


def _send(op: str, fields: dict) -> None:
    c = client.get_client()
    if c is None:
        return
    try:
        c.conn.send(op, fields)
    except ConnectionError:
        pass  # the daemon is gone: it holds nothing for this process any more
