"""Connection against an in-test fake daemon on a real unix socket (no Java needed)."""

import os
import shutil
import socket
import tempfile
import threading

import pytest

from ray._beam.wire import framing
from ray._beam.wire.framebuffer import FrameBuffer
from ray._beam.wire.connection import Connection
from ray._beam.wire.spin import SpinPolicy
from waiting import WAIT_S, wait_until


_made_dirs = []


@pytest.fixture(autouse=True)
def _remove_socket_dirs():
    """Each FakeDaemon's socket folder goes when its test ends."""
    yield
    while _made_dirs:
        shutil.rmtree(_made_dirs.pop(), ignore_errors=True)


class FakeDaemon:
    """Accepts one connection and answers with ``handler(header, payload, send)``."""

    def __init__(self, handler):
        self.dir = tempfile.mkdtemp(prefix="beam-fake-")
        _made_dirs.append(self.dir)
        self.path = os.path.join(self.dir, "d.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(1)
        self.handler = handler
        self.conn = None
        self.send_lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        self.conn, _ = self.server.accept()
        frames = FrameBuffer(self.conn)
        try:
            while True:
                frame = frames.pop()
                if frame is None:
                    frames.fill()
                else:
                    self.handler(*frame, self.send)
        except (EOFError, OSError, framing.FrameError):
            pass

    def send(self, header, payload=b""):
        frame = framing.encode_frame(header, payload)
        step = 5 if len(frame) < 4096 else 65536
        with self.send_lock:
            for i in range(0, len(frame), step):  # dribble 5 bytes at a time (small frames)
                self.conn.sendall(frame[i:i + step])

    def drop(self):
        self.conn.shutdown(socket.SHUT_RDWR)
        self.conn.close()


def test_request_reply_push_and_errors():
    pushes = []

    def handler(h, p, send):
        if h["op"] == "echo":
            send({"op": "pushed", "n": 1}, b"xyz")
            send({"op": "reply", "rid": h["rid"], "ok": True, "got": p.decode()})
        elif h["op"] == "bad":
            send({"op": "reply", "rid": h["rid"], "ok": False, "error": "name taken",
                  "kind": "ValueError"})
        elif h["op"] == "dead":
            send({"op": "reply", "rid": h["rid"], "ok": False, "error": "gone",
                  "kind": "ActorDiedError"})
    d = FakeDaemon(handler)
    c = Connection(d.path)
    got = threading.Event()
    c.on("pushed", lambda h, p: (pushes.append((h["n"], p)), got.set()))
    c.start()
    assert c.request("echo", {"a": 1}, b"hello")["got"] == "hello"
    assert got.wait(2) and pushes == [(1, b"xyz")]
    with pytest.raises(ValueError, match="name taken"):
        c.request("bad")
    import ray.exceptions
    with pytest.raises(ray.exceptions.ActorDiedError, match="gone"):
        c.request("dead")
    c.close()


def test_drop_wakes_every_waiter_with_connection_error():
    asked = []
    d = FakeDaemon(lambda h, p, send: asked.append(h["op"]))  # never answers
    lost = []
    c = Connection(d.path, on_close=lost.append)
    c.start()
    errors = []

    def call():
        try:
            c.request("slow")
        except ConnectionError as e:
            errors.append(str(e))
    threads = [threading.Thread(target=call) for _ in range(3)]
    for t in threads:
        t.start()
    wait_until(lambda: asked.count("slow") == 3, WAIT_S, "all three requests reached the daemon")
    d.drop()
    for t in threads:
        t.join(WAIT_S)
    assert len(errors) == 3 and all("daemon went away" in e for e in errors)
    assert len(lost) == 1
    with pytest.raises(ConnectionError, match="daemon went away"):
        c.send("call", {})


def test_bad_frame_from_daemon_closes_link():
    def handler(h, p, send):
        d.conn.sendall(b"\x00\x00\x00\x00")  # zero-length header
    d = FakeDaemon(handler)
    c = Connection(d.path)
    c.start()
    with pytest.raises(ConnectionError, match="bad frame"):
        c.request("x")


def test_waiting_thread_reads_its_own_reply_and_idle_reader_handles_pushes():
    """Leader/follower: the thread in request() dispatches what arrives while it waits
    (no hand-off); with nobody waiting, the idle reader still handles pushes."""
    def handler(h, p, send):
        if h["op"] == "echo":
            send({"op": "pushed", "n": h["n"]})
            send({"op": "reply", "rid": h["rid"], "ok": True})
        elif h["op"] == "later":
            send({"op": "pushed", "n": h["n"]})
    d = FakeDaemon(handler)
    c = Connection(d.path)
    seen = []
    got = threading.Event()
    c.on("pushed", lambda h, p: (seen.append((h["n"], threading.current_thread().name)), got.set()))
    c.start()
    for n in range(5):
        c.request("echo", {"n": n})
    assert seen == [(n, threading.current_thread().name) for n in range(5)]
    c.send("later", {"n": 9})
    import time
    deadline = time.monotonic() + 5
    while len(seen) < 6 and time.monotonic() < deadline:
        time.sleep(0.01)
    assert seen[-1] == (9, "beam-reader")
    c.close()


def test_followers_get_their_replies_while_another_thread_leads():
    """Many threads wait at once, replies out of order and some late: each gets its own,
    a timed-out waiter gives the read role back, and big payloads (own buffer) arrive whole."""
    big = os.urandom(3 << 20)

    def handler(h, p, send):
        if h["op"] == "slow":
            return  # never answered: the caller times out
        def answer():
            import time
            time.sleep(0.05 * (h["n"] % 3))
            send({"op": "reply", "rid": h["rid"], "ok": True, "n": h["n"]}, big if h["n"] == 4 else b"")
        threading.Thread(target=answer).start()
    d = FakeDaemon(handler)
    c = Connection(d.path)
    c.start()
    with pytest.raises(TimeoutError, match="'slow'"):
        c.request("slow", timeout=0.2)
    results = {}

    def call(n):
        r = c.request("echo", {"n": n}, timeout=30)
        results[n] = (r["n"], r["_payload"] == big if n == 4 else len(r["_payload"]))
    threads = [threading.Thread(target=call, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert results == {n: (n, True if n == 4 else 0) for n in range(8)}
    c.close()


def test_waiter_polls_for_quick_replies_and_stops_polling_when_they_are_slow(monkeypatch):
    """Adaptive polling (spin.py) on a real socket: quick replies are caught by the poll, a
    reply later than the window is still received (by the blocking read after it), and once
    replies are consistently slow the waiter sleeps at once."""
    import time
    delay = {"s": 0.0}

    def handler(h, p, send):
        def answer():
            time.sleep(delay["s"])
            with d.send_lock:  # in one piece: a dribbled reply would be caught by later polls
                d.conn.sendall(framing.encode_frame({"op": "reply", "rid": h["rid"], "ok": True, "n": h["n"]}))
        threading.Thread(target=answer).start()
    d = FakeDaemon(handler)
    monkeypatch.setenv("BEAM_SPIN_US", "1000000")  # 1 s: wide enough for a loaded test machine
    c = Connection(d.path)
    c.start()
    polls = []

    class Recording(SpinPolicy):
        __slots__ = ()

        def record(self, hit):
            polls.append(hit)
            super().record(hit)
    c.spin = Recording(c.spin.budget)
    for n in range(5):
        assert c.request("echo", {"n": n}, timeout=10)["n"] == n
    assert polls and all(polls), polls
    c.spin.budget = 0.002  # now every reply comes later than the window
    delay["s"] = 0.02
    polls.clear()
    yields = []
    real_yield = os.sched_yield
    monkeypatch.setattr(os, "sched_yield", lambda: (yields.append(1), real_yield())[1])
    for n in range(20):
        assert c.request("echo", {"n": n}, timeout=10)["n"] == n
    assert polls[:8] == [False] * 8  # it polled and missed, then fell back to blocking
    # between two looks it gave the CPU to any thread that waited for it (the worker
    # computing the reply may share its core)
    assert len(yields) >= 8, len(yields)
    assert len(polls) < 20 and c.spin.window() == 0.0  # and stopped polling
    c.close()


def _push_later_daemon(delay):
    """A fake daemon that answers 'echo' at once and 'push_later' with a 'pushed' frame
    ``delay`` seconds later (when, in these tests, nobody waits any more)."""
    def handler(h, p, send):
        if h["op"] == "echo":
            send({"op": "reply", "rid": h["rid"], "ok": True})
        elif h["op"] == "push_later":
            threading.Timer(delay, send, args=({"op": "pushed"},)).start()
    return FakeDaemon(handler)


def _pushed(c):
    """An Event set when ``c`` dispatches a 'pushed' frame."""
    got = threading.Event()
    c.on("pushed", lambda h, p: got.set())
    return got


def _start_waiting(c, done):
    """A thread in ``c.wait_for(done)``; returns it once the connection counts it."""
    waiter = threading.Thread(target=c.wait_for, args=(done, 60), daemon=True)
    waiter.start()
    wait_until(lambda: c._waiting, WAIT_S, "the connection counting the waiter", interval=0.001)
    return waiter


def _recording_checks(c):
    """Record the timeout of each check the idle reader makes."""
    checks = []
    wait = c._idle.wait
    c._idle.wait = lambda timeout=None: (checks.append(timeout), wait(timeout))[1]
    return checks


def test_prompt_idle_reader_backs_off_during_a_long_wait_and_is_woken_when_it_ends(monkeypatch):
    """While a callback waits for a push (prompt mode), an idle driver's long ray.get must
    not wake the idle reader every 5 ms, and once the wait ends the idle reader must take
    over at once (pushes then arrive while nobody waits)."""
    import time
    import ray._beam.wire.readrole as connection_module
    # a long ceiling, so that a missed wake-up would show as a delay of about a second
    monkeypatch.setattr(connection_module, "IDLE_RECHECK_MAX_S", 30.0)

    d = _push_later_daemon(0.05)
    c = Connection(d.path)
    c.prompt_pushes = lambda: True
    checks = _recording_checks(c)
    got = _pushed(c)
    stop = threading.Event()
    waiter = _start_waiting(c, stop.is_set)
    c.start()  # the idle reader finds a waiter, so it goes to its periodic checks
    # checks at 5, 10, 20, ... ms: once one of 5.12 s has begun (at 5.115 s), an idle reader
    # not woken when the wait ends would take seconds to handle the push, not milliseconds
    wait_until(lambda: checks and checks[-1] >= 5.0, WAIT_S, "the idle reader backed off to a 5.12 s check")
    assert len(checks) < 20, checks  # not 1000 checks of 5 ms
    assert checks[:4] == pytest.approx([0.005, 0.01, 0.02, 0.04])
    stop.set()
    d.send({"op": "nudge"})  # wakes the waiter (it reads and finds stop set)
    waiter.join(WAIT_S)
    t0 = time.monotonic()
    c.send("push_later")  # answered 50 ms later, with nobody waiting
    assert got.wait(WAIT_S)
    assert time.monotonic() - t0 < 3.0, "the idle reader was not woken when the wait ended"
    c.close()


def test_idle_reader_sleeps_while_waits_follow_each_other(monkeypatch):
    """With no callback waiting (slow mode), a thread that waits call after call must not
    wake the idle reader every 5 ms; pushes that come once it stops are still handled."""
    import time
    import ray._beam.wire.readrole as connection_module
    monkeypatch.setattr(connection_module, "IDLE_RECHECK_MAX_S", 0.3)

    d = _push_later_daemon(0.05)
    c = Connection(d.path)
    checks = _recording_checks(c)
    got = _pushed(c)
    c.request("echo")  # the first wait: the idle reader then starts its checks
    c.start()
    started = time.monotonic()
    calls = 0
    while calls < 100 or time.monotonic() < started + 1.0:  # waits end and begin again, many times
        c.request("echo")
        calls += 1
    took = time.monotonic() - started
    # one check per 0.3 s however long the calls took on this machine, not one per 5 ms
    assert 0 < len(checks) <= took / 0.3 + 3, (took, checks)
    assert set(checks) == {0.3}
    c.send("push_later")  # answered 50 ms later, with nobody waiting
    assert got.wait(WAIT_S), "a push with nobody waiting was never handled"
    c.close()


def test_a_callback_that_begins_to_wait_makes_the_idle_reader_prompt_at_once(monkeypatch):
    """The idle reader in a slow check (here 30 s) is woken when a callback begins to wait,
    and then handles a push that comes after the last waiter left within IDLE_RECHECK_S,
    not 30 s later."""
    import time
    import ray._beam.wire.readrole as connection_module
    monkeypatch.setattr(connection_module, "IDLE_RECHECK_MAX_S", 30.0)

    d = _push_later_daemon(0.2)
    c = Connection(d.path)
    checks = _recording_checks(c)
    prompt = threading.Event()
    c.prompt_pushes = prompt.is_set
    got = _pushed(c)
    stop = threading.Event()
    waiter = _start_waiting(c, stop.is_set)
    c.start()
    wait_until(lambda: checks, WAIT_S, "the idle reader's first check", interval=0.001)
    assert checks == [30.0]  # a slow check
    prompt.set()
    c.pushes_now_prompt()
    wait_until(lambda: 0.005 in checks[1:], WAIT_S, "the idle reader woken from its 30 s check, checking often")
    c.send("push_later")  # answered 200 ms later; the waiter leaves before that
    stop.set()
    d.send({"op": "nudge"})
    waiter.join(WAIT_S)
    t0 = time.monotonic()
    assert got.wait(WAIT_S)
    assert time.monotonic() - t0 < 10.0, "the push waited for the slow check (30 s)"
    c.close()


def test_a_waiting_thread_sleeps_through_the_daemon_reading_what_it_wrote():
    """Linux wakes a thread blocked in recv() on a unix socket when the peer reads what this
    side wrote (room to write again). A waiting thread must sleep in poll() instead: an
    actor worker would otherwise wake twice per call (framebuffer.py)."""
    import time
    folder = tempfile.mkdtemp(prefix="beam-fake-")
    _made_dirs.append(folder)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(os.path.join(folder, "d.sock"))
    server.listen(1)
    c = Connection(os.path.join(folder, "d.sock"))  # no idle reader: only the waiter reads
    peer, _ = server.accept()
    c.spin.budget = 0.0  # sleeps at once, as an actor worker does
    c.send("note", {"n": 1}, b"x" * 1000)  # lies unread in the socket for now
    stop = threading.Event()
    tid = []
    waiter = threading.Thread(target=lambda: (tid.append(threading.get_native_id()),
                                              c.wait_for(stop.is_set)), daemon=True)  # no timeout, as a worker waits
    waiter.start()

    def sleeping_and_switches():
        with open(f"/proc/self/task/{tid[0]}/status") as f:
            fields = dict(line.split(":", 1) for line in f)
        return fields["State"].split()[0] == "S", int(fields["voluntary_ctxt_switches"])
    deadline, seen, steady = time.monotonic() + 10, None, 0
    while steady < 5 and time.monotonic() < deadline:  # asleep, and staying asleep
        time.sleep(0.01)
        now = sleeping_and_switches() if tid else None
        steady = steady + 1 if now is not None and now[0] and now == seen else 0
        seen = now
    assert steady >= 5, "the waiting thread never settled into its sleep"
    assert peer.recv(65536)  # the daemon reads what the client wrote
    time.sleep(0.3)
    assert sleeping_and_switches() == seen, "the waiting thread woke because the peer read"
    stop.set()
    peer.sendall(framing.encode_frame({"op": "nudge"}))  # a real frame wakes it; it finds stop set
    waiter.join(5)
    assert not waiter.is_alive()
    c.close()
    peer.close()
    server.close()


def test_a_timed_wait_ends_at_its_deadline_whether_or_not_it_polled(monkeypatch):
    import time
    d = FakeDaemon(lambda h, p, send: None)  # never answers
    monkeypatch.setenv("BEAM_SPIN_US", "2900000")  # polls 2.9 s of the 3 s timeout first
    c = Connection(d.path)
    c.start()
    t0 = time.monotonic()
    with pytest.raises(TimeoutError):
        c.request("slow", timeout=3.0)
    assert time.monotonic() - t0 < 5.0  # not 2.9 s of polling plus the whole 3 s again (5.9 s)
    c.close()


def _wait_in_socket(c, header):
    """Until the daemon's frame ``header`` lies whole in ``c``'s socket, unread (peeked): the
    fake daemon dribbles small frames 5 bytes at a time."""
    size = len(framing.encode_frame(header, b""))

    def peeked():
        try:
            return len(c._sock.recv(size, socket.MSG_PEEK | socket.MSG_DONTWAIT))
        except BlockingIOError:
            return 0
    wait_until(lambda: peeked() >= size, WAIT_S, f"the daemon's {header} whole in the socket", interval=0.01)


def test_a_wait_with_no_time_left_still_takes_what_has_arrived():
    """ray.wait(refs, timeout=0) in a loop must see results once they are in the socket,
    whether or not the idle reader has come round to reading them."""
    import time
    d = FakeDaemon(lambda h, p, send: send({"op": "pushed"}) if h["op"] == "poke" else None)
    c = Connection(d.path)  # no idle reader: nobody else reads
    got = threading.Event()
    c.on("pushed", lambda h, p: got.set())
    c.send("poke")
    _wait_in_socket(c, {"op": "pushed"})  # the push lies in the socket
    assert not got.is_set()
    assert c.wait_for(got.is_set, 0) is True
    assert c.wait_for(lambda: False, 0) is False  # nothing more: it gives up at once
    c.close()


def test_a_closed_connection_is_never_polled_and_huge_timeouts_are_fine():
    """A reader must not poll the fd number of a closed socket (another file may own it by
    then), and a timeout beyond poll()'s range (about 24.8 days) must not raise."""
    import time
    d = FakeDaemon(lambda h, p, send: send({"op": "pushed"}) if h["op"] == "poke" else None)
    c = Connection(d.path)
    c.send("poke")
    _wait_in_socket(c, {"op": "pushed"})  # the push lies in the socket
    assert c._frames.fill(True, 1e10) is True  # poll(1e13 ms) would raise OverflowError
    fd = c._sock.fileno()
    c.close()
    pipes = [os.pipe() for _ in range(8)]  # one of them most likely takes over the fd number
    assert any(fd in p for p in pipes), "could not reuse the fd number; the check below proves less"
    outcome = []

    def read_after_close():
        try:
            c._frames.fill(True)
            outcome.append("returned")
        except OSError as e:
            outcome.append(e)
    t = threading.Thread(target=read_after_close, daemon=True)
    t.start()
    t.join(5)
    for p in pipes:
        for end in p:
            os.close(end)
    assert outcome and isinstance(outcome[0], OSError), outcome or "it waited on another file's fd"
