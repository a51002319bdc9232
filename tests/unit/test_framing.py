"""The codec against the golden frames shared with the Java side; frames are received the way
connection.py receives them (FrameBuffer over a real socket)."""

import json
import os
import socket

import pytest

from _paths import GOLDEN
from ray._beam.wire import framing
from ray._beam.wire.framebuffer import FrameBuffer


def _load(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        return json.load(f)


GOOD = _load("frames.json")
BAD = _load("bad_frames.json")


def _receive(data: bytes, chunk: int = 5):
    """(frames, error): what FrameBuffer cuts out of ``data`` sent ``chunk`` bytes at a time
    over a unix socket pair, and the error that ended it once the sender closed: EOFError,
    or the FrameError that made the connection give up."""
    sender, receiver = socket.socketpair()
    frames = []
    try:
        buf = FrameBuffer(receiver)
        try:
            for i in range(0, len(data), chunk):
                sender.sendall(data[i:i + chunk])
                assert buf.fill(block=True, timeout=5), "sent bytes never arrived"
                while (frame := buf.pop()) is not None:
                    frames.append(frame)
            sender.shutdown(socket.SHUT_WR)
            while True:
                buf.fill(block=True, timeout=5)  # raises EOFError once all is read
                while (frame := buf.pop()) is not None:
                    frames.append(frame)
        except (EOFError, framing.FrameError) as e:
            return frames, e
    finally:
        sender.close()
        receiver.close()


def test_golden_set_covers_required_cases():
    names = {c["name"] for c in GOOD}
    assert any(c["payload_hex"] == "" for c in GOOD)
    assert any(c["payload_hex"] for c in GOOD)
    assert any(any(ord(ch) > 127 for ch in json.dumps(c["header"], ensure_ascii=False))
               for c in GOOD)
    assert "log_non_ascii" in names


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c["name"])
def test_encode_matches_golden(case):
    payload = bytes.fromhex(case["payload_hex"])
    assert framing.encode_frame(case["header"], payload).hex() == case["frame_hex"]


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c["name"])
def test_decode_matches_golden(case):
    frame = bytes.fromhex(case["frame_hex"])
    header, payload, used = framing.decode_frame(frame)
    assert header == case["header"] and list(header) == list(case["header"])
    assert payload.hex() == case["payload_hex"] and used == len(frame)
    assert framing.decode_frame(frame[:-1]) is None


@pytest.mark.parametrize("case", GOOD, ids=lambda c: c["name"])
def test_the_receive_buffer_cuts_frames_out_of_small_chunks(case):
    frame = bytes.fromhex(case["frame_hex"])
    frames, error = _receive(frame + frame, chunk=5)
    assert [(h, p.hex()) for h, p in frames] == [(case["header"], case["payload_hex"])] * 2
    assert type(error) is EOFError


def test_encode_adds_plen_last():
    frame = framing.encode_frame({"op": "call", "oid": "x"}, b"abc")
    header, payload, _ = framing.decode_frame(frame)
    assert list(header) == ["op", "oid", "plen"] and header["plen"] == 3 and payload == b"abc"


@pytest.mark.parametrize("case", BAD, ids=lambda c: c["name"])
def test_bad_frames_are_rejected(case):
    frames, error = _receive(bytes.fromhex(case["frame_hex"]))
    assert frames == []
    if case["name"] == "truncated_payload":  # the peer closed inside a frame: nothing to parse
        assert type(error) is EOFError
    else:
        assert isinstance(error, framing.FrameError), error


def test_size_checked_before_the_header_arrives():
    # only the 4-byte length of a 2 GiB header is sent: refused without waiting for the rest
    sender, receiver = socket.socketpair()
    try:
        sender.sendall(bytes.fromhex("7fffffff"))
        buf = FrameBuffer(receiver)
        assert buf.fill(block=True, timeout=5)
        with pytest.raises(framing.FrameError, match="exceeds the limit"):
            buf.pop()
    finally:
        sender.close()
        receiver.close()


def test_clean_eof_between_frames():
    frames, error = _receive(b"")
    assert frames == [] and type(error) is EOFError


def test_encode_rejects_bad_headers():
    with pytest.raises(framing.FrameError):
        framing.encode_frame({"rid": 1})
    with pytest.raises(framing.FrameError):
        framing.encode_frame({"op": "x", "plen": 5}, b"ab")
    with pytest.raises(framing.FrameError, match="header of"):
        framing.encode_frame({"op": "x", "blob": "a" * (1 << 20)})


@pytest.mark.parametrize("method", ["echo", "execute_model", "café", 'a"b\\c', "tab\there", "😀", ""])
@pytest.mark.parametrize("plen", [0, 1, 123456])
def test_call_and_result_heads_are_what_encode_parts_makes(method, plen):
    actor, oid = "ab" * 16, "cd" * 28
    payload = b"x" * plen
    want, _ = framing.encode_parts({"op": "call", "actor_id": actor, "method": method, "oid": oid}, payload)
    assert framing.call_head(actor, method, oid, plen) == want
    want, _ = framing.encode_parts({"op": "result", "oid": oid, "status": method}, payload)
    assert framing.result_head(oid, method, plen) == want


@pytest.mark.parametrize("bad", ['ab"cd', "ab cd", "é1", ""])
def test_call_head_refuses_ids_that_are_not_hex(bad):
    with pytest.raises(framing.FrameError, match="not hex"):
        framing.call_head(bad, "m", "cd" * 28, 1)
    with pytest.raises(framing.FrameError, match="not hex"):
        framing.result_head(bad, "ok", 1)


@pytest.mark.parametrize("buf,message", [
    (b"\x00\x00\x00\x00{}", "header length is 0"),
    ((framing.MAX_HEADER_BYTES + 1).to_bytes(4, "big"), "exceeds the limit"),
    (b"\x00\x00\x00\x03{x}", "not valid UTF-8 JSON"),
    (b"\x00\x00\x00\x02\xff\xfe", "not valid UTF-8 JSON"),
    (b"\x00\x00\x00\x02[]", "not a JSON object"),
])
def test_the_receive_buffer_says_what_is_wrong_with_a_header(buf, message):
    with pytest.raises(framing.FrameError, match=message):
        framing.split_header(bytearray(buf))
    frames, error = _receive(buf + b"\x00" * 8, chunk=64)
    assert frames == [] and isinstance(error, framing.FrameError) and message in str(error)


@pytest.mark.parametrize("args,label", [
    (("init_device", 1), "init_device"),
    (("x" * 64,), "x" * 64),
    (("x" * 65,), None),  # too long: no label
    (("",), None),
    (('say "hi"',), None),  # a quote or backslash would need a JSON escape: the header stays plain
    (("a\\b",), None),
    (("tab\there",), None),
    (("naïve",), None),
    ((b"bytes",), None),
    ((7, "second"), None),
    ((), None),
])
def test_a_calls_label_is_its_short_printable_string_first_argument(args, label):
    assert framing.call_label(args) == label


def test_a_labelled_call_header_is_the_json_of_its_fields():
    actor, oid = "ab" * 16, "cd" * 28
    want, _ = framing.encode_parts({"op": "call", "actor_id": actor, "method": "execute_method", "oid": oid,
                                    "label": "init_device"}, b"xyz")
    assert framing.call_head(actor, "execute_method", oid, 3, "init_device") == want
