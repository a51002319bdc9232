"""Where an actor worker's first ~100 ms go (docs/PERFORMANCE.md, "Actor start-up").

    .venv/bin/python bench/actor_start.py [--runs 10]

1. Fresh interpreters, no daemon, each command --runs times (alternating), CPU per process
   from wait4: the interpreter alone, cloudpickle alone (beam's floor: a worker cannot
   unpickle a class pickled by value without it), a fresh worker up to its connect
   (`python -u -m ray._beam.worker` with no arguments: its imports, then the usage error), and
   the biggest parts of its imports (`-X importtime`, one run).
2. Real actors on a fresh head (`ray start --head --num-gpus 4`), the cold shape's steps: 4
   actors right after ray.init() (the pool starts at the driver's hello), 4 more once it is
   full, then those 8 killed and, 0.5 s later, 16. Each actor's constructor reads its own
   process's start (/proc, 10 ms ticks), the CPU it has used so far and the clock (the
   driver's CLOCK_MONOTONIC): per actor, request to process start (negative: a pooled worker
   started before), CPU to the constructor, request to the constructor and to the answer.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))


def fresh(cmd, env):
    """Run CMD once: (wall s, CPU s of the child itself)."""
    t = time.perf_counter()
    p = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, ru = os.wait4(p.pid, 0)
    return time.perf_counter() - t, ru.ru_utime + ru.ru_stime


def interpreters(python, runs):
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONPROFILEIMPORTTIME")}
    cmds = {"interpreter (python -c pass)": [python, "-c", "pass"],
            "import cloudpickle": [python, "-c", "import cloudpickle"],
            "fresh worker to its connect": [python, "-u", "-m", "ray._beam.worker"]}
    got = {k: [] for k in cmds}
    for _ in range(runs):
        for name, cmd in cmds.items():
            got[name].append(fresh(cmd, env))
    print(f"fresh interpreters, {runs} runs each (median wall / median CPU), load {os.getloadavg()[0]:.2f}:")
    for name, xs in got.items():
        print(f"  {name:32s} {statistics.median(w for w, _ in xs) * 1e3:6.1f} ms / "
              f"{statistics.median(c for _, c in xs) * 1e3:6.1f} ms")
    out = subprocess.run([python, "-X", "importtime", "-c", "import ray._beam.worker"], env=env,
                         capture_output=True, text=True).stderr.splitlines()
    parts = []
    for line in out:
        if "|" not in line or "cumulative" in line:
            continue
        _, cum, name = line.split("|")
        depth = (len(name) - len(name.lstrip(" "))) // 2
        if depth == 0 and name.strip() != "ray._beam.worker":
            parts = []  # children print before their parent: these were another top-level import's
        elif depth == 1:
            parts.append((int(cum), name.strip()))
    print("  ray._beam.worker's direct imports by cumulative time (-X importtime, one run; inflated by the timing):")
    print("   " + ", ".join(f"{n} {us / 1e3:.1f}" for us, n in sorted(parts, reverse=True)[:12]) + " (ms)")


def own_start_monotonic():
    """This process's start on the CLOCK_MONOTONIC clock (10 ms ticks)."""
    with open("/proc/self/stat") as f:
        ticks = int(f.read().rsplit(")", 1)[1].split()[19])
    boot_minus_mono = time.clock_gettime(time.CLOCK_BOOTTIME) - time.clock_gettime(time.CLOCK_MONOTONIC)
    return ticks / os.sysconf("SC_CLK_TCK") - boot_minus_mono


def driver():
    import ray

    @ray.remote
    class Probe:
        def __init__(self):
            self.seen = (time.perf_counter(), time.process_time(), own_start_monotonic())

        def view(self):
            return self.seen

    def phase(n, **opts):
        t = time.perf_counter()
        actors = [Probe.options(**opts).remote() for _ in range(n)]
        views = ray.get([a.view.remote() for a in actors])
        done = time.perf_counter()
        rows = [{"start_ms": (s - t) * 1e3, "cpu_ms": c * 1e3, "ctor_ms": (w - t) * 1e3} for w, c, s in views]
        return actors, {"n": n, "all_answered_ms": (done - t) * 1e3, "actors": rows}

    ray.init()
    out = {}
    first, out["4 at ray.init()"] = phase(4, num_cpus=0, num_gpus=1)
    time.sleep(1.5)  # the pool refills 1 s after the last start
    second, out["4 with the pool full"] = phase(4, num_cpus=0)
    for a in first + second:
        ray.kill(a)
    time.sleep(0.5)
    _, out["16 after 8 ended"] = phase(16, num_cpus=0)
    print("BENCH-RESULT " + json.dumps(out), flush=True)


def actors(runs):
    sys.path.insert(0, HERE)
    from harness import Beam, Procs, run_workload, snapshot_jar

    procs = Procs()
    snapshot_jar()
    for i in range(runs):
        beam = Beam(procs)
        beam.start_head()
        try:
            res = run_workload(procs, beam.python, beam.env(), "", "--driver", script=os.path.abspath(__file__),
                               timeout=300, who="beam")
        finally:
            beam.stop()
            beam.cleanup()
        print(f"real actors, run {i + 1}, load {os.getloadavg()[0]:.2f} (median / max per actor, ms):")
        for name, ph in res.items():
            cells = []
            for key, label in (("start_ms", "request to process start"), ("cpu_ms", "CPU to constructor"),
                               ("ctor_ms", "request to constructor")):
                xs = [a[key] for a in ph["actors"]]
                cells.append(f"{label} {statistics.median(xs):.0f} / {max(xs):.0f}")
            print(f"  {name:22s} all answered {ph['all_answered_ms']:5.0f}; " + "; ".join(cells))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--runs", type=int, default=10, help="runs of each fresh-interpreter command")
    ap.add_argument("--cluster-runs", type=int, default=2, help="fresh heads for the real actors")
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.driver:
        return driver()
    interpreters(os.path.join(os.path.dirname(HERE), ".venv", "bin", "python"), args.runs)
    actors(args.cluster_runs)


if __name__ == "__main__":
    sys.exit(main())
