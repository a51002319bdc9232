"""Frame codec for the beam wire protocol (docs/PROTOCOL.md, "Frame").

A frame is ``[u32 big-endian header length][JSON header][payload of plen bytes]``.
These are pure functions over bytes so they can be tested against the golden frames in
``tests/golden/frames.json`` without sockets; the Java side (``beam.codec.FrameCodec``)
is tested against the same file. Sizes are checked before anything is allocated, so a
hostile or corrupt length can never make us allocate a gigabyte by accident.
"""

from __future__ import annotations

import functools
import json
import struct
from typing import Tuple

MAX_HEADER_BYTES = 1 << 20  # 1 MiB
MAX_PAYLOAD_BYTES = 1 << 30  # 1 GiB

_LEN = struct.Struct(">I")
_JSON = json.JSONDecoder()  # json.loads with no options is this decoder's decode, a call less


class FrameError(ValueError):
    """A frame broke the framing rules; the connection that sent it must be closed."""


def encode_header(header: dict) -> bytes:
    """The exact byte form of a header: compact JSON, insertion order, raw UTF-8.

    The golden frames are written with this function, so Java and Python agree byte for
    byte on what a given header dict looks like on the wire.
    """
    return json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")


def encode_frame(header: dict, payload: bytes = b"") -> bytes:
    """Encode one frame. ``plen`` is added (last) when there is a payload and it is unset."""
    head, payload = _prepare(header, payload)
    return _LEN.pack(len(head)) + head + bytes(payload)


def encode_parts(header: dict, payload: bytes = b"") -> Tuple[bytes, bytes]:
    """Like encode_frame but returns (prefix+header, payload) so a big payload is not copied."""
    head, payload = _prepare(header, payload)
    return _LEN.pack(len(head)) + head, payload


# The two frames of every actor call, formatted directly instead of through json.dumps (about
# 10 us less per call in the driver and in the worker). Each returns exactly the bytes
# encode_parts returns for the same header dict; tests/unit/test_framing.py checks that.

MAX_LABEL_CHARS = 64
_LABEL_CHARS = frozenset(chr(c) for c in range(0x20, 0x7f)) - {'"', "\\"}


def call_label(args: tuple):
    """The call's first argument when it is a short printable string (vLLM's
    ``execute_method("init_device", ...)``), for task lists; else None. Quotes and
    backslashes are left out so that the header stays plain (no JSON escapes)."""
    if not args:
        return None
    first = args[0]
    if type(first) is not str or not 0 < len(first) <= MAX_LABEL_CHARS:
        return None
    return first if _LABEL_CHARS.issuperset(first) else None


def call_head(actor_id: str, method: str, oid: str, plen: int, label=None) -> bytes:
    """Length prefix and header of ``{"op": "call", "actor_id", "method", "oid"[, "label"]}`` + plen."""
    head = b'{"op":"call","actor_id":"%b","method":%b,"oid":"%b"' % (_hex(actor_id), _json_str(method), _hex(oid))
    if label is not None:
        head += b',"label":"%b"' % label.encode("ascii")
    return _plain(head, plen)


def result_head(oid: str, status: str, plen: int) -> bytes:
    """Length prefix and header of ``{"op": "result", "oid", "status"}`` + plen."""
    return _plain(b'{"op":"result","oid":"%b","status":%b' % (_hex(oid), _json_str(status)), plen)


def _plain(head: bytes, plen: int) -> bytes:
    head = head + (b',"plen":%d}' % plen if plen else b"}")
    if len(head) > MAX_HEADER_BYTES:
        raise FrameError(f"header of {len(head)} bytes exceeds the limit of {MAX_HEADER_BYTES} bytes")
    return _LEN.pack(len(head)) + head


def _hex(s: str) -> bytes:
    if not (s.isascii() and s.isalnum()):  # ids are hex: nothing in them needs a JSON escape
        raise FrameError(f"id {s!r} is not hex")
    return s.encode("ascii")


@functools.lru_cache(maxsize=4096)
def _json_str(s: str) -> bytes:
    """A method name or status as a JSON string; few distinct ones, so they are cached."""
    return json.dumps(s, ensure_ascii=False).encode("utf-8")


def _prepare(header: dict, payload) -> Tuple[bytes, bytes]:
    if not isinstance(header, dict) or not isinstance(header.get("op"), str):
        raise FrameError("frame header must be a dict with a string 'op'")
    plen = len(payload)
    if plen > MAX_PAYLOAD_BYTES:
        raise FrameError(f"payload of {plen} bytes exceeds the limit of {MAX_PAYLOAD_BYTES} bytes")
    if plen and "plen" not in header:
        header = {**header, "plen": plen}
    elif header.get("plen", 0) != plen:
        raise FrameError(f"header plen {header.get('plen')} does not match payload length {plen}")
    head = encode_header(header)
    if not 1 <= len(head) <= MAX_HEADER_BYTES:
        raise FrameError(f"header of {len(head)} bytes exceeds the limit of {MAX_HEADER_BYTES} bytes")
    return head, payload


def parse_header_length(prefix: bytes) -> int:
    """Validate the 4-byte length prefix and return the header length."""
    (hlen,) = _LEN.unpack(prefix)
    if hlen == 0:
        raise FrameError("frame header length is 0")
    if hlen > MAX_HEADER_BYTES:
        raise FrameError(f"frame header length {hlen} exceeds the limit of {MAX_HEADER_BYTES} bytes")
    return hlen


def parse_header(raw: bytes) -> Tuple[dict, int]:
    """Parse header bytes; return (header, plen). Raises FrameError on any rule break."""
    try:
        header = _JSON.decode(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError) as e:
        raise FrameError(f"frame header is not valid UTF-8 JSON: {e}") from None
    if not isinstance(header, dict):
        raise FrameError("frame header is not a JSON object")
    if not isinstance(header.get("op"), str):
        raise FrameError("frame header has no string 'op'")
    plen = header.get("plen", 0)
    if isinstance(plen, bool) or not isinstance(plen, int) or plen < 0:
        raise FrameError(f"frame 'plen' must be a non-negative integer, got {plen!r}")
    if plen > MAX_PAYLOAD_BYTES:
        raise FrameError(f"frame payload length {plen} exceeds the limit of {MAX_PAYLOAD_BYTES} bytes")
    return header, plen


def split_header(buf) -> Tuple[dict, int, int] | None:
    """The header of the frame at the start of ``buf``: (header, plen, where its payload
    starts), or None if ``buf`` does not hold the whole header yet."""
    n = len(buf)
    if n < 4:
        return None
    (hlen,) = _LEN.unpack_from(buf)
    if hlen == 0 or hlen > MAX_HEADER_BYTES:
        parse_header_length(bytes(buf[:4]))  # raises the error that says which
    if n < 4 + hlen:
        return None
    header, plen = parse_header(buf[4:4 + hlen])  # bytes or bytearray: both decode
    return header, plen, 4 + hlen


def decode_frame(buf: bytes) -> Tuple[dict, bytes, int] | None:
    """Decode one frame from the start of ``buf``.

    Returns (header, payload, bytes consumed), or None if ``buf`` holds only part of a frame.
    """
    head = split_header(buf)
    if head is None:
        return None
    header, plen, start = head
    end = start + plen
    if len(buf) < end:
        return None
    return header, bytes(buf[start:end]), end
