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


def settle():
    time.sleep(1.0)  # the daemon reads what arrived and closes what it refuses


def attack_door_before_auth(address, pid, n):
    """``n`` strangers that announce a 1 GiB payload (half in a join, half in another first
    frame), send 1,000 bytes of it and hold: the head's RSS growth, and how many it kept."""
    rss0 = rss_bytes(pid)
    sources = [f"127.0.3.{i}" for i in range(1, 21)]
    with Crowd() as crowd:
        join = announcing({"op": "join", "rid": 1}, GIB, b"x" * 1000)
        call = announcing({"op": "call", "rid": 1}, GIB, b"x" * 1000)
        open_many(crowd, address, n // 2, join, read_challenge=True, sources=sources)
        open_many(crowd, address, n - n // 2, call, read_challenge=True, sources=sources)
        settle()
        return {"peers": n, "announced_gib": n, "head_rss_growth_mib": round((rss_bytes(pid) - rss0) / 2 ** 20, 1),
                "still_open": crowd.alive()}


def attack_slowloris(address, n, trickling=100):
    """``n`` idle strangers and ``trickling`` that send a join a byte at a time: how long a
    node that connects meanwhile waits for its challenge, and how many the head kept."""
    sources = [f"127.0.4.{i}" for i in range(1, 31)]
    with Crowd() as idle, Crowd() as slow:
        open_many(idle, address, n, sources=sources)
        open_many(slow, address, trickling, sources=sources)
        trickler = Trickler(slow, every=0.2, seconds=30)
        trickler.start()
        try:
            waits = [challenge_seconds(address) for _ in range(10)]
        finally:
            trickler.stop.set()
            trickler.join()
        return {"idle": n, "trickling": trickling, "challenge_max_s": round(max(waits), 4),
                "challenge_median_s": round(sorted(waits)[len(waits) // 2], 4), "still_open": idle.alive() + slow.alive()}


def attack_after_auth(address, socket_path, pid, token, links=20, clients=100):
    """Insiders: ``links`` node links that passed the door with the token and ``clients``
    unix-socket clients, each announcing a 1 GiB frame, sending 64 KiB of it and holding.
    The payload budget takes only what arrived: the head's RSS growth."""
    rss0 = rss_bytes(pid)
    with Crowd() as crowd:
        for _ in range(links if token else 0):
            s = crowd.add(joined_link(address, token))
            s.sendall(announcing({"op": "log", "cid": 1}, GIB, b"z" * 65536))
        hello = frame({"op": "hello", "rid": 1, "proto": 1, "role": "driver", "pid": os.getpid()})
        open_many(crowd, socket_path, clients, hello + announcing({"op": "put", "rid": 2}, GIB, b"y" * 65536))
        settle()
        return {"links": links if token else 0, "clients": clients,
                "head_rss_growth_mib": round((rss_bytes(pid) - rss0) / 2 ** 20, 1)}
