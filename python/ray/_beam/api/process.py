"""This process's one beam client (a driver's from ``ray.init``, or an actor worker's), held
below every module that needs it.

client.py builds, installs and clears it; refs.py (a ref unpickled in this process joins its
client's table) and pgs.py read it here, so no module below client.py imports it or has
it handed over. A leaf: it imports nothing of ray.
"""

from __future__ import annotations

import threading
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:
    from ray._beam.api.client import Client
    from ray._beam.api.objects import ObjectTable

# Held while the client is installed or cleared (ray.init, ray.shutdown, a worker's start);
# re-entrant, as ray.init runs discovery and the first requests under it.
lock = threading.RLock()
_client: Optional["Client"] = None


def current() -> Optional["Client"]:
    """This process's client, or None before ray.init (and after ray.shutdown)."""
    return _client


def install(client: Optional["Client"]) -> None:
    """Make ``client`` (or None) this process's client; the caller holds ``lock``."""
    global _client
    _client = client


def table() -> Optional["ObjectTable"]:
    """The object table of this process's client, or None while there is none."""
    c = _client
    return c.table if c is not None else None
