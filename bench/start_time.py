"""`ray start --head` wall time and idle memory, A/B between beam builds or settings.

    .venv/bin/python bench/start_time.py [--reps 7] [VARIANT ...]

A VARIANT is NAME=DIR[,ENV=VALUE...]: DIR holds the `ray` package to run (a `python/` folder
of a checkout, or a snapshot made with `--snapshot DIR`, which copies this checkout's
python/ray with its jar and class cache); the ENV settings are added to that variant's
environment. Without variants it measures this checkout as it is. Each round runs every
variant once, in turn (the machine is shared: alternating rounds spread background load over
all of them); per cycle, like bench/bench.py's `start_cycle`: the wall time of
`ray start --head --port 0` until it returns, the first `ray.init()` right after it (it must
connect at once), then, 2 s later, the sum of VmRSS of every process the start left running
(we are a child subreaper, so they are our descendants), then `ray stop`. Prints medians.
"""
import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402  (bench/harness.py: the systems, the processes, the jar and Java)

ROOT = harness.ROOT
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
JAVA = os.environ.get("BEAM_JAVA") or harness.find_java()
# builds before the Python layers (snapshots of older commits) have ray._beam.launcher
RAY_MAIN = ("import sys; sys.path.insert(0, sys.argv.pop(1))\n"
            "try:\n    from ray._beam.launch.launcher import main\n"
            "except ImportError:\n    from ray._beam.launcher import main\nmain()")
INIT = ("import sys, time; sys.path.insert(0, sys.argv[1]); t = time.perf_counter(); import ray; "
        "ray.init(address='auto'); print(time.perf_counter() - t)")


def snapshot(dest):
    """Copy this checkout's python/ray (with lib/: the jar and any class cache) to DEST/ray."""
    if os.path.exists(dest):
        raise SystemExit(f"{dest} exists; pick a new folder")
    shutil.copytree(os.path.join(ROOT, "python", "ray"), os.path.join(dest, "ray"),
                    ignore=shutil.ignore_patterns("__pycache__", "runtime"))
    print(f"snapshot of {ROOT}/python/ray in {dest}")


def parse_variant(text):
    name, _, rest = text.partition("=")
    parts = rest.split(",")
    if not name or not parts[0] or not os.path.isdir(os.path.join(parts[0], "ray")):
        raise SystemExit(f"bad variant {text!r}: want NAME=DIR[,ENV=VALUE...] with DIR/ray present")
    env = dict(p.split("=", 1) for p in parts[1:])
    return name, os.path.abspath(parts[0]), env


def variant_env(pkg, extra_env, tmp):
    """(environment, `ray` command) for running the variant in PKG with its sessions in TMP."""
    env = harness.clean_env()
    env.update({"BEAM_JAVA": JAVA, **extra_env, "RAY_TMPDIR": tmp, "PYTHONPATH": pkg})
    return env, [PYTHON, "-c", RAY_MAIN, pkg]


def alternate(variants, rounds, measure, describe):
    """measure(procs, pkg, env) for every variant in turn, ROUNDS times (background load then
    hits all of them alike); each result is logged with describe(result). {name: [results]}."""
    procs = harness.Procs()
    got = {name: [] for name, _, _ in variants}
    for i in range(rounds):
        for name, pkg, env in variants:
            r = measure(procs, pkg, env)
            got[name].append(r)
            print(f"round {i + 1}/{rounds} {name}: {describe(r)}", file=sys.stderr, flush=True)
    return got


def cycle(procs, pkg, extra_env):
    tmp = tempfile.mkdtemp(prefix="st.", dir="/tmp")
    env, ray = variant_env(pkg, extra_env, tmp)
    before = set(procs.descendants())
    try:
        _, _, _, dt = procs.run(ray + ["start", "--head", "--port", "0", "--temp-dir", tmp], env, timeout=120)
        _, out, _, _ = procs.run([PYTHON, "-c", INIT, pkg], env, timeout=60)
        time.sleep(2.0)
        left = [p for p in procs.descendants() if p not in before]
        rss, _, _ = harness.memory(left)
        return dt, float(out.split()[-1]), rss
    finally:
        procs.run(ray + ["stop", "--temp-dir", tmp], env, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--reps", type=int, default=7)
    ap.add_argument("--snapshot", metavar="DIR", help="copy this checkout's ray package to DIR and exit")
    ap.add_argument("variants", nargs="*")
    args = ap.parse_args()
    if args.snapshot:
        return snapshot(args.snapshot)
    variants = [parse_variant(v) for v in args.variants] or [("this checkout", os.path.join(ROOT, "python"), {})]
    got = alternate(variants, args.reps, cycle,
                    lambda r: f"start {r[0]:.3f} s, first init {r[1]:.3f} s, idle RSS {r[2]:.1f} MiB")
    load = os.getloadavg()[0]
    print(f"| variant | start median (s) | start best (s) | first ray.init (s) | idle RSS median (MiB) | "
          f"N |  (load average {load:.1f})")
    print("|---|---|---|---|---|---|")
    for name, rows in got.items():
        starts, inits, rss = zip(*rows)
        print(f"| {name} | {statistics.median(starts):.3f} | {min(starts):.3f} | {statistics.median(inits):.3f} | "
              f"{statistics.median(rss):.1f} | {len(rows)} |")


if __name__ == "__main__":
    main()
