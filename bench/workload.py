"""The benchmark workload: the same file runs against beam and against real Ray.

It only does `import ray`, so which system it measures is decided by the interpreter
that runs it (beam's .venv or .bench/ray-venv). bench/bench.py starts the cluster, runs
one subcommand of this file per measurement in a fresh process, and reads the one line
`BENCH-RESULT {json}` it prints last. Progress goes to stderr.

    python bench/workload.py init                       time ray.init() to the running cluster
    python bench/workload.py main [--quick]             actors, calls, broadcast, pipelining, pgs, actor kill
    python bench/workload.py vllm                       examples/vllm_shaped.py from init to all workers ready
    python bench/workload.py calls                      a short mixed load (bench/jvm_options.py)
    python bench/workload.py cpu --cluster-pids P1,P2   CPU per call in driver, workers, cluster (bench/profile.py)
    python bench/workload.py trace --go FILE            spaced sync calls for a syscall timeline (bench/profile.py)
    python bench/workload.py timeline --n N             a broadcast round's steps in time (bench/ab_calls.py)
    python bench/workload.py multihost --node-ip IP --kill-pids P1,P2 [--quick]
                                                        broadcast to 8 actors on two hosts, then kill host 2
"""
import argparse
import json
import os
import signal
import statistics
import sys
import time

T_IMPORT = time.perf_counter()
import ray  # noqa: E402

from proctree import cpu_seconds, descendants, logger  # noqa: E402  (bench/ is this script's directory; stdlib only)

HERE = os.path.dirname(os.path.abspath(__file__))


log = logger("workload")


def emit(result):
    print("BENCH-RESULT " + json.dumps(result), flush=True)


def pct(samples, q):
    """The q-th percentile (0..100) of samples, nearest rank."""
    s = sorted(samples)
    k = max(0, min(len(s) - 1, int(round(q / 100.0 * len(s) + 0.5)) - 1))
    return s[k]


def lat_summary(samples_s):
    us = [x * 1e6 for x in samples_s]
    return {"p50_us": pct(us, 50), "p99_us": pct(us, 99), "mean_us": statistics.fmean(us), "n": len(us)}


@ray.remote
class Echo:
    def echo(self, x):
        return x

    def size(self, b):
        return len(b)

    def pid(self):
        return os.getpid()

    def sleep(self, s):
        time.sleep(s)
        return s

    def node_ip(self):
        return ray.util.get_node_ip_address()

    def stamp(self, b):
        return time.perf_counter()  # CLOCK_MONOTONIC: comparable with the driver's clock


def make(n, **opts):
    return [Echo.options(num_cpus=0, **opts).remote() for _ in range(n)]


def kill_all(actors):
    for a in actors:
        ray.kill(a)


def actor_creation(n):
    t0 = time.perf_counter()
    actors = make(n)
    ray.get([a.echo.remote(1) for a in actors])
    dt = time.perf_counter() - t0
    return dt, actors


def sync_calls(a, n):
    for _ in range(min(200, n)):  # warm-up
        ray.get(a.echo.remote(1))
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        ray.get(a.echo.remote(1))
        samples.append(time.perf_counter() - t0)
    return lat_summary(samples)


def broadcast(actors, n, size=4096):
    x = os.urandom(size)
    for _ in range(min(50, n)):  # warm-up
        ray.get([w.size.remote(x) for w in actors])
    samples = []
    for _ in range(n):
        t0 = time.perf_counter()
        out = ray.get([w.size.remote(x) for w in actors])
        samples.append(time.perf_counter() - t0)
    assert out == [size] * len(actors), out
    return lat_summary(samples)


def pipelined(a, n, reps):
    ray.get([a.echo.remote(i) for i in range(min(1000, n))])  # warm-up
    rates = []
    for _ in range(reps):
        t0 = time.perf_counter()
        refs = [a.echo.remote(i) for i in range(n)]
        out = ray.get(refs)
        dt = time.perf_counter() - t0
        assert out[-1] == n - 1
        rates.append(n / dt)
    return {"calls_per_s": statistics.median(rates), "all": rates, "n": n}


