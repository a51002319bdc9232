"""One connection to a beam daemon: framed requests, one-way sends and pushes.

A daemon reader thread owns the socket's read side. Requests (frames with a ``rid``) park
the caller on a per-request event until the reply arrives; everything else is dispatched to
a push handler registered per op. Push handlers run on the reader thread and must never
block (they only update local state and notify waiters). If the socket drops, every waiter
is woken with a ConnectionError saying the daemon went away, and ``on_close`` is called
once so the client can fail pending objects.
"""

from __future__ import annotations

import builtins
import itertools
import logging
import socket
import threading
from typing import Callable, Dict, Optional

from ray._beam import framing

logger = logging.getLogger("ray")

PushHandler = Callable[[dict, bytes], None]


def exception_class(kind: Optional[str]) -> type:
    """Map a reply's ``kind`` to the exception class the shim raises (one table, here)."""
    if kind:
        import ray.exceptions as rex

        cls = getattr(rex, kind, None) or getattr(builtins, kind, None)
        if isinstance(cls, type) and issubclass(cls, Exception):
            return cls
    return RuntimeError


def make_error(kind: Optional[str], message: str) -> Exception:
    """Build the exception for an error reply; classes with odd constructors get a plain init."""
    cls = exception_class(kind)
    try:
        return cls(message)
    except Exception:
        exc = cls.__new__(cls)
        Exception.__init__(exc, message)
        return exc


class _Waiter:
    __slots__ = ("event", "reply", "error")

    def __init__(self):
        self.event = threading.Event()
        self.reply: Optional[dict] = None
        self.error: Optional[BaseException] = None


_COALESCE_BYTES = 64 * 1024  # payloads up to this are copied behind the header and sent at once


class Connection:
    """A framed, multiplexed link to the local (unix socket) or a remote (TCP) daemon."""

    def __init__(self, address: str, on_close: Optional[Callable[[str], None]] = None,
                 connect_timeout: float = 10.0):
        self.address = address
        self._sock = _connect(address, connect_timeout)
        self._on_close = on_close
        self._write_lock = threading.Lock()  # guards socket writes (whole frames)
        self._lock = threading.Lock()  # guards _waiters and _closed
        self._waiters: Dict[int, _Waiter] = {}
        self._rids = itertools.count(1)
        self._handlers: Dict[str, PushHandler] = {}
        self._closed: Optional[str] = None  # reason, once closed
        # The daemon's frame limit, learned from the hello reply: checked before sending so
        # an oversize argument fails here with a clear error instead of losing the link.
        self.max_payload_bytes = framing.MAX_PAYLOAD_BYTES
        self._rfile = self._sock.makefile("rb", buffering=64 * 1024)  # read only by the reader thread
        self._reader = threading.Thread(target=self._read_loop, name="beam-reader", daemon=True)

    def start(self) -> None:
        """Start the reader thread (after push handlers are registered)."""
        self._reader.start()

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
        with self._lock:
            if self._closed is not None:
                raise ConnectionError(self._closed)
            rid = next(self._rids)
            self._waiters[rid] = waiter
        try:
            self._write({"op": op, "rid": rid, **(fields or {})}, payload)
            if not waiter.event.wait(timeout):
                raise TimeoutError(f"no reply from the beam daemon to '{op}' within {timeout} s")
        finally:
            with self._lock:
                self._waiters.pop(rid, None)
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

    def close(self, reason: str = "connection closed by this process") -> None:
        """Close the socket; the reader thread then fails every waiter."""
        self._fail(reason)
        try:
            self._sock.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        try:
            self._sock.close()
        except OSError:
            pass

    def _write(self, header: dict, payload: bytes) -> None:
        if len(payload) > self.max_payload_bytes:
            raise ValueError(
                f"'{header.get('op')}' would send {len(payload)} bytes, above the beam daemon's limit of "
                f"{self.max_payload_bytes} bytes per message (max_payload_bytes). Pass less data per call, or "
                f"start the cluster with `ray start --max-payload-bytes N`.")
        head, body = framing.encode_parts(header, payload)
        if body and len(body) <= _COALESCE_BYTES:  # one syscall for the common small frame
            head, body = head + body, b""
        try:
            with self._write_lock:
                self._sock.sendall(head)
                if body:
                    self._sock.sendall(body)
        except OSError as e:
            reason = self._gone(f"write failed: {e}")
            self._fail(reason)
            raise ConnectionError(reason) from None

    def _read_exact(self, n: int) -> bytes:
        # Through a 64 KiB buffer: one recv usually brings a whole frame, or several.
        data = self._rfile.read(n)
        if len(data) < n:
            raise EOFError
        return data

    def _read_loop(self) -> None:
        reason = self._gone("connection closed")
        try:
            while True:
                header, payload = framing.read_frame(self._read_exact)
                self._dispatch(header, payload)
        except EOFError:
            pass
        except framing.FrameError as e:
            reason = self._gone(f"bad frame: {e}")
        except OSError as e:
            reason = self._gone(str(e))
        except Exception:  # a bug in a handler: log loudly, the link is unusable now
            logger.exception("beam: reader thread failed")
            reason = self._gone("reader thread failed")
        self._fail(reason)
        try:
            self._rfile.close()  # drops the buffered file's hold on the socket's fd
        except (OSError, ValueError):
            pass

    def _dispatch(self, header: dict, payload: bytes) -> None:
        op = header["op"]
        if op == "reply":
            with self._lock:
                waiter = self._waiters.get(header.get("rid"))
            if waiter is not None:
                header["_payload"] = payload
                waiter.reply = header
                waiter.event.set()
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
        with self._lock:
            if self._closed is not None:
                return
            self._closed = reason
            waiters = list(self._waiters.values())
            self._waiters.clear()
        for w in waiters:
            w.error = ConnectionError(reason)
            w.event.set()
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
