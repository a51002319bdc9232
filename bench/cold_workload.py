"""The cold shape: the first seconds of a vLLM set-up phase on a fresh cluster, no warm-up.

Runs under either system's interpreter (it only does `import ray`); bench/cold.py starts a
fresh head for each run and reads the one line `BENCH-RESULT {json}` this prints last.

    python bench/cold_workload.py [--timeline FILE]

In order, each step timed as it comes, nothing run before to warm anything up:
ray.init; a PACK group of 4 {"GPU": 1, "CPU": 1} bundles, ready; 4 actors in it, one per
bundle, created and answered; 300 sync calls; 300 broadcasts of 4 KB to the 4 actors;
1,500 pipelined calls; 50 one-bundle groups created, ready and removed; the 4 actors and the
group removed; 16 actors created and answered. --timeline writes every sync call's and
broadcast's latency in order (where in the run the slow ones fall).
"""
import argparse
import json
import os
import sys
import time

T0 = time.perf_counter()
import ray  # noqa: E402
from ray.util.placement_group import placement_group, remove_placement_group  # noqa: E402
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy  # noqa: E402

T_IMPORTED = time.perf_counter()

from workload import lat_summary as summary  # noqa: E402  (bench/ is this script's directory; p99 of 300 is the 3rd worst)


@ray.remote
class Worker:
    def echo(self, x):
        return x

    def size(self, b):
        return len(b)


STARTS = {}  # name -> each call's start (CLOCK_MONOTONIC s: the JVM's -Xlog 'timenanos' uses the same clock)


def timed(name, fn, n):
    out, starts = [], STARTS.setdefault(name, [])
    for _ in range(n):
        t = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t)
        starts.append(t)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--timeline", help="write each sync call's and broadcast's latency (JSON) here")
    args = ap.parse_args()
    res = {"import_s": T_IMPORTED - T0}
    t = time.perf_counter()
    ray.init()
    res["init_s"] = time.perf_counter() - t

    t = time.perf_counter()
    pg = placement_group([{"GPU": 1, "CPU": 1}] * 4, strategy="PACK")
    ray.get(pg.ready())
    res["pg4_ready_s"] = time.perf_counter() - t

    t = time.perf_counter()
    actors = [Worker.options(num_cpus=0, num_gpus=1, scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=i)).remote() for i in range(4)]
    assert ray.get([a.echo.remote(i) for i, a in enumerate(actors)]) == [0, 1, 2, 3]
    res["actors4_s"] = time.perf_counter() - t

    sync = timed("sync", lambda: ray.get(actors[0].echo.remote(1)), 300)
    res["sync"] = summary(sync)

    x = os.urandom(4096)

    def bcast():
        assert ray.get([a.size.remote(x) for a in actors]) == [4096] * 4

    b4 = timed("bcast4", bcast, 300)
    res["bcast4"] = summary(b4)

    t = time.perf_counter()
    out = ray.get([actors[1].echo.remote(i) for i in range(1500)])
    dt = time.perf_counter() - t
    assert out[-1] == 1499
    res["pipelined_calls_per_s"] = 1500 / dt

    t = time.perf_counter()
    for _ in range(50):
        g = placement_group([{"CPU": 1}])
        ray.get(g.ready())
        remove_placement_group(g)
    res["pg_per_s"] = 50 / (time.perf_counter() - t)

    for a in actors:
        ray.kill(a)
    remove_placement_group(pg)
    time.sleep(0.5)  # the four exits and the group's release are done before the next count starts
    t = time.perf_counter()
    many = [Worker.options(num_cpus=0).remote() for _ in range(16)]
    assert ray.get([a.echo.remote(i) for i, a in enumerate(many)]) == list(range(16))
    res["actors16_s"] = time.perf_counter() - t
    for a in many:
        ray.kill(a)
    if args.timeline:
        with open(args.timeline, "w") as f:
            json.dump({"sync_us": [s * 1e6 for s in sync], "bcast4_us": [s * 1e6 for s in b4],
                       "sync_start_s": STARTS["sync"], "bcast4_start_s": STARTS["bcast4"]}, f)
    ray.shutdown()
    print("BENCH-RESULT " + json.dumps(res), flush=True)


if __name__ == "__main__":
    sys.exit(main())
