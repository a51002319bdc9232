"""The cold shape, beam and Ray 2.60 side by side (run it through bench/run.sh --cold).

Each run starts a fresh head of one system, runs bench/cold_workload.py once (no warm-up),
stops the head, then does the same with the other system: runs alternate beam, Ray, beam,
Ray, ... so that background load on a shared machine hits both alike. Prints every run's
figures, then the table over all runs, where a target holds only if it holds in every run,
and writes bench/results/cold.json (bench/chart.py draws it).

    python bench/cold.py [--runs 5] [--systems beam,ray] [--out FILE] [--timelines DIR]
"""
import argparse
import json
import os
import statistics
import sys
import time

from bench import machine, plain  # the table's formatting
from harness import RAY_VENV, RESULTS, ROOT, Beam, Procs, Ray, log, run_workload, snapshot_jar

COLD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "cold_workload.py")

# key, label, unit, how to read it from a run, which way is better, target (times better than Ray)
METRICS = [
    ("start", "ray start --head", "s", lambda r: r["start_s"], "lower", None),
    ("init", "first ray.init()", "s", lambda r: r["init_s"], "lower", None),
    ("pg4", "PACK group of 4 GPU bundles ready", "s", lambda r: r["pg4_ready_s"], "lower", None),
    ("actors4", "4 actors created and answered", "s", lambda r: r["actors4_s"], "lower", 3),
    ("sync_p50", "sync call p50", "us", lambda r: r["sync"]["p50_us"], "lower", 10),
    ("sync_p99", "sync call p99 (3rd worst of 300)", "us", lambda r: r["sync"]["p99_us"], "lower", 3),
    ("sync_tail", "sync p99 / own p50 (at most 4)", "ratio",
     lambda r: r["sync"]["p99_us"] / r["sync"]["p50_us"], "own", 4),
    ("bcast4_p50", "broadcast-4 (4 KB) p50", "us", lambda r: r["bcast4"]["p50_us"], "lower", 10),
    ("bcast4_p99", "broadcast-4 (4 KB) p99", "us", lambda r: r["bcast4"]["p99_us"], "lower", 3),
    ("pipelined", "1,500 pipelined calls", "calls/s", lambda r: r["pipelined_calls_per_s"], "higher", None),
    ("pg", "placement group create/ready/remove", "per s", lambda r: r["pg_per_s"], "higher", None),
    ("actors16", "16 actors created and answered", "s", lambda r: r["actors16_s"], "lower", 5),
]


def factor(better, b, r):
    if better == "own" or not b or not r:
        return None
    return r / b if better == "lower" else b / r


def passes(better, target, b, r):
    if target is None or b is None:
        return None
    if better == "own":
        return b <= target
    f = factor(better, b, r)
    return None if f is None else f >= target


def one_run(sysm, timelines, i):
    """A fresh head of this system, the cold workload once, the head stopped: the run's figures."""
    _, _, _, dt = sysm.start_head()
    try:
        extra = ["--timeline", os.path.join(timelines, f"{sysm.name}-{i}.json")] if timelines else []
        res = run_workload(sysm.procs, sysm.python, sysm.env(), "cold", *extra, timeout=600, who=sysm.name,
                           script=COLD)
    finally:
        sysm.stop()
        time.sleep(0.5)
        sysm.cleanup()
    res["start_s"] = dt
    return res


def rows_for(runs_b, runs_r):
    """Per metric: medians over the runs, the worst run's ratio, PASS only if every run passes."""
    rows = []
    for key, label, unit, get, better, target in METRICS:
        bs = [get(r) for r in runs_b]
        rs = [get(r) for r in runs_r] if runs_r else []
        per_run = [passes(better, target, b, r) for b, r in zip(bs, rs or [None] * len(bs))]
        fs = [factor(better, b, r) for b, r in zip(bs, rs)]
        fs = [f for f in fs if f is not None]
        verdict = None
        if target is not None and all(p is not None for p in per_run) and per_run:
            verdict = "PASS" if all(per_run) else f"MISS {per_run.count(False)}/{len(per_run)}"
        rows.append({"key": key, "metric": label, "unit": unit, "better": better,
                     "beam": statistics.median(bs), "ray": statistics.median(rs) if rs else None,
                     "factor": min(fs) if fs else None, "target": target, "verdict": verdict, "note": None})
    return rows


def print_run(i, b, r):
    cells = []
    for key, _, unit, get, better, target in METRICS:
        bv = get(b)
        rv = get(r) if r else None
        f = factor(better, bv, rv)
        ok = passes(better, target, bv, rv)
        mark = "" if ok is None else (" ok" if ok else " MISS")
        num = (lambda v: f"{v * 1e3:.0f}ms" if unit == "s" else f"{v:,.0f}" if v >= 100 else f"{v:.1f}")
        cells.append(f"{key} {num(bv)}" + (f"/{num(rv)}" if rv is not None else "") +
                     (f" {f:.1f}x" if f else "") + mark)
    print(f"run {i}: " + "; ".join(cells), flush=True)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--systems", default="beam,ray")
    ap.add_argument("--out", default=os.path.join(RESULTS, "cold.json"))
    ap.add_argument("--timelines", metavar="DIR", help="keep every run's per-call latencies here")
    args = ap.parse_args()
    systems = [s for s in args.systems.split(",") if s]
    if "ray" in systems and not os.path.exists(os.path.join(RAY_VENV, "bin", "ray")):
        log("Ray is not installed (bench/setup_ray.sh); measuring beam only")
        systems.remove("ray")
    if args.timelines:
        os.makedirs(args.timelines, exist_ok=True)
    procs = Procs()
    snapshot_jar()
    info = machine()
    runs = {s: [] for s in systems}
    t0 = time.time()
    for i in range(1, args.runs + 1):
        for s in systems:
            log(f"{s}: cold run {i}/{args.runs}")
            runs[s].append(one_run(Beam(procs) if s == "beam" else Ray(procs), args.timelines, i))
        print_run(i, runs["beam"][-1] if "beam" in runs else None, runs["ray"][-1] if "ray" in runs else None)
    rows = rows_for(runs.get("beam", []), runs.get("ray"))
    doc = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "shape": "cold", "runs": args.runs, "machine": info,
           "loadavg_at_end": os.getloadavg(), "seconds": round(time.time() - t0, 1), "rows": rows, "raw": runs}
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print()
    print(f"cold shape, {args.runs} runs: medians; 'beam vs Ray' is the worst run's; a target passes only "
          f"if every run meets it")
    print(plain(rows))
    print(f"\nmachine: {info['nproc']} CPUs ({info['cpu']}), load average {info['loadavg_at_start'][0]:.2f} at "
          f"start, {doc['loadavg_at_end'][0]:.2f} at end; wrote {os.path.relpath(args.out, ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
