"""The shim sends each client request as tests/golden/request_frames.json has it: the header
the Java daemon's RequestCodec reads and writes (RequestCodecTest checks that side).

Each request is made by the product function that sends it (ray.kill, get_actor, the
placement-group and state calls, handle counting, metrics, the worker's constructor report,
ray.shutdown), over a real Client connected to a fake daemon on a unix socket that records
every frame it receives and answers requests; the header recorded is compared with the golden
one. Values that come from the running process (pid, interpreter, cwd, sys.path, the request
id the connection numbers, a traceback's text) are the only ones taken from what was sent.
"""

import json
import os
import shutil
import socket
import sys
import tempfile
import threading

import pytest

from _paths import GOLDEN
from ray._beam.api import actors, client, handlecount, ids, options, pgs, pickling, process, state, usermetrics
from ray._beam.wire import framing
import ray.util as ray_util
from ray._beam.wire.framebuffer import FrameBuffer
from waiting import WAIT_S, wait_until

with open(os.path.join(GOLDEN, "request_frames.json"), encoding="utf-8") as _f:
    GOLDEN_REQUESTS = {c["request"]: c for c in json.load(_f)}

# Requests the Python shim never sends, and why (each still has its golden frame for the Java side).
NOT_SENT_BY_PYTHON = {
    "Doctor": "ray doctor: only the Java CLI asks",
    "Logs": "ray logs: only the Java CLI asks",
    "Stack": "ray stack: only the Java CLI asks",
    "DaemonStats": "only bench/soak.py and bench/scale.py ask (not the shim)",
    "Result": "the worker sends only plain results (framing.result_head, frames.json); a result with kind and"
              " message is the daemon's own",
}


class RecordingDaemon:
    """Accepts one connection, records every frame, answers each request with ``replies[op]``."""

    def __init__(self, replies):
        self.dir = tempfile.mkdtemp(prefix="beam-req-")
        self.path = os.path.join(self.dir, "d.sock")
        self.server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.server.bind(self.path)
        self.server.listen(1)
        self.replies = replies
        self.frames = []
        self.lock = threading.Lock()
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        conn, _ = self.server.accept()
        frames = FrameBuffer(conn)
        try:
            while True:
                frame = frames.pop()
                if frame is None:
                    frames.fill()
                    continue
                header, payload = frame
                with self.lock:
                    self.frames.append((header, payload))
                if "rid" in header:
                    reply = {"op": "reply", "rid": header["rid"], "ok": True, **self.replies.get(header["op"], {})}
                    conn.sendall(framing.encode_frame(reply, b""))
        except (EOFError, OSError, framing.FrameError):
            pass

    def sent(self, op):
        """The last frame with this op, waited for."""
        def last():
            with self.lock:
                found = [f for f in self.frames if f[0]["op"] == op]
            return found[-1] if found else None
        return wait_until(last, WAIT_S, f"the shim sent '{op}'")

    def close(self):
        self.server.close()
        shutil.rmtree(self.dir, ignore_errors=True)


def _golden(name):
    header = dict(GOLDEN_REQUESTS[name]["header"])
    header.pop("plen", None)
    return header


def _assert_sent(daemon, name, **from_process):
    """The header last sent with this request's op is the golden one; ``from_process``: the
    fields whose values come from the running process, compared as such."""
    golden = _golden(name)
    header, _ = daemon.sent(golden["op"])
    header = dict(header)
    header.pop("plen", None)
    assert ("rid" in header) == ("rid" in golden), f"{name}: rid sent {header.get('rid')}, golden {golden.get('rid')}"
    if "rid" in golden:
        header["rid"] = golden["rid"]  # the connection numbers its requests
    expected = {**golden, **from_process}
    assert header == expected, f"{name}: the shim sent {header}, golden {expected}"


ACTOR = GOLDEN_REQUESTS["Kill"]["header"]["actor_id"]
PG = GOLDEN_REQUESTS["PgCreate"]["header"]["pg_id"]
HANDLE_REPLY = {"actor_id": ACTOR, "class_name": "Worker", "methods": ["run"], "is_async": False, "max_concurrency": 1}


@pytest.fixture
def shim(monkeypatch):
    """A real Client on a recording daemon, installed as this process's client."""
    daemon = RecordingDaemon({
        "hello": {"node_id": "ab" * 28, "node_ip": "127.0.0.1", "job_id": "01000000", "session_dir": "",
                  "namespace": "ns"},
        "create_actor": HANDLE_REPLY, "get_actor": HANDLE_REPLY,
        "pg_table": {"table": {"placement_group_id": PG, "state": "CREATED"}},
        "state_list": {"result": [], "total": 0}, "state_summary": {"result": {"node_id_to_summary": {}}},
        "status": {"actors": []},
    })
    hello = _golden("Hello")
    c = client.Client(daemon.path, role=hello["role"], actor_id=hello["actor_id"],
                      log_to_driver=hello["log_to_driver"], namespace=hello["namespace"])
    monkeypatch.setattr(process, "_client", c)
    try:
        yield daemon, c
    finally:
        c.conn.close("test over")
        daemon.close()


