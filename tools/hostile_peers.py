"""Hostile peers for a running beam head: connections that hold the door, announce payloads
they never send, and trickle bytes, on the TCP port before and after authentication and on
the unix socket. tools/fuzz_daemon.py runs them (--attacks) beside a working driver and a
joined node; tests/e2e/test_hostile_peers.py uses them directly.

Every attack opens a bounded number of sockets to the given address (loopback or a test's
own namespace), holds them for a bounded time, and closes them all when it ends.
"""
import contextlib
import hashlib
import hmac
import json
import os
import socket
import struct
import threading
import time

GIB = 1 << 30


def frame(header, payload=b""):
    if payload:
        header = dict(header, plen=len(payload))
    body = json.dumps(header).encode()
    return struct.pack(">I", len(body)) + body + payload


def announcing(header, plen, sent=b""):
    """A frame's prefix and header announcing ``plen`` payload bytes, then ``sent`` of them."""
    body = json.dumps(dict(header, plen=plen)).encode()
    return struct.pack(">I", len(body)) + body + sent


def read_frame(sock):
    """One frame's header (a dict) from ``sock``; None if the peer closed first."""
    def exactly(n):
        data = b""
        while len(data) < n:
            chunk = sock.recv(n - len(data))
            if not chunk:
                return None
            data += chunk
        return data
    prefix = exactly(4)
    if prefix is None:
        return None
    body = exactly(struct.unpack(">I", prefix)[0])
    if body is None:
        return None
    header = json.loads(body)
    if header.get("plen"):
        exactly(header["plen"])
    return header


def rss_bytes(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    raise RuntimeError(f"no VmRSS for pid {pid}")


def fd_limit(pid):
    """The soft limit on open files of process ``pid``."""
    with open(f"/proc/{pid}/limits") as f:
        for line in f:
            if line.startswith("Max open files"):
                return int(line.split()[3])
    raise RuntimeError(f"no fd limit for pid {pid}")


def connect(address, timeout=10.0, source=None):
    """A connected socket; ``source``: the local IP to connect from (any 127.x on loopback)."""
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(timeout)
    try:
        if source:
            s.bind((source, 0))
        s.connect(address)
    except OSError:
        s.close()
        raise
    return s


class Crowd:
    """Sockets held open for an attack; closes them all on exit, whatever happened."""

    def __init__(self):
        self.sockets = []

    def add(self, s):
        self.sockets.append(s)
        return s

    def alive(self):
        """How many the daemon has not closed: reads what each has waiting (a challenge, an
        error) until it would block (open) or reads the end of the stream (closed)."""
        n = 0
        for s in self.sockets:
            try:
                s.setblocking(False)
                while s.recv(65536):
                    pass
            except BlockingIOError:
                n += 1
            except OSError:
                pass
            finally:
                with contextlib.suppress(OSError):
                    s.settimeout(10.0)
        return n

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        for s in self.sockets:
            with contextlib.suppress(OSError):
                s.close()
        self.sockets.clear()


def open_many(crowd, address, n, first_bytes=b"", read_challenge=False, sources=(None,)):
    """``n`` connections to ``address`` that send ``first_bytes`` (after the challenge when
    ``read_challenge``) and then hold, from each of ``sources`` in turn. Connections the
    daemon refuses or drops are counted as such, not retried."""
    refused = 0
    for i in range(n):
        try:
            s = crowd.add(connect(address, source=sources[i % len(sources)]))
            if read_challenge:
                read_frame(s)
            if first_bytes:
                s.sendall(first_bytes)
        except OSError:
            refused += 1
    return refused


def join_header(token, nonce, node_ip="127.0.0.250"):
    """A join that proves ``token`` (None: no auth field) for a made-up node with no resources."""
    h = {"op": "join", "rid": 1, "proto": 1, "node_id": os.urandom(28).hex(), "node_ip": node_ip,
         "resources": {}, "hostname": "hostile"}
    if token is not None:
        h["auth"] = hmac.new(token.encode(), nonce.encode(), hashlib.sha256).hexdigest()
    return h


def joined_link(address, token):
    """A TCP connection that has passed the head's door with ``token`` (an insider's link)."""
    s = connect(address)
    challenge = read_frame(s)
    s.sendall(frame(join_header(token, challenge["nonce"])))
    reply = read_frame(s)
    if not reply or not reply.get("ok"):
        s.close()
        raise RuntimeError(f"the head refused the fuzzer's join: {reply}")
    return s


def challenge_seconds(address):
    """Seconds from connect to the head's challenge (a joining node's first wait)."""
    t0 = time.monotonic()
    with contextlib.closing(connect(address)) as s:
        header = read_frame(s)
    if not header or header.get("op") != "challenge":
        raise RuntimeError(f"expected a challenge, got {header}")
    return time.monotonic() - t0


class Trickler(threading.Thread):
    """Sends one byte of a join header every ``every`` s on each of ``crowd``'s sockets,
    the way a slowloris peer keeps a handshake half-done; stops by itself after ``seconds``."""

    def __init__(self, crowd, every=0.5, seconds=10.0):
        super().__init__(daemon=True)
        self.crowd, self.every, self.seconds = crowd, every, seconds
        self.stop = threading.Event()

    def run(self):
        deadline = time.monotonic() + self.seconds
        body = announcing({"op": "join"}, GIB)
        i = 0
        while not self.stop.is_set() and time.monotonic() < deadline:
            for s in list(self.crowd.sockets):
                with contextlib.suppress(OSError):
                    s.send(body[i % len(body):i % len(body) + 1])
            i += 1
            self.stop.wait(self.every)
