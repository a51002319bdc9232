"""Where the time of an actor call goes, for docs/PERFORMANCE.md (run by hand, not by run.sh).

    python3 bench/profile.py [--systems beam,ray] [--out bench/results/profile.json]

1. CPU per call (both systems): bench/workload.py cpu reads utime+stime of the driver, the actor
   workers and every other cluster process around 2,000 sync calls, 10,000 pipelined calls and 500
   4-actor broadcasts. On a 2-core machine shared with other work, CPU per call is steadier than
   wall time, and it says which process to work on.
2. Sampling profiles (beam): py-spy --gil (installed in .bench/ray-venv only; only the thread
   holding the GIL is sampled, so blocking reads and waits drop out) on the driver and on the
   actor worker, perf on the daemon (JIT frames named through `jcmd PID Compiler.perfmap`), while
   the driver makes sync calls in a loop. Top frames by own samples.
3. Syscall timeline (beam): `perf trace` on driver, daemon and worker during spaced sync calls:
   the median call's reads and writes in order, with the time of each relative to the send.
"""
import argparse
import collections
import json
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402  (bench/harness.py: the systems, the processes, the jar and Java)
from proctree import logger  # noqa: E402

PYSPY = os.path.join(harness.RAY_VENV, "bin", "py-spy")
OUT_DIR = os.path.join(harness.ROOT, ".bench", "profile")


log = logger("profile")


def spawn(procs, cmd, env, **kw):
    with procs.lock:
        p = subprocess.Popen(cmd, env=env, cwd=harness.ROOT, **kw)
        procs.own.add(p.pid)
    return p


def reap(procs, p, timeout=120):
    try:
        p.wait(timeout=timeout)
    finally:
        with procs.lock:
            procs.own.discard(p.pid)


def wait_pids(p):
    for line in p.stdout:
        if line.startswith("BENCH-PIDS "):
            return json.loads(line[len("BENCH-PIDS "):])
    raise RuntimeError("workload ended before printing its pids")


def top_frames(collapsed_file, n=15, leaf_only=True):
    """From collapsed stacks ('a;b;c count'), the frames with most own (leaf) samples."""
    own = collections.Counter()
    total = 0
    with open(collapsed_file, errors="replace") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or " " not in line:
                continue
            stack, count = line.rsplit(" ", 1)
            try:
                c = int(count)
            except ValueError:
                continue
            total += c
            frames = stack.split(";")
            own[frames[-1] if leaf_only else frames[0]] += c
    return total, [(frame, c, 100.0 * c / total) for frame, c in own.most_common(n)] if total else []


def perf_collapse(perf_data, out):
    """perf script output -> collapsed stacks (leaf last)."""
    script = subprocess.run(["perf", "script", "-i", perf_data], capture_output=True, text=True).stdout
    stacks = collections.Counter()
    cur = []
    for line in script.splitlines() + [""]:
        if not line.strip():
            if cur:
                stacks[";".join(reversed(cur))] += 1
            cur = []
            continue
        if line.startswith((" ", "\t")):
            parts = line.strip().split(None, 1)
            sym = parts[1] if len(parts) > 1 else parts[0]
            sym = re.sub(r"\s+\(.*\)$", "", sym)
            cur.append(sym)
    with open(out, "w") as f:
        for s, c in stacks.items():
            f.write(f"{s} {c}\n")


def cpu_per_call(sysm, procs):
    cluster = procs.descendants()
    return harness.workload(sysm, "cpu", "--cluster-pids", ",".join(map(str, cluster)))