def _create_actor(daemon, c, monkeypatch):
    golden = _golden("CreateActor")

    class Worker:
        def run(self):
            return 1

    monkeypatch.setattr(ids, "new_actor_id", lambda job_id: golden["actor_id"])
    monkeypatch.setattr(options, "wire_options", lambda *a: dict(golden["options"]))  # the options' own seam
    actors.create(Worker, {"name": golden["name"], "namespace": golden["namespace"], "get_if_exists": True}, (), {})


def _actor_report(daemon, c, failing):
    """The worker's report on its constructor (worker.Worker._construct), for a class that
    constructs (actor_ready, with its repr) or raises (actor_failed, with the traceback)."""
    from ray._beam import worker

    class Worker:
        def __init__(self, fail):
            if fail:
                1 / 0

        def __repr__(self):
            return "Worker(rank=0)"

    w = worker.Worker.__new__(worker.Worker)
    w.actor_id, w.client, w.loop, w.instance, w.class_name = ACTOR, c, None, None, "Actor"
    w._construct({"class_name": "Worker"}, pickling.dumps((Worker, (failing,), {})))
    if failing:
        message = daemon.sent("actor_failed")[0]["message"]  # the traceback, ending in the golden line
        assert _golden("ActorFailed")["message"] in message, message
        return FromProcess(message=message)


def _pg_create(daemon, c, monkeypatch):
    golden = _golden("PgCreate")
    monkeypatch.setattr(ids, "new_pg_id", lambda job_id: PG)
    pgs.create(golden["bundles"], golden["strategy"], golden["name"], golden["lifetime"])


def _release(daemon, c, monkeypatch):
    monkeypatch.setattr(handlecount, "_live", {})  # handles of this actor id made by other tests
    handlecount.created(ACTOR)
    handlecount.dropped(ACTOR)  # the last handle: its release is queued for the sender thread


def _metrics(daemon, c):
    usermetrics.flush()  # what earlier tests left changed goes first
    with daemon.lock:
        daemon.frames.clear()
    m = _golden("Metrics")["metrics"][0]
    usermetrics.add(m["name"], m["description"], m["tags"], m["value"])
    usermetrics.flush()


def _close(c, private):
    if private:
        c.private_dir = tempfile.mkdtemp(prefix="beam-req-private-")  # a private cluster's driver stops it
    else:
        c.role = "driver"  # a driver's ray.shutdown()
    c.close()


def _pg():
    return pgs.PlacementGroup(pgs.PlacementGroupID(PG), [])


class FromProcess(dict):
    """The fields of a sent header whose values come from the running process, not the golden file."""


# How the product sends each request (a test-only map from record name to a call); a call may
# return the FromProcess fields of its header.
SENDERS = {
    "Hello": lambda d, c, mp: FromProcess(pid=os.getpid(), python=sys.executable, cwd=os.getcwd(),
                                          sys_path=list(sys.path)),  # sent by the fixture's Client
    "CreateActor": _create_actor,
    "Kill": lambda d, c, mp: actors.kill(actors.ActorHandle(ACTOR, "Worker", ["run"])),
    "Lend": lambda d, c, mp: handlecount.leaving(ACTOR),
    "Borrow": lambda d, c, mp: handlecount.arrived(ACTOR),
    "Release": _release,
    "GetActor": lambda d, c, mp: actors.get_actor(_golden("GetActor")["name"], _golden("GetActor")["namespace"]),
    "PgCreate": _pg_create,
    "PgRemove": lambda d, c, mp: pgs.remove(_pg()),  # a group made elsewhere: asked with a rid
    "PgTable": lambda d, c, mp: pgs.table(_pg()),
    "PgWatch": lambda d, c, mp: c.pgs.watch(_pg(), "00" * 28),  # a group made elsewhere: subscribed to
    "ClusterState": lambda d, c, mp: state.cluster_state(),
    "Status": lambda d, c, mp: ray_util.list_named_actors(),
    "StateList": lambda d, c, mp: state._query("actors", [("state", "=", "ALIVE")], 5, True, ACTOR),
    "StateSummary": lambda d, c, mp: state._summary("tasks"),
    "Shutdown": lambda d, c, mp: _close(c, private=True),
    "Disconnect": lambda d, c, mp: _close(c, private=False),
    "Metrics": lambda d, c, mp: _metrics(d, c),
    "ActorReady": lambda d, c, mp: _actor_report(d, c, failing=False),
    "ActorFailed": lambda d, c, mp: _actor_report(d, c, failing=True),
    "Call": None,  # written as bytes by framing.call_head: test_a_call_header_is_the_golden_one
}


def test_every_request_has_a_golden_frame_or_a_reason_python_never_sends_it():
    covered = set(SENDERS) | set(NOT_SENT_BY_PYTHON)
    assert covered == set(GOLDEN_REQUESTS), f"golden requests not covered here: {set(GOLDEN_REQUESTS) ^ covered}"


@pytest.mark.parametrize("name", sorted(n for n, send in SENDERS.items() if send is not None))
def test_the_shim_sends_the_golden_header(name, shim, monkeypatch):
    daemon, c = shim
    sent = SENDERS[name](daemon, c, monkeypatch)
    _assert_sent(daemon, name, **(sent if isinstance(sent, FromProcess) else {}))


def test_a_call_header_is_the_golden_one():
    g = _golden("Call")
    head = framing.call_head(g["actor_id"], g["method"], g["oid"], 3, g["label"])
    header = json.loads(head[4:])
    assert header.pop("plen") == 3
    assert header == g
