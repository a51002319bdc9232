"""Side-by-side benchmark of beam and real Ray 2.60 (run it through bench/run.sh): the table.

Standard library only. For each system, one after the other (never both at once):
start the head (timed), measure the idle memory of every process the start left running,
time ray.init() from fresh processes, run bench/workload.py's subcommands under that
system's interpreter, join a second node on 127.0.0.2, measure the two-host broadcast and
a host kill, stop everything. Then print the table, write bench/results/latest.json and
(when matplotlib is available in .bench/ray-venv) bench/results/chart.png. How the systems
are started, found and stopped: bench/harness.py.
"""

import argparse
import json
import os
import platform
import resource
import signal
import statistics
import subprocess
import sys
import time

from harness import (JOIN_IP, RAY_VENV, RESULTS, ROOT, Beam, Procs, Ray, cmdline, cpu_seconds,
                     find_java, log, memory, snapshot_jar, workload)


def start_cycle(sysm, r):
    """One `ray start --head` (timed), 2 s idle, memory and CPU of what it left running, `ray stop`."""
    procs = sysm.procs
    before = set(procs.descendants())
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, _, _, dt = sysm.start_head()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    time.sleep(2.0)
    left = [p for p in procs.descendants() if p not in before]
    m_rss, m_pss, each = memory(left)
    cpu = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) + cpu_seconds(left)
    for k, v in (("start_all", dt), ("rss_all", m_rss), ("pss_all", m_pss), ("cpu_all", cpu)):
        r.setdefault(k, []).append(v)
    r["idle_processes"] = each
    log(f"{sysm.name}: start {dt:.3f} s, {len(left)} processes, RSS {m_rss:.1f} MiB, PSS {m_pss:.1f} MiB, "
        f"CPU {cpu:.2f} s")
    sysm.stop()
    time.sleep(0.5)
    sysm.cleanup()


def measure_starts(make_systems, results, reps):
    """Start/idle/stop cycles, alternating between the systems (one at a time) so that background
    load on a shared machine hits both alike. Each system's `ray` runs once before: beam's first
    command after an install or a new jar (the bench's own snapshot) resolves Java in Python and
    writes the launch file that later ones start Java from (docs/DESIGN.md, "The `ray` command")."""
    for _, make in make_systems:
        sysm = make()
        sysm.procs.run([sysm.ray, "--version"], sysm.env(), timeout=120, check=False)
        sysm.cleanup()
    for i in range(reps):
        for name, make in make_systems:
            log(f"{name}: ray start --head, round {i + 1}/{reps}")
            start_cycle(make(), results[name])
    for r in results.values():
        r["start_s"] = statistics.median(r["start_all"])
        r["start_best_s"] = min(r["start_all"])
        r["idle_rss_mb"] = statistics.median(r["rss_all"])
        r["idle_pss_mb"] = statistics.median(r["pss_all"])
        r["start_cpu_s"] = statistics.median(r["cpu_all"])


def measure_system(sysm, quick, r):
    """On one fresh cluster of this system: the first ray.init right after `ray start`, warm
    ray.init, the workloads, a second node, the two-host broadcast and the host kill."""
    procs = sysm.procs
    before = set(procs.descendants())
    if before:
        log(f"warning: processes left from before: {before}")
    log(f"{sysm.name}: ray start --head for the workloads")
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, _, _, dt = sysm.start_head()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        if quick:
            # Smoke run: no separate start/stop cycles; idle memory is taken on this cluster before
            # the first driver (so "then the first ray.init" comes 2 s late and flatters Ray).
            time.sleep(2.0)
            left = [p for p in procs.descendants() if p not in before]
            m_rss, m_pss, each = memory(left)
            cpu = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) + cpu_seconds(left)
            r.update({"start_all": [dt], "rss_all": [m_rss], "pss_all": [m_pss], "cpu_all": [cpu],
                      "idle_processes": each, "start_s": dt, "start_best_s": dt, "idle_rss_mb": m_rss,
                      "idle_pss_mb": m_pss, "start_cpu_s": cpu})
        # Ray's start returns before its raylet takes drivers: time the first driver at once.
        first = workload(sysm, "init")["init_s"]
        r["first_init_s"] = first
        r["start_to_usable_s"] = dt + first
        log(f"{sysm.name}: start {dt:.3f} s, first ray.init right after it {first:.3f} s")
        inits = [workload(sysm, "init")["init_s"] for _ in range(0 if quick else 3)] or [first]
        r["init_s"] = statistics.median(inits)
        r["init_all"] = inits
        log(f"{sysm.name}: ray.init {r['init_s']:.3f} s")
        log(f"{sysm.name}: main workload")
        r["main"] = workload(sysm, "main", *(["--quick"] if quick else []))
        log(f"{sysm.name}: vLLM-shaped start-up")
        r["vllm"] = workload(sysm, "vllm")
        log(f"{sysm.name}: joining a second node on {JOIN_IP}")
        head_set = set(procs.descendants())
        try:
            sysm.join()
            time.sleep(1.0)
            node2 = [p for p in procs.descendants() if p not in head_set]
            r["node2_processes"] = [cmdline(p)[:100] for p in node2]
            r["multihost"] = workload(sysm, "multihost", "--node-ip", JOIN_IP, "--kill-pids",
                                      ",".join(map(str, node2)), *(["--quick"] if quick else []))
        except RuntimeError as e:
            r["multihost_error"] = str(e)[-2000:]
            log(f"{sysm.name}: two-host part failed: {str(e)[-500:]}")
    finally:
        log(f"{sysm.name}: ray stop")
        sysm.stop()
        time.sleep(0.5)
        left = [p for p in procs.descendants() if p not in before]
        if left:
            log(f"{sysm.name}: killing {len(left)} leftover processes: {[cmdline(p)[:60] for p in left]}")
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        sysm.cleanup()
    return r


