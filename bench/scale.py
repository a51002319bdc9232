"""Head scalability benchmark: one beam head against N fake 8-GPU nodes.

The nodes are simulated by bench/scale_node.py (many asyncio links in one process that
speak the node-link protocol exactly as a joined node's daemon does, and play the actor
workers themselves), so only the head is real. For each N (10, 100, 1000; --quick: 10,
100) a fresh head is started and measured in a child process (`--one N`):

- join: time until `ray.nodes()` shows N+1 alive; head RSS, heap after a GC, fds, threads;
- heartbeat: head CPU% (utime+stime from /proc) over a window while N nodes ping, idle;
- placement: min(100, 8N/64) groups of 64 {"GPU": 1} bundles (PACK) created and ready,
  then removed;
- broadcast: M fake actors (num_gpus=1, one per node, M = 10, 100, 1000 up to N), one
  call each gathered with ray.get: creation time and p50 of a few rounds.

Writes bench/results/scale.json, scale.png (matplotlib from .bench/ray-venv, if present)
and scale.md.

    python bench/scale.py [--quick] [--nodes 10,100,1000]
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
CHART_PY = os.path.join(ROOT, ".bench", "ray-venv", "bin", "python")
TICK = os.sysconf("SC_CLK_TCK")


def log(msg):
    print(f"[scale {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


def ray_bin():
    exe = os.path.join(os.path.dirname(sys.executable), "ray")
    return exe if os.path.exists(exe) else "ray"


def proc_cpu(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK  # utime + stime, seconds


def proc_rss(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def cpu_percent(pids, secs):
    before = {p: proc_cpu(p) for p in pids}
    t0 = time.monotonic()
    time.sleep(secs)
    dt = time.monotonic() - t0
    return {p: 100.0 * (proc_cpu(p) - before[p]) / dt for p in pids}


# ------------------------------------------------------------------ one N

def run_one(n, args):
    tmp = tempfile.mkdtemp(prefix=f"beam-scale-{n}-")
    out = {"nodes": n, "gpus": 8 * n}
    head = None
    fake = None
    ok = False
    try:
        t0 = time.monotonic()
        subprocess.run([ray_bin(), "start", "--head", "--port", "0", "--temp-dir", tmp, "--num-gpus", "0",
                        "--num-cpus", "2", "--node-ip-address", "127.0.0.1"], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        out["head_start_s"] = time.monotonic() - t0
        session = os.path.join(tmp, "session_latest")
        with open(os.path.join(session, "node.json")) as f:
            node = json.load(f)
        head = node["pid"]
        os.environ["RAY_TMPDIR"] = tmp
        sys.path.insert(0, os.path.join(ROOT, "python"))
        import ray
        from ray._beam.wire.connection import Connection
        from ray.util.placement_group import placement_group, remove_placement_group

        ray.init()
        probe = Connection(node["socket"])
        probe.start()
        probe.request("hello", {"proto": 1, "role": "driver", "pid": os.getpid(), "log_to_driver": False},
                      timeout=10)

        def stats():
            s = probe.request("daemon_stats", {"gc": True}, timeout=60)
            s["rss_bytes"] = proc_rss(head)
            return s

        time.sleep(0.5)
        base = stats()
        out["idle_cpu_pct_0_nodes"] = cpu_percent([head], args.idle_secs)[head]
        out["before"] = {k: base[k] for k in ("rss_bytes", "heap_used_bytes", "open_fds", "threads")}

        # ---- join
        t0 = time.monotonic()
        fake = subprocess.Popen([sys.executable, os.path.join(HERE, "scale_node.py"), "--address", node["address"],
                                 "--token-file", os.path.join(session, "auth_token"), "--count", str(n)],
                                stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        alive = 0
        while time.monotonic() < deadline:
            alive = sum(1 for x in ray.nodes() if x["Alive"])
            if alive >= n + 1:
                break
            if fake.poll() is not None:
                raise RuntimeError(f"fake nodes exited with {fake.returncode}")
            time.sleep(0.02)
        out["join_s"] = time.monotonic() - t0
        if alive < n + 1:
            raise RuntimeError(f"only {alive - 1} of {n} nodes joined in 120 s")
        out["agent_joined_line"] = fake.stdout.readline().strip()
        log(f"N={n}: joined in {out['join_s']:.2f} s")
        t0 = time.monotonic()
        for _ in range(5):
            ray.nodes()
        out["ray_nodes_ms"] = (time.monotonic() - t0) / 5 * 1000
        time.sleep(1.0)
        s = stats()
        out["after_join"] = {k: s[k] for k in ("rss_bytes", "heap_used_bytes", "open_fds", "threads")}
        out["rss_per_node_bytes"] = (s["rss_bytes"] - base["rss_bytes"]) / n
        out["heap_per_node_bytes"] = (s["heap_used_bytes"] - base["heap_used_bytes"]) / n

        # ---- heartbeats only
        cpu = cpu_percent([head, fake.pid], args.hb_secs)
        out["heartbeat_cpu_pct"] = cpu[head]
        out["fake_agent_cpu_pct"] = cpu[fake.pid]
        log(f"N={n}: head CPU {cpu[head]:.1f}% with heartbeats only (fake agent {cpu[fake.pid]:.1f}%)")

        def alive_ips():
            return [x["NodeManagerAddress"] for x in ray.nodes() if x["Alive"] and x["NodeManagerAddress"] != "127.0.0.1"]

        # ---- placement groups (a node lost to a missed heartbeat is counted, not waited for)
        groups = min(100, (8 * n) // 64)
        out["pg_groups"] = groups
        if groups:
            t0 = time.monotonic()
            pgs = [placement_group([{"GPU": 1}] * 64, strategy="PACK") for _ in range(groups)]
            ray.get([pg.ready() for pg in pgs], timeout=300)
            out["pg_create_ready_s"] = time.monotonic() - t0
            out["pg_per_s"] = groups / out["pg_create_ready_s"]
            s = stats()
            out["with_pgs"] = {k: s[k] for k in ("rss_bytes", "heap_used_bytes", "placement_groups")}
            t0 = time.monotonic()
            for pg in pgs:
                remove_placement_group(pg)
            while ray.available_resources().get("GPU", 0) < 8 * len(alive_ips()) and time.monotonic() - t0 < 120:
                time.sleep(0.01)
            out["pg_remove_s"] = time.monotonic() - t0
            log(f"N={n}: {groups} groups of 64 ready in {out['pg_create_ready_s']:.3f} s, "
                f"removed in {out['pg_remove_s']:.3f} s")

        # ---- broadcast
        @ray.remote(num_gpus=1)
        class Fake:
            def echo(self, x):
                return x

        out["broadcast"] = {}
        for m in (10, 100, 1000):
            if m > n:
                break
            t0 = time.monotonic()
            ips = sorted(alive_ips())[:m]
            if len(ips) < m:
                log(f"N={n}: only {len(ips)} nodes alive, skipping M={m}")
                break
            actors = [Fake.options(resources={f"node:{ip}": 0.01}).remote() for ip in ips]
            first = ray.get([a.echo.remote(i) for i, a in enumerate(actors)], timeout=300)
            create_s = time.monotonic() - t0
            assert first == list(range(m)), first[:5]
            times = []
            for r in range(args.rounds):
                t0 = time.monotonic()
                got = ray.get([a.echo.remote(r) for a in actors], timeout=120)
                times.append(time.monotonic() - t0)
                assert got == [r] * m
            s = stats()
            out["broadcast"][str(m)] = {"create_and_first_call_s": create_s, "p50_s": statistics.median(times),
                                        "min_s": min(times), "max_s": max(times), "rounds": len(times),
                                        "rss_bytes": s["rss_bytes"], "threads": s["threads"],
                                        "open_fds": s["open_fds"]}
            log(f"N={n}: M={m} actors up in {create_s:.3f} s, broadcast p50 {statistics.median(times) * 1000:.1f} ms")
            for a in actors:
                ray.kill(a)
            t0 = time.monotonic()
            while ray.available_resources().get("GPU", 0) < 8 * len(alive_ips()) and time.monotonic() - t0 < 60:
                time.sleep(0.02)
        s = stats()
        out["end"] = {k: s[k] for k in ("rss_bytes", "heap_used_bytes", "open_fds", "threads", "actors",
                                        "dead_actor_tombstones")}
        lost = n + 1 - sum(1 for x in ray.nodes() if x["Alive"])
        out["nodes_lost_during_run"] = lost
        try:
            probe.request("shutdown", timeout=10)
        except Exception:  # noqa: BLE001 - the head may drop the link as it goes
            pass
        ok = True
        return out
    finally:
        if fake is not None:
            try:
                fake.stdin.close()
            except OSError:
                pass
            try:
                fake.wait(10)
            except subprocess.TimeoutExpired:
                fake.kill()
        if head is not None:
            for _ in range(100):
                if not os.path.exists(f"/proc/{head}"):
                    break
                time.sleep(0.1)
            else:
                os.kill(head, 15)
        if ok:
            shutil.rmtree(tmp, ignore_errors=True)
        else:
            log(f"N={n}: failed; the head's session (logs) is kept in {tmp}")


def fake_ip(i):
    i += 1
    return f"10.{(i >> 16) & 255}.{(i >> 8) & 255}.{i & 255}"


# ------------------------------------------------------------------ report

def mib(b):
    return b / (1 << 20)


def table(runs):
    rows = [("figure", [f"N={r['nodes']}" for r in runs])]

    def row(name, fn):
        vals = []
        for r in runs:
            try:
                vals.append(fn(r))
            except (KeyError, TypeError):
                vals.append("-")
        rows.append((name, vals))

    row("join all N (s)", lambda r: f"{r['join_s']:.2f}")
    row("ray.nodes() (ms)", lambda r: f"{r['ray_nodes_ms']:.1f}")
    row("head RSS after join (MiB)", lambda r: f"{mib(r['after_join']['rss_bytes']):.0f}")
    row("head heap after GC (MiB)", lambda r: f"{mib(r['after_join']['heap_used_bytes']):.1f}")
    row("heap per node (KiB)", lambda r: f"{r['heap_per_node_bytes'] / 1024:.1f}")
    row("RSS per node (KiB)", lambda r: f"{r['rss_per_node_bytes'] / 1024:.0f}")
    row("head fds / threads", lambda r: f"{r['after_join']['open_fds']} / {r['after_join']['threads']}")
    row("head CPU, heartbeats only (%)", lambda r: f"{r['heartbeat_cpu_pct']:.1f}")
    row("  (idle, 0 nodes) (%)", lambda r: f"{r['idle_cpu_pct_0_nodes']:.1f}")
    row("  (fake agent process) (%)", lambda r: f"{r['fake_agent_cpu_pct']:.1f}")
    row("PGs of 64 GPUs placed", lambda r: f"{r['pg_groups']}")
    row("PG create+ready total (s)", lambda r: f"{r['pg_create_ready_s']:.3f}")
    row("PG rate (groups/s)", lambda r: f"{r['pg_per_s']:.0f}")
    row("PG remove all (s)", lambda r: f"{r['pg_remove_s']:.3f}")
    for m in ("10", "100", "1000"):
        row(f"M={m}: actors up (s)", lambda r, m=m: f"{r['broadcast'][m]['create_and_first_call_s']:.3f}")
        row(f"M={m}: broadcast p50 (ms)", lambda r, m=m: f"{r['broadcast'][m]['p50_s'] * 1000:.1f}")
    row("head RSS at end (MiB)", lambda r: f"{mib(r['end']['rss_bytes']):.0f}")
    row("nodes lost during run", lambda r: f"{r['nodes_lost_during_run']}")
    w0 = max(len(name) for name, _ in rows)
    w = [max(len(str(v[i])) for _, v in rows) for i in range(len(runs))]
    text = []
    md = []
    for k, (name, vals) in enumerate(rows):
        text.append(name.ljust(w0) + "  " + "  ".join(str(v).rjust(w[i]) for i, v in enumerate(vals)))
        md.append("| " + name.strip() + " | " + " | ".join(str(v) for v in vals) + " |")
        if k == 0:
            md.append("| --- |" + " ---: |" * len(vals))
    return "\n".join(text), "\n".join(md)


CHART = r"""
import json, sys
import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt
runs = json.load(open(sys.argv[1]))["runs"]
n = [r["nodes"] for r in runs]
fig, ax = plt.subplots(2, 2, figsize=(11, 7.5))
ax[0][0].plot(n, [r["join_s"] for r in runs], "o-"); ax[0][0].set_title("join all N nodes (s)")
ax[0][1].plot(n, [r["after_join"]["rss_bytes"] / 2**20 for r in runs], "o-", label="RSS")
ax[0][1].plot(n, [r["after_join"]["heap_used_bytes"] / 2**20 for r in runs], "s-", label="heap after GC")
ax[0][1].set_title("head memory after join (MiB)"); ax[0][1].legend()
ax[1][0].plot(n, [r["heartbeat_cpu_pct"] for r in runs], "o-", label="head")
ax[1][0].plot(n, [r["fake_agent_cpu_pct"] for r in runs], "s--", label="fake agent (all N)")
ax[1][0].set_title("CPU %, heartbeats only"); ax[1][0].legend()
ms, p50 = [], []
for r in runs:
    for m, b in r["broadcast"].items():
        if r["nodes"] == max(n) or int(m) == r["nodes"]:
            ms.append(int(m)); p50.append(b["p50_s"] * 1000)
