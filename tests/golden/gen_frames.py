"""Regenerate tests/golden/frames.json (shared by the Python and Java codec tests),
request_frames.json (one per client request, for the Java request codec's test and the
Python test of what the shim sends) and link_frames.json (node-link frames, for the Java
link codec's test).

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
]

ACTOR = "0123456789abcdef0123456701000000"
NODE = "ab" * 28
# one accelerator resource as a node describes it in its join (and, with its visibility value, in its facts)
GPU = {"kind": "NVIDIA_GPU", "vendor": "NVIDIA", "type": "H200", "visible_var": "CUDA_VISIBLE_DEVICES",
       "source": "detected", "ids": ["0", "1", "2", "3"]}
# Node-link frames (docs/PROTOCOL.md, "Node links"), read only by the Java daemon: each names
# the reader that takes it (beam.protocol.LinkCodec) and the record it must become; written
# back by LinkCodec.encode, it must give exactly these bytes.
LINK = [
    ("challenge", "challenge", "Challenge",
     {"op": "challenge", "nonce": "5a" * 32, "proto": 1, "auth": "token"}, b""),
    # a node writes its resource amounts as floats, as LinkCodec writes the join's typed amounts
    ("join", "join", "Join",
     {"op": "join", "rid": 1, "proto": 1, "auth": "c3" * 32, "node_id": NODE, "node_ip": "10.0.0.2",
      "hostname": "gpu-2", "session_dir": "/tmp/ray/session_2026-01-01_00-00-00_1",
      "resources": {"CPU": 8.0, "GPU": 4.0, "node:10.0.0.2": 1.0},
      "facts": {"versions": {"beam": "0.1.0", "protocol": 1, "java": "25"},
                "interfaces": [{"name": "eth0", "addresses": ["10.0.0.2"]}], "node_ip_interface": "eth0",
                "accelerators": {"GPU": dict(GPU, node_visible_value=None)}, "probe_port": 41234,
                "host_limits": {"shm_path": "/dev/shm", "shm_bytes": 17179869184, "open_files": 1048576,
                                "locked_memory": -1, "rdma_devices": 0, "env": {"NCCL_SOCKET_IFNAME": "eth0"}}},
      "accelerators": {"GPU": GPU},
      "labels": {"ray.io/accelerator-type": "H100", "zone": "us-west1-a"}}, b""),
    ("join_welcome", "joinAnswer", "Welcome",
     {"op": "reply", "rid": 1, "ok": True, "head_node_id": "cd" * 28, "namespace": "ns-1",
      "heartbeat_ms": 500, "timeout_ms": 2500}, b""),
    ("join_refused", "joinAnswer", "Refused",
     {"op": "reply", "rid": 1, "ok": False, "kind": "ConnectionError",
      "error": "authentication failed: wrong cluster token"}, b""),
    # the head's heartbeat carries its clock; the joined node answers with a pong of it
    ("ping_with_clock", "toNode", "Ping", {"op": "ping", "t": 123456789012}, b""),
    ("ping_of_node", "toHead", "Ping", {"op": "ping"}, b""),
    ("pong", "toHead", "Pong", {"op": "pong", "t": 123456789012}, b""),
    # facts learnt after the join, each its own message on the one op node_facts
    ("node_facts_http_ports", "toHead", "HttpPorts",
     {"op": "node_facts", "http_ports": {"agent": 52365, "metrics": 8080}}, b""),
    ("node_facts_telemetry", "toHead", "Telemetry",
     {"op": "node_facts", "telemetry": {"tool": "nvidia-smi", "resource": "GPU", "sampled_ms": 1767225600000,
                                        "devices": [{"index": "0", "uuid": "GPU-aa", "name": "NVIDIA H200",
                                                     "utilization_gpu": 35.0, "memory_used_mib": 1024,
                                                     "memory_total_mib": 143771},
                                                    {"index": "1", "uuid": None, "name": None, "utilization_gpu": None,
                                                     "memory_used_mib": 0, "memory_total_mib": 80}],
                                        "problem": None, "hung": False}}, b""),
    ("client_open", "toHead", "ClientOpen", {"op": "client_open", "client": 7}, b""),
    ("client_close_up", "toHead", "ClientClose", {"op": "client_close", "client": 7}, b""),
    ("client_close_down", "toNode", "ClientClose", {"op": "client_close", "client": 7}, b""),
    ("actor_started", "toHead", "ActorStarted", {"op": "actor_started", "actor_id": ACTOR, "pid": 4242}, b""),
    ("actor_start_failed", "toHead", "ActorStartFailed",
     {"op": "actor_start_failed", "actor_id": ACTOR, "detail": "cannot run /usr/bin/python3"}, b""),
    ("actor_exited", "toHead", "ActorExited",
     {"op": "actor_exited", "actor_id": ACTOR, "code": 137, "oom_kills": 1,
      "tail": ["Traceback (most recent call last):", "MemoryError"]}, b""),
    # an actor's log frame keeps its name on the link: log -> log -> log
    ("actor_log", "toHead", "ActorLog",
     {"op": "log", "actor_id": ACTOR, "class_name": "Worker", "pid": 42, "stream": "stderr", "plen": 6},
     b"hello\n"),
    ("node_versions", "toHead", "NodeVersions",
     {"op": "node_versions", "versions": {"python": "3.11.9", "vllm": None, "torch": "2.5.1",
                                          "cloudpickle": "3.1.0"}}, b""),
    # the answer to a node question names its kind, so that the head reads the result as that kind's
    ("node_answer_error", "toHead", "AskAnswer",
     {"op": "node_answer", "ask_id": 4, "error": "this node does not answer 'top'"}, b""),
    ("node_leave", "toHead", "NodeLeave", {"op": "node_leave"}, b""),
    ("start_actor", "toNode", "StartActor",
     {"op": "start_actor", "actor_id": ACTOR, "class_name": "RayWorkerWrapper",
      "accelerator_ids": {"GPU": ["0", "1"]}, "env_vars": {"VLLM_HOST_IP": "10.0.0.2"},
      "context": {"python": "/usr/bin/python3", "cwd": "/home/u", "sys_path": ["/home/u", "/opt/lib"]},
      "log_to_owner": True, "omp_threads": 1}, b""),
    ("kill_actor", "toNode", "KillActor", {"op": "kill_actor", "actor_id": ACTOR}, b""),
    # a question of a kind this node does not know: answered with an error naming it
    ("node_ask_unknown_kind", "toNode", "UnknownAsk", {"op": "node_ask", "ask_id": 4, "kind": "top", "args": {}}, b""),
    # a client's plain call, tagged on the bytes: "cid" is the first field
    ("relayed_call", "toHead", "Relayed",
     {"cid": 5, "op": "call", "actor_id": ACTOR, "method": "echo", "oid": "00" * 24 + "00000000", "plen": 3},
     b"\x80\x05."),
    # any other client frame carries the tag in its tree, last
    ("relayed_reply", "toNode", "Relayed", {"op": "reply", "rid": 2, "ok": True, "cid": 5}, b""),
]


# One question and answer pair per kind of node question (beam.util.NodeQuestion): each names the
# record it carries, and the test checks that every question and every answer record has one.
NODE_QUESTIONS = [
    ("probe", "Probe", [{"node_id": NODE, "ip": "10.0.0.3", "port": 41234}, {"node_id": "ef" * 28, "ip": "10.0.0.4", "port": -1}],
     [("ProbeResults", [{"node_id": NODE, "address": "10.0.0.3:41234", "ok": True, "ms": 0.4},
                        {"node_id": "ef" * 28, "address": "10.0.0.4:-1", "ok": False,
                         "error": "the node has no probe port (its node IP could not be bound)"}])]),
    ("log_files", "ListLogs", {"glob": "actor-*.err"},
     [("LogFiles", {"files": [{"name": "actor-Worker-" + ACTOR + "-4242.err", "size": 1234}], "truncated": False})]),
    ("logs", "ReadLog", {"stream": "err", "lines": 100, "offset": 512, "actor_id": ACTOR},
     [("LogText", {"file": "actor-Worker-" + ACTOR + "-4242.err", "text": "Traceback\n", "offset": 522, "truncated": False}),
      ("LogRefused", {"error": "no stderr file of a worker with pid 4243 in /tmp/ray/session_1/logs"})]),
    ("stack", "DumpStacks", {"processes": [{"pid": 4242, "role": "actor"}, {"pid": 77, "role": "driver"}], "wait_ms": 3000},
     [("DumpedStacks", {"processes": [{"pid": 4242, "stack": "Current thread 0x1 (most recent call first):\n"},
                                      {"pid": 77, "error": "exited"}]})]),
]
for _kind, _question, _args, _answers in NODE_QUESTIONS:
    LINK.append(("node_ask_" + _kind, "toNode", "Ask", {"op": "node_ask", "ask_id": 3, "kind": _kind, "args": _args}, b"",
                 _question))
    for _answer, _result in _answers:
        LINK.append(("node_answer_" + _answer, "toHead", "AskAnswer",
                     {"op": "node_answer", "ask_id": 3, "kind": _kind, "result": _result}, b"", _answer))


PG = "0123456789abcdef0123456789ab01000000"
OID = "00" * 24 + "00000000"
# One header per client request (beam.protocol.Request, docs/PROTOCOL.md): each names its record.
# The Java test reads each into the record it expects and writes that record back to the same
# header (RequestCodec); the Python test checks that the shim sends this header for each op it sends.
REQUESTS = [
    ("Hello", {"op": "hello", "rid": 1, "proto": 1, "role": "worker", "actor_id": ACTOR, "pid": 1234,
               "python": "/usr/bin/python3", "cwd": "/home/u", "sys_path": ["/home/u", "/usr/lib/python3.11"],
               "log_to_driver": False, "namespace": "ns"}, b""),
    ("CreateActor", {"op": "create_actor", "rid": 2, "actor_id": ACTOR, "class_name": "Worker", "name": "w0",
                     "namespace": "ns", "options": {"num_cpus": 0, "num_gpus": 1.0, "max_concurrency": 1, "is_async": False,
                                 "methods": ["run"]},
                     "get_if_exists": True, "plen": 3}, b"\x80\x05."),
    ("Call", {"op": "call", "actor_id": ACTOR, "method": "execute_method", "oid": OID, "label": "init_device",
              "plen": 3}, b"\x80\x05."),
    ("Kill", {"op": "kill", "rid": 3, "actor_id": ACTOR, "no_restart": True}, b""),
    ("Lend", {"op": "lend", "actor_id": ACTOR}, b""),
    ("Borrow", {"op": "borrow", "actor_id": ACTOR, "lent": True}, b""),
    ("Release", {"op": "release", "actor_id": ACTOR}, b""),
    ("GetActor", {"op": "get_actor", "rid": 4, "name": "w0", "namespace": "ns"}, b""),
    # one-way (no rid): the shim's fast path
    ("PgCreate", {"op": "pg_create", "pg_id": PG, "name": "g", "strategy": "STRICT_PACK",
                  "bundles": [{"GPU": 1.0, "CPU": 1.0}, {"GPU": 1.0}], "lifetime": "detached"}, b""),
    ("PgRemove", {"op": "pg_remove", "rid": 5, "pg_id": PG}, b""),
    ("PgTable", {"op": "pg_table", "rid": 6, "pg_id": PG}, b""),
    ("PgWatch", {"op": "pg_watch", "rid": 7, "pg_id": PG}, b""),
    ("ClusterState", {"op": "cluster_state", "rid": 8}, b""),
    ("Status", {"op": "status", "rid": 9}, b""),
    ("StateList", {"op": "state_list", "rid": 10, "table": "actors", "filters": [["state", "=", "ALIVE"]],
                   "limit": 5, "detail": True, "id": ACTOR}, b""),
    ("StateSummary", {"op": "state_summary", "rid": 11, "table": "tasks"}, b""),
    ("Shutdown", {"op": "shutdown", "rid": 12}, b""),
    ("Disconnect", {"op": "disconnect", "rid": 13}, b""),
    ("Doctor", {"op": "doctor", "rid": 14}, b""),
    ("Logs", {"op": "logs", "rid": 15, "actor_id": ACTOR, "node_id": NODE, "err": True, "lines": 50,
              "offset": 4096}, b""),
    ("Stack", {"op": "stack", "rid": 16, "node_ip": "10.0.0.2", "pid": 4242}, b""),
    ("DaemonStats", {"op": "daemon_stats", "rid": 17, "gc": True}, b""),
    ("Metrics", {"op": "metrics", "metrics": [{"name": "requests", "kind": "counter", "description": "",
                                               "tags": {}, "value": 12.0}]}, b""),
    ("ActorReady", {"op": "actor_ready", "actor_id": ACTOR, "repr_name": "Worker(rank=0)"}, b""),
    ("ActorFailed", {"op": "actor_failed", "actor_id": ACTOR, "message": "ZeroDivisionError: division by zero"}, b""),
    # a result with fields beyond the plain ones takes the parsed path
    ("Result", {"op": "result", "oid": OID, "status": "error", "kind": "ValueError", "message": "bad method"}, b""),
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


def _case(name, header, payload):
    head = json.dumps(header, separators=(",", ":"), ensure_ascii=False).encode("utf-8")
    assert header.get("plen", 0) == len(payload), name
    frame = struct.pack(">I", len(head)) + head + payload
    return {"name": name, "header": header, "payload_hex": payload.hex(), "frame_hex": frame.hex()}


def _write(path, cases):
    with open(path, "w", encoding="utf-8") as f:
        json.dump(cases, f, indent=1, ensure_ascii=False)
        f.write("\n")


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    path = os.path.join(here, "frames.json")
    _write(path, [_case(name, header, payload) for name, header, payload in CASES])
    _write(os.path.join(here, "link_frames.json"),
           [dict(_case(name, header, payload), reader=reader, message=message,
                 **({"carries": rest[0]} if rest else {}))
            for name, reader, message, header, payload, *rest in LINK])
    _write(os.path.join(here, "request_frames.json"),
           [dict(_case(request, header, payload), request=request) for request, header, payload in REQUESTS])
    bad = [{"name": n, "frame_hex": h} for n, h in BAD]
    with open(os.path.join(os.path.dirname(path), "bad_frames.json"), "w") as f:
        json.dump(bad, f, indent=1)
        f.write("\n")


if __name__ == "__main__":
    main()
