"""Do slow HTTP clients slow the daemon's call path? Actor-call latency with and without 1,000
concurrent slow clients on the head's HTTP face, side by side, in one run.

    .venv/bin/python bench/http_slow_clients.py [--clients 1000] [--calls 2000] [--seconds 20]

A head (every HTTP port 0) and one actor; a driver times CALLS sequential round trips to it
(p50, p99) three times: alone, while CLIENTS slow clients hold connections to the dashboard
and metrics ports (each sends a request one header byte per second, never finishing it: the
"slowloris" pattern; the face cuts each off after its 10 s request limit, and the client then
reconnects), and alone again. It also times the KubeRay health probe during the attack.
Prints the figures and the ratios to the quiet run; no pass/fail (benchmarks measure).
"""
import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
RAY = os.path.join(ROOT, ".venv", "bin", "ray")
PYTHON = os.path.join(ROOT, ".venv", "bin", "python")

DRIVER = r"""
import json, statistics, sys, time, ray
ray.init(address="auto")

@ray.remote
class Echo:
    def echo(self, x):
        return x

a = Echo.remote()
ray.get(a.echo.remote(0))
for line in sys.stdin:
    n = int(line)
    lat = []
    for i in range(n):
        t = time.perf_counter()
        ray.get(a.echo.remote(i))
        lat.append((time.perf_counter() - t) * 1e6)
    lat.sort()
    print(json.dumps({"p50": lat[len(lat) // 2], "p99": lat[int(len(lat) * 0.99)]}), flush=True)
"""


def slow_client(port, stop):
    """Holds a connection open sending a never-ending request; reconnects when cut off."""
    while not stop.is_set():
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
                s.sendall(b"GET /api/v0/actors HTTP/1.1\r\nHost: x\r\n")
                while not stop.is_set():
                    s.sendall(b"X")  # one header byte a second, never the end of the headers
                    stop.wait(1.0)
        except OSError:
            stop.wait(0.2)


def probe_ms(port):
    t = time.perf_counter()
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/local_raylet_healthz", timeout=30) as r:
        r.read()
    return (time.perf_counter() - t) * 1e3


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--clients", type=int, default=1000)
    ap.add_argument("--calls", type=int, default=2000)
    ap.add_argument("--seconds", type=float, default=20, help="how long the slow clients hold on before timing")
    args = ap.parse_args()
    base = tempfile.mkdtemp(prefix="beam-bench-http-")
    env = dict(os.environ, RAY_TMPDIR=base)
    env.pop("RAY_ADDRESS", None)
    subprocess.run([RAY, "start", "--head", "--port", "0", "--temp-dir", base, "--num-cpus", "2",
                    "--dashboard-port", "0", "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"],
                   check=True, env=env, capture_output=True)
    driver = None
    stop = threading.Event()
    try:
        node = os.path.join(base, "session_latest", "node.json")
        deadline = time.monotonic() + 30
        while "http_ports" not in json.load(open(node)):
            if time.monotonic() > deadline:
                raise SystemExit("the HTTP face did not come up")
            time.sleep(0.05)
        info = json.load(open(node))
        ports = info["http_ports"]
        driver = subprocess.Popen([PYTHON, "-c", DRIVER], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                  text=True)

        def timed():
            driver.stdin.write(f"{args.calls}\n")
            driver.stdin.flush()
            return json.loads(driver.stdout.readline())

        timed()  # warm-up
        quiet = timed()
        threads = [threading.Thread(target=slow_client, args=(ports["dashboard" if i % 2 else "metrics"], stop),
                                    daemon=True) for i in range(args.clients)]
        for t in threads:
            t.start()
        time.sleep(args.seconds)
        probes = [probe_ms(ports["agent"]) for _ in range(5)]
        loaded = timed()
        with open(f"/proc/{info['pid']}/status") as f:
            status = {l.split(":")[0]: l.split(":")[1].strip() for l in f}
        stop.set()
        time.sleep(1.5)
        after = timed()
        print(f"actor call round trip, {args.calls} sequential calls (us):")
        print(f"  {'run':<34}{'p50':>9}{'p99':>9}{'p50 ratio':>11}{'p99 ratio':>11}")
        for name, r in (("quiet", quiet), (f"{args.clients} slow HTTP clients", loaded), ("quiet again", after)):
            print(f"  {name:<34}{r['p50']:>9.0f}{r['p99']:>9.0f}{r['p50'] / quiet['p50']:>11.2f}"
                  f"{r['p99'] / quiet['p99']:>11.2f}")
        print(f"health probe during the attack: median {statistics.median(probes):.1f} ms, max {max(probes):.1f} ms")
        print(f"daemon during the attack: {status.get('Threads')} threads, VmRSS {status.get('VmRSS')}")
    finally:
        stop.set()
        if driver is not None:
            driver.kill()
        subprocess.run([RAY, "stop", "--temp-dir", base], env=env, capture_output=True)


if __name__ == "__main__":
    main()
