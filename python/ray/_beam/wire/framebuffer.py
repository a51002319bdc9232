"""The receive side of one connection: bytes in, whole frames out (docs/PROTOCOL.md, "Frame").

``fill()`` receives once (after waiting for bytes, or not at all when nothing is waiting);
``pop()`` returns the next complete frame, or None. Small frames are cut out of one growing
buffer (one recv usually brings a whole frame, or several); a payload over 1 MiB is received
straight into its own buffer, so a 64 MiB argument is not copied chunk by chunk. Only the
thread that holds the connection's read role (see connection.py) may call these.

A thread waits for bytes in ``poll`` and only then receives, never in a blocking ``recv``.
Linux wakes a thread blocked in ``recv`` on a unix socket also when the peer *reads* what
this side wrote earlier (room to write again, a wake-up ``recv`` does not filter out): an
actor worker waiting for its next call woke once more each time the daemon read its
result, and a driver in ``ray.get`` each time the daemon read its calls. ``poll`` for
POLLIN sleeps through those (docs/PERFORMANCE.md, "Sleeping in poll, not in recv").
"""

from __future__ import annotations

import errno
import select
import socket
from typing import Optional, Tuple

from ray._beam.wire import framing

_CHUNK = 256 * 1024  # bytes asked for per recv
_BIG = 1 << 20  # payloads above this get a buffer of their own
_MAX_POLL_S = 3600.0  # longer waits poll again (poll() takes at most INT_MAX milliseconds)


class FrameBuffer:
    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._buf = bytearray()
        self._header: Optional[dict] = None  # the frame being received, once its header is in
        self._plen = 0
        self._body: Optional[bytearray] = None  # a big payload, filled in place
        self._got = 0
        self._poller = select.poll()
        self._poller.register(sock.fileno(), select.POLLIN)

    def pop(self) -> Optional[Tuple[dict, bytes]]:
        """The next complete frame received so far, or None. Raises framing.FrameError."""
        buf = self._buf
        if self._header is None:
            head = framing.split_header(buf)
            if head is None:
                return None
            self._header, self._plen, start = head
            del buf[:start]  # deleting from the front of a bytearray does not copy the rest
            if self._plen > _BIG:
                self._body = bytearray(self._plen)
                n = min(len(buf), self._plen)
                self._body[:n] = buf[:n]
                del buf[:n]
                self._got = n
        if self._body is not None:
            if self._got < self._plen:
                return None
            payload, self._body = self._body, None
        else:
            if len(buf) < self._plen:
                return None
            payload = bytes(buf[:self._plen])
            del buf[:self._plen]
        header, self._header = self._header, None
        return header, payload

    def fill(self, block: bool = True, timeout: Optional[float] = None) -> bool:
        """Receive once; with ``block``, wait for bytes first, up to ``timeout`` seconds (None:
        for ever). False when nothing came; EOFError when the peer closed. (A signal handler
        that raises right after the kernel handed over bytes would lose them; beam's own
        handlers never raise, and a KeyboardInterrupt usually ends the process anyway.)
        A wait longer than _MAX_POLL_S returns False after that; the caller waits again."""
        if block:
            if self._sock.fileno() < 0:  # closed: its fd number may belong to another file now
                raise OSError(errno.EBADF, "the connection's socket is closed")
            wait_ms = _MAX_POLL_S * 1000.0 if timeout is None else min(max(0.0, timeout), _MAX_POLL_S) * 1000.0
            if not self._poller.poll(wait_ms):
                return False
        flags = socket.MSG_DONTWAIT
        try:
            if self._body is not None:
                n = self._sock.recv_into(memoryview(self._body)[self._got:], 0, flags)
                self._got += n
            else:
                data = self._sock.recv(_CHUNK, flags)
                n = len(data)
                self._buf += data
        except BlockingIOError:
            return False
        if n == 0:
            raise EOFError
        return True