def sampling(sysm, procs, outdir):
    """py-spy on driver and worker, perf on the daemon, during a loop of sync calls."""
    res = {}
    daemon = json.load(open(os.path.join(sysm.tmp, "session_latest", "node.json")))["pid"]
    p = spawn(procs, [sysm.python, harness.WORKLOAD, "cpu", "--n", "200", "--hold", "12"], sysm.env(),
              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        pids = wait_pids(p)
        time.sleep(0.5)
        jobs = []
        for name, pid in (("driver", pids["driver"]), ("worker", pids["workers"][0])):
            f = os.path.join(outdir, f"pyspy-{name}.txt")
            jobs.append((name, f, subprocess.Popen([PYSPY, "record", "-d", "6", "-r", "400", "-f", "raw", "--nonblocking", "--gil",
                                                    "-o", f, "-p", str(pid)], stdout=subprocess.DEVNULL,
                                                   stderr=subprocess.DEVNULL)))
        pdata = os.path.join(outdir, "perf-daemon.data")
        perf = subprocess.Popen(["perf", "record", "-F", "499", "-g", "-o", pdata, "-p", str(daemon), "--", "sleep", "6"],
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        for _, _, j in jobs:
            j.wait(timeout=60)
        perf.wait(timeout=60)
        jcmd = os.path.join(os.path.dirname(sysm.java), "jcmd")
        subprocess.run([jcmd, str(daemon), "Compiler.perfmap"], capture_output=True, timeout=60)
        for name, f, _ in jobs:
            if os.path.exists(f):
                total, top = top_frames(f)
                res[f"{name}_python"] = {"samples": total, "top_own": top}
        coll = os.path.join(outdir, "perf-daemon.collapsed")
        perf_collapse(pdata, coll)
        total, top = top_frames(coll)
        res["daemon_java"] = {"samples": total, "top_own": top}
        # Which daemon threads burn the CPU (perf's comm is the thread name).
        for key, sort in (("daemon_threads", "comm"), ("daemon_dso", "dso")):
            rep = subprocess.run(["perf", "report", "-i", pdata, "--stdio", "--sort", sort, "--no-children", "-g", "none"],
                                 capture_output=True, text=True).stdout
            res[key] = [line.strip() for line in rep.splitlines() if line.strip() and not line.startswith("#")][:8]
    finally:
        reap(procs, p)
    return res


SYSCALLS = "read,write,readv,writev,sendmsg,recvmsg,sendto,recvfrom,epoll_wait,poll,ppoll,futex"


def timeline(sysm, procs, outdir):
    """perf trace of spaced sync calls: the median call's syscalls on the critical path."""
    daemon = json.load(open(os.path.join(sysm.tmp, "session_latest", "node.json")))["pid"]
    go = os.path.join(tempfile.mkdtemp(prefix="go.", dir="/tmp"), "go")
    p = spawn(procs, [sysm.python, harness.WORKLOAD, "trace", "--go", go, "--n", "40"], sysm.env(),
              stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    tr_out = os.path.join(outdir, "perf-trace.txt")
    try:
        pids = wait_pids(p)
        names = {pids["driver"]: "driver", daemon: "daemon", pids["workers"][0]: "worker"}
        tid_owner = {}
        for pid, name in names.items():
            for t in os.listdir(f"/proc/{pid}/task"):
                try:
                    tname = open(f"/proc/{pid}/task/{t}/comm").read().strip()
                except OSError:
                    tname = "?"
                tid_owner[int(t)] = f"{name}:{tname}"
        tr = subprocess.Popen(["perf", "trace", "-T", "-o", tr_out, "-e", SYSCALLS, "-p",
                               ",".join(str(x) for x in names)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        time.sleep(1.5)
        open(go, "w").close()
        rest = p.stdout.read()
        tr.send_signal(signal.SIGINT)
        tr.wait(timeout=30)
    finally:
        reap(procs, p)
    stamps = json.loads([x for x in rest.splitlines() if x.startswith("BENCH-RESULT ")][0][13:])["calls"]
    # perf trace -T prints absolute timestamps in ms since boot; match them to calls by order: the driver's
    # first send after each 50 ms pause starts a call.
    events = []
    for line in open(tr_out, errors="replace"):
        m = re.match(r"\s*([\d.]+)\s+\(\s*([\d.]*)\s*ms\):\s+(\S+?)/(\d+)\s+(\w+)\((.*)\)\s+=\s+(\S+)", line)
        if not m:
            continue
        t, dur, comm, tid, call, argstr, ret = m.groups()
        if call in ("futex", "epoll_wait", "poll", "ppoll"):
            continue
        events.append((float(t), float(dur or 0), comm, int(tid), call, ret))
    events.sort()
    calls, cur, last = [], [], None
    for e in events:
        if last is not None and e[0] - last > 20:  # a 50 ms pause separates calls
            calls.append(cur)
            cur = []
        cur.append(e)
        last = e[0]
    if cur:
        calls.append(cur)
    calls = [c for c in calls if len(c) >= 4]
    if not calls:
        return {"error": "no calls traced", "file": tr_out}
    spans = sorted(range(len(calls)), key=lambda i: calls[i][-1][0] - calls[i][0][0])
    med = calls[spans[len(spans) // 2]]
    t0 = med[0][0]
    seq = [f"{(e[0] - t0) * 1000:8.1f} us  +{e[1] * 1000:6.1f} us  {e[2]}/{e[3]} ({tid_owner.get(e[3], '?')}) {e[4]} = {e[5]}"
           for e in med]
    return {"calls_traced": len(calls), "calls_made": len(stamps), "median_span_us": (med[-1][0] - med[0][0]) * 1000,
            "median_call": seq}


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--systems", default="beam,ray")
    ap.add_argument("--out", default=os.path.join(harness.RESULTS, "profile.json"))
    args = ap.parse_args()
    os.makedirs(OUT_DIR, exist_ok=True)
    procs = harness.Procs()
    harness.snapshot_jar()
    result = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "loadavg": os.getloadavg()}
    for s in args.systems.split(","):
        sysm = harness.Beam(procs) if s == "beam" else harness.Ray(procs)
        r = result[s] = {}
        before = set(procs.descendants())
        try:
            sysm.start_head()
            time.sleep(1)
            log(f"{s}: CPU per call")
            r["cpu"] = cpu_per_call(sysm, procs)
            if s == "beam":
                log("beam: sampling profiles")
                r["sampling"] = sampling(sysm, procs, OUT_DIR)
                log("beam: syscall timeline")
                r["timeline"] = timeline(sysm, procs, OUT_DIR)
        finally:
            sysm.stop()
            time.sleep(0.5)
            for p in set(procs.descendants()) - before:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
            sysm.cleanup()
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1)
    print(report(result))
    return 0


def report(result):
    out = []
    for s in ("beam", "ray"):
        cpu = result.get(s, {}).get("cpu")
        if not cpu:
            continue
        out.append(f"## {s}: CPU per call (us)")
        out.append("| scenario | wall | driver | actor workers | rest of cluster (daemon / raylet, gcs, ...) | total CPU "
                   "| context switches: driver / workers / rest |")
        out.append("|---|---|---|---|---|---|---|")
        for k in ("sync_call", "pipelined_call", "bcast4_round"):
            c = cpu[k]
            out.append(f"| {k} | {c['wall_us']:.0f} | {c['driver_cpu_us']:.0f} | {c['workers_cpu_us']:.0f} | "
                       f"{c['cluster_cpu_us']:.0f} | {c['total_cpu_us']:.0f} | {c['driver_switches']:.1f} / "
                       f"{c['workers_switches']:.1f} / {c['cluster_switches']:.1f} |")
    samp = result.get("beam", {}).get("sampling", {})
    for k, v in samp.items():
        if k in ("daemon_threads", "daemon_dso"):
            out.append("## beam daemon: CPU by " + ("thread" if k == "daemon_threads" else "binary (kernel, libjvm, JIT code)")
                       + " (perf)")
            out += ["    " + x for x in v]
            continue
        out.append(f"## beam {k}: top frames by own samples ({v['samples']} samples)")
        out += [f"    {pct:5.1f}%  {frame[:150]}" for frame, _, pct in v["top_own"]]
    tl = result.get("beam", {}).get("timeline")
    if tl and "median_call" in tl:
        out.append(f"## beam: syscalls of the median traced sync call ({tl['calls_traced']} traced, "
                   f"span {tl['median_span_us']:.0f} us under perf trace)")
        out += ["    " + x for x in tl["median_call"]]
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
