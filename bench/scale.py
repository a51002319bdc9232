"""Head scalability benchmark: one real beam head against N simulated 8-GPU nodes.

The nodes are simulated by bench/scale_node.py: a few processes, each holding up to
--per-process node links on loopback that speak the node-link protocol exactly as a joined
node's daemon does (join with the token's HMAC, pings, actor start and calls played by the
link itself), so only the head is real. For each N (default 1,000, 2,000, 5,000, 10,000;
--quick: 100, 1,000) a fresh head is started and measured in a child process (`--one N`):

- join: time until `ray.nodes()` shows N+1 alive; head RSS, heap after a GC, fds, threads;
- heartbeats: head CPU (utime+stime) over a window while N nodes ping, and per node;
- placement: min(100, 8N/64) groups of 64 {"GPU": 1} bundles (PACK) created and ready, removed;
- broadcast: one call to each of M actors (num_gpus=1, pinned one per node), p50 of rounds;
- objects (largest N only, --objects K, default 100,000): K one-bundle placement groups
  and then K actors spread over the nodes, each created, listed (placement_group_table(),
  `ray status --json`, `ray list ...`, as bench/big_tables.py times them) and removed.

Heartbeats run at --heartbeat-ms (default 2,000; timeout 10x) rather than the default 500
so that 10,000 links fit beside the fake nodes on a 2-core machine; the figure that must
stay flat is the head's CPU per node, which scales with 1/period.

    python bench/scale.py [--quick] [--nodes 1000,10000] [--objects 100000]

Writes bench/results/scale.json, scale.table.md and scale.png (bench/scale_report.py).
"""
import argparse
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)
import big_tables  # noqa: E402  (views(), timed(), cli(): the same listing figures)
import scale_report  # noqa: E402
from proctree import logger  # noqa: E402

TICK = os.sysconf("SC_CLK_TCK")
KEYS = ("rss_bytes", "heap_used_bytes", "open_fds", "threads")


log = logger("scale")


def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime, seconds


