"""The floor under a beam call on this machine: a bare request/reply between two Python
processes over a unix socketpair, no beam at all (docs/PERFORMANCE.md, "Misses").

    python3 bench/floor.py [--n 5000]

A beam sync call is two such round trips (driver -> daemon -> worker -> daemon -> driver),
so twice this p50 is what wake-ups alone cost it, before any pickling, parsing or routing.
"""
import argparse
import os
import socket
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=5000)
    n = ap.parse_args().n
    a, b = socket.socketpair()
    if os.fork() == 0:
        a.close()
        while True:
            data = b.recv(256)
            if not data:
                os._exit(0)
            b.sendall(data)
    b.close()
    msg = b"x" * 120  # about a call frame's header
    for _ in range(500):
        a.sendall(msg)
        a.recv(256)
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        a.sendall(msg)
        a.recv(256)
        samples.append(time.perf_counter() - t0)
    a.close()
    samples.sort()
    p50, p99 = samples[len(samples) // 2], samples[int(len(samples) * 0.99)]
    print(f"process-to-process round trip: p50 {p50 * 1e6:.0f} us, p99 {p99 * 1e6:.0f} us "
          f"(a beam sync call makes two: >= {2 * p50 * 1e6:.0f} us before any work)")


if __name__ == "__main__":
    main()