def placement_groups(n, how="ready"):
    """One-bundle groups created, waited for (ray.get(pg.ready()) as vLLM does, or pg.wait()), removed."""
    from ray.util.placement_group import placement_group, remove_placement_group

    def one():
        pg = placement_group([{"CPU": 1}])
        if how == "ready":
            ray.get(pg.ready())
        else:
            assert pg.wait(timeout_seconds=30)
        remove_placement_group(pg)

    for _ in range(min(10, n)):  # warm-up
        one()
    t0 = time.perf_counter()
    for _ in range(n):
        one()
    dt = time.perf_counter() - t0
    return {"per_s": n / dt, "n": n}


def actor_sigkill(reps):
    """SIGKILL an actor process with a call in flight; time until ray.wait returns its ref."""
    out = []
    errors = set()
    for _ in range(reps):
        a = make(1)[0]
        pid = ray.get(a.pid.remote())
        ref = a.sleep.remote(60)
        time.sleep(0.3)  # the call is running in the actor
        t0 = time.perf_counter()
        os.kill(pid, signal.SIGKILL)
        ready, _ = ray.wait([ref], timeout=60)
        dt = time.perf_counter() - t0
        if not ready:
            out.append(None)
            continue
        try:
            ray.get(ref)
            errors.add("no error")
        except ray.exceptions.RayActorError as e:
            errors.add(type(e).__name__)
        out.append(dt)
        try:
            ray.kill(a)
        except Exception:
            pass
    good = [x for x in out if x is not None]
    return {"s": statistics.median(good) if good else None, "all": out, "errors": sorted(errors)}


def cmd_init(args):
    t0 = time.perf_counter()
    ray.init()
    dt = time.perf_counter() - t0
    ray.shutdown()
    emit({"init_s": dt, "import_s": T_IMPORT_DONE - T_IMPORT})


def cmd_main(args):
    q = args.quick
    res = {}
    ray.init()
    log("actor creation")
    c4 = []
    for _ in range(1 if q else 3):
        dt, actors = actor_creation(4)
        c4.append(dt)
        kill_all(actors)
    res["actors4_s"] = statistics.median(c4)
    res["actors4_all"] = c4
    if q:  # smoke run: the 4-actor path is enough to check it works
        dt, ws = actor_creation(4)
    else:
        dt, actors = actor_creation(16)
        res["actors16_s"] = dt
        kill_all(actors[4:])
        ws = actors[:4]
    log("sync calls")
    res["sync"] = sync_calls(ws[0], 200 if q else 2000)
    log("broadcast to 4")
    res["bcast4"] = broadcast(ws, 30 if q else 1000)
    log("pipelined")
    res["pipelined"] = pipelined(ws[1], 1000 if q else 10000, 1 if q else 3)
    kill_all(ws)
    log("placement groups")
    res["pg"] = placement_groups(10 if q else 200)
    res["pg_wait"] = placement_groups(10 if q else 200, how="wait")
    log("actor SIGKILL")
    res["actor_kill"] = actor_sigkill(1 if q else 3)
    ray.shutdown()
    emit(res)


