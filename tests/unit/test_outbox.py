"""Outbox (python/ray/_beam/wire/outbox.py) over a real socketpair: what is written when."""

import socket
import time

import pytest

from ray._beam.wire import framing, outbox
from ray._beam.wire.outbox import Outbox


@pytest.fixture
def pair(monkeypatch):
    # No timing in these tests: calls stay in one burst, and held frames stay held, unless a
    # test sets a gap or a flush period of its own.
    monkeypatch.setattr(outbox, "FLUSH_PERIOD_S", 30.0)
    monkeypatch.setattr(outbox, "BURST_GAP_S", 30.0)
    a, b = socket.socketpair()
    failures = []

    def on_error(e):
        failures.append(e)
        box.close()  # the connection's failure path may touch the outbox: no deadlock
        return ConnectionError(f"write failed: {e}")

    box = Outbox(a, on_error)
    yield box, b, failures
    box.close()
    a.close()
    b.close()


def frame(n):
    head, body = framing.encode_parts({"op": "call", "n": n}, b"x" * 10)
    return head, body


def arrived(sock, wait=0.0):
    """The frame numbers readable on ``sock`` now (after ``wait`` seconds for more)."""
    if wait:
        time.sleep(wait)
    data = b""
    while True:
        try:
            chunk = sock.recv(1 << 20, socket.MSG_DONTWAIT)
        except BlockingIOError:
            break
        if not chunk:
            break
        data += chunk
    out = []
    while data:
        header, _, used = framing.decode_frame(data)
        out.append(header["n"])
        data = data[used:]
    return out


def test_calls_separated_by_waits_are_written_at_once(pair):
    box, peer, _ = pair
    for n in range(20):
        box.call(*frame(n))
        assert arrived(peer) == [n]
        box.flush()  # a wait starts (ray.get): the burst ends


def test_a_long_burst_sends_its_first_calls_then_holds_the_rest_until_a_wait(pair):
    box, peer, _ = pair
    total = outbox.SEND_FIRST + 5
    for n in range(total):
        box.call(*frame(n))
    assert arrived(peer) == list(range(outbox.SEND_FIRST))
    box.flush()
    assert arrived(peer) == list(range(outbox.SEND_FIRST, total))


def test_any_other_frame_goes_out_after_the_held_calls(pair):
    box, peer, _ = pair
    for n in range(outbox.SEND_FIRST + 3):
        box.call(*frame(n))
    box.write(*frame(99))
    assert arrived(peer) == list(range(outbox.SEND_FIRST + 3)) + [99]


def test_held_calls_leave_without_a_wait_within_the_flush_period(pair, monkeypatch):
    monkeypatch.setattr(outbox, "FLUSH_PERIOD_S", 0.002)
    box, peer, _ = pair
    for n in range(outbox.SEND_FIRST + 2):
        box.call(*frame(n))
    got = arrived(peer)
    deadline = time.monotonic() + 30.0  # ends when they are in; a loaded machine may take a while
    while len(got) < outbox.SEND_FIRST + 2 and time.monotonic() < deadline:
        got += arrived(peer, wait=0.002)
    assert got == list(range(outbox.SEND_FIRST + 2)), "the flusher did not write the held calls"


def test_a_full_hold_is_written_without_waiting_for_the_flusher(pair):
    box, peer, _ = pair
    total = outbox.SEND_FIRST + outbox.MAX_HELD_FRAMES
    for n in range(total):
        box.call(*frame(n))
    assert arrived(peer) == list(range(total))


def test_a_gap_ends_the_burst(pair, monkeypatch):
    box, peer, _ = pair
    for n in range(outbox.SEND_FIRST + 2):
        box.call(*frame(n))
    monkeypatch.setattr(outbox, "BURST_GAP_S", 0.001)
    time.sleep(0.01)
    box.call(*frame(50))  # after the gap: written at once, behind the held ones
    assert arrived(peer) == list(range(outbox.SEND_FIRST + 2)) + [50]


def test_a_failed_write_raises_connection_error_through_on_error(pair):
    box, peer, failures = pair
    peer.close()
    with pytest.raises(ConnectionError, match="write failed"):
        for n in range(1000):  # the first write may still land in the socket buffer
            box.call(*frame(n))
            box.flush()
    assert failures


def test_after_a_fork_the_child_neither_writes_nor_flushes_the_parents_calls(pair, monkeypatch):
    box, peer, _ = pair
    for n in range(outbox.SEND_FIRST + 3):
        box.call(*frame(n))
    assert arrived(peer) == list(range(outbox.SEND_FIRST))
    monkeypatch.setattr(outbox, "_generation", outbox._generation + 1)  # what a fork does in the child
    box.flush()  # a child's ref.future() flushes: nothing may go out
    assert arrived(peer) == []
    with pytest.raises(ConnectionError, match="forked"):
        box.call(*frame(99))


def test_flush_with_a_timeout_gives_up_while_the_write_lock_is_taken(pair):
    box, peer, _ = pair
    for n in range(outbox.SEND_FIRST + 1):
        box.call(*frame(n))
    box._lock.acquire()  # a write in progress (ray.shutdown() from a signal handler)
    try:
        started = time.monotonic()
        box.flush(timeout=0.05)
        assert time.monotonic() - started < 5
    finally:
        box._lock.release()
    assert arrived(peer) == list(range(outbox.SEND_FIRST))  # the held one is still held
    box.flush()
    assert arrived(peer) == [outbox.SEND_FIRST]
