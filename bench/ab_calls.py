"""The call path, A/B between beam builds: sync calls, a 4 KB broadcast to 4 actors, pipelined
calls, and how often the daemon collected garbage meanwhile.

    .venv/bin/python bench/ab_calls.py [--rounds 4] [--n 3000] [--two-hosts | --timeline] NAME=DIR[,ENV=VALUE...] ...

DIR holds a built `ray` package (its lib/ with the jar and AOT cache): this checkout's
`python/`, another worktree's `python/` after its `./dev build`, or a snapshot made with
`bench/start_time.py --snapshot`. Each round runs every variant once, in turn (the machine is
shared: alternating spreads background load over all of them): a fresh `ray start --head`
from DIR, `bench/workload.py calls --n N` against it (4 actors; N sync calls, N/3 broadcast
rounds, 5N pipelined calls), the daemon's young-GC count before and after (its hsperfdata
counter, read with jcmd), then `ray stop`. Prints the medians over rounds.

With --two-hosts each round joins a second daemon on 127.0.0.2 (as bench/bench.py does) and
times the cross-host path instead: N sync calls to an actor on the joined node, and N/3
broadcasts to 4 actors on each host (`bench/workload.py twohost`), then N/3 more while it
reads the CPU each process group spends per round, and when the 4th method on each host ran.

With --timeline each round times N broadcasts to 4 actors after 2,000 warm-up rounds
(`bench/workload.py timeline`): the round's p50, mean and p90, and the median time from the
first `.remote()` until the 4 calls were submitted, until the k-th actor's method ran, and
until all results were in.
"""
import argparse
import json
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402  (bench/harness.py: the systems, the processes, the jar and Java)
import start_time  # noqa: E402

JCMD = os.path.join(os.path.dirname(start_time.JAVA), "jcmd")


def young_gcs(pid):
    out = subprocess.run([JCMD, str(pid), "PerfCounter.print"], capture_output=True, text=True, timeout=60).stdout
    m = re.search(r"^sun\.gc\.collector\.0\.invocations=(\d+)", out, re.M)
    return int(m.group(1)) if m else float("nan")


def start_head(procs, ray, env, tmp):
    """`ray start --head` into ``tmp``; returns its node.json."""
    procs.run(ray + ["start", "--head", "--port", "0", "--num-cpus", "8", "--temp-dir", tmp], env, timeout=120)
    with open(os.path.join(tmp, "session_latest", "node.json")) as f:
        return json.load(f)


def one_round(procs, pkg, extra_env, n):
    tmp = tempfile.mkdtemp(prefix="ab.", dir="/tmp")
    env, ray = start_time.variant_env(pkg, extra_env, tmp)
    try:
        pid = start_head(procs, ray, env, tmp)["pid"]
        gc0 = young_gcs(pid)
        r = harness.run_workload(procs, start_time.PYTHON, env, "calls", "--n", str(n), timeout=600)
        gc1 = young_gcs(pid)
        calls = n + 4 * max(1, n // 3) + 5 * n
        return {"sync p50 (us)": r["sync"]["p50_us"], "sync p99 (us)": r["sync"]["p99_us"],
                "bcast4 p50 (us)": r["bcast4"]["p50_us"], "bcast4 p99 (us)": r["bcast4"]["p99_us"],
                "pipelined (calls/s)": r["pipelined"]["calls_per_s"],
                "calls per young GC": calls / max(1, gc1 - gc0)}
    finally:
        procs.run(ray + ["stop", "--temp-dir", tmp], env, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def timeline_round(procs, pkg, extra_env, n):
    tmp = tempfile.mkdtemp(prefix="ab.", dir="/tmp")
    env, ray = start_time.variant_env(pkg, extra_env, tmp)
    try:
        start_head(procs, ray, env, tmp)
        r = harness.run_workload(procs, start_time.PYTHON, env, "timeline", "--n", str(n), timeout=600)
        out = {"bcast4 p50 (us)": r["round"]["p50_us"], "mean (us)": r["round"]["mean_us"],
               "p90 (us)": r["round"]["p90_us"], "submitted (us)": r["submitted_us"]}
        out.update({f"method {k + 1} (us)": t for k, t in enumerate(r["kth_method_us"])})
        out["all in (us)"] = r["all_in_us"]
        return out
    finally:
        procs.run(ray + ["stop", "--temp-dir", tmp], env, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)


def two_host_round(procs, pkg, extra_env, n):
    tmp = tempfile.mkdtemp(prefix="ab.", dir="/tmp")
    tmp2 = tempfile.mkdtemp(prefix="ab2.", dir="/tmp")
    env, ray = start_time.variant_env(pkg, extra_env, tmp)
    try:
        head = start_head(procs, ray, env, tmp)
        address = head["address"]
        with open(os.path.join(tmp, "session_latest", "auth_token")) as f:
            join_env = dict(env, RAY_AUTH_TOKEN=f.read().strip())
        procs.run(ray + ["start", "--address", address, "--num-cpus", "8", "--temp-dir", tmp2,
                         "--node-ip-address", harness.JOIN_IP], join_env, timeout=120)
        with open(os.path.join(tmp2, "session_latest", "node.json")) as f:
            daemons = f"{head['pid']},{json.load(f)['pid']}"
        r = harness.run_workload(procs, start_time.PYTHON, env, "twohost", "--n", str(n), "--node-ip", harness.JOIN_IP,
                               "--cluster-pids", daemons, timeout=600)
        cpu = r["bcast8_cpu_us"]
        return {"remote sync p50 (us)": r["remote_sync"]["p50_us"], "remote sync p99 (us)": r["remote_sync"]["p99_us"],
                "bcast8 p50 (us)": r["bcast8"]["p50_us"], "bcast8 p99 (us)": r["bcast8"]["p99_us"],
                **{f"CPU {k} (us)": cpu[k] for k in ("driver", "head daemon", "joined daemon", "local workers",
                                                     "remote workers", "total")},
                "4th local method (us)": cpu["local methods run at"][3],
                "4th remote method (us)": cpu["remote methods run at"][3]}
    finally:
        procs.run(ray + ["stop", "--temp-dir", tmp2], env, timeout=60, check=False)
        procs.run(ray + ["stop", "--temp-dir", tmp], env, timeout=60, check=False)
        shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(tmp2, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--n", type=int, default=3000)
    ap.add_argument("--two-hosts", action="store_true", help="time the cross-host path instead")
    ap.add_argument("--timeline", action="store_true",
                    help="time only the broadcast to 4, N rounds after 2,000 warm-up rounds, and the median "
                         "time of each of its steps")
    ap.add_argument("variants", nargs="+")
    args = ap.parse_args()
    variants = [start_time.parse_variant(v) for v in args.variants]
    measure = two_host_round if args.two_hosts else timeline_round if args.timeline else one_round
    got = start_time.alternate(variants, args.rounds, lambda procs, pkg, env: measure(procs, pkg, env, args.n),
                               lambda r: ", ".join(f"{k} {v:,.0f}" for k, v in r.items()))
    keys = list(next(iter(got.values()))[0])
    print(f"| variant | {' | '.join(keys)} | rounds |  (load average {os.getloadavg()[0]:.1f})")
    print("|---" * (len(keys) + 2) + "|")
    for name, rows in got.items():
        print(f"| {name} | " + " | ".join(f"{statistics.median(r[k] for r in rows):,.0f}" for k in keys)
              + f" | {len(rows)} |")


if __name__ == "__main__":
    main()
