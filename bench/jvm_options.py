"""Measures JVM start-up options for beam's daemon: `ray start --head` time and idle memory.

    python3 bench/jvm_options.py [--reps 3] [--out bench/results/jvm_options.json]

Each variant runs the CLI directly as `java FLAGS -cp beam.jar beam.cli.Main start --head ...`
(the CLI passes its own JVM flags on to the daemon it launches, so FLAGS apply to both JVMs;
the `ray` launcher adds only a Python start, measured separately as `launcher_s`). The
variants run round-robin, `reps` rounds, so background load hits them alike. Per variant:
start time and idle RSS/PSS of the daemon after 2 s (medians), and in the last round a short
mixed load (bench/workload.py calls), the daemon's RSS after it and after a full GC.

Archives are trained first, in .bench/jvm/: a dynamic CDS archive
(-XX:ArchiveClassesAtExit) and a JDK 25 AOT cache (-XX:AOTCacheOutput), each from a
foreground daemon that serves one driver (an actor and 100 calls) and is then stopped.
"""
import argparse
import json
import os
import re
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import harness  # noqa: E402  (bench/harness.py: the systems, the processes, the jar and Java)
from proctree import logger  # noqa: E402

ROOT = harness.ROOT
JAR = harness.BENCH_JAR  # a private copy (harness.snapshot_jar): archives are valid only for the jar they were trained on
WORK = os.path.join(ROOT, ".bench", "jvm")


def launcher_flags():
    """JVM_FLAGS of python/ray/_beam/launch/jvmflags.py as it is now."""
    import ast
    text = open(os.path.join(ROOT, "python", "ray", "_beam", "launch", "jvmflags.py")).read()
    m = re.search(r"^JVM_FLAGS\s*=\s*(\[.*?\])", text, re.M | re.S)
    return ast.literal_eval(m.group(1)) if m else ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]


LAUNCHER = launcher_flags()
NO_XSHARE = [f for f in LAUNCHER if not f.startswith("-Xshare")]  # -XX:AOTCache* refuses any -Xshare flag


C1 = "-XX:TieredStopAtLevel=1"
SMALL_HEAP = ["-Xms8m", "-Xmx64m", "-Xss256k"]


def variants(jsa, aot):
    """(label, flags on the CLI's command line, JAVA_TOOL_OPTIONS for both JVMs).

    The CLI hands its own flags to the daemon except -XX:TieredStopAtLevel (StartCommand.daemonJvmFlags:
    the daemon keeps C2), so a C1-only daemon is asked for through JAVA_TOOL_OPTIONS, which both
    JVMs read from the environment."""
    return [
        ("JVM defaults (G1, C1+C2, JDK CDS), both JVMs", [], []),
        ("launcher today: " + " ".join(LAUNCHER) + " (daemon without C1 limit)", LAUNCHER, []),
        ("launcher + daemon C1-only too", LAUNCHER, [C1]),
        ("launcher with -Xshare:off (no CDS at all)", NO_XSHARE + ["-Xshare:off"], []),
        ("launcher + app CDS archive (-XX:SharedArchiveFile)", LAUNCHER + [f"-XX:SharedArchiveFile={jsa}"], []),
        ("launcher + AOT cache (-XX:AOTCache, no -Xshare flag)", NO_XSHARE + [f"-XX:AOTCache={aot}"], []),
        ("launcher + -Xms8m (small first heap only)", LAUNCHER + ["-Xms8m"], []),
        ("launcher + -Xss256k -Xmx64m", LAUNCHER + ["-Xss256k", "-Xmx64m"], []),
        ("launcher + -Xms8m -Xmx64m -Xss256k (small first heap)", LAUNCHER + SMALL_HEAP, []),
        ("launcher + -Xms4m -Xmx32m -Xss256k -XX:ReservedCodeCacheSize=16m -XX:MetaspaceSize=16m",
         LAUNCHER + ["-Xms4m", "-Xmx32m", "-Xss256k", "-XX:ReservedCodeCacheSize=16m", "-XX:MetaspaceSize=16m"], []),
        ("launcher + -XX:+UseCompactObjectHeaders", LAUNCHER + ["-XX:+UseCompactObjectHeaders"], []),
        ("launcher + -Djdk.virtualThreadScheduler.parallelism=1", LAUNCHER + [
            "-Djdk.virtualThreadScheduler.parallelism=1"], []),
        ("launcher + -Djdk.pollerMode=2", LAUNCHER + ["-Djdk.pollerMode=2"], []),
        ("launcher + AOT cache + -Xms8m", NO_XSHARE + [f"-XX:AOTCache={aot}", "-Xms8m"], []),
        ("launcher + AOT cache + small first heap", NO_XSHARE + [f"-XX:AOTCache={aot}"] + SMALL_HEAP, []),
        ("launcher + AOT cache + small first heap + daemon C1-only", NO_XSHARE + [f"-XX:AOTCache={aot}"] + SMALL_HEAP,
         [C1]),
    ]


