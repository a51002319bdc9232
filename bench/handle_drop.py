"""Time from dropping the last handle of a GPU actor to the next GPU actor answering, on a
1-GPU cluster: beam beside Ray 2.60 (.bench/ray-venv, when installed). Each side runs in its
own interpreter (`ray` is beam in .venv, Ray in .bench/ray-venv); median of N rounds.

    .venv/bin/python bench/handle_drop.py [--rounds N]
"""

import argparse
import json
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIDES = {"beam": os.path.join(ROOT, ".venv", "bin", "python"),
         "Ray": os.path.join(ROOT, ".bench", "ray-venv", "bin", "python")}

ROUNDS = """
import json, statistics, sys, time, ray
ray.init(num_cpus=2, num_gpus=1, include_dashboard=False)
@ray.remote(num_gpus=1)
class G:
    def ready(self):
        return True
a = G.remote()
ray.get(a.ready.remote(), timeout=120)
took = []
for _ in range(int(sys.argv[1])):
    t0 = time.perf_counter()
    del a  # the last handle: the actor ends and its GPU returns
    a = G.remote()
    ray.get(a.ready.remote(), timeout=120)  # starts only once the GPU is free
    took.append(time.perf_counter() - t0)
print("RESULT", json.dumps(statistics.median(took)))
ray.shutdown()
"""


def run(python, rounds):
    import shutil
    import tempfile

    temp = tempfile.mkdtemp(prefix="hd-")  # a temp dir of its own: no cluster found, one started
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = temp
    try:
        done = subprocess.run([python, "-c", ROUNDS, str(rounds)], capture_output=True, text=True,
                              timeout=600, env=env, cwd=temp)
    finally:
        shutil.rmtree(temp, ignore_errors=True)
    for line in done.stdout.splitlines():
        if line.startswith("RESULT "):
            return json.loads(line.split(" ", 1)[1])
    raise RuntimeError(f"{python} failed ({done.returncode}): {done.stderr[-2000:]}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    got = {}
    for side, python in SIDES.items():
        if not os.path.exists(python):
            print(f"{side}: {python} is missing, skipped")
            continue
        got[side] = run(python, args.rounds)
        print(f"{side}: last handle dropped -> next GPU actor answers: {got[side] * 1000:.0f} ms "
              f"(median of {args.rounds})")
    if len(got) == 2:
        print(f"ratio Ray / beam: {got['Ray'] / got['beam']:.1f}x")


if __name__ == "__main__":
    sys.exit(main())
