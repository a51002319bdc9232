"""Socket fuzzer for a running beam daemon: random and mutated frames on its TCP port and
its unix socket, while a real driver keeps calling an actor.

    python tools/fuzz_daemon.py --temp-dir DIR [--frames 100000] [--seed 1] [--attacks full|short|none]

It prints what it sent and, at the end, the daemon's health before and after (heap after
GC, open fds, threads) and what the driver saw. Exit status 1 if the daemon stopped
serving, the driver saw any error or wrong result, or fds did not come back.

Frames come in batches on fresh connections (one batch per connection), picked from:
random bytes; lengths of 0, huge or past the end; invalid JSON; JSON that is not an
object or has no op; valid frames with unknown ops, missing or mistyped fields, ids that do
not exist; a valid hello followed by junk; and bit flips, truncations and splices of
real frames. Ids are random, so nothing it sends can touch the driver's actors.

Then the attacks of tools/hostile_peers.py (--attacks; `short` is the size `./dev test`
runs): strangers on the TCP port that announce 1 GiB payloads and hold, idle and trickling
strangers while a node waits for its challenge, and insiders (node links that passed the
door with the token, unix clients) that announce 1 GiB and send 64 KiB. For them a node
joins from --join-ip with its own temp dir (stopped at the end) and the driver calls an
actor there too. Exit status 1 also if the head grew by 64 MiB or more in an attack, a
node waited 1 s or more for its challenge, or the joined node was lost.
"""
import argparse
import json
import os
import random
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "python"))
sys.path.insert(0, HERE)

OPS = ["hello", "create_actor", "call", "kill", "get_actor", "pg_create", "pg_remove", "pg_table", "pg_watch",
       "cluster_state", "status", "actor_ready", "actor_failed", "result", "join", "reply", "log", "ping",
       "daemon_stats", "nonsense", ""]
FIELDS = ["rid", "proto", "role", "actor_id", "oid", "method", "pg_id", "name", "bundles", "strategy",
          "options", "plen", "auth", "node_id", "status", "pid"]
VALUES = [None, True, 0, -1, 1, 2 ** 31, 2 ** 63 - 1, 1.5, "", "x" * 40, "0" * 32, "0" * 56, "f" * 36, [], {},
          [1, "a"], {"GPU": -1}, {"GPU": "1"}, {"a": {"b": []}}]


def frame(header, payload=b""):
    if payload:
        header = dict(header, plen=len(payload))
    body = json.dumps(header).encode()
    return struct.pack(">I", len(body)) + body + payload


def hello():
    return frame({"op": "hello", "rid": 1, "proto": 1, "role": "driver", "pid": os.getpid()})


def random_header(rng):
    h = {"op": rng.choice(OPS)}
    for _ in range(rng.randint(0, 5)):
        h[rng.choice(FIELDS)] = rng.choice(VALUES)
    return h


def one_frame(rng):
    """One hostile frame, as bytes."""
    kind = rng.randrange(9)
    if kind == 0:
        return os.urandom(rng.randint(1, 64))
    if kind == 1:
        return struct.pack(">I", rng.choice([0, 2 ** 32 - 1, 2 ** 31, 2 ** 20 + 1]))
    if kind == 2:
        return struct.pack(">I", 10) + b"{bad json"
    if kind == 3:
        body = rng.choice([b"[1,2]", b"42", b'"op"', b'{"no_op": 1}', b'{"op": 7}'])
        return struct.pack(">I", len(body)) + body
    if kind == 4:
        h = random_header(rng)
        if rng.random() < 0.3:
            return frame(h, os.urandom(rng.randint(1, 256)))
        return frame(h)
    if kind == 5:  # plen larger than what follows
        body = json.dumps({"op": "call", "plen": rng.randint(10, 10 ** 6)}).encode()
        return struct.pack(">I", len(body)) + body + b"short"
    good = frame(random_header(rng), os.urandom(rng.randint(0, 32)))
    if kind == 6:  # bit flips
        b = bytearray(good)
        for _ in range(rng.randint(1, 4)):
            b[rng.randrange(len(b))] ^= 1 << rng.randrange(8)
        return bytes(b)
    if kind == 7:  # truncation
        return good[: rng.randrange(1, len(good))]
    return good + os.urandom(rng.randint(1, 16))  # trailing junk


