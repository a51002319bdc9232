"""`ray logs` on a beam head: how long a tail takes (an actor's 1,000 lines, and the end of an
8 GiB log, which must read only its bound from the end), and how soon `--follow` prints a line
the actor just wrote (target: under 1 s; the follow asks every 250 ms). Median of N rounds.

    .venv/bin/python bench/logs.py [--rounds N]
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
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")
RAY = os.path.join(ROOT, ".venv", "bin", "ray")

DRIVER = """
import json, sys, ray
ray.init(log_to_driver=False)
@ray.remote
class Talker:
    def __init__(self):
        for i in range(1000):
            print(f"line {i}", flush=True)
    def say(self, text):
        print(text, flush=True)
t = Talker.remote()
ray.get(t.say.remote("ready"))
print("@@READY " + t._actor_id.hex(), flush=True)
for line in sys.stdin:
    ray.get(t.say.remote(line.strip()))
"""


def timed(args, env):
    t0 = time.perf_counter()
    done = subprocess.run([RAY, *args], env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return time.perf_counter() - t0, done.stdout


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--rounds", type=int, default=5)
    rounds = ap.parse_args().rounds
    temp = tempfile.mkdtemp(prefix="bl-")
    env = {k: v for k, v in os.environ.items() if k != "RAY_ADDRESS"}
    env["RAY_TMPDIR"] = temp
    subprocess.run([RAY, "start", "--head", "--port", "0", "--num-cpus", "2", "--include-dashboard=false",
                    "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"], env=env, check=True,
                   capture_output=True)
    driver = subprocess.Popen([PYTHON, "-c", DRIVER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    follow = None
    try:
        line = driver.stdout.readline()
        assert line.startswith("@@READY"), line
        actor = line.split()[1]
        huge = os.path.join(temp, "session_latest", "logs", "huge.log")
        with open(huge, "wb") as f:  # sparse: 8 GiB long, one real line at its end
            f.truncate(8 << 30)
            f.seek(8 << 30)
            f.write(b"the end\n")
        tails = [timed(["logs", "actor", "--id", actor], env)[0] for _ in range(rounds)]
        huge_tails = [timed(["logs", "cluster", "huge.log", "--tail", "10"], env)[0] for _ in range(rounds)]
        follow = subprocess.Popen([RAY, "logs", "actor", "--id", actor, "--follow", "--tail", "1"], env=env,
                                  stdout=subprocess.PIPE, text=True)
        assert follow.stdout.readline().strip() == "ready"
        seen = []
        for i in range(rounds * 4):
            t0 = time.perf_counter()
            driver.stdin.write(f"mark {i}\n")
            driver.stdin.flush()
            while follow.stdout.readline().strip() != f"mark {i}":
                pass
            seen.append(time.perf_counter() - t0)
        print(json.dumps({
            "tail_1000_lines_ms": round(1000 * statistics.median(tails), 1),
            "tail_of_8GiB_file_ms": round(1000 * statistics.median(huge_tails), 1),
            "follow_line_latency_ms_p50": round(1000 * statistics.median(seen), 1),
            "follow_line_latency_ms_max": round(1000 * max(seen), 1),
            "target_follow_ms": 1000,
        }, indent=1))
    finally:
        for p in (follow, driver):
            if p is not None:
                p.kill()
                p.wait()
        subprocess.run([RAY, "stop"], env=env, capture_output=True, timeout=60)
        shutil.rmtree(temp, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
