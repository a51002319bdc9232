"""Many fake beam nodes in one asyncio process, for bench/scale.py.

Each fake node opens one TCP link to the head and speaks the node-link protocol exactly as
a joined node's daemon does (docs/PROTOCOL.md, "Node links"): it answers the `challenge`
with `join` (HMAC-SHA256 of the nonce with the cluster token), then pings every
`heartbeat_ms`. No processes are started: on `start_actor` it plays the worker itself on
the same link (`actor_started`, `client_open`, tagged `hello`, waits for `actor_init`,
answers `actor_ready`), and answers every tagged `call` with an `ok` `result` holding the
pickle of the call's first argument.

    python bench/scale_node.py --address HOST:PORT --token-file F --count N [--first K]

Prints `JOINED <n> <seconds>` once every node has its join reply, then `STATS ...` lines
(every 5 s) with frames seen; exits on SIGTERM/SIGINT or when stdin closes.
"""
import argparse
import asyncio
import hashlib
import hmac
import json
import os
import pickle
import secrets
import signal
import struct
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
from ray._beam.wire import framing  # noqa: E402

_LEN = struct.Struct(">I")
GIB = 1 << 30

counters = {"calls": 0, "actors": 0, "pings_in": 0, "lost": 0}


def fake_ip(i):
    i += 1
    return f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


def host_is_loopback(address):
    return address.rsplit(":", 1)[0].startswith("127.")


class FakeNode:
    def __init__(self, index, address, token, gpus):
        self.index = index
        self.ip = fake_ip(index)
        a, b, c = self.ip.split(".")[1:]  # 10.a.b.c -> 127.(a+1).b.c
        self.source = f"127.{int(a) + 1}.{b}.{c}" if host_is_loopback(address) else "0.0.0.0"
        self.node_id = secrets.token_hex(28)
        self.address = address
        self.token = token
        self.gpus = gpus
        self.writer = None
        self.next_cid = 1
        self.workers = {}  # cid -> actor_id
        self.heartbeat = 0.5

    def send(self, header, payload=b""):
        self.writer.write(framing.encode_frame(header, payload))

    async def read(self, reader):
        (hlen,) = _LEN.unpack(await reader.readexactly(4))
        header = json.loads(await reader.readexactly(hlen))
        plen = header.get("plen", 0)
        payload = await reader.readexactly(plen) if plen else b""
        return header, payload

    async def join(self, sem):
        host, port = self.address.rsplit(":", 1)
        async with sem:
            # each node from an address of its own, as real nodes are: the head bounds the
            # handshakes in progress per source address (link/Strangers)
            reader, self.writer = await asyncio.open_connection(host, int(port), local_addr=(self.source, 0))
            challenge, _ = await self.read(reader)
            assert challenge.get("op") == "challenge", challenge
            auth = hmac.new(self.token.encode(), challenge["nonce"].encode(), hashlib.sha256).hexdigest()
            self.send({"op": "join", "rid": 1, "proto": 1, "auth": auth, "node_id": self.node_id,
                       "node_ip": self.ip, "hostname": f"fake-{self.index}", "session_dir": "/nonexistent",
                       "resources": {"CPU": 8, "GPU": self.gpus, f"node:{self.ip}": 1,
                                     "memory": 64 * GIB, "object_store_memory": 16 * GIB},
                       "accelerators": {"GPU": {"kind": "NVIDIA_GPU", "vendor": "NVIDIA", "type": None,
                                                "ids": [str(g) for g in range(self.gpus)],
                                                "visible_var": "CUDA_VISIBLE_DEVICES", "source": "declared"}}
                       if self.gpus else {},
                       "facts": {}})
            reply, _ = await self.read(reader)
            if not reply.get("ok"):
                raise RuntimeError(f"join refused: {reply}")
            self.heartbeat = reply.get("heartbeat_ms", 500) / 1000.0
        return reader

    async def run(self, reader):
        ping = asyncio.ensure_future(self.ping_loop())
        try:
            while True:
                header, payload = await self.read(reader)
                self.handle(header, payload)
        except (asyncio.IncompleteReadError, ConnectionError):
            counters["lost"] += 1
        finally:
            ping.cancel()

    async def ping_loop(self):
        frame = framing.encode_frame({"op": "ping"})
        while True:
            await asyncio.sleep(self.heartbeat)
            self.writer.write(frame)

    def handle(self, h, payload):
        op = h["op"]
        cid = h.get("cid")
        if cid is not None:
            if op == "call":
                counters["calls"] += 1
                try:
                    args, _kwargs = pickle.loads(payload)
                    out = pickle.dumps(args[0] if args else None, protocol=5)
                    self.send({"op": "result", "oid": h["oid"], "status": "ok", "cid": cid}, out)
                except Exception as e:  # noqa: BLE001 - report it as the call's error
                    self.send({"op": "result", "oid": h["oid"], "status": "error", "cid": cid,
                               "message": f"fake node: {e!r}", "kind": "RuntimeError"})
            elif op == "actor_init":
                self.send({"op": "actor_ready", "actor_id": h["actor_id"], "cid": cid})
                counters["actors"] += 1
            # the hello reply and anything else tagged: nothing to do
            return
        if op == "ping":
            counters["pings_in"] += 1
        elif op == "start_actor":
            actor_id = h["actor_id"]
            cid = self.next_cid
            self.next_cid += 1
            self.workers[cid] = actor_id
            pid = 100000 + cid
            self.send({"op": "actor_started", "actor_id": actor_id, "pid": pid})
            self.send({"op": "client_open", "client": cid})
            self.send({"op": "hello", "rid": 1, "proto": 1, "role": "worker", "actor_id": actor_id,
                       "pid": pid, "python": sys.executable, "cwd": "/", "sys_path": [], "cid": cid})
        elif op == "kill_actor":
            for cid, aid in list(self.workers.items()):
                if aid == h.get("actor_id"):
                    del self.workers[cid]
                    self.send({"op": "client_close", "client": cid})
                    self.send({"op": "actor_exited", "actor_id": aid, "code": 137, "tail": [], "oom_kills": 0})
        elif op == "client_close":
            aid = self.workers.pop(h.get("client"), None)
            if aid:
                self.send({"op": "actor_exited", "actor_id": aid, "code": 0, "tail": [], "oom_kills": 0})