def send_batch(address, batch, with_hello, rng):
    family = socket.AF_UNIX if isinstance(address, str) else socket.AF_INET
    s = socket.socket(family, socket.SOCK_STREAM)
    s.settimeout(5)
    try:
        s.connect(address)
        data = (hello() if with_hello else b"") + b"".join(batch)
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        while s.recv(65536):  # drain replies until the daemon closes or we time out
            pass
    except OSError:
        pass  # the daemon may close on us mid-batch: that is the point
    finally:
        s.close()


class Driver(threading.Thread):
    """A real driver calling an actor in a loop, checking every result."""

    def __init__(self, node_ips=()):
        super().__init__(daemon=True)
        self.node_ips = node_ips
        self.calls = 0
        self.errors = []
        self.stop = threading.Event()
        self.ready = threading.Event()

    def run(self):
        import ray

        @ray.remote
        class Echo:
            def echo(self, x):
                return x

        actors = [Echo.remote()] + [Echo.options(resources={f"node:{ip}": 0.01}).remote() for ip in self.node_ips]
        ray.get([a.echo.remote(0) for a in actors])  # the actors' processes, pipes and connections exist now
        self.ready.set()
        while not self.stop.is_set():
            try:
                values = list(range(self.calls, self.calls + 20))
                got = ray.get([actors[v % len(actors)].echo.remote(v) for v in values], timeout=30)
                if got != values:
                    self.errors.append(f"wrong results: {got[:3]}... for {values[:3]}...")
                self.calls += len(values)
            except Exception as e:  # noqa: BLE001 - any failure is a finding
                self.errors.append(repr(e))
                return