def cmd_calls(args):
    """A short mixed load for A/B comparisons (bench/jvm_options.py, bench/ab_calls.py): 4 actors,
    --n sync calls, --n // 3 broadcast rounds, 5 * --n pipelined calls."""
    ray.init()
    dt, actors = actor_creation(4)
    res = {"actors4_s": dt, "sync": sync_calls(actors[0], args.n), "bcast4": broadcast(actors, max(1, args.n // 3)),
           "pipelined": pipelined(actors[1], 5 * args.n, 1)}
    kill_all(actors)
    ray.shutdown()
    emit(res)


def _switches(pids):
    """Context switches (voluntary + involuntary) summed over every thread of pids."""
    total = 0
    for p in pids:
        try:
            tids = os.listdir(f"/proc/{p}/task")
        except OSError:
            continue
        for t in tids:
            try:
                with open(f"/proc/{p}/task/{t}/status") as f:
                    for line in f:
                        if line.startswith(("voluntary_ctxt_switches", "nonvoluntary_ctxt_switches")):
                            total += int(line.split()[1])
            except OSError:
                pass
    return total


def cmd_cpu(args):
    """CPU seconds per call in each process on the call path (driver, actor workers, the rest of the
    cluster: every process below --cluster-pids), for sync calls, pipelined calls and a broadcast."""
    ray.init()
    actors = make(4)
    wpids = ray.get([a.pid.remote() for a in actors])
    cluster = [p for p in process_tree([int(x) for x in args.cluster_pids.split(",") if x]) if p not in wpids]
    me = [os.getpid()]
    out = {"cluster_processes": len(cluster)}

    def measure(name, n, fn):
        fn(min(n, 200))  # warm-up
        sw0 = [_switches(me), _switches(wpids), _switches(cluster)]
        before = (cpu_seconds(me), cpu_seconds(wpids), cpu_seconds(cluster), time.perf_counter())
        fn(n)
        after = (cpu_seconds(me), cpu_seconds(wpids), cpu_seconds(cluster), time.perf_counter())
        sw1 = [_switches(me), _switches(wpids), _switches(cluster)]
        d = [(a - b) / n * 1e6 for a, b in zip(after, before)]
        sw = [(a - b) / n for a, b in zip(sw1, sw0)]
        out[name] = {"n": n, "driver_cpu_us": d[0], "workers_cpu_us": d[1], "cluster_cpu_us": d[2], "wall_us": d[3],
                     "total_cpu_us": d[0] + d[1] + d[2], "driver_switches": sw[0], "workers_switches": sw[1],
                     "cluster_switches": sw[2]}
        log(f"{name}: {out[name]}")

    def sync(n):
        for _ in range(n):
            ray.get(actors[0].echo.remote(1))

    def piped(n):
        ray.get([actors[1].echo.remote(i) for i in range(n)])

    x = os.urandom(4096)

    def bcast(n):
        for _ in range(n):
            ray.get([w.size.remote(x) for w in actors])

    measure("sync_call", args.n, sync)
    measure("pipelined_call", args.n * 5, piped)
    measure("bcast4_round", max(1, args.n // 4), bcast)
    if args.hold:
        # Keep calling for --hold seconds so that profilers can attach (bench/profile.py).
        print("BENCH-PIDS " + json.dumps({"driver": os.getpid(), "workers": wpids}), flush=True)
        end = time.perf_counter() + args.hold
        while time.perf_counter() < end:
            sync(100)
    kill_all(actors)
    ray.shutdown()
    emit(out)


def cmd_timeline(args):
    """Where a broadcast round to 4 actors spends its time: --n rounds after 2,000 warm-up rounds,
    each actor stamping when its method runs. Prints the round's p50 / mean / p90 and the median
    of each step, from the first .remote(): the 4 calls submitted, the k-th method to run, the
    results all in (bench/ab_calls.py --timeline)."""
    ray.init()
    actors = make(4)
    x = os.urandom(4096)
    for _ in range(2000):
        ray.get([w.stamp.remote(x) for w in actors])
    rows = []
    for _ in range(args.n):
        t0 = time.perf_counter()
        refs = [w.stamp.remote(x) for w in actors]
        t1 = time.perf_counter()
        stamps = ray.get(refs)
        t2 = time.perf_counter()
        rows.append([t1 - t0] + sorted(t - t0 for t in stamps) + [t2 - t0])
    kill_all(actors)
    ray.shutdown()
    med = [statistics.median(r[i] for r in rows) * 1e6 for i in range(6)]
    rounds = lat_summary([r[5] for r in rows])
    rounds["p90_us"] = pct([r[5] * 1e6 for r in rows], 90)
    emit({"round": rounds, "submitted_us": med[0], "kth_method_us": med[1:5], "all_in_us": med[5]})


def cmd_trace(args):
    """A few sync calls spaced apart, for a syscall timeline: prints the pids, waits for a go file."""
    ray.init()
    a = make(1)[0]
    wpid = ray.get(a.pid.remote())
    for _ in range(500):
        ray.get(a.echo.remote(1))
    print("BENCH-PIDS " + json.dumps({"driver": os.getpid(), "workers": [wpid]}), flush=True)
    while not os.path.exists(args.go):
        time.sleep(0.05)
    time.sleep(0.5)
    stamps = []
    for _ in range(args.n):
        time.sleep(0.05)
        t0 = time.time()
        ray.get(a.echo.remote(1))
        stamps.append((t0, time.time()))
    kill_all([a])
    ray.shutdown()
    emit({"calls": stamps})


def cmd_vllm(args):
    """examples/vllm_shaped.py's sequence, from before ray.init() to all workers ready."""
    sys.path.insert(0, os.path.join(os.path.dirname(HERE), "examples"))
    import vllm_shaped as v
    from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy
    # The workers must unpickle Worker without examples/ on their sys.path: ship it by value.
    import ray.cloudpickle
    ray.cloudpickle.register_pickle_by_value(v)
    n = v.WORLD_SIZE
    marks = {}
    t0 = time.perf_counter()
    ray.init()
    marks["init"] = time.perf_counter() - t0
    pg = placement_group([{"GPU": 1.0}] * n, strategy="PACK")
    while True:
        ready, _ = ray.wait([pg.ready()], timeout=10)
        if ready:
            break
    marks["pg_ready"] = time.perf_counter() - t0
    table = placement_group_table(pg)
    driver_node = ray.get_runtime_context().get_node_id()
    ray.nodes()  # vLLM reads the node list here
    bundles = sorted(table["bundles_to_node_id"].items(), key=lambda kv: kv[1] != driver_node)
    remote_worker = ray.remote(v.Worker)
    workers = []
    for rank, (bundle_index, _) in enumerate(bundles):
        workers.append(remote_worker.options(
            num_cpus=0, num_gpus=1,
            scheduling_strategy=PlacementGroupSchedulingStrategy(
                placement_group=pg, placement_group_bundle_index=int(bundle_index)),
            runtime_env={"env_vars": {"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "VLLM_DEMO_FLAG": "on"}},
        ).remote(rank))
    ids = ray.get([w.get_node_and_physical_gpu_ids.remote() for w in workers])
    marks["actors_answered"] = time.perf_counter() - t0
    gpus = sorted(g for _, gs in ids for g in gs)
    assert len(set(gpus)) == n, ids
    envs = ray.get([w.environment.remote() for w in workers])
    assert all(e["VLLM_DEMO_FLAG"] == "on" for e in envs), envs
    init_method = ray.get(workers[0].create_dist_init_method.remote())
    totals = ray.get([w.initialize_worker.remote(init_method, n) for w in workers])
    assert totals == [sum(range(n))] * n, totals
    ready_s = time.perf_counter() - t0
    marks["ready"] = ready_s
    log(f"vllm-shaped: {n} workers ready in {ready_s:.3f} s {marks}")
    for w in workers:
        ray.kill(w)
    remove_placement_group(pg)
    ray.shutdown()
    emit({"vllm_ready_s": ready_s, "marks": marks})


def process_tree(roots):
    """``roots`` and every live process below them."""
    return list(dict.fromkeys([*roots, *descendants(roots)]))


def cmd_twohost(args):
    """The cross-host call path (bench/ab_calls.py --two-hosts): sync calls to an actor on the
    joined node, then broadcasts to 4 actors on each host."""
    ray.init()
    ips = sorted({n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]})
    assert args.node_ip in ips and len(ips) == 2, f"want two nodes, one at {args.node_ip}: {ips}"
    head_ip = [ip for ip in ips if ip != args.node_ip][0]
    local = make(4, resources={f"node:{head_ip}": 0.001})
    remote_ = make(4, resources={f"node:{args.node_ip}": 0.001})
    assert ray.get([a.node_ip.remote() for a in remote_]) == [args.node_ip] * 4
    res = {"remote_sync": sync_calls(remote_[0], args.n), "bcast8": broadcast(local + remote_, max(1, args.n // 3))}
    if args.cluster_pids:  # the head's and the joined daemon's pids: where a round's CPU goes
        res["bcast8_cpu_us"] = _two_host_cpu(local, remote_, [int(p) for p in args.cluster_pids.split(",")],
                                             max(1, args.n // 3))
    emit(res)


def _two_host_cpu(local, remote_, daemons, n):
    """CPU per broadcast round to 4 + 4 actors in each process group, and the median time from
    the round's start until the k-th local and the k-th remote method ran (stamp)."""
    pids = {"driver": [os.getpid()], "head daemon": daemons[:1], "joined daemon": daemons[1:],
            "local workers": ray.get([a.pid.remote() for a in local]),
            "remote workers": ray.get([a.pid.remote() for a in remote_])}
    actors, x = local + remote_, os.urandom(4096)
    before, steps = {k: cpu_seconds(v) for k, v in pids.items()}, []
    for _ in range(n):
        t0 = time.perf_counter()
        stamps = ray.get([w.stamp.remote(x) for w in actors])
        steps.append([sorted(t - t0 for t in stamps[:4]), sorted(t - t0 for t in stamps[4:])])
    out = {k: (cpu_seconds(v) - before[k]) / n * 1e6 for k, v in pids.items()}
    out["total"] = sum(out.values())
    for side, i in (("local", 0), ("remote", 1)):
        out[f"{side} methods run at"] = [statistics.median(s[i][k] for s in steps) * 1e6 for k in range(4)]
    return out


def cmd_multihost(args):
    q = args.quick
    res = {}
    ray.init()
    alive = [n for n in ray.nodes() if n["Alive"]]
    ips = sorted({n["NodeManagerAddress"] for n in alive})
    assert args.node_ip in ips and len(ips) == 2, f"want two nodes, one at {args.node_ip}: {ips}"
    head_ip = [ip for ip in ips if ip != args.node_ip][0]
    log(f"two hosts: head {head_ip}, joined {args.node_ip}")
    local = make(4, resources={f"node:{head_ip}": 0.001})
    remote_ = make(4, resources={f"node:{args.node_ip}": 0.001})
    where = ray.get([a.node_ip.remote() for a in local + remote_])
    assert where == [head_ip] * 4 + [args.node_ip] * 4, where
    log("broadcast to 8 actors on two hosts")
    res["bcast8"] = broadcast(local + remote_, 30 if q else 1000)
    log("host kill")
    refs = [a.sleep.remote(120) for a in remote_]
    time.sleep(0.5)
    roots = [int(p) for p in args.kill_pids.split(",") if p]
    victims = process_tree(roots)
    t0 = time.perf_counter()
    for p in victims:
        try:
            os.kill(p, signal.SIGKILL)
        except ProcessLookupError:
            pass
    first = None
    pending = list(refs)
    while pending:
        ready, pending = ray.wait(pending, num_returns=1, timeout=max(0.0, 120 - (time.perf_counter() - t0)))
        if not ready:
            break
        if first is None:
            first = time.perf_counter() - t0
    dt = time.perf_counter() - t0
    errors = set()
    if not pending:
        for r in refs:
            try:
                ray.get(r)
                errors.add("no error")
            except ray.exceptions.RayActorError as e:
                errors.add(type(e).__name__)
            except Exception as e:  # noqa: BLE001 (report whatever the system raised)
                errors.add(type(e).__name__)
    res["host_kill"] = {"s": dt if not pending else None, "first_s": first, "killed_processes": len(victims),
                        "errors": sorted(errors), "timed_out": bool(pending)}
    kill_all(local)
    ray.shutdown()
    emit(res)


T_IMPORT_DONE = time.perf_counter()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cmd", choices=["init", "main", "vllm", "multihost", "twohost", "calls", "cpu", "trace",
                                    "timeline"])
    ap.add_argument("--cluster-pids", default="")
    ap.add_argument("--n", type=int, default=2000)
    ap.add_argument("--hold", type=float, default=0)
    ap.add_argument("--go", default="")
    ap.add_argument("--quick", action="store_true")
    ap.add_argument("--node-ip")
    ap.add_argument("--kill-pids", default="")
    args = ap.parse_args()
    {"init": cmd_init, "main": cmd_main, "vllm": cmd_vllm, "multihost": cmd_multihost, "twohost": cmd_twohost,
     "calls": cmd_calls, "cpu": cmd_cpu, "trace": cmd_trace, "timeline": cmd_timeline}[args.cmd](args)


if __name__ == "__main__":
    main()
