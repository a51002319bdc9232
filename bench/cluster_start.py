"""Starting and stopping a 4-node ``ray.cluster_utils.Cluster`` (a head and 3 nodes of 1 CPU,
the driver connected), beam beside Ray's own ``Cluster``, each in its own interpreter (``ray``
is beam in .venv, Ray in .bench/ray-venv or ``--ray-python``); median of N rounds, then the
ratio Ray/beam.

    .venv/bin/python bench/cluster_start.py [--rounds N] [--ray-python PATH]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

ROUND = """
import json, time, ray
from ray.cluster_utils import Cluster
t0 = time.perf_counter()
cluster = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
for _ in range(3):
    cluster.add_node(num_cpus=1)
cluster.wait_for_nodes()
cluster.connect()
assert len([n for n in ray.nodes() if n["Alive"]]) == 4
started = time.perf_counter() - t0
t1 = time.perf_counter()
ray.shutdown()
cluster.shutdown()
print("RESULT", json.dumps({"start": started, "stop": time.perf_counter() - t1}))
"""


def one_round(python):
    # a temp dir of its own for each round: Ray's sessions stay out of /tmp/ray, which Ray
    # leaves world-writable and beam then refuses as a default temp dir
    temp = tempfile.mkdtemp(prefix="bench-cluster-", dir="/tmp")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = temp
    try:
        done = subprocess.run([python, "-c", ROUND], capture_output=True, text=True, timeout=600, env=env, cwd="/tmp")
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line[len("RESULT "):])
    raise RuntimeError(f"{python} failed ({done.returncode}): {done.stderr[-2000:]}")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--ray-python", default=os.path.join(ROOT, ".bench", "ray-venv", "bin", "python"))
    args = parser.parse_args()
    sides = {"beam": os.path.join(ROOT, ".venv", "bin", "python"), "Ray": args.ray_python}
    results = {}
    for name, python in sides.items():
        if not os.path.exists(python):
            print(f"{name}: {python} is missing (bench/setup_ray.sh installs Ray)", file=sys.stderr)
            continue
        rounds = [one_round(python) for _ in range(args.rounds)]
        results[name] = {k: statistics.median(r[k] for r in rounds) for k in ("start", "stop")}
    print(f"4-node Cluster, median of {args.rounds} rounds")
    print(f"| step | beam (s) | Ray (s) | Ray / beam |\n|---|---|---|---|")
    for step in ("start", "stop"):
        beam, ray_ = results.get("beam", {}).get(step), results.get("Ray", {}).get(step)
        ratio = f"{ray_ / beam:.1f}x" if beam and ray_ else "n/a"
        print(f"| {step} | {beam if beam is None else f'{beam:.2f}'} | {ray_ if ray_ is None else f'{ray_:.2f}'} | {ratio} |")


if __name__ == "__main__":
    main()