def proc_rss(pid):
    with open(f"/proc/{pid}/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


def cpu_percent(pids, secs):
    before, t0 = {p: proc_cpu(p) for p in pids}, time.monotonic()
    time.sleep(secs)
    return {p: 100.0 * (proc_cpu(p) - before[p]) / (time.monotonic() - t0) for p in pids}


def raise_fd_limit():
    """Soft fd limit up to the hard one, for this process and what it starts (the head too)."""
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft < hard:
        resource.setrlimit(resource.RLIMIT_NOFILE, (hard, hard))


def start_fakes(n, node, session, per_process):
    """N fake nodes in ceil(N / per_process) processes; returns them once all have joined."""
    fakes = []
    for first in range(0, n, per_process):
        fakes.append(subprocess.Popen(
            [sys.executable, os.path.join(HERE, "scale_node.py"), "--address", node["address"], "--token-file",
             os.path.join(session, "auth_token"), "--count", str(min(per_process, n - first)), "--first", str(first)],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True))
    for f in fakes:
        line = f.stdout.readline()
        if not line.startswith("JOINED"):
            raise RuntimeError(f"fake nodes did not join (exit {f.poll()}): {line!r}")
    return fakes


def stop_fakes(fakes):
    for f in fakes:
        f.stdin.close()  # they leave on EOF
    for f in fakes:
        try:
            f.wait(20)
        except subprocess.TimeoutExpired:
            f.kill()


def objects_phase(k, ips, env):
    """K placement groups, then K actors: create, list, remove, each timed."""
    import ray
    from ray.util.placement_group import placement_group, remove_placement_group
    res = {"objects": k}
    res["pg_create_s"], pgs = big_tables.timed(lambda: [placement_group([{"CPU": 0.01}]) for _ in range(k)])
    res["pg_ready_s"], _ = big_tables.timed(lambda: ray.get([pg.ready() for pg in pgs], timeout=900))
    res["pg_views"] = big_tables.views(env, "placement-groups")
    res["pg_remove_s"], _ = big_tables.timed(lambda: [remove_placement_group(pg) for pg in pgs])
    log(f"objects: {k} groups created {res['pg_create_s']:.1f} s, ready {res['pg_ready_s']:.1f} s, "
        f"removed {res['pg_remove_s']:.1f} s")

    @ray.remote(num_cpus=0)
    class Fake:
        def echo(self, x):
            return x

    share = 1.0 / -(-k // len(ips))
    res["actor_create_s"], actors = big_tables.timed(
        lambda: [Fake.options(resources={f"node:{ips[i % len(ips)]}": share}).remote() for i in range(k)])
    res["actor_ready_s"], _ = big_tables.timed(lambda: ray.get([a.echo.remote(1) for a in actors], timeout=900))
    res["actor_views"] = big_tables.views(env, "actors")

    def kill(a):
        try:
            ray.kill(a)
            return 0
        except ValueError:  # its fake node missed heartbeats on a busy machine: counted
            return 1
    res["actor_kill_s"], res["actors_already_gone"] = big_tables.timed(lambda: sum(kill(a) for a in actors))
    log(f"objects: {k} actors created {res['actor_create_s']:.1f} s, answered {res['actor_ready_s']:.1f} s, "
        f"killed {res['actor_kill_s']:.1f} s")
    return res


def run_one(n, args):
    tmp = tempfile.mkdtemp(prefix=f"beam-scale-{n}-")
    out = {"nodes": n, "gpus": 8 * n, "heartbeat_ms": args.heartbeat_ms}
    head, fakes, ok = None, [], False
    env = dict(os.environ, RAY_TMPDIR=tmp)
    env.pop("RAY_ADDRESS", None)
    try:
        t0 = time.monotonic()  # the fd limit raised in main() reaches the head through ray start
        big_tables.cli(["start", "--head", "--port", "0", "--temp-dir", tmp, "--num-gpus", "0", "--num-cpus", "2",
                        "--node-ip-address", "127.0.0.1", "--heartbeat-period-ms", str(args.heartbeat_ms),
                        "--node-timeout-ms", str(10 * args.heartbeat_ms), "--max-connections", str(n + 1000)], env)
        out["head_start_s"] = time.monotonic() - t0
        session = os.path.join(tmp, "session_latest")
        with open(os.path.join(session, "node.json")) as f:
            node = json.load(f)
        head = node["pid"]
        os.environ["RAY_TMPDIR"] = tmp
        import ray
        from ray.util.placement_group import placement_group, remove_placement_group

        ray.init(log_to_driver=False)
        from ray._beam.api import client

        def stats():
            s = client.ensure().request("daemon_stats", {"gc": True}, timeout=120)
            s["rss_bytes"] = proc_rss(head)
            return s

        time.sleep(0.5)
        base = stats()
        out["idle_cpu_pct_0_nodes"] = cpu_percent([head], args.idle_secs)[head]
        out["before"] = {k: base[k] for k in KEYS}

        t0 = time.monotonic()
        fakes = start_fakes(n, node, session, args.per_process)
        alive = 0
        while time.monotonic() - t0 < 600:
            alive = sum(1 for x in ray.nodes() if x["Alive"])
            if alive >= n + 1:
                break
            time.sleep(0.05)
        out["join_s"] = time.monotonic() - t0
        if alive < n + 1:
            raise RuntimeError(f"only {alive - 1} of {n} nodes joined in 600 s")
        log(f"N={n}: joined in {out['join_s']:.2f} s ({len(fakes)} fake-node processes)")
        out["ray_nodes_ms"] = big_tables.timed(lambda: [ray.nodes() for _ in range(3)])[0] / 3 * 1000
        time.sleep(1.0)
        s = stats()
        out["after_join"] = {k: s[k] for k in KEYS}
        for k in KEYS:
            out[f"{k}_per_node"] = (s[k] - base[k]) / n

        cpu = cpu_percent([head] + [f.pid for f in fakes], args.hb_secs)  # nothing else happening
        out["heartbeat_cpu_pct"] = cpu[head]
        out["fake_agent_cpu_pct"] = sum(cpu[f.pid] for f in fakes)
        log(f"N={n}: head CPU {cpu[head]:.1f}% with heartbeats only (fake nodes {out['fake_agent_cpu_pct']:.1f}%)")

        def alive_ips():
            return [x["NodeManagerAddress"] for x in ray.nodes() if x["Alive"] and x["NodeManagerAddress"] != "127.0.0.1"]

        groups = min(100, (8 * n) // 64)
        out["pg_groups"], t0 = groups, time.monotonic()
        pgs = [placement_group([{"GPU": 1}] * 64, strategy="PACK") for _ in range(groups)]
        ray.get([pg.ready() for pg in pgs], timeout=300)
        out["pg_create_ready_s"] = time.monotonic() - t0
        all_gpus = 8 * len(alive_ips())  # ray.nodes() once, outside the timed part (0.3 s at N=10,000)
        t0 = time.monotonic()
        for pg in pgs:
            remove_placement_group(pg)
        while ray.available_resources().get("GPU", 0) < all_gpus and time.monotonic() - t0 < 120:
            time.sleep(0.01)
        out["pg_remove_s"] = time.monotonic() - t0
        log(f"N={n}: {groups} groups of 64 GPUs ready in {out['pg_create_ready_s']:.3f} s, "
            f"removed in {out['pg_remove_s']:.3f} s")

        @ray.remote(num_gpus=1)
        class Fake:
            def echo(self, x):
                return x

        out["broadcast"] = {}
        for m in (10, 100, 1000):
            ips = sorted(alive_ips())[:m]
            if m > n or len(ips) < m:
                break
            t0 = time.monotonic()
            actors = [Fake.options(resources={f"node:{ip}": 0.01}).remote() for ip in ips]
            assert ray.get([a.echo.remote(i) for i, a in enumerate(actors)], timeout=300) == list(range(m))
            create_s = time.monotonic() - t0
            times = []
            for r in range(args.rounds):
                t0 = time.monotonic()
                assert ray.get([a.echo.remote(r) for a in actors], timeout=120) == [r] * m
                times.append(time.monotonic() - t0)
            out["broadcast"][str(m)] = {"create_and_first_call_s": create_s, "p50_s": statistics.median(times)}
            log(f"N={n}: M={m} actors up in {create_s:.3f} s, broadcast p50 {statistics.median(times) * 1000:.1f} ms")
            for a in actors:
                ray.kill(a)
        if args.objects and n == args.objects_at:
            out["objects"] = objects_phase(args.objects, alive_ips(), env)
        s = stats()
        out["end"] = {k: s[k] for k in KEYS}
        out["nodes_lost_during_run"] = n + 1 - sum(1 for x in ray.nodes() if x["Alive"])
        ok = True
        return out
    finally:
        stop_fakes(fakes)
        if head is not None:
            subprocess.run([big_tables.ray_bin(), "stop", "--temp-dir", tmp], env=env, capture_output=True, timeout=120)
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"N={n}: failed; the head's session (logs) is kept in {tmp}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="N = 100, 1000; 10,000 objects; short windows")
    ap.add_argument("--nodes", help="comma-separated N values (default 1000,2000,5000,10000)")
    ap.add_argument("--objects", type=int, help="groups and actors at the largest N (default 100000, quick 10000)")
    ap.add_argument("--heartbeat-ms", type=int, default=2000)
    ap.add_argument("--per-process", type=int, default=2500, help="fake nodes per process")
    ap.add_argument("--hb-secs", type=float, help="heartbeat CPU window (default 10, quick 4)")
    ap.add_argument("--idle-secs", type=float, help="idle head CPU window (default 3, quick 1)")
    ap.add_argument("--rounds", type=int, help="broadcast rounds (default 7, quick 5)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--objects-at", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.hb_secs = args.hb_secs or (4.0 if args.quick else 10.0)
    args.idle_secs = args.idle_secs or (1.0 if args.quick else 3.0)
    args.rounds = args.rounds or (5 if args.quick else 7)
    args.objects = args.objects if args.objects is not None else (10_000 if args.quick else 100_000)
    raise_fd_limit()
    if args.one is not None:
        with open(args.out, "w") as f:
            json.dump(run_one(args.one, args), f)
        return
    ns = [int(x) for x in args.nodes.split(",")] if args.nodes else ([100, 1000] if args.quick else
                                                                     [1000, 2000, 5000, 10000])
    runs = []
    t_start = time.monotonic()
    for n in ns:
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        cmd = [sys.executable, __file__, "--one", str(n), "--out", path, "--hb-secs", str(args.hb_secs),
               "--idle-secs", str(args.idle_secs), "--rounds", str(args.rounds), "--objects", str(args.objects),
               "--objects-at", str(max(ns)), "--heartbeat-ms", str(args.heartbeat_ms),
               "--per-process", str(args.per_process)]
        log(f"N={n}: starting a fresh head")
        if subprocess.run(cmd).returncode != 0:
            log(f"N={n}: failed; stopping here")
            break
        with open(path) as f:
            runs.append(json.load(f))
        os.unlink(path)
    if not runs:
        sys.exit(1)
    meta = {"machine": {"cpus": os.cpu_count(), "uname": " ".join(os.uname())}, "quick": args.quick,
            "hb_secs": args.hb_secs, "heartbeat_ms": args.heartbeat_ms, "rounds": args.rounds,
            "elapsed_s": time.monotonic() - t_start}
    scale_report.write(meta, runs, "scale_quick" if args.quick else "scale")


if __name__ == "__main__":
    main()
