"""Regenerate tests/golden/frames.json (shared by the Python and Java codec tests).

Headers are encoded with json.dumps(header, separators=(",", ":"), ensure_ascii=False) in
key insertion order; frame_hex is the exact wire form. Run: python tests/golden/gen_frames.py
"""

import json
import os
import struct

CASES = [
    ("hello_empty_payload", {"op": "hello", "rid": 1, "proto": 1, "role": "driver", "pid": 1234,
                             "python": "/usr/bin/python3", "cwd": "/home/u",
                             "sys_path": ["/home/u", "/usr/lib/python3.11"],
                             "log_to_driver": True}, b""),
    ("reply_ok", {"op": "reply", "rid": 1, "ok": True, "node_id": "ab" * 28,
                  "node_ip": "10.0.0.1", "job_id": "01000000"}, b""),
    ("reply_error", {"op": "reply", "rid": 7, "ok": False, "error": "actor name taken",
                     "kind": "ValueError"}, b""),
    ("call_with_payload", {"op": "call", "actor_id": "0123456789abcdef0123456701000000",
                           "method": "echo", "oid": "00" * 24 + "00000000", "plen": 10},
     b"\x80\x05K\x01\x85\x94}\x94\x86."),
    ("result_ok_binary_payload", {"op": "result", "oid": "ff" * 24 + "00000000",
                                  "status": "ok", "plen": 6}, bytes([0, 1, 2, 253, 254, 255])),
    ("log_non_ascii", {"op": "log", "actor_id": "0123456789abcdef0123456701000000",
                       "class_name": "Wörker", "pid": 42, "stream": "stdout",
                       "note": "日本語 ✓ \"quoted\" \\ back", "plen": 11},
     "héllo ✓\n".encode("utf-8")),
    ("actor_died_no_payload", {"op": "result", "oid": "12" * 24 + "00000000",
                               "status": "actor_died",
                               "message": "The actor died unexpectedly before finishing this task."}, b""),
    # ray.util.metrics values of one process, cumulative (docs/PROTOCOL.md, "metrics")
    ("metrics_all_kinds", {"op": "metrics", "metrics": [
        {"name": "vllm:num_requests_running", "kind": "gauge", "description": "Requests running",
         "tags": {"model_name": "m"}, "value": 3.0},
        {"name": "requests", "kind": "counter", "description": "", "tags": {}, "value": 12.0},
        {"name": "latency_s", "kind": "histogram", "description": "Latency", "tags": {"route": "/x"},
         "boundaries": [0.1, 1.0], "buckets": [2, 1, 1], "sum": 3.25}]}, b""),
    # the head's heartbeat carries its clock; the joined node answers with a pong of it
    ("link_ping_with_clock", {"op": "ping", "t": 123456789012}, b""),
    ("link_pong", {"op": "pong", "t": 123456789012}, b""),
    ("link_node_facts", {"op": "node_facts", "http_ports": {"agent": 52365, "metrics": 8080}}, b""),
]


# Frames that break the framing rules: the receiver must close the connection.
BAD = [
    ("zero_header_length", "00000000"),
    ("header_over_1mib", "00100001"),
    ("header_not_object", (lambda h: f"{len(h):08x}{h.hex()}")(b"[1,2]")),
    ("header_not_json", (lambda h: f"{len(h):08x}{h.hex()}")(b"{op:")),
    ("header_missing_op", (lambda h: f"{len(h):08x}{h.hex()}")(b'{"rid":1}')),
    ("op_not_string", (lambda h: f"{len(h):08x}{h.hex()}")(b'{"op":5}')),
    ("plen_negative", (lambda h: f"{len(h):08x}{h.hex()}")(b'{"op":"log","plen":-1}')),
    ("plen_not_integer", (lambda h: f"{len(h):08x}{h.hex()}")(b'{"op":"log","plen":"3"}')),
    ("plen_over_1gib", (lambda h: f"{len(h):08x}{h.hex()}")(b'{"op":"log","plen":1073741825}')),
    ("truncated_payload", (lambda h: f"{len(h):08x}{h.hex()}6869")(b'{"op":"log","plen":3}')),
]


def main():
    out = []
    for name, header, payload in CASES:
        head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
        assert header.get("plen", 0) == len(payload), name
        frame = struct.pack(">I", len(head)) + head + payload
        out.append({"name": name, "header": header, "payload_hex": payload.hex(),
                    "frame_hex": frame.hex()})
    path = os.path.join(os.path.dirname(os.path.abspath(__file__)), "frames.json")
    with open(path, "w", encoding="utf-8") as f:
        json.dump(out, f, indent=1, ensure_ascii=False)
        f.write("\n")
    bad = [{"name": n, "frame_hex": h} for n, h in BAD]
    with open(os.path.join(os.path.dirname(path), "bad_frames.json"), "w") as f:
        json.dump(bad, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
