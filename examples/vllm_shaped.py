"""A vLLM-shaped workload: the call sequence of vLLM's RayExecutorV2, without vLLM.

Run it against a running cluster with declared GPUs (`./dev demo` does everything):

    ray start --head --num-gpus 4
    python examples/vllm_shaped.py

What it does, in vLLM's order (vllm.v1.executor.ray_executor_v2 and ray_utils; docs/VLLM.md):
1. ray.init(), a PACK placement group of one {"GPU": 1} bundle per worker, waited on
   with ray.wait([pg.ready()], timeout=...) in a loop;
2. reads placement_group_table(pg) and ray.nodes() to order bundles, driver's node first;
3. one actor per bundle with num_cpus=0, num_gpus=1, a PlacementGroupSchedulingStrategy
   and runtime_env env vars including RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES=1;
4. setup calls on all actors in parallel: node and GPU ids, a rendezvous that actor 0
   hosts on its node IP (as torch's TCPStore would) which every actor joins concurrently,
   then an all-reduce of the ranks over it, checked;
5. a long-running run() on every actor watched by a monitor thread with
   ray.wait(run_refs, num_returns=1, timeout=5);
6. one worker is killed: the monitor must see its run() ref fail with RayActorError;
7. shutdown with ray.kill.
"""
import os
import socket
import sys
import threading
import time

import ray
from ray.util.placement_group import placement_group, placement_group_table
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

WORLD_SIZE = int(os.environ.get("BEAM_DEMO_WORKERS", "4"))


class Worker:
    """Stands in for vLLM's RayWorkerProc."""

    def __init__(self, rank: int):
        self.rank = rank
        self.stop = threading.Event()

    def get_node_and_physical_gpu_ids(self):
        ctx = ray.get_runtime_context()
        return ctx.get_node_id(), [int(g) for g in ctx.get_accelerator_ids()["GPU"]]

    def environment(self):
        return {k: os.environ.get(k) for k in ("CUDA_VISIBLE_DEVICES", "RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES",
                                               "VLLM_DEMO_FLAG")}

    def create_dist_init_method(self):
        """Actor 0 opens a listening socket on its node IP, like torch's TCPStore."""
        ip = ray.util.get_node_ip_address()
        self.store = socket.create_server((ip, 0))
        self.store.listen(WORLD_SIZE)
        return f"tcp://{ip}:{self.store.getsockname()[1]}"

    def initialize_worker(self, init_method: str, world_size: int):
        """Every rank joins the rendezvous concurrently; rank 0 sums the ranks and broadcasts."""
        host, port = init_method[len("tcp://"):].rsplit(":", 1)
        if self.rank == 0:
            peers = [self.store.accept()[0] for _ in range(world_size - 1)]
            total = self.rank + sum(int(p.recv(64).decode()) for p in peers)
            for p in peers:
                p.sendall(str(total).encode())
                p.close()
            return total
        with socket.create_connection((host, int(port)), timeout=30) as s:
            s.sendall(str(self.rank).encode())
            return int(s.recv(64).decode())

    def run(self):
        """Blocks for the life of the engine, like vLLM's worker busy loop."""
        while not self.stop.wait(0.05):
            pass
        return "stopped"

    def pid(self):
        return os.getpid()


def main() -> int:
    t0 = time.time()
    ray.init()
    pg = placement_group([{"GPU": 1.0}] * WORLD_SIZE, strategy="PACK")
    while True:
        ready, _ = ray.wait([pg.ready()], timeout=10)
        if ready:
            break
        print("waiting for the placement group...", file=sys.stderr)
    table = placement_group_table(pg)
    driver_node = ray.get_runtime_context().get_node_id()
    alive = {n["NodeID"]: n["NodeManagerAddress"] for n in ray.nodes() if n["Alive"]}
    bundles = sorted(table["bundles_to_node_id"].items(), key=lambda kv: kv[1] != driver_node)
    print(f"placement group {pg.id.hex()} placed on {sorted(set(alive[n] for _, n in bundles))}")

    remote_worker = ray.remote(Worker)
    workers = []
    for rank, (bundle_index, _) in enumerate(bundles):
        workers.append(remote_worker.options(
            num_cpus=0, num_gpus=1,
            scheduling_strategy=PlacementGroupSchedulingStrategy(
                placement_group=pg, placement_group_bundle_index=int(bundle_index)),
            runtime_env={"env_vars": {"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1", "VLLM_DEMO_FLAG": "on"}},
        ).remote(rank))

    ids = ray.get([w.get_node_and_physical_gpu_ids.remote() for w in workers])
    gpus = sorted((node, g) for node, gs in ids for g in gs)  # GPU ids are per node (several hosts: Slurm)
    assert len(gpus) == WORLD_SIZE and len(set(gpus)) == WORLD_SIZE, f"each worker must own one GPU: {ids}"
    envs = ray.get([w.environment.remote() for w in workers])
    assert all(e["VLLM_DEMO_FLAG"] == "on" and e["RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES"] == "1" for e in envs), envs
    init_method = ray.get(workers[0].create_dist_init_method.remote())
    totals = ray.get([w.initialize_worker.remote(init_method, WORLD_SIZE) for w in workers])
    expected = sum(range(WORLD_SIZE))
    assert totals == [expected] * WORLD_SIZE, f"all-reduce gave {totals}, expected {expected}"
    print(f"{WORLD_SIZE} workers ready in {time.time() - t0:.2f} s; GPUs {[(n[:8], g) for n, g in gpus]}; "
          f"rendezvous at {init_method}; "
          f"all-reduce = {totals[0]}")

    victim_pid = ray.get(workers[-1].pid.remote())
    run_refs = [w.run.remote() for w in workers]
    failure = {}

    def monitor():
        while ray.is_initialized() and not failure:
            done, _ = ray.wait(run_refs, num_returns=1, timeout=5.0)
            if done:
                try:
                    ray.get(done[0])
                    failure["ref"] = "finished"
                except ray.exceptions.RayActorError as e:
                    failure["ref"] = e
                failure["at"] = time.time()

    watcher = threading.Thread(target=monitor, daemon=True)
    watcher.start()
    killed_at = time.time()
    os.kill(victim_pid, 9)
    watcher.join(timeout=10)
    assert isinstance(failure.get("ref"), ray.exceptions.RayActorError), f"monitor saw {failure}"
    print(f"monitor saw worker {WORLD_SIZE - 1} die {failure['at'] - killed_at:.3f} s after SIGKILL:")
    print("    " + str(failure["ref"]).splitlines()[-1])
    for w in workers:
        ray.kill(w)
    ray.util.remove_placement_group(pg)
    ray.shutdown()
    print(f"done in {time.time() - t0:.2f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
