"""vLLM's RayExecutorV2 call sequence with real torch.distributed, on a 2-host beam cluster.

Like examples/vllm_shaped.py, but the rendezvous is torch's: actor 0 opens a
``torch.distributed.TCPStore`` exactly as vLLM's ``RayWorkerProc.create_dist_init_method``
does, every actor runs ``init_process_group("gloo", init_method=tcp://ip:port, ...)``
concurrently, then an ``all_reduce`` whose result is checked. Then a host is killed (its
daemon and every process on it, as if it lost power) while the ``run()`` calls are
watched by vLLM's monitor loop, which must see it within 5 s. No GPU is needed: GPUs are
declared (``ray start --num-gpus 2``) and the collectives run on gloo.

Needs a Python with torch and beam's ``ray`` (``tools/setup_torch_venv.sh`` makes one):

    .bench/torch-venv/bin/python examples/vllm_torch_harness.py              # hosts 127.0.0.1, 127.0.0.2
    .bench/torch-venv/bin/python examples/vllm_torch_harness.py --hosts netns  # network namespaces (root)

It starts the cluster itself (head on host 1, host 2 joins with the head's token), runs
the driver (this file with ``--driver``) on host 1, kills host 2, checks that nothing is
left, and prints one ``@@RESULT {...}`` line. ``--driver`` alone runs the vLLM sequence
against the cluster of ``RAY_TMPDIR`` and waits (``HARNESS_RUN_S``, default 120 s) for the
caller to take a host down.

The driver's steps, in vLLM's order (vllm.v1.executor.ray_executor_v2 and ray_utils; docs/VLLM.md):
1. ray.init(); PACK placement group of {"GPU": 1} bundles; ray.wait([pg.ready()], timeout)
   in a loop; bundles ordered driver's node first (placement_group_table, ray.nodes());
2. one actor per bundle: num_cpus=0, num_gpus=1, PlacementGroupSchedulingStrategy,
   runtime_env env_vars with RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1, a name;
3. get_node_and_physical_gpu_ids on all (get_runtime_context().get_node_id(),
   get_accelerator_ids()["GPU"]); create_dist_init_method on actor 0 (TCPStore on
   ray.util.get_node_ip_address(), port 0, multi_tenant); initialize_worker on all at
   once (init_process_group over gloo; the driver's environment forwarded as vLLM does);
   all_reduce, checked; wait_for_init;
4. run() on all; a monitor thread loops ray.wait(run_refs, num_returns=1, timeout=5.0)
   while the main thread keeps using the API;
5. (the orchestrator kills host 2) the monitor's first done ref must be a RayActorError;
6. shutdown: ray.kill on each actor; then ray.get(actor.m.remote(), timeout=5) must raise
   RayActorError.
"""
from __future__ import annotations

import argparse
import contextlib
import fcntl
import json
import os
import queue
import signal
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
GPUS_PER_HOST = 2
DETECT_WITHIN_S = 5.0
HEALTHY_S = float(os.environ.get("HARNESS_HEALTHY_S", "5.5"))


def emit(tag, obj=None):
    sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


# ------------------------------------------------------------------------------ worker


def interface_of(ip: str) -> str | None:
    """The network interface that holds ``ip`` (what GLOO_SOCKET_IFNAME must name);
    ``lo`` for any 127.x address (Linux routes all of 127/8 to it)."""
    if ip.startswith("127."):
        return "lo"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        for _, name in socket.if_nameindex():
            try:
                packed = fcntl.ioctl(s.fileno(), 0x8915,  # SIOCGIFADDR
                                     struct.pack("256s", name.encode()[:15]))
            except OSError:
                continue
            if socket.inet_ntoa(packed[20:24]) == ip:
                return name
    return None