def stats(conn):
    s = conn.request("daemon_stats", {"gc": True}, timeout=30)
    return {k: s[k] for k in ("heap_used_bytes", "open_fds", "threads", "actors")}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--temp-dir", required=True, help="the cluster's --temp-dir")
    ap.add_argument("--frames", type=int, default=100_000)
    ap.add_argument("--batch", type=int, default=50, help="frames per connection")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--attacks", choices=["full", "short", "none"], default="full",
                    help="hostile-peer attacks after the frames: full (1,000 and 1,500 peers), short, or none")
    ap.add_argument("--join-ip", default="127.0.0.2", help="the IP of the node joined for the attacks")
    args = ap.parse_args()
    os.environ["RAY_TMPDIR"] = args.temp_dir
    with open(os.path.join(args.temp_dir, "session_latest", "node.json")) as f:
        node = json.load(f)
    host, port = node["address"].rsplit(":", 1)
    targets = [node["socket"], (host, int(port))]

    import ray
    from ray._beam.wire.connection import Connection

    joined = join_node(args, node) if args.attacks != "none" else None
    ray.init()
    probe = Connection(node["socket"])
    probe.start()
    probe.request("hello", {"proto": 1, "role": "driver", "pid": os.getpid(), "log_to_driver": False}, timeout=10)
    driver = Driver(node_ips=(args.join_ip,) if joined else ())
    driver.start()
    driver.ready.wait(60)
    rng = random.Random(args.seed)
    for target in targets:  # warm-up: the JVM makes its I/O pollers (epoll fds) on first use
        send_batch(target, [one_frame(rng)], with_hello=False, rng=rng)
    time.sleep(0.5)
    # the daemon opens its HTTP face (listening sockets, their selectors) a moment after it
    # serves: measure once it is up, so that only what the fuzzing leaves behind counts
    node_json = os.path.join(args.temp_dir, "session_latest", "node.json")
    deadline = time.time() + 10
    while time.time() < deadline:
        with open(node_json) as f:
            if "http_ports" in json.load(f):
                break
        time.sleep(0.1)
    before = stats(probe)
    sent, t0 = 0, time.time()
    while sent < args.frames:
        n = min(args.batch, args.frames - sent)
        batch = [one_frame(rng) for _ in range(n)]
        target = targets[(sent // args.batch) % 2]
        send_batch(target, batch, with_hello=isinstance(target, str) and rng.random() < 0.7, rng=rng)
        sent += n
        if sent % 10_000 < args.batch:
            print(f"  {sent} frames sent, driver made {driver.calls} calls", flush=True)
    elapsed = time.time() - t0
    attacks, attacks_ok = {}, True
    try:
        if joined:
            attacks, attacks_ok = run_attacks(args, node, (host, int(port)))
        time.sleep(1.0)  # let closing connections finish
        driver.stop.set()
        driver.join(timeout=60)
    finally:
        if joined:
            leave(joined)
    state = probe.request("cluster_state", {}, timeout=10)
    deadline = time.time() + 15  # connections the fuzzer left may still be in their close grace
    after = stats(probe)
    while after["open_fds"] > before["open_fds"] + 4 and time.time() < deadline:
        time.sleep(0.5)
        after = stats(probe)
    print(json.dumps({"frames": sent, "seconds": round(elapsed, 1), "driver_calls": driver.calls,
                      "driver_errors": driver.errors[:5], "daemon_before": before, "daemon_after": after,
                      "nodes_alive": sum(1 for n in state["nodes"] if n["Alive"]), "attacks": attacks}, indent=1))
    # +4: the JVM creates its virtual-thread I/O pollers (one epoll fd each, per carrier)
    # lazily on first use and keeps them; connections themselves must all be gone.
    ok = (attacks_ok and not driver.errors and driver.calls > 0 and after["open_fds"] <= before["open_fds"] + 4
          and after["heap_used_bytes"] <= before["heap_used_bytes"] + (32 << 20))
    print("fuzz: OK" if ok else "fuzz: FAILED")
    return 0 if ok else 1


def join_node(args, node):
    """A node joined from ``args.join_ip`` (its own temp dir), as a user's second host."""
    import hostile_peers  # noqa: F401 - fails early if the tools folder is not on the path
    base = tempfile.mkdtemp(prefix="beam-fuzz-node-")
    with open(os.path.join(args.temp_dir, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    ray_cmd = os.path.join(os.path.dirname(sys.executable), "ray")
    env = dict(os.environ, RAY_AUTH_TOKEN=token)
    done = subprocess.run([ray_cmd, "start", "--address", node["address"], "--temp-dir", base,
                           "--node-ip-address", args.join_ip], env=env, capture_output=True, text=True, timeout=60)
    if done.returncode != 0:
        shutil.rmtree(base, ignore_errors=True)
        raise SystemExit(f"fuzz: could not join a node from {args.join_ip}: {done.stderr}")
    return {"base": base, "token": token, "ray": ray_cmd}


def leave(joined):
    subprocess.run([joined["ray"], "stop", "--temp-dir", joined["base"]], capture_output=True, timeout=60)
    shutil.rmtree(joined["base"], ignore_errors=True)


def run_attacks(args, node, address):
    """The attacks of tools/hostile_peers.py at the size ``args.attacks`` asks; (figures, ok)."""
    import hostile_peers as hp
    strangers, idle = (1000, 1500) if args.attacks == "full" else (200, 300)
    with open(os.path.join(args.temp_dir, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    figures = {"before_auth": hp.attack_door_before_auth(address, node["pid"], strangers)}
    print("  attack before auth:", figures["before_auth"], flush=True)
    figures["slowloris"] = hp.attack_slowloris(address, idle)
    print("  attack slowloris:", figures["slowloris"], flush=True)
    figures["after_auth"] = hp.attack_after_auth(address, node["socket"], node["pid"], token)
    print("  attack after auth:", figures["after_auth"], flush=True)
    import ray
    alive = {n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    figures["joined_node_alive"] = args.join_ip in alive
    ok = (figures["before_auth"]["head_rss_growth_mib"] < 64 and figures["after_auth"]["head_rss_growth_mib"] < 64
          and figures["slowloris"]["challenge_max_s"] < 1.0 and figures["joined_node_alive"])
    return figures, ok


if __name__ == "__main__":
    sys.exit(main())
