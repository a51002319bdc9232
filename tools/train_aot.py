"""Make beam's AOT cache for one java and one jar (see python/ray/_beam/launch/aotcache.py).

    python tools/train_aot.py --java JAVA --jar JAR

A training run: a head daemon started as `ray start` starts it (the launcher's daemon flags
plus -XX:AOTCacheOutput), one driver (this Python, with beam's package on its path) that
connects, runs a cold vLLM-shaped set-up (a group of GPU bundles, actors in it, sync calls,
broadcasts, pipelined calls, placement groups) and the HTTP routes, then SIGTERM;
the JVM writes the cache as it exits. The result is JAR's stem + .aot with a .aot.info that
says which java and jar it is for. Needs Java >= 25; with an older one it says so and makes
nothing (exit 0: the launcher runs without a cache).
"""
import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

PACKAGE_ROOT = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "python")
sys.path.insert(0, PACKAGE_ROOT)
from ray._beam.launch import aotcache, launcher  # noqa: E402

DRIVER = """
import ray
from ray.util.placement_group import placement_group, remove_placement_group
ray.init(address="auto")
ray.cluster_resources(); ray.available_resources(); ray.nodes()

@ray.remote
class Echo:
    def echo(self, x):
        return x

# the cold vLLM-shaped set-up (bench/cold_workload.py): what it runs is what the daemon compiles
# at start-up (launcher.AOT_RUN_FLAGS), before a user's first calls
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
pg = placement_group([{"GPU": 1, "CPU": 1}] * 2, strategy="PACK")
ray.get(pg.ready())
actors = [Echo.options(num_cpus=0, num_gpus=1, scheduling_strategy=PlacementGroupSchedulingStrategy(
    placement_group=pg, placement_group_bundle_index=i)).remote() for i in range(2)]
for _ in range(600):
    ray.get(actors[0].echo.remote(1))
for _ in range(600):
    ray.get([a.echo.remote(b"x" * 4096) for a in actors])
ray.get([actors[1].echo.remote(i) for i in range(3000)])
for _ in range(100):
    g = placement_group([{"CPU": 1}])
    ray.get(g.ready())
    remove_placement_group(g)
ray.get(ray.put(list(range(1000))))
remove_placement_group(pg)
for a in actors:
    ray.kill(a)
from ray.util import metrics
metrics.Counter("train_calls", tag_keys=("k",)).inc(1, tags={"k": "v"})
metrics.Histogram("train_latency", boundaries=[0.1, 1]).observe(0.5)
from ray._beam.api import usermetrics
usermetrics.flush()
# the HTTP face's classes: its routes once each (it binds just after the daemon is ready)
import json, os, time, urllib.request
node_json = os.path.join(os.environ["RAY_TMPDIR"], "session_latest", "node.json")
deadline = time.monotonic() + 30
while "http_ports" not in json.load(open(node_json)) and time.monotonic() < deadline:
    time.sleep(0.05)
ports = json.load(open(node_json)).get("http_ports", {})
for face, path in (("agent", "/api/local_raylet_healthz"), ("agent", "/api/healthz"), ("metrics", "/metrics"),
                   ("dashboard", "/api/gcs_healthz"), ("dashboard", "/"), ("dashboard", "/api/beam/dashboard"),
                   ("dashboard", "/api/v0/actors"), ("dashboard", "/api/v0/nodes"), ("dashboard", "/api/cluster_status")):
    if face in ports:
        urllib.request.urlopen(f"http://127.0.0.1:{ports[face]}{path}", timeout=10).read()
ray.shutdown()
"""


def wait_ready(daemon):
    """Reads the daemon's report up to BEAM-READY; raises with what it said if it ends first."""
    said = []
    for line in daemon.stdout:
        if line.rstrip(b"\n") == launcher.READY:
            return
        said.append(line.decode(errors="replace"))
    raise SystemExit(f"train_aot: the training daemon exited ({daemon.wait()}) before it was ready: {''.join(said)}")


def train(java, jar, python):
    cache, meta = aotcache.paths(jar)
    tmp = tempfile.mkdtemp(prefix="beam-aot.")
    out = os.path.join(tmp, "beam.aot")
    flags = aotcache.training_flags()
    cmd = [java, *flags, f"-XX:AOTCacheOutput={out}", "-cp", jar, launcher.MAIN_CLASS, "start", "--block",
           "--notify-ready", "--head", "--port", "0", "--num-cpus", "4", "--num-gpus", "2", "--temp-dir", tmp,
           "--dashboard-port", "0", "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"]
    env = {k: v for k, v in os.environ.items() if k not in ("JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS", "RAY_ADDRESS")}
    env["PYTHONPATH"] = PACKAGE_ROOT  # for the driver and for the actor workers the daemon starts
    stderr_log = os.path.join(tmp, "train-stderr.log")
    try:
        with open(stderr_log, "wb") as err:
            daemon = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=err, env=env)
        try:
            wait_ready(daemon)
            driver_env = dict(env, RAY_TMPDIR=tmp)
            done = subprocess.run([python, "-c", DRIVER], env=driver_env, capture_output=True, text=True,
                                  timeout=120)
            if done.returncode != 0:
                raise SystemExit(f"train_aot: the training driver failed ({done.returncode}): {done.stderr[-3000:]}")
        finally:
            daemon.send_signal(signal.SIGTERM)
            code = daemon.wait(timeout=300)  # the JVM writes the cache on its way out
        if not os.path.isfile(out):
            with open(stderr_log, errors="replace") as f:
                raise SystemExit(f"train_aot: no cache written (daemon exit {code}): {f.read()[-3000:]}")
        shutil.move(out, cache + ".tmp")
        os.replace(cache + ".tmp", cache)
        aotcache.write_description(meta, aotcache.describe(java, jar))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return cache


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--java", required=True, help="the java binary the cache is for")
    ap.add_argument("--jar", required=True, help="the beam jar the cache is for (the cache goes beside it)")
    ap.add_argument("--python", default=sys.executable, help="Python with cloudpickle for the training driver")
    args = ap.parse_args()
    for path in (args.java, args.jar):
        if not os.path.isfile(path):
            raise SystemExit(f"train_aot: no such file: {path}")
    major = launcher.java_major(args.java)
    cache, meta = aotcache.paths(args.jar)
    if aotcache.usable(args.java, args.jar):
        print(f"train_aot: {cache} is up to date")
        return
    for stale in (cache, meta):  # a cache for an older jar must not outlive it
        if os.path.exists(stale):
            os.remove(stale)
    if major is None or major < aotcache.MIN_JAVA:
        print(f"train_aot: {args.java} is Java {major}; AOT caches need Java >= {aotcache.MIN_JAVA}: none made")
        return
    cache = train(args.java, os.path.abspath(args.jar), args.python)
    print(f"train_aot: {cache} ({os.path.getsize(cache) / 2**20:.1f} MiB)")


if __name__ == "__main__":
    main()