class HarnessWorker:
    """Stands in for vLLM's RayWorkerProc: the same Ray-facing methods, torch inside."""

    def __init__(self, rank: int, world_size: int):
        # Like RayWorkerProc.__init__: cheap; device and distributed init come later.
        self.rank = rank
        self.world_size = world_size
        self.stop = threading.Event()

    def get_node_and_physical_gpu_ids(self):
        import ray

        ctx = ray.get_runtime_context()
        return ctx.get_node_id(), [int(x) for x in ctx.get_accelerator_ids()["GPU"]]

    def environment(self):
        import ray

        keys = ("CUDA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES",
                "VLLM_HARNESS_FLAG")
        return {"env": {k: os.environ.get(k) for k in keys}, "pid": os.getpid(),
                "ip": ray.util.get_node_ip_address(), "gpu_ids": ray.get_gpu_ids()}

    def create_dist_init_method(self) -> str:
        # vLLM: vllm/v1/executor/ray_executor_v2.py RayWorkerProc.create_dist_init_method
        import ray
        from torch.distributed import TCPStore

        host = ray.util.get_node_ip_address()
        store = TCPStore(host_name=host, port=0, world_size=self.world_size, is_master=True,
                         wait_for_workers=False, multi_tenant=True)
        self._dist_init_store = store  # kept alive until init_process_group reuses it
        return f"tcp://{host}:{store.port}"

    def initialize_worker(self, local_rank: int, env_vars: dict, distributed_init_method: str,
                          driver_env_vars: dict | None = None,
                          assigned_physical_gpu_ids: list | None = None) -> dict:
        # vLLM applies the driver's environment with setdefault, then env_vars, then
        # WorkerProc.__init__ -> init_distributed_environment -> init_process_group.
        import ray
        import torch.distributed as dist

        for k, v in (driver_env_vars or {}).items():
            os.environ.setdefault(k, v)
        os.environ.update(env_vars)
        ip = ray.util.get_node_ip_address()
        if "GLOO_SOCKET_IFNAME" not in os.environ:  # what a user sets per host for vLLM
            iface = interface_of(ip)
            if iface:
                os.environ["GLOO_SOCKET_IFNAME"] = iface
        self.local_rank = local_rank
        t0 = time.time()
        dist.init_process_group("gloo", init_method=distributed_init_method,
                                rank=self.rank, world_size=self.world_size)
        return {"rank": self.rank, "local_rank": local_rank, "ip": ip,
                "ifname": os.environ.get("GLOO_SOCKET_IFNAME"),
                "init_s": round(time.time() - t0, 3),
                "assigned_physical_gpu_ids": assigned_physical_gpu_ids}

    def all_reduce(self) -> list:
        import torch
        import torch.distributed as dist

        t = torch.tensor([float(self.rank + 1), 1.0])
        dist.all_reduce(t)
        return t.tolist()

    def wait_for_init(self) -> dict:
        return {"status": "READY", "rank": self.rank}

    def run(self):
        """Blocks for the life of the engine, like vLLM's worker busy loop."""
        while not self.stop.wait(0.05):
            pass
        return "stopped"

    def ping(self):
        return "pong"


# ------------------------------------------------------------------------------ driver


