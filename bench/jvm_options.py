"""Measures JVM start-up options for beam's daemon: `ray start --head` time and idle memory.

    python3 bench/jvm_options.py [--reps 3] [--out bench/results/jvm_options.json]

Each variant runs the CLI directly as `java FLAGS -cp beam.jar beam.cli.Main start --head ...`
(the CLI passes its own JVM flags on to the daemon it launches, so FLAGS apply to both JVMs;
the `ray` launcher adds only a Python start, measured separately as `launcher_s`). Per
variant: start time (median of reps), idle RSS/PSS of the daemon after 2 s, then a short
mixed load (bench/workload.py calls) and the daemon's RSS after it.

Archives are trained first, in .bench/jvm/: a dynamic CDS archive
(-XX:ArchiveClassesAtExit) and a JDK 25 AOT cache (-XX:AOTCacheOutput), each from a
foreground daemon that serves one driver (an actor and 100 calls) and is then stopped.
"""
import argparse
import json
import os
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import bench  # noqa: E402

ROOT = bench.ROOT
JAR = os.path.join(ROOT, "python", "ray", "_beam", "lib", "beam.jar")
WORK = os.path.join(ROOT, ".bench", "jvm")
LAUNCHER = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]  # python/ray/_beam/launcher.py today
NO_XSHARE = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1"]  # -XX:AOTCache* refuses any -Xshare flag


