"""Placement groups per second, beam beside real Ray 2.60 in one run.

Both heads run at once (8 CPUs each, `ray start --head`); driver rounds alternate beam, Ray,
beam, Ray, ... so that both meet the same load on a busy machine, and the table gives the
median of each and their ratio. Each round is a fresh driver process that runs:

- sequential: N times `pg = placement_group([{"CPU": 1}])`, `ray.get(pg.ready())`,
  `remove_placement_group(pg)`; one group at a time, as vLLM's set-up does (rate = N / time);
- in flight: batches of K groups created, `ray.get` of all K `ready()` refs, then the K
  removed (rate = groups / time);
- pg.wait: the sequential loop with `pg.wait(timeout_seconds=30)` instead of `ray.get`;
- acked (beam only): the sequential loop as beam ran it before its fast path, create and
  remove each waiting for the daemon's reply: the before/after ratio in the same run.

Ten warm-up cycles run first in each driver; remove is asynchronous in Ray too, so the
next create may still see the group's resources taken (8 CPUs leave room for that).

    python bench/pg_rate.py [--rounds 3] [--n 2000] [--ray-n 200] [--batch 100] [--beam-only]

Ray runs fewer groups (`--ray-n`): it places about 10 a second one at a time here.

Needs .bench/ray-venv (bench/setup_ray.sh) for Ray. Writes bench/results/pg_rate.json.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import harness  # noqa: E402  (bench/harness.py: the systems, the processes, the jar and Java)

LOOPS = ("sequential", "in_flight", "pg_wait", "acked")


def driver(n, batch):
    """Runs in the measured system's interpreter; prints one JSON line."""
    import ray
    from ray.util.placement_group import placement_group, remove_placement_group

    ray.init(address="auto", log_to_driver=False)

    def cycle(how):
        pg = placement_group([{"CPU": 1}])
        if how == "wait":
            assert pg.wait(timeout_seconds=30)
        else:
            ray.get(pg.ready(), timeout=30)
        remove_placement_group(pg)

    for _ in range(10):
        cycle("get")
    out = {}
    t0 = time.perf_counter()
    for _ in range(n):
        cycle("get")
    out["sequential"] = n / (time.perf_counter() - t0)
    done = 0
    t0 = time.perf_counter()
    while done < n:
        pgs = [placement_group([{"CPU": 0.01}]) for _ in range(batch)]
        ray.get([pg.ready() for pg in pgs], timeout=60)
        for pg in pgs:
            remove_placement_group(pg)
        done += batch
    out["in_flight"] = done / (time.perf_counter() - t0)
    t0 = time.perf_counter()
    for _ in range(n // 2):
        cycle("wait")
    out["pg_wait"] = (n // 2) / (time.perf_counter() - t0)
    if hasattr(ray, "_beam"):
        out["acked"] = acked_loop(n)
    print("PG-RATE " + json.dumps(out), flush=True)


def acked_loop(n):
    """beam's sequential loop as it was before the fast path: create and remove each wait for
    the daemon's reply (the daemon still answers requests that carry a rid)."""
    import ray
    from ray._beam.api import client, ids, pgs
    from ray._beam.api.ids import PlacementGroupID

    c = client.ensure()
    t0 = time.perf_counter()
    for _ in range(n):
        specs = pgs.validate([{"CPU": 1}], "PACK", None)
        pg_id = ids.new_pg_id(c.job_id)
        c.pgs.created(pg_id)
        c.request("pg_create", {"pg_id": pg_id, "name": "", "strategy": "PACK", "bundles": specs, "lifetime": None})
        pg = pgs.PlacementGroup(PlacementGroupID(pg_id), specs)
        ray.get(pg.ready(), timeout=30)
        c.request("pg_remove", {"pg_id": pg_id})
        c.pgs.on_removed({"pg_id": pg_id})
    return n / (time.perf_counter() - t0)


def one_round(procs, sysm, n, batch):
    _, out, _, _ = procs.run([sysm.python, __file__, "--driver", "--n", str(n), "--batch", str(batch)],
                             sysm.env(), timeout=600)
    for line in out.splitlines():
        if line.startswith("PG-RATE "):
            return json.loads(line[len("PG-RATE "):])
    raise RuntimeError(f"{sysm.name}: the driver printed no PG-RATE line")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--n", type=int, default=2000, help="groups per loop in a round")
    ap.add_argument("--ray-n", type=int, default=200, help="groups per loop for Ray")
    ap.add_argument("--batch", type=int, default=100, help="groups in flight at once")
    ap.add_argument("--beam-only", action="store_true", help="skip Ray")
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.driver:
        driver(args.n, args.batch)
        return
    with_ray = not args.beam_only
    if with_ray and subprocess.run([os.path.join(HERE, "setup_ray.sh"), "--check"]).returncode != 0:
        sys.exit("pg_rate: Ray is not installed here; run bench/setup_ray.sh first (or pass --beam-only)")
    harness.snapshot_jar()
    procs = harness.Procs()
    systems = [harness.Beam(procs)] + ([harness.Ray(procs)] if with_ray else [])
    results = {s.name: [] for s in systems}
    started = []
    try:
        for s in systems:
            harness.log(f"{s.name}: ray start --head")
            s.start_head()
            started.append(s)
        time.sleep(1.0)
        for r in range(args.rounds):
            for s in systems:
                res = one_round(procs, s, args.n if s.name == "beam" else args.ray_n, args.batch)
                results[s.name].append(res)
                harness.log(f"round {r + 1} {s.name}: " + ", ".join(f"{k} {v:,.0f}/s" for k, v in res.items()))
    finally:
        for s in started:  # beam first: Ray's stop SIGTERMs every descendant left
            s.stop()
            s.cleanup()
    print_table(results, args)


def print_table(results, args):
    med = {name: {k: statistics.median(r[k] for r in runs) for k in LOOPS if k in runs[0]}
           for name, runs in results.items()}
    labels = {"sequential": "create -> ray.get(ready()) -> remove, one at a time",
              "in_flight": f"{args.batch} in flight: create all, get all, remove all",
              "pg_wait": "create -> pg.wait() -> remove, one at a time",
              "acked": "beam before the fast path: sequential, create and remove acked"}
    print(f"\nplacement groups per second, median of {args.rounds} alternating rounds "
          f"(beam {args.n} groups per loop, Ray {args.ray_n})\n")
    print("| loop | beam | Ray 2.60 | beam/Ray |")
    print("| --- | ---: | ---: | ---: |")
    for k in LOOPS:
        b = med["beam"][k]
        ray_v = med.get("ray", {}).get(k)
        ratio = f"{b / ray_v:.1f}x" if ray_v else "-"
        print(f"| {labels[k]} | {b:,.0f} | {f'{ray_v:,.0f}' if ray_v else '-'} | {ratio} |")
    if "acked" in med["beam"]:
        print(f"\nbeam's sequential loop against its acked form: {med['beam']['sequential'] / med['beam']['acked']:.2f}x")
    os.makedirs(harness.RESULTS, exist_ok=True)
    path = os.path.join(harness.RESULTS, "pg_rate.json")
    with open(path, "w") as f:
        json.dump({"args": vars(args), "runs": results, "median": med, "cpus": os.cpu_count()}, f, indent=1)
    print(f"\nwrote {path}")


if __name__ == "__main__":
    main()