def driver_main() -> int:
    import ray
    from ray.util.placement_group import placement_group, placement_group_table
    from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

    t0 = time.time()
    ray.init()
    world_size = int(ray.cluster_resources().get("GPU", 0))
    emit("CLUSTER", {"nodes": [(n["NodeManagerAddress"], n["Resources"].get("GPU"))
                               for n in ray.nodes() if n["Alive"]], "world_size": world_size})
    pg = placement_group([{"GPU": 1.0}] * world_size, strategy="PACK")
    waited = 0
    while True:
        ready, _ = ray.wait([pg.ready()], timeout=10)
        if ready:
            break
        waited += 10
        emit("PG_WAITING", waited)
    table = placement_group_table(pg)
    driver_node = ray.get_runtime_context().get_node_id()
    node_ip = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    bundles = [(i, table["bundles_to_node_id"][i]) for i, b in enumerate(pg.bundle_specs)
               if b.get("GPU")]
    bundles.sort(key=lambda b: (0 if b[1] == driver_node else 1, b[1]))

    remote = ray.remote(HarnessWorker)
    env_vars = {"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "VLLM_HARNESS_FLAG": "on"}
    workers = []
    for rank, (bundle_index, _) in enumerate(bundles):
        workers.append(remote.options(
            name=f"harness_TP{rank}_{os.getpid()}", num_cpus=0, num_gpus=1,
            scheduling_strategy=PlacementGroupSchedulingStrategy(
                placement_group=pg, placement_group_bundle_index=bundle_index),
            runtime_env={"env_vars": env_vars},
        ).remote(rank, world_size))

    ids = ray.get([w.get_node_and_physical_gpu_ids.remote() for w in workers])
    envs = ray.get([w.environment.remote() for w in workers])
    by_node: dict = {}
    for i, (node_id, gpus) in enumerate(ids):
        assert node_id == bundles[i][1], f"worker {i} on {node_id}, its bundle on {bundles[i][1]}"
        assert len(gpus) == 1, f"worker {i} got GPUs {gpus}"
        by_node.setdefault(node_id, []).extend(gpus)
    for node_id, gpus in by_node.items():
        assert len(set(gpus)) == len(gpus), f"GPU ids shared on node {node_id}: {gpus}"
    for i, e in enumerate(envs):
        assert e["ip"] == node_ip[bundles[i][1]], f"worker {i} at {e['ip']}, its node at {node_ip[bundles[i][1]]}"
        assert e["env"]["CUDA_VISIBLE_DEVICES"] is None, f"NOSET ignored: {e}"
        assert e["env"]["VLLM_HARNESS_FLAG"] == "on", e
    emit("PLACED", {"workers": [{"rank": r, "ip": e["ip"], "pid": e["pid"], "gpu_ids": e["gpu_ids"]}
                                for r, e in enumerate(envs)]})

    init_method = ray.get(workers[0].create_dist_init_method.remote())
    driver_env = {k: v for k, v in os.environ.items() if k.startswith(("GLOO_", "NCCL_", "VLLM_"))}
    refs = []
    for i, (node_id, _) in enumerate(ids):
        local_rank = [j for j, (n, _) in enumerate(ids) if n == node_id].index(i)
        refs.append(workers[i].initialize_worker.remote(
            local_rank, {}, init_method, driver_env,
            assigned_physical_gpu_ids=sorted(by_node[node_id])))
    inits = ray.get(refs, timeout=120)
    sums = ray.get([w.all_reduce.remote() for w in workers], timeout=60)
    expected = [float(world_size * (world_size + 1) // 2), float(world_size)]
    assert all(s == expected for s in sums), f"all_reduce gave {sums}, expected {expected}"
    ready = ray.get([w.wait_for_init.remote() for w in workers])
    assert [r["status"] for r in ready] == ["READY"] * world_size, ready
    emit("INITIALIZED", {"init_method": init_method, "inits": inits, "all_reduce": sums[0],
                         "setup_s": round(time.time() - t0, 3)})

    run_refs = [w.run.remote() for w in workers]
    rank_of = {r: i for i, r in enumerate(run_refs)}
    seen: dict = {}
    empty_waits = [0]

    def monitor():  # vLLM's RayExecutorV2.start_worker_monitor loop
        while ray.is_initialized() and not seen:
            try:
                done, _ = ray.wait(run_refs, num_returns=1, timeout=5.0)
            except Exception as e:  # noqa: BLE001
                seen.update(at=time.time(), error=f"ray.wait raised {e!r}")
                return
            if not done:
                empty_waits[0] += 1
                continue
            at = time.time()
            try:
                value = ray.get(done[0], timeout=5)
                seen.update(at=at, rank=rank_of[done[0]], error=None, value=value)
            except Exception as e:  # noqa: BLE001
                seen.update(at=at, rank=rank_of[done[0]], type=type(e).__name__,
                            actor_error=isinstance(e, ray.exceptions.RayActorError),
                            error=str(e).strip().splitlines()[-1][:300])

    watcher = threading.Thread(target=monitor, name="RayWorkerMonitor", daemon=True)
    watcher.start()
    emit("RUNNING", {"pids": [e["pid"] for e in envs], "ips": [e["ip"] for e in envs]})
    # The main thread keeps using the API while the monitor waits (vLLM's engine does).
    polls = 0
    deadline = time.time() + float(os.environ.get("HARNESS_RUN_S", "120"))
    while watcher.is_alive() and time.time() < deadline:
        ray.nodes()
        polls += 1
        time.sleep(0.1)
    watcher.join(timeout=1)
    emit("DETECTED", dict(seen, main_thread_polls=polls, empty_waits=empty_waits[0]))

    t_kill = time.time()
    for w in workers:
        ray.kill(w)
    after_kill = []
    for i, w in enumerate(workers):
        try:
            ray.get(w.ping.remote(), timeout=5)
            after_kill.append({"rank": i, "error": None})
        except Exception as e:  # noqa: BLE001
            after_kill.append({"rank": i, "type": type(e).__name__,
                               "actor_error": isinstance(e, ray.exceptions.RayActorError)})
    ray.util.remove_placement_group(pg)
    ray.shutdown()
    emit("SHUTDOWN", {"after_kill": after_kill, "shutdown_s": round(time.time() - t_kill, 3),
                      "total_s": round(time.time() - t0, 3)})
    return 0


# ------------------------------------------------------------------------------ orchestrator


def _hosts(kind):
    sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))
    import netns  # the e2e suite's hosts: namespaces on a bridge, or 127.0.0.x on lo

    return netns.make_hosts(kind, 2)


def _clean_env(temp_dir=None, **extra):
    env = dict(os.environ)
    for k in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE",
              "CUDA_VISIBLE_DEVICES", "RAY_TMPDIR"):
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    if temp_dir:
        env["RAY_TMPDIR"] = temp_dir
    env.update(extra)
    return env