log = logger("jvm")


def train(procs, java, flags, what):
    """A foreground daemon with `flags` that serves one short driver, then SIGTERM."""
    d = tempfile.mkdtemp(prefix="jt.", dir="/tmp")
    cmd = [java, *flags, "-cp", JAR, "beam.cli.Main", "start", "--head", "--block", "--num-gpus", "4", "--num-cpus",
           "8", "--port", "0", "--temp-dir", d]
    with procs.lock:
        err = open(os.path.join(d, "train.err"), "w")
        p = subprocess.Popen(cmd, stdout=err, stderr=err, stdin=subprocess.DEVNULL)
        procs.own.add(p.pid)
    try:
        for _ in range(200):
            if os.path.exists(os.path.join(d, "session_latest", "node.json")):
                break
            if p.poll() is not None:
                raise RuntimeError(f"training JVM exited {p.returncode}: {open(err.name).read()[-2000:]}")
            time.sleep(0.05)
        else:
            raise RuntimeError(f"training daemon did not start: {open(err.name).read()[-2000:]}")
        env = harness.clean_env()
        env["RAY_TMPDIR"] = d
        procs.run([os.path.join(ROOT, ".venv", "bin", "python"), harness.WORKLOAD, "calls", "--n", "1000"], env, timeout=300)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
        with procs.lock:
            procs.own.discard(p.pid)
        subprocess.run(["rm", "-rf", d])
    log(f"trained {what}")


def shared_fraction(java, flags):
    """Share of classes loaded from a CDS/AOT archive when the CLI prints its help."""
    out = subprocess.run([java, *flags, "-Xlog:class+load:stdout", "-cp", JAR, "beam.cli.Main", "start", "--help"],
                         capture_output=True, text=True).stdout.splitlines()
    loaded = [x for x in out if "source:" in x]
    shared = [x for x in loaded if "shared objects file" in x]
    return len(shared), len(loaded)


def one_cycle(procs, java, flags, tool, res, last):
    """One `ray start --head` with flags: start time, idle RSS/PSS after 2 s; on the last round also
    the RSS after a full GC (jcmd GC.run) and after a short mixed load. Then stop."""
    d = tempfile.mkdtemp(prefix="jv.", dir="/tmp")
    env = harness.clean_env()
    env["RAY_TMPDIR"] = d
    if tool:
        env["JAVA_TOOL_OPTIONS"] = " ".join(tool)
    before = set(procs.descendants())
    try:
        ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
        _, _, _, dt = procs.run([java, *flags, "-cp", JAR, "beam.cli.Main", "start", "--head", "--num-gpus", "4",
                                 "--num-cpus", "8", "--port", "0", "--temp-dir", d], env, timeout=120)
        res.setdefault("start_all", []).append(dt)
        time.sleep(2.0)
        left = [p for p in procs.descendants() if p not in before]
        ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
        res.setdefault("cpu_all", []).append(ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime
                                             + harness.cpu_seconds(left))
        r, s, _ = harness.memory(left)
        res.setdefault("rss_all", []).append(r)
        res.setdefault("pss_all", []).append(s)
        if not last:
            return
        _, out, _, _ = procs.run([os.path.join(ROOT, ".venv", "bin", "python"), harness.WORKLOAD, "calls", "--n", "1000"], env,
                                 timeout=300)
        load = json.loads(out.strip().splitlines()[-1][len("BENCH-RESULT "):])
        daemon = [p for p in left if os.path.exists(f"/proc/{p}")]
        res["rss_after_load_mb"] = harness.memory(daemon)[0]
        res["actors4_s"] = load["actors4_s"]
        res["sync_p50_us"] = load["sync"]["p50_us"]
        res["sync_p99_us"] = load["sync"]["p99_us"]
        res["bcast4_p50_us"] = load["bcast4"]["p50_us"]
        res["pipelined_per_s"] = load["pipelined"]["calls_per_s"]
        jcmd = os.path.join(os.path.dirname(java), "jcmd")
        pid = json.load(open(os.path.join(d, "session_latest", "node.json")))["pid"]
        if os.path.exists(jcmd):  # what a full GC would leave (after start-up and the load)
            subprocess.run([jcmd, str(pid), "GC.run"], capture_output=True, timeout=60)
            time.sleep(0.5)
            res["rss_after_load_gc_mb"] = harness.memory(daemon)[0]
    except RuntimeError as e:
        logs = ""
        for f in ("beamd-stderr.log", "session_latest/logs/beamd.log", "session_latest/logs/beamd.out"):
            try:
                logs += f"--- {f}\n" + open(os.path.join(d, f)).read()[-1500:]
            except OSError:
                pass
        res["error"] = (str(e)[-1500:] + "\n" + logs)
        log(f"{res['variant']}: FAILED: {res['error'][-2000:]}")
    finally:
        procs.run([java, "-cp", JAR, "beam.cli.Main", "stop", "--temp-dir", d], env, timeout=60, check=False)
        subprocess.run(["rm", "-rf", d])