# ---------------------------------------------------------------- table

# (key, label, unit, getter, better: "lower"/"higher", target factor or None)
def _g(*path):
    def get(r):
        for k in path:
            if r is None or not isinstance(r, dict):
                return None
            r = r.get(k)
        return r
    return get


METRICS = [
    ("start", "ray start --head (median)", "s", _g("start_s"), "lower", 10),
    ("start_best", "ray start --head (best run)", "s", _g("start_best_s"), "lower", None),
    ("start_usable", "ray start, then the first ray.init", "s", _g("start_to_usable_s"), "lower", None),
    ("start_cpu", "CPU used by ray start and 2 s idle", "s", _g("start_cpu_s"), "lower", None),
    ("idle_rss", "idle memory, sum of RSS", "MiB", _g("idle_rss_mb"), "lower", 8),
    ("idle_pss", "idle memory, sum of PSS", "MiB", _g("idle_pss_mb"), "lower", None),
    ("init", "ray.init() to the running cluster (warm)", "s", _g("init_s"), "lower", None),
    ("actors4", "4 actors created, first call answered", "s", _g("main", "actors4_s"), "lower", 3),
    ("actors16", "16 actors created, first call answered", "s", _g("main", "actors16_s"), "lower", 3),
    ("sync_p50", "sync actor call p50", "us", _g("main", "sync", "p50_us"), "lower", 8),
    ("sync_p99", "sync actor call p99", "us", _g("main", "sync", "p99_us"), "lower", 5),
    ("bcast4_p50", "4 KB broadcast to 4 actors p50", "us", _g("main", "bcast4", "p50_us"), "lower", 8),
    ("bcast4_p99", "4 KB broadcast to 4 actors p99", "us", _g("main", "bcast4", "p99_us"), "lower", None),
    ("bcast8_p50", "4 KB broadcast to 8 actors, 2 hosts p50", "us", _g("multihost", "bcast8", "p50_us"), "lower", 8),
    ("bcast8_p99", "4 KB broadcast to 8 actors, 2 hosts p99", "us", _g("multihost", "bcast8", "p99_us"), "lower",
     None),
    ("pipelined", "pipelined calls to one actor", "calls/s", _g("main", "pipelined", "calls_per_s"), "higher", 10),
    ("pg", "placement group create/ready/remove", "per s", _g("main", "pg", "per_s"), "higher", 20),
    ("pg_wait", "placement group create/pg.wait()/remove", "per s", _g("main", "pg_wait", "per_s"), "higher", None),
    ("actor_kill", "actor SIGKILL until its ref fails", "s", _g("main", "actor_kill", "s"), "lower", None),
    ("host_kill", "host killed until its actors' refs fail", "s", _g("multihost", "host_kill", "s"), "lower", None),
    ("vllm", "vLLM-shaped start: init to workers ready", "s", _g("vllm", "vllm_ready_s"), "lower", None),
]