async def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--address", required=True)
    ap.add_argument("--token-file", required=True)
    ap.add_argument("--count", type=int, required=True)
    ap.add_argument("--first", type=int, default=0, help="index of the first node (its fake IP)")
    ap.add_argument("--gpus", type=int, default=8)
    ap.add_argument("--concurrency", type=int, default=64, help="joins in flight at once")
    args = ap.parse_args()
    with open(args.token_file) as f:
        token = f.read().strip()
    nodes = [FakeNode(args.first + i, args.address, token, args.gpus) for i in range(args.count)]
    sem = asyncio.Semaphore(args.concurrency)
    t0 = time.monotonic()
    readers = await asyncio.gather(*(n.join(sem) for n in nodes))
    print(f"JOINED {len(nodes)} {time.monotonic() - t0:.3f}", flush=True)
    tasks = [asyncio.ensure_future(n.run(r)) for n, r in zip(nodes, readers)]

    loop = asyncio.get_running_loop()
    stop = asyncio.Event()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    loop.add_reader(sys.stdin.fileno(), lambda: (sys.stdin.buffer.raw.read(4096) or stop.set()))

    async def stats():
        while True:
            await asyncio.sleep(5)
            print("STATS " + json.dumps(counters), flush=True)

    st = asyncio.ensure_future(stats())
    await stop.wait()
    st.cancel()
    for t in tasks:
        t.cancel()
    for n in nodes:
        try:
            n.send({"op": "node_leave"})
            n.writer.close()
        except Exception:  # noqa: BLE001
            pass


if __name__ == "__main__":
    asyncio.run(main())