def measure_all(procs, java, vs, reps):
    """Round-robin over the variants, reps rounds, so that every variant sees the same background load."""
    rows = [{"variant": label, "flags": " ".join(f.replace(WORK + "/", "") for f in flags),
             "java_tool_options": " ".join(tool)} for label, flags, tool in vs]
    for i in range(reps):
        log(f"round {i + 1}/{reps}")
        for (label, flags, tool), res in zip(vs, rows):
            if "error" not in res:
                one_cycle(procs, java, flags, tool, res, last=(i == reps - 1))
    for res in rows:
        if res.get("start_all"):
            res.update({"start_s": statistics.median(res["start_all"]), "idle_rss_mb": statistics.median(res["rss_all"]),
                        "idle_pss_mb": statistics.median(res["pss_all"]),
                        "start_cpu_s": statistics.median(res["cpu_all"])})
    return rows


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--out", default=os.path.join(harness.RESULTS, "jvm_options.json"))
    args = ap.parse_args()
    procs = harness.Procs()
    harness.snapshot_jar()
    java = os.environ.get("BEAM_JAVA") or harness.find_java()
    os.makedirs(WORK, exist_ok=True)
    jsa, aot = os.path.join(WORK, "beam.jsa"), os.path.join(WORK, "beam.aot")
    for f in (jsa, aot):
        if os.path.exists(f):
            os.remove(f)
    train(procs, java, LAUNCHER + [f"-XX:ArchiveClassesAtExit={jsa}"], "CDS archive")
    train(procs, java, NO_XSHARE + [f"-XX:AOTCacheOutput={aot}"], "AOT cache")
    for _ in range(1200):  # the AOT cache is assembled by a child JVM after exit
        if os.path.exists(aot) and not os.path.exists(aot + ".config"):
            break
        time.sleep(0.1)
    sizes = {"beam.jsa_mb": os.path.getsize(jsa) / 2**20, "beam.aot_mb": os.path.getsize(aot) / 2**20}
    env = harness.clean_env()
    launcher = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([os.path.join(ROOT, ".venv", "bin", "python"), "-c",
                        "import ray._beam.launch.launcher as l; l.command(['start'])"], env=env, check=True)
        launcher.append(time.perf_counter() - t0)
    vs = variants(jsa, aot)
    shared = {label: shared_fraction(java, flags) for label, flags, _ in vs}
    rows = measure_all(procs, java, vs, args.reps)
    for r in rows:
        r["classes_from_archive"] = "%d/%d" % shared[r["variant"]]
    doc = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "java": java, "launcher_s": statistics.median(launcher),
           "archives": sizes, "loadavg": os.getloadavg(), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(markdown(doc))
    return 0


def markdown(doc):
    out = ["| variant | start (s) | CPU: start + 2 s idle (s) | idle RSS (MiB) | idle PSS (MiB) | RSS after load (MiB) | ... then a full GC (MiB) | "
           "sync p50 (us) | 4 actors (s) | pipelined (calls/s) | classes from archive (CLI) |",
           "|---|---|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        if "start_s" not in r:
            out.append(f"| {r['variant']} | failed: {r.get('error', '?').splitlines()[0][:80]} |||||||||")
            continue
        out.append(f"| {r['variant']} | {r['start_s']:.3f} | {r['start_cpu_s']:.2f} | {r['idle_rss_mb']:.1f} | {r['idle_pss_mb']:.1f} | "
                   f"{r.get('rss_after_load_mb', 0):.1f} | {r.get('rss_after_load_gc_mb', 0):.1f} | "
                   f"{r.get('sync_p50_us', 0):.0f} | "
                   f"{r.get('actors4_s', 0):.3f} | {r.get('pipelined_per_s', 0):,.0f} | {r['classes_from_archive']} |")
    out.append("")
    out.append(f"Python launcher (`ray` console script up to exec): {doc['launcher_s'] * 1000:.0f} ms; archives: "
               + ", ".join(f"{k} {v:.1f} MiB" for k, v in doc["archives"].items())
               + f"; load average {doc['loadavg'][0]:.2f}")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