def run_scenario(kind="loopback", python=sys.executable, log=print, failure="kill") -> dict:
    """Start a 2-host cluster on ``kind`` hosts, run the driver on host 1, take host 2 down
    once the run() calls are watched (``failure``: "kill" SIGKILLs its daemon and every
    process on it; "cut" takes its network link down, namespaces only, so the head hears
    silence instead of a closed socket), stop everything. Returns what happened
    (``checks`` lists every failed expectation; empty means it all held)."""
    ray_bin = os.path.join(os.path.dirname(python), "ray")
    hosts = _hosts(kind)
    result: dict = {"kind": kind, "failure": failure, "checks": []}
    check = result["checks"]
    driver = None
    try:
        h1, h2 = hosts[0], hosts[1]
        for h in hosts:
            h.temp_dir = tempfile.mkdtemp(prefix=f"beam-vllm-{h.name}-")
        ip_flag = (lambda h: ["--node-ip-address", h.ip]) if kind == "loopback" else (lambda h: [])
        port = "0" if kind == "loopback" else "6379"
        t = time.time()
        done = h1.run([ray_bin, "start", "--head", "--num-gpus", str(GPUS_PER_HOST), "--num-cpus", "2",
                       "--port", port, "--temp-dir", h1.temp_dir, *ip_flag(h1)], env=_clean_env())
        if done.returncode != 0:
            raise RuntimeError(f"ray start --head failed: {done.stderr}{done.stdout}")
        session = os.path.join(h1.temp_dir, "session_latest")
        with open(os.path.join(session, "node.json")) as f:
            address = json.load(f)["address"]
        with open(os.path.join(session, "auth_token")) as f:
            token = f.read().strip()
        done = h2.run([ray_bin, "start", "--address", address, "--num-gpus", str(GPUS_PER_HOST),
                       "--num-cpus", "2", "--temp-dir", h2.temp_dir, *ip_flag(h2)],
                      env=_clean_env(RAY_AUTH_TOKEN=token))
        if done.returncode != 0:
            raise RuntimeError(f"ray start --address {address} failed: {done.stderr}{done.stdout}")
        with open(os.path.join(h2.temp_dir, "session_latest", "node.json")) as f:
            h2_daemon = int(json.load(f)["pid"])
        result["cluster_start_s"] = round(time.time() - t, 3)
        log(f"cluster up in {result['cluster_start_s']} s: head {address} ({h1}), joined {h2}")

        err = tempfile.TemporaryFile(mode="w+")
        driver = h1.popen([python, "-u", os.path.abspath(__file__), "--driver"], cwd=ROOT,
                          env=_clean_env(h1.temp_dir), stdout=subprocess.PIPE, stderr=err, text=True)
        lines: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [lines.put(x) for x in driver.stdout] + [lines.put(None)],
                         daemon=True).start()
        events: dict = {}

        def wait_for(tag, within):
            end = time.time() + within
            while tag not in events:
                try:
                    line = lines.get(timeout=max(0.0, end - time.time()))
                except queue.Empty:
                    line = None
                if line is None:
                    err.seek(0)
                    raise RuntimeError(f"driver: no @@{tag} within {within} s (exit {driver.poll()}); "
                                       f"events {list(events)}; stderr tail: {err.read()[-3000:]}")
                if line.startswith("@@"):
                    name, _, rest = line[2:].partition(" ")
                    events[name] = json.loads(rest)
                    log(f"driver: {line.strip()[:400]}")
            return events[tag]

        wait_for("RUNNING", 120)
        # Let the monitor's ray.wait(timeout=5) time out once (the quiet path) while the
        # driver's main thread keeps calling the API, then take host 2 down.
        time.sleep(HEALTHY_S)
        h2_workers = [p for p in h2.pids() if p != h2_daemon]
        killed_at = time.time()
        if failure == "cut":
            h2.cut()  # no FIN, no RST: only heartbeats can tell
            detected = wait_for("DETECTED", 30)
            # Cut off from the head, host 2's daemon stops its actors and exits by itself.
            end = time.time() + 10
            while time.time() < end and h2.pids():
                time.sleep(0.1)
            result["host2_left_10s_after_cut"] = h2.pids()
            if h2.pids():
                check.append(f"host 2, cut off, still runs {h2.pids()} 10 s later")
            killed = h2.kill_all()
        else:
            killed = h2.kill_all()  # the daemon and every process on host 2 (SIGKILL)
            detected = wait_for("DETECTED", 30)
        result["host2_killed_pids"] = killed
        result["detected"] = detected
        latency = detected.get("at", float("inf")) - killed_at
        result["detect_s"] = round(latency, 3)
        log(f"monitor saw host 2 lost {latency:.3f} s after the {failure}: {detected.get('error')}")
        if not detected.get("actor_error"):
            check.append(f"the monitor's done ref was not a RayActorError: {detected}")
        if latency > DETECT_WITHIN_S:
            check.append(f"host loss seen after {latency:.2f} s (> {DETECT_WITHIN_S} s)")
        if detected.get("main_thread_polls", 0) < 1:
            check.append("the main thread made no API call while the monitor waited")
        if HEALTHY_S > 5 and detected.get("empty_waits", 0) < 1:
            check.append(f"ray.wait(timeout=5) never returned empty while all workers ran: {detected}")
        if not h2_workers or (failure == "kill" and h2_daemon not in killed):
            check.append(f"host 2: daemon {h2_daemon}, workers {h2_workers}, killed {killed}")
        shut = wait_for("SHUTDOWN", 60)
        result["shutdown"] = shut
        bad = [a for a in shut["after_kill"] if not a.get("actor_error")]
        if bad:
            check.append(f"calls after ray.kill did not raise RayActorError: {bad}")
        result["initialized"] = events.get("INITIALIZED")
        result["placed"] = events.get("PLACED")
        driver.wait(timeout=30)
        if driver.returncode != 0:
            err.seek(0)
            check.append(f"driver exit {driver.returncode}: {err.read()[-3000:]}")
        placed_ips = sorted({w["ip"] for w in (events.get("PLACED") or {}).get("workers", [])})
        if placed_ips != sorted({h1.ip, h2.ip}):
            check.append(f"workers were placed on {placed_ips}, not on both hosts")
        # Nothing of the workload may stay: host 1's actors were ray.kill'ed.
        end = time.time() + 5
        while time.time() < end and _workers_of(h1):
            time.sleep(0.05)
        if _workers_of(h1):
            check.append(f"host 1 still runs actor workers 5 s after ray.kill: {_workers_of(h1)}")
        if h2.pids():
            check.append(f"host 2 still runs {h2.pids()}")
        done = h1.run([ray_bin, "stop", "--temp-dir", h1.temp_dir], env=_clean_env())
        end = time.time() + 10
        while time.time() < end and h1.pids():
            time.sleep(0.05)
        if h1.pids():
            check.append(f"host 1 still runs {h1.pids()} after ray stop")
        return result
    except BaseException as e:
        check.append(f"{type(e).__name__}: {e}")
        return result
    finally:
        if driver is not None and driver.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(driver.pid, signal.SIGKILL)
        for h in hosts:
            if h.temp_dir:
                with contextlib.suppress(Exception):
                    h.run([ray_bin, "stop", "--force", "--temp-dir", h.temp_dir], env=_clean_env(), timeout=30)
        with contextlib.suppress(Exception):
            hosts.teardown()
        if os.environ.get("BEAM_E2E_KEEP") != "1":
            import shutil

            for h in hosts:
                if h.temp_dir:
                    shutil.rmtree(h.temp_dir, ignore_errors=True)


