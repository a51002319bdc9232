"""One connection to a beam daemon: framed requests, one-way sends and pushes.

Reading follows a leader/follower pattern (readrole.py): the thread that waits for a reply
reads the socket itself while no other thread does, and an idle reader thread reads while
nobody waits.

Frames with a ``rid`` are replies to requests; everything else goes to the push handler
registered for its op. Handlers run on whichever thread reads and must never block (they
only update local state under ``cond``). If the socket drops, every waiter is woken with a
ConnectionError saying the daemon went away, and ``on_close`` is called once so the client
can fail pending objects.

Writes go through the connection's ``Outbox`` (outbox.py): whole frames in order, with long
bursts of calls written together; a wait writes what it holds before it blocks.
"""

from __future__ import annotations

import itertools
import json
import logging
import os
import socket
import threading
import time
from typing import Callable, Dict, Optional

from ray._beam.wire import framing
from ray._beam.wire.errors import make_error
from ray._beam.wire.framebuffer import FrameBuffer
from ray._beam.wire.outbox import Outbox
from ray._beam.wire.readrole import ReadRole
from ray._beam.wire.spin import SpinPolicy, budget_from_env

logger = logging.getLogger("ray")

PushHandler = Callable[[dict, bytes], None]


class _Waiter:
    __slots__ = ("done", "reply", "error")

    def __init__(self):
        self.done = False
        self.reply: Optional[dict] = None
        self.error: Optional[BaseException] = None