def build_rows(beam, ray):
    rows = []
    for key, label, unit, get, better, target in METRICS:
        b, r = get(beam), (get(ray) if ray else None)
        factor = None
        if isinstance(b, (int, float)) and isinstance(r, (int, float)) and b > 0 and r > 0:
            factor = r / b if better == "lower" else b / r
        verdict = None
        if target is not None and factor is not None:
            verdict = "PASS" if factor >= target else "MISS"
        why = None
        if r is None and ray is not None:
            why = ray.get("multihost_error", "n/a")[:200] if key.startswith(("bcast8", "host_kill")) else "n/a"
        rows.append({"key": key, "metric": label, "unit": unit, "beam": b, "ray": r, "better": better,
                     "factor": factor, "target": target, "verdict": verdict, "note": why})
    return rows


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit in ("us", "calls/s", "per s", "MiB") and v >= 100:
        return f"{v:,.0f}"
    if unit == "s":
        return f"{v:.3f}"
    return f"{v:.1f}"


def table(rows):
    head = ["metric", "unit", "beam", "Ray", "beam vs Ray", "target", ""]
    lines = []
    for r in rows:
        lines.append([r["metric"], r["unit"], fmt(r["beam"], r["unit"]), fmt(r["ray"], r["unit"]),
                      f"{r['factor']:.1f}x better" if r["factor"] and r["factor"] >= 1 else
                      (f"{1 / r['factor']:.1f}x worse" if r["factor"] else "n/a"),
                      (f"<= {r['target']}" if r["better"] == "own" else f">= {r['target']}x") if r["target"] else "",
                      r["verdict"] or ""])
    return head, lines


def markdown(rows):
    head, lines = table(rows)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(line) + " |" for line in lines]
    return "\n".join(out)


def plain(rows):
    head, lines = table(rows)
    w = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt_line = lambda cells: "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(cells))  # noqa
    return "\n".join([fmt_line(head), fmt_line(["-" * x for x in w])] + [fmt_line(line) for line in lines])


# ---------------------------------------------------------------- machine

def machine():
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) / 1024 / 1024
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    java = os.environ.get("BEAM_JAVA") or find_java()
    jv = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()
    py = subprocess.run([os.path.join(ROOT, ".venv", "bin", "python"), "--version"], capture_output=True,
                        text=True).stdout.strip()
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "java", "python"],
                           capture_output=True, text=True).stdout.strip()
    return {"commit": head + (" + uncommitted changes in java/ or python/" if dirty else ""),
            "nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem, 1), "kernel": platform.release(),
            "jdk": jv[1] if len(jv) > 1 else (jv[0] if jv else ""), "python": py,
            "loadavg_at_start": os.getloadavg()}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="few iterations; Ray only if already installed")
    ap.add_argument("--systems", default="beam,ray", help="comma-separated: beam, ray")
    ap.add_argument("--out", default=os.path.join(RESULTS, "latest.json"))
    ap.add_argument("--show", metavar="JSON", help="only print the table of a results file, as Markdown")
    args = ap.parse_args()
    if args.show:
        doc = json.load(open(args.show))
        print(markdown(doc["rows"]))
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    procs = Procs()
    snapshot_jar()
    systems = [s for s in args.systems.split(",") if s]
    if "ray" in systems and not os.path.exists(os.path.join(RAY_VENV, "bin", "ray")):
        log("Ray is not installed (.bench/ray-venv); measuring beam only")
        systems.remove("ray")
    info = machine()
    t0 = time.time()
    makers = [(s, (lambda s=s: Beam(procs) if s == "beam" else Ray(procs))) for s in systems]
    results = {s: {"system": s} for s in systems}
    if not args.quick:
        measure_starts(makers, results, 5)
    for s, make in makers:
        measure_system(make(), args.quick, results[s])
    rows = build_rows(results.get("beam"), results.get("ray"))
    doc = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": args.quick, "machine": info,
           "loadavg_at_end": os.getloadavg(), "seconds": round(time.time() - t0, 1), "rows": rows,
           "raw": results}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print()
    print(plain(rows))
    for r in rows:
        if r["note"]:
            print(f"n/a for {r['metric']}: {r['note']}")
    print()
    print(f"machine: {info['nproc']} CPUs ({info['cpu']}), {info['memory_gib']} GiB, {info['jdk']}, {info['python']}; "
          f"load average {info['loadavg_at_start'][0]:.2f} at start, {doc['loadavg_at_end'][0]:.2f} at end")
    print(f"wrote {os.path.relpath(args.out, ROOT)} ({doc['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
