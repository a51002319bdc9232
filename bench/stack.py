"""`ray stack` of 100 actors on 2 nodes (a loopback head 127.0.0.1 and a node joined on
127.0.0.2, 50 actors each, plus the driver): the wall time of the whole command, as a user
runs it, from the head and from the joined node. Target: under 2 s.

    .venv/bin/python bench/stack.py [--actors N] [--rounds R]
"""

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAY = os.path.join(ROOT, ".venv", "bin", "ray")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")

DRIVER = """
import os, sys, time, ray
ray.init()
n = int(sys.argv[1])

@ray.remote(num_cpus=0)
class Busy:
    def ready(self):
        return os.getpid()

    def work(self):
        while True:
            time.sleep(0.05)

actors = [Busy.options(resources={"node:127.0.0.%d" % (1 + i % 2): 0.001}).remote() for i in range(n)]
ray.get([a.ready.remote() for a in actors], timeout=600)
for a in actors:
    a.work.remote()
print("READY", flush=True)
time.sleep(3600)
"""


def cli(args, base, **env):
    e = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    e.update(env)
    return subprocess.run([RAY, *args, "--temp-dir", base], capture_output=True, text=True, timeout=300, env=e)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--actors", type=int, default=100)
    ap.add_argument("--rounds", type=int, default=5)
    args = ap.parse_args()
    head, member = tempfile.mkdtemp(prefix="stack-h-"), tempfile.mkdtemp(prefix="stack-m-")
    driver = None
    try:
        done = cli(["start", "--head", "--port", "0", "--num-cpus", "2", "--node-ip-address", "127.0.0.1"], head)
        assert done.returncode == 0, done.stderr
        with open(os.path.join(head, "session_latest", "node.json")) as f:
            address = json.load(f)["address"]
        with open(os.path.join(head, "session_latest", "auth_token")) as f:
            token = f.read().strip()
        done = cli(["start", "--address", address, "--num-cpus", "2", "--node-ip-address", "127.0.0.2"], member,
                   RAY_AUTH_TOKEN=token)
        assert done.returncode == 0, done.stderr
        env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
        env["RAY_TMPDIR"] = head
        driver = subprocess.Popen([PYTHON, "-c", DRIVER, str(args.actors)], env=env, stdout=subprocess.PIPE, text=True)
        started = time.monotonic()
        for line in driver.stdout:
            if line.startswith("READY"):
                break
        else:
            sys.exit("the driver ended before its actors were ready")
        print(f"{args.actors} actors ready in {time.monotonic() - started:.1f} s")
        for name, base in (("head", head), ("joined node", member)):
            took, dumped = [], 0
            for _ in range(args.rounds):
                t0 = time.perf_counter()
                done = cli(["stack", "--json"], base)
                took.append(time.perf_counter() - t0)
                report = json.loads(done.stdout)
                dumped = sum(1 for p in report["processes"] if "stack" in p)
            print(f"ray stack from the {name}: {dumped} of {len(report['processes'])} processes dumped; "
                  f"median {statistics.median(took):.2f} s, max {max(took):.2f} s over {args.rounds} runs "
                  f"(target < 2 s)")
    finally:
        if driver is not None:
            driver.kill()
            driver.wait()
        for base in (member, head):
            cli(["stop"], base)
            shutil.rmtree(base, ignore_errors=True)


if __name__ == "__main__":
    main()
