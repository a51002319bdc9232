"""Soak: 1,000,000 calls through one daemon, printing its heap (after GC) and open fds
every 100,000 calls, to show that nothing accumulates.

    ray start --head --temp-dir D ...; RAY_TMPDIR=D python bench/soak.py [--calls 1000000]

Calls go to 4 actors, 1,000 in flight, with a fresh ray.put argument every 1,000 calls;
results are read and dropped, so the daemon (which stores no results) and the driver
(which frees an object when its last ref goes) should both stay flat.
"""
import argparse
import os
import resource
import sys
import time

import ray
from ray._beam.api import client


def daemon_stats():
    s = client.ensure().request("daemon_stats", {"gc": True}, timeout=60)
    return s["heap_used_bytes"], s["open_fds"], s["threads"], s["actors"]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--calls", type=int, default=1_000_000)
    ap.add_argument("--every", type=int, default=100_000)
    args = ap.parse_args()
    ray.init()

    @ray.remote
    class Echo:
        def echo(self, x, blob=None):
            return x

    actors = [Echo.remote() for _ in range(4)]
    ray.get([a.echo.remote(0) for a in actors])
    heap0, fds0, threads0, _ = daemon_stats()
    print(f"{'calls':>9} {'heap MiB':>9} {'fds':>5} {'threads':>8} {'calls/s':>9} {'driver RSS MiB':>15}")
    print(f"{0:>9} {heap0 / 2**20:>9.1f} {fds0:>5} {threads0:>8} {'':>9} "
          f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>15.1f}", flush=True)
    done, t0, rows = 0, time.time(), []
    while done < args.calls:
        blob = ray.put(os.urandom(1024))
        refs = [actors[i % 4].echo.remote(done + i, blob) for i in range(1000)]
        got = ray.get(refs)
        assert got == list(range(done, done + 1000)), "wrong results"
        done += 1000
        if done % args.every == 0:
            heap, fds, threads, _ = daemon_stats()
            rate = done / (time.time() - t0)
            rows.append((heap, fds))
            print(f"{done:>9} {heap / 2**20:>9.1f} {fds:>5} {threads:>8} {rate:>9.0f} "
                  f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024:>15.1f}", flush=True)
    heap, fds = rows[-1]
    flat = fds <= fds0 + 4 and heap <= heap0 + 32 * 2**20
    print("soak: flat" if flat else "soak: GREW", flush=True)
    return 0 if flat else 1


if __name__ == "__main__":
    sys.exit(main())
