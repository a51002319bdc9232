"""The values of ``ray.util.metrics`` objects in this process, sent to the local daemon.

Recording only updates a dict under a lock (no I/O on the caller's thread). A daemon thread,
started at the first record and asleep while nothing changes, sends the series that changed
at most every ``FLUSH_INTERVAL_S`` as one-way ``metrics`` frames (docs/PROTOCOL.md,
"metrics"): cumulative values, so a lost frame costs nothing but freshness. The daemon
aggregates them by name and tags with the other processes of its node and serves them on
its Prometheus port.
"""

from __future__ import annotations

import atexit
import bisect
import json
import logging
import threading
import time
from typing import Dict, List, Optional, Tuple

from ray._beam.api import client

logger = logging.getLogger("ray")

FLUSH_INTERVAL_S = 2.0
SERIES_PER_FRAME = 1000  # the daemon takes at most 2000 per frame
# Share of the daemon's header limit a metrics frame may fill: a frame over the limit would
# cost this process its connection, so batches are cut by their encoded size.
HEADER_SHARE = 0.9

_lock = threading.Lock()
_series: Dict[Tuple, dict] = {}
_changed: set = set()
_wake = threading.Event()
_thread: Optional[threading.Thread] = None


def _key(name: str, tags: Dict[str, str]) -> Tuple:
    return (name,) + tuple(sorted(tags.items()))


def _entry(name: str, kind: str, description: str, tags: Dict[str, str],
           boundaries: Optional[List[float]] = None) -> Tuple[Tuple, dict]:
    key = _key(name, tags)
    e = _series.get(key)
    if e is None:
        e = {"name": name, "kind": kind, "description": description, "tags": dict(tags)}
        if boundaries is not None:
            e.update(boundaries=list(boundaries), buckets=[0] * (len(boundaries) + 1), sum=0.0)
        else:
            e["value"] = 0.0
        _series[key] = e
    return key, e


def _changed_now(key: Tuple) -> None:
    global _thread
    _changed.add(key)
    if _thread is None:
        _thread = threading.Thread(target=_loop, name="beam-metrics", daemon=True)
        _thread.start()
        # a driver's last values go out at exit (registered after the client's atexit, so
        # it runs first, while the connection is open); a worker flushes in Worker._exit
        atexit.register(flush)
    _wake.set()


def add(name: str, description: str, tags: Dict[str, str], value: float) -> None:
    with _lock:
        key, e = _entry(name, "counter", description, tags)
        e["value"] += value
        _changed_now(key)


def set_gauge(name: str, description: str, tags: Dict[str, str], value: float) -> None:
    with _lock:
        key, e = _entry(name, "gauge", description, tags)
        e["value"] = float(value)
        _changed_now(key)


def observe(name: str, description: str, tags: Dict[str, str], boundaries: List[float],
            value: float) -> None:
    with _lock:
        key, e = _entry(name, "histogram", description, tags, boundaries)
        e["buckets"][bisect.bisect_left(e["boundaries"], value)] += 1
        e["sum"] += value
        _changed_now(key)


def _loop() -> None:
    while True:
        _wake.wait()
        time.sleep(FLUSH_INTERVAL_S)  # gathers what is recorded meanwhile into one send
        _wake.clear()
        flush()


def flush() -> None:
    """Send the series changed since the last send (if connected; else they wait for the next)."""
    c = client.get_client()
    if c is None or c.conn.closed:
        return
    with _lock:
        batch = [dict(_series[k]) for k in _changed]
        _changed.clear()
    limit = int(getattr(c.conn, "max_header_bytes", 1 << 20) * HEADER_SHARE)
    for part in _batches(batch, limit):
        try:
            c.conn.send("metrics", {"metrics": part})
        except (ConnectionError, OSError, ValueError) as e:  # the link is gone: nothing to report to
            logger.debug("beam: metrics not sent: %s", e)
            return


def _batches(batch: List[dict], limit: int):
    """Runs of at most SERIES_PER_FRAME series whose JSON fits in ``limit`` bytes; a single
    series too big for any frame is dropped with a warning (it could never be delivered)."""
    part: List[dict] = []
    size = 64  # the header's own fields
    for e in batch:
        n = len(json.dumps(e, separators=(",", ":"))) + 1
        if n + 64 > limit:
            logger.warning("beam: metric %r with tags %r is too large to report (%d bytes, "
                           "limit %d): use fewer or shorter tags or boundaries", e.get("name"),
                           e.get("tags"), n, limit)
            continue
        if part and (size + n > limit or len(part) >= SERIES_PER_FRAME):
            yield part
            part, size = [], 64
        part.append(e)
        size += n
    if part:
        yield part
