"""The codec against the golden frames shared with the Java side."""

import io
import json
import os

import pytest

from _paths import GOLDEN
from ray._beam.wire import framing


def _load(name):
    with open(os.path.join(GOLDEN, name), encoding="utf-8") as f:
        return json.load(f)


GOOD = _load("frames.json")
BAD = _load("bad_frames.json")


def _reader(data: bytes, chunk: int = 5):
    """read_exact over a stream that returns at most ``chunk`` bytes per read."""
    stream = io.BytesIO(data)

    def read_exact(n):
        out = b""
        while len(out) < n:
            part = stream.read(min(chunk, n - len(out)))
            if not part:
                raise EOFError
            out += part
        return out
    return read_exact


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
def test_read_frame_in_small_chunks(case):
    frame = bytes.fromhex(case["frame_hex"])
    header, payload = framing.read_frame(_reader(frame + frame, chunk=5))
    assert header == case["header"] and payload.hex() == case["payload_hex"]


def test_encode_adds_plen_last():
    frame = framing.encode_frame({"op": "call", "oid": "x"}, b"abc")
    header, payload, _ = framing.decode_frame(frame)
    assert list(header) == ["op", "oid", "plen"] and header["plen"] == 3 and payload == b"abc"


@pytest.mark.parametrize("case", BAD, ids=lambda c: c["name"])
def test_bad_frames_are_rejected(case):
    with pytest.raises(framing.FrameError):
        framing.read_frame(_reader(bytes.fromhex(case["frame_hex"])))


def test_size_checked_before_reading_header():
    reads = []

    def read_exact(n):
        reads.append(n)
        if len(reads) == 1:
            return bytes.fromhex("7fffffff")
        raise AssertionError("must not read a 2 GiB header")
    with pytest.raises(framing.FrameError, match="exceeds the limit"):
        framing.read_frame(read_exact)


def test_clean_eof_between_frames():
    with pytest.raises(EOFError):
        framing.read_frame(_reader(b""))


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
def test_the_receive_buffer_rejects_bad_headers_as_read_frame_does(buf, message):
    # FrameBuffer parses headers straight out of its bytearray (framing.split_header)
    with pytest.raises(framing.FrameError, match=message):
        framing.split_header(bytearray(buf))
    with pytest.raises(framing.FrameError, match=message):
        framing.read_frame(_reader(buf + b"\x00" * 8))