def _workers_of(host):
    """The host's actor workers; idle pooled ones (named ``beam-idle`` until they take on an
    actor, beam.node.WorkerPool) are the node's standby, not actors."""
    out = []
    for pid in host.pids():
        with contextlib.suppress(OSError):
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                if b"ray._beam.worker" not in f.read():
                    continue
            with open(f"/proc/{pid}/comm") as f:
                if f.read().strip() != "beam-idle":
                    out.append(pid)
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--driver", action="store_true", help="only the driver, against RAY_TMPDIR's cluster")
    ap.add_argument("--hosts", choices=("loopback", "netns"), default="loopback")
    ap.add_argument("--failure", choices=("kill", "cut"), default="kill",
                    help="how host 2 goes down (cut: its link goes down; needs --hosts netns)")
    args = ap.parse_args()
    if args.driver:
        return driver_main()
    if args.failure == "cut" and args.hosts != "netns":
        ap.error("--failure cut needs --hosts netns")
    result = run_scenario(args.hosts, log=lambda m: print(m, file=sys.stderr, flush=True),
                          failure=args.failure)
    emit("RESULT", result)
    if result["checks"]:
        print("FAILED:\n  " + "\n  ".join(result["checks"]), file=sys.stderr)
        return 1
    print(f"ok: {len(result['placed']['workers'])} workers on 2 hosts, gloo all_reduce = "
          f"{result['initialized']['all_reduce']}, host {args.failure} seen in {result['detect_s']} s",
          file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
