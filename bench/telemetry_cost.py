"""What accelerator telemetry costs an idle node: the daemon's CPU time (its own and its
reaped children's, which is where each nvidia-smi run is counted) over a window, with a
fake nvidia-smi on PATH that answers the telemetry query for 8 GPUs, and without one
(telemetry off). Not a test: it prints both figures and the difference as a share of one
core (docs/PERFORMANCE.md, "Accelerator telemetry"; the target is under 1 %).

    .venv/bin/python bench/telemetry_cost.py [--seconds 60]

The fake tool is a shell script: a real nvidia-smi costs more per run (it opens the
driver), so on a GPU host the figure is a floor; run tools/gpu_check.sh there for the rest.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAY = os.path.join(ROOT, ".venv", "bin", "ray")
TICKS = os.sysconf("SC_CLK_TCK")
FAKE = "#!/bin/sh\n" + "".join(
    f"echo '{i}, GPU-fake-{i}, NVIDIA H200, {i * 9}, {1000 + i}, 143771'\n" for i in range(8))


def cpu_seconds(pid):
    """utime + stime + cutime + cstime of ``pid`` (fields 14-17 of /proc/PID/stat)."""
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]) / TICKS


def measure(seconds, with_tool):
    base = tempfile.mkdtemp(prefix="beam-telemetry-bench-")
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    if with_tool:
        bin_dir = os.path.join(base, "bin")
        os.mkdir(bin_dir)
        with open(os.path.join(bin_dir, "nvidia-smi"), "w") as f:
            f.write(FAKE)
        os.chmod(os.path.join(bin_dir, "nvidia-smi"), 0o755)
        env["PATH"] = bin_dir + ":" + env["PATH"]
    try:
        done = subprocess.run([RAY, "start", "--head", "--port", "0", "--temp-dir", base, "--num-gpus", "8",
                               "--num-cpus", "2", "--node-ip-address", "127.0.0.1"],
                              env=env, capture_output=True, text=True, timeout=120)
        if done.returncode != 0:
            sys.exit(f"ray start failed: {done.stderr}")
        with open(os.path.join(base, "session_latest", "node.json")) as f:
            pid = json.load(f)["pid"]
        time.sleep(5)  # past start-up (JIT, the Python version probe)
        before = cpu_seconds(pid)
        time.sleep(seconds)
        used = cpu_seconds(pid) - before
        status = subprocess.run([RAY, "status", "--json", "--temp-dir", base], env=env, capture_output=True,
                                text=True, timeout=60)
        sampled = (json.loads(status.stdout)["nodes"][0].get("BeamTelemetry") or {}).get("devices", [])
        return used, len(sampled)
    finally:
        subprocess.run([RAY, "stop", "--temp-dir", base], env=env, capture_output=True, timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--seconds", type=float, default=60.0)
    args = ap.parse_args()
    off, _ = measure(args.seconds, with_tool=False)
    on, devices = measure(args.seconds, with_tool=True)
    if devices != 8:
        sys.exit(f"the daemon sampled {devices} devices, not 8: the figure would not measure telemetry")
    print(f"idle daemon without telemetry: {off:.3f} CPU s in {args.seconds:.0f} s ({100 * off / args.seconds:.2f} % of a core)")
    print(f"idle daemon with telemetry (8 fake GPUs): {on:.3f} CPU s ({100 * on / args.seconds:.2f} % of a core)")
    print(f"telemetry costs {100 * (on - off) / args.seconds:.2f} % of one core (target < 1 %)")


if __name__ == "__main__":
    main()
