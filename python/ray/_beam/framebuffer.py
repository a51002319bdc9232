"""The receive side of one connection: bytes in, whole frames out (docs/PROTOCOL.md, "Frame").

``fill()`` receives once (blocking, or not at all when nothing is waiting); ``pop()`` returns
the next complete frame, or None. Small frames are cut out of one growing buffer (one recv
usually brings a whole frame, or several); a payload over 1 MiB is received straight into
its own buffer, so a 64 MiB argument is not copied chunk by chunk. Only the thread that
holds the connection's read role (see connection.py) may call these.
"""

from __future__ import annotations

import socket
from typing import Optional, Tuple

from ray._beam import framing

_CHUNK = 256 * 1024  # bytes asked for per recv
_BIG = 1 << 20  # payloads above this get a buffer of their own


class FrameBuffer:
    def __init__(self, sock: socket.socket):
        self._sock = sock
        self._buf = bytearray()
        self._header: Optional[dict] = None  # the frame being received, once its header is in
        self._plen = 0
        self._body: Optional[bytearray] = None  # a big payload, filled in place
        self._got = 0

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

    def fill(self, block: bool = True) -> bool:
        """Receive once. False when ``block`` is off and nothing was waiting; EOFError when
        the peer closed. (A signal handler that raises right after the kernel handed over
        bytes would lose them; beam's own handlers never raise, and a KeyboardInterrupt
        usually ends the process anyway.)"""
        flags = 0 if block else socket.MSG_DONTWAIT
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