pairs = sorted(set(zip(ms, p50)))
ax[1][1].plot([p[0] for p in pairs], [p[1] for p in pairs], "o-")
ax[1][1].set_title("broadcast to M actors, ray.get p50 (ms)")
for a in ax.flat:
    a.set_xscale("log"); a.set_xlabel("N nodes" if a is not ax[1][1] else "M actors"); a.grid(alpha=.3)
fig.suptitle("beam head vs N fake 8-GPU nodes")
fig.tight_layout(); fig.savefig(sys.argv[2], dpi=110)
"""


def chart(json_path, png):
    if not os.path.exists(CHART_PY):
        return "no chart: .bench/ray-venv is missing (bench/setup_ray.sh makes it)"
    r = subprocess.run([CHART_PY, "-c", CHART, json_path, png], capture_output=True, text=True)
    if r.returncode != 0:
        return "no chart: " + (r.stderr.strip().splitlines() or ["matplotlib failed"])[-1]
    return None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="N up to 100, short windows (under 60 s)")
    ap.add_argument("--nodes", help="comma-separated N values (default 10,100,1000)")
    ap.add_argument("--hb-secs", type=float, help="heartbeat CPU window (default 10, quick 4)")
    ap.add_argument("--idle-secs", type=float, help="idle head CPU window (default 3, quick 1)")
    ap.add_argument("--rounds", type=int, help="broadcast rounds (default 7, quick 5)")
    ap.add_argument("--one", type=int, help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    args = ap.parse_args()
    args.hb_secs = args.hb_secs or (4.0 if args.quick else 10.0)
    args.idle_secs = args.idle_secs or (1.0 if args.quick else 3.0)
    args.rounds = args.rounds or (5 if args.quick else 7)

    if args.one is not None:
        res = run_one(args.one, args)
        with open(args.out, "w") as f:
            json.dump(res, f)
        return

    ns = [int(x) for x in args.nodes.split(",")] if args.nodes else ([10, 100] if args.quick else [10, 100, 1000])
    runs = []
    t_start = time.monotonic()
    for n in ns:
        fd, path = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        cmd = [sys.executable, __file__, "--one", str(n), "--out", path, "--hb-secs", str(args.hb_secs),
               "--idle-secs", str(args.idle_secs), "--rounds", str(args.rounds)]
        log(f"N={n}: starting a fresh head")
        r = subprocess.run(cmd)
        if r.returncode != 0:
            log(f"N={n}: failed (exit {r.returncode}); stopping here")
            break
        with open(path) as f:
            runs.append(json.load(f))
        os.unlink(path)
    if not runs:
        sys.exit(1)
    os.makedirs(RESULTS, exist_ok=True)
    suffix = "quick" if args.quick else ""
    base = os.path.join(RESULTS, "scale" + ("_" + suffix if suffix else ""))
    meta = {"machine": {"cpus": os.cpu_count(), "uname": " ".join(os.uname())}, "quick": args.quick,
            "hb_secs": args.hb_secs, "rounds": args.rounds, "elapsed_s": time.monotonic() - t_start}
    with open(base + ".json", "w") as f:
        json.dump({"meta": meta, "runs": runs}, f, indent=1)
    note = chart(base + ".json", base + ".png")
    text, md = table(runs)
    print(text)
    print(f"\nwrote {base}.json" + (f" and {base}.png" if note is None else f" ({note})"))
    print(f"elapsed {meta['elapsed_s']:.1f} s")
    with open(base + ".table.md", "w") as f:
        f.write(md + "\n")


if __name__ == "__main__":
    main()