class Connection(ReadRole):
    """A framed, multiplexed link to the local (unix socket) or a remote (TCP) daemon."""

    def __init__(self, address: str, on_close: Optional[Callable[[str], None]] = None,
                 connect_timeout: float = 10.0):
        self.address = address
        self._sock = _connect(address, connect_timeout)
        self._on_close = on_close
        self._outbox = Outbox(self._sock, self._write_failed)  # the write side (outbox.py)
        # One re-entrant lock guards the fields below and everything dispatch changes (the
        # object table shares ``cond``): ObjectRef.__del__ may run, via GC, under it.
        self._init_read_role(threading.RLock())  # _mutex, cond and the role's state (readrole.py)
        self._waiters: Dict[int, _Waiter] = {}
        self._rids = itertools.count(1)
        self._handlers: Dict[str, PushHandler] = {}
        self._closed: Optional[str] = None  # reason, once closed
        # The daemon's frame limit, learned from the hello reply: checked before sending so
        # an oversize argument fails here with a clear error instead of losing the link.
        self.max_payload_bytes = framing.MAX_PAYLOAD_BYTES
        self.max_header_bytes = framing.MAX_HEADER_BYTES
        self.spin = SpinPolicy(budget_from_env())  # only the read role's holder uses it
        self._frames = FrameBuffer(self._sock)  # only the read role's holder touches it
        self._idle_reader = threading.Thread(target=self._idle_loop, name="beam-reader", daemon=True)

    def start(self) -> None:
        """Start the idle reader (after push handlers are registered)."""
        self._idle_reader.start()

    def on(self, op: str, handler: PushHandler) -> None:
        """Register the handler for pushed frames with this op."""
        self._handlers[op] = handler

    @property
    def closed(self) -> bool:
        return self._closed is not None

    def request(self, op: str, fields: Optional[dict] = None, payload: bytes = b"",
                timeout: Optional[float] = None) -> dict:
        """Send a request and block until its reply; raise the reply's error class if not ok."""
        waiter = _Waiter()
        with self._mutex:
            if self._closed is not None:
                raise ConnectionError(self._closed)
            rid = next(self._rids)
            self._waiters[rid] = waiter
            self._waiting += 1  # from before the write, so the idle reader leaves the reply to us
        try:
            self._write({"op": op, "rid": rid, **(fields or {})}, payload)
            if not self.wait_for(lambda: waiter.done, timeout):
                raise TimeoutError(f"no reply from the beam daemon to '{op}' within {timeout} s")
        finally:
            with self._mutex:
                self._waiters.pop(rid, None)
                self._leave()
        if waiter.error is not None:
            raise waiter.error
        reply = waiter.reply
        if not reply.get("ok", False):
            raise make_error(reply.get("kind"), reply.get("error") or f"'{op}' failed")
        return reply

    def send(self, op: str, fields: Optional[dict] = None, payload: bytes = b"") -> None:
        """Send a one-way frame (no rid, no reply)."""
        if self._closed is not None:
            raise ConnectionError(self._closed)
        self._write({"op": op, **(fields or {})}, payload)

    def send_later(self, op: str, fields: Optional[dict] = None) -> None:
        """Send a one-way frame that nothing waits for, with the next write (Outbox.defer)."""
        if self._closed is not None:
            raise ConnectionError(self._closed)
        self._outbox.defer(*framing.encode_parts({"op": op, **(fields or {})}, b""))

    def close(self, reason: str = "connection closed by this process") -> None:
        """Close the socket; a thread blocked reading it then sees the end and stops."""
        self._fail(reason)
        try:
            self._sock.shutdown(socket.SHUT_RDWR)  # first: a write blocked on a full socket ends
        except OSError:
            pass
        self._outbox.close()
        try:
            self._sock.close()
        except OSError:
            pass

    def send_head(self, op: str, head: bytes, payload: bytes) -> None:
        """Send a one-way frame whose length prefix and header are already encoded
        (``framing.result_head``)."""
        if self._closed is not None:
            raise ConnectionError(self._closed)
        self._check_size(op, payload)
        self._outbox.write(head, payload)

    def send_call(self, head: bytes, payload: bytes) -> None:
        """Send a ``call`` frame (``framing.call_head``); one that continues a burst of calls
        is held back and written with the next ones, or when a wait starts (outbox.py)."""
        if self._closed is not None:
            raise ConnectionError(self._closed)
        self._check_size("call", payload)
        self._outbox.call(head, payload)

    def flush(self, timeout: Optional[float] = None) -> None:
        """Write the calls held back, if any (raises ConnectionError if the link is gone);
        ``timeout``: see Outbox.flush."""
        self._outbox.flush(timeout)

    def _check_size(self, op: str, payload: bytes) -> None:
        if len(payload) > self.max_payload_bytes:
            raise ValueError(
                f"'{op}' would send {len(payload)} bytes, above the beam daemon's limit of "
                f"{self.max_payload_bytes} bytes per message (max_payload_bytes). Pass less data per call, or "
                f"start the cluster with `ray start --max-payload-bytes N`.")

    def _write(self, header: dict, payload: bytes) -> None:
        self._check_size(header.get("op"), payload)
        self._outbox.write(*framing.encode_parts(header, payload))

    def _write_failed(self, e: OSError) -> ConnectionError:
        reason = self._gone(f"write failed: {e}")
        self._fail(reason)
        return ConnectionError(reason)

    # -- reading (only by the holder of the read role) ------------------------------------

    def _read_some(self, timeout: Optional[float] = None, block: bool = True, replies: int = 1) -> None:
        """Dispatch every complete frame; receive once first if none is buffered. Waits at
        most ``timeout`` for bytes (forever if None); with ``block`` off, not at all."""
        try:
            frame = self._frames.pop()
            if frame is None:
                polled_from = time.monotonic()
                if not (block and self._poll(timeout, replies)):
                    if timeout is not None:  # what is left of it after polling
                        timeout = max(0.0, timeout - (time.monotonic() - polled_from))
                    if not self._frames.fill(block, timeout):
                        return
                frame = self._frames.pop()
            while frame is not None:
                self._dispatch(*frame)
                frame = self._frames.pop()
        except EOFError:
            self._fail(self._gone("connection closed"))
        except framing.FrameError as e:
            self._fail(self._gone(f"bad frame: {e}"))
        except OSError as e:
            self._fail(self._gone(str(e)))

    def _poll(self, timeout: Optional[float], replies: int) -> bool:
        """Receive without blocking for up to the spin policy's window (spin.py); True if
        bytes came. Timeouts shorter than the window are not polled. Between two looks the
        thread yields its core to any thread that waits for one: the worker computing the
        reply may share it, and a poll that kept it off the core ran past its window and
        taught the policy to stop polling (docs/PERFORMANCE.md, "Sleeping in poll, not in
        recv")."""
        window = self.spin.window(replies)
        if window <= 0.0 or (timeout is not None and timeout < window):
            return False
        fill, pause = self._frames.fill, os.sched_yield
        end = time.perf_counter() + window
        while not fill(False):
            pause()
            if time.perf_counter() > end:
                self.spin.record(False)
                return False
        self.spin.record(True)
        return True

    def _dispatch(self, header: dict, payload: bytes) -> None:
        op = header["op"]
        if op == "reply":
            with self._mutex:
                waiter = self._waiters.get(header.get("rid"))
                if waiter is not None:
                    header["_payload"] = payload
                    if header.get("body") == "json":  # a table too big for a header (PROTOCOL.md)
                        header.update(json.loads(payload))
                    waiter.reply = header
                    waiter.done = True
                    self.cond.notify_all()
            return
        handler = self._handlers.get(op)
        if handler is None:
            logger.debug("beam: no handler for pushed op %r", op)
            return
        try:
            handler(header, payload)
        except Exception:
            logger.exception("beam: handler for %r failed", op)

    def _gone(self, detail: str) -> str:
        return f"the beam daemon went away ({self.address}: {detail})"

    def _fail(self, reason: str) -> None:
        with self._mutex:
            if self._closed is not None:
                return
            self._closed = reason
            for w in self._waiters.values():
                w.error = ConnectionError(reason)
                w.done = True
            self._waiters.clear()
            self.cond.notify_all()
            self._idle.notify()
        if self._on_close is not None:
            try:
                self._on_close(reason)
            except Exception:
                logger.exception("beam: on_close callback failed")


def _connect(address: str, timeout: float) -> socket.socket:
    """Connect to a unix socket path, or to "host:port" over TCP."""
    if "/" not in address and address.rpartition(":")[2].isdigit():
        host, _, port = address.rpartition(":")
        sock = socket.create_connection((host.strip("[]"), int(port)), timeout=timeout)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    else:
        sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        sock.settimeout(timeout)
        try:
            sock.connect(address)
        except OSError:
            sock.close()
            raise
    sock.settimeout(None)
    return sock