def variants(jsa, aot):
    return [
        ("JVM defaults (G1, C1+C2, JDK CDS)", []),
        ("launcher today: SerialGC + C1 only + Xshare:auto", LAUNCHER),
        ("SerialGC only", ["-XX:+UseSerialGC"]),
        ("C1 only (TieredStopAtLevel=1) only", ["-XX:TieredStopAtLevel=1"]),
        ("Xshare:off (no CDS at all), SerialGC + C1", ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-Xshare:off"]),
        ("launcher + app CDS archive (ArchiveClassesAtExit)", LAUNCHER + [f"-XX:SharedArchiveFile={jsa}"]),
        ("launcher + AOT cache (JDK 25 AOTCache; without -Xshare:auto)", NO_XSHARE + [f"-XX:AOTCache={aot}"]),
        ("launcher + -Xss256k -Xmx64m", LAUNCHER + ["-Xss256k", "-Xmx64m"]),
        ("launcher + small: -Xmx32m -Xss256k -XX:ReservedCodeCacheSize=16m -XX:CICompilerCount=1 "
         "-XX:MetaspaceSize=16m", LAUNCHER + ["-Xmx32m", "-Xss256k", "-XX:ReservedCodeCacheSize=16m",
                                              "-XX:CICompilerCount=1", "-XX:MetaspaceSize=16m"]),
        ("launcher + UseCompactObjectHeaders", LAUNCHER + ["-XX:+UseCompactObjectHeaders"]),
        ("launcher + AOT cache + -Xmx64m -Xss256k", NO_XSHARE + [f"-XX:AOTCache={aot}", "-Xmx64m", "-Xss256k"]),
    ]


def log(msg):
    print(f"[jvm {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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
        env = bench.clean_env()
        env["RAY_TMPDIR"] = d
        procs.run([os.path.join(ROOT, ".venv", "bin", "python"), bench.WORKLOAD, "calls"], env, timeout=300)
    finally:
        p.send_signal(signal.SIGTERM)
        p.wait(timeout=120)
        with procs.lock:
            procs.own.discard(p.pid)
    log(f"trained {what}")


def shared_fraction(java, flags):
    """Share of classes loaded from a CDS/AOT archive when the CLI prints its help."""
    out = subprocess.run([java, *flags, "-Xlog:class+load:stdout", "-cp", JAR, "beam.cli.Main", "start", "--help"],
                         capture_output=True, text=True).stdout.splitlines()
    loaded = [x for x in out if "source:" in x]
    shared = [x for x in loaded if "shared objects file" in x]
    return len(shared), len(loaded)


def measure(procs, java, label, flags, reps, with_load=True):
    starts, rss, pss = [], [], []
    res = {"variant": label, "flags": " ".join(f.replace(WORK + "/", "") for f in flags)}
    for i in range(reps):
        d = tempfile.mkdtemp(prefix="jv.", dir="/tmp")
        env = bench.clean_env()
        env["RAY_TMPDIR"] = d
        before = set(procs.descendants())
        try:
            _, _, _, dt = procs.run([java, *flags, "-cp", JAR, "beam.cli.Main", "start", "--head", "--num-gpus", "4",
                                     "--num-cpus", "8", "--port", "0", "--temp-dir", d], env, timeout=120)
            starts.append(dt)
            time.sleep(2.0)
            left = [p for p in procs.descendants() if p not in before]
            r, s, _ = bench.memory(left)
            rss.append(r)
            pss.append(s)
            if with_load and i == reps - 1:
                _, out, _, _ = procs.run([os.path.join(ROOT, ".venv", "bin", "python"), bench.WORKLOAD, "calls"], env,
                                         timeout=300)
                load = json.loads(out.strip().splitlines()[-1][len("BENCH-RESULT "):])
                daemon = [p for p in left if os.path.exists(f"/proc/{p}")]
                res["rss_after_load_mb"] = bench.memory(daemon)[0]
                res["actors4_s"] = load["actors4_s"]
                res["sync_p50_us"] = load["sync"]["p50_us"]
                res["sync_p99_us"] = load["sync"]["p99_us"]
                res["bcast4_p50_us"] = load["bcast4"]["p50_us"]
                res["pipelined_per_s"] = load["pipelined"]["calls_per_s"]
        except RuntimeError as e:
            logs = ""
            for f in ("beamd-stderr.log", "session_latest/logs/beamd.log", "session_latest/logs/beamd.out"):
                try:
                    logs += f"--- {f}\n" + open(os.path.join(d, f)).read()[-1500:]
                except OSError:
                    pass
            res["error"] = (str(e)[-1500:] + "\n" + logs)
            log(f"{label}: FAILED: {res['error'][-3000:]}")
        finally:
            procs.run([java, "-cp", JAR, "beam.cli.Main", "stop", "--temp-dir", d], env, timeout=60, check=False)
            subprocess.run(["rm", "-rf", d])
    if not starts:
        return res
    res.update({"start_s": statistics.median(starts), "start_all": starts, "idle_rss_mb": statistics.median(rss),
                "idle_pss_mb": statistics.median(pss)})
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--out", default=os.path.join(bench.RESULTS, "jvm_options.json"))
    args = ap.parse_args()
    procs = bench.Procs()
    java = os.environ.get("BEAM_JAVA") or bench.find_java()
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
    env = bench.clean_env()
    launcher = []
    for _ in range(5):
        t0 = time.perf_counter()
        subprocess.run([os.path.join(ROOT, ".venv", "bin", "python"), "-c",
                        "import ray._beam.launcher as l; l.command(['start'])"], env=env, check=True)
        launcher.append(time.perf_counter() - t0)
    rows = []
    for label, flags in variants(jsa, aot):
        log(f"variant: {label}")
        n_shared, n_loaded = shared_fraction(java, flags)
        r = measure(procs, java, label, flags, args.reps)
        r["classes_from_archive"] = f"{n_shared}/{n_loaded}"
        log(f"{label}: start {r['start_s']:.3f} s, idle RSS {r['idle_rss_mb']:.1f} MiB, after load "
            f"{r.get('rss_after_load_mb', 0):.1f} MiB, sync p50 {r.get('sync_p50_us', 0):.0f} us")
        rows.append(r)
    doc = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "java": java, "launcher_s": statistics.median(launcher),
           "archives": sizes, "loadavg": os.getloadavg(), "rows": rows}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print(markdown(doc))
    return 0


def markdown(doc):
    out = ["| variant | start (s) | idle RSS (MiB) | idle PSS (MiB) | RSS after load (MiB) | sync p50 (us) | "
           "4 actors (s) | pipelined (calls/s) | classes from archive (CLI) |",
           "|---|---|---|---|---|---|---|---|---|"]
    for r in doc["rows"]:
        if "start_s" not in r:
            out.append(f"| {r['variant']} | failed: {r.get('error', '?').splitlines()[0][:80]} |||||||")
            continue
        out.append(f"| {r['variant']} | {r['start_s']:.3f} | {r['idle_rss_mb']:.1f} | {r['idle_pss_mb']:.1f} | "
                   f"{r.get('rss_after_load_mb', 0):.1f} | {r.get('sync_p50_us', 0):.0f} | "
                   f"{r.get('actors4_s', 0):.3f} | {r.get('pipelined_per_s', 0):,.0f} | {r['classes_from_archive']} |")
    out.append("")
    out.append(f"Python launcher (`ray` console script up to exec): {doc['launcher_s'] * 1000:.0f} ms; archives: "
               + ", ".join(f"{k} {v:.1f} MiB" for k, v in doc["archives"].items())
               + f"; load average {doc['loadavg'][0]:.2f}")
    return "\n".join(out)


if __name__ == "__main__":
    sys.exit(main())
