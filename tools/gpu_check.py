"""The GPU checks of tools/gpu_check.sh, run as a driver against a beam head it started.

    python tools/gpu_check.py [--fake]

One line per check (PASS/FAIL name: detail), then a total; exit 1 if any failed. With a
GPU: the daemon's telemetry sample must match what nvidia-smi prints for the same query and
show in `ray status`; torch allocates on the device each actor was given, NCCL all-reduces over every GPU
through a TCPStore opened by actor 0 on its node IP, and a SIGKILLed worker's memory must
come back (nvidia-smi). --fake (CI, no GPU): the daemon sees GPUs of a fake device tree
and a fake nvidia-smi (set up by gpu_check.sh), allocations are host memory, and the
all-reduce is a sum over a TCP rendezvous opened the same way; every scheduling, id,
visibility, death and timing check is the real one.
"""
import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time

import ray
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

DEADLINE_S = 300  # the whole check must finish in 5 minutes
GET_TIMEOUT_S = 120
MIB = 1 << 20
FAKE = False  # set from --fake in main()


@ray.remote(num_cpus=0)
class GpuWorker:
    def __init__(self, fake):
        self.fake = fake
        self.held = []

    def look(self):
        ids = ray.get_runtime_context().get_accelerator_ids()["GPU"]
        out = {"ids": ids, "cvd": os.environ.get("CUDA_VISIBLE_DEVICES"), "pid": os.getpid(),
               "ip": ray.util.get_node_ip_address()}
        if not self.fake:
            import torch

            out["device_count"] = torch.cuda.device_count()
            out["name"] = torch.cuda.get_device_name(0) if out["device_count"] else None
        return out

    def allocate(self, mib):
        """Holds ``mib`` MiB on the device this actor was given (cuda:0 of what it sees)."""
        if self.fake:
            self.held.append(bytearray(mib * MIB))
            return len(self.held[-1])
        import torch

        t = torch.ones(mib * MIB // 4, dtype=torch.float32, device="cuda:0")
        torch.cuda.synchronize()
        self.held.append(t)
        return int(t.numel() * 4)

    def open_rendezvous(self):
        """Actor 0's side of vLLM's create_dist_init_method: a store on its node IP, port 0."""
        ip = ray.util.get_node_ip_address()
        if self.fake:
            self.server = socket.create_server((ip, 0))
            return ip, self.server.getsockname()[1]
        from torch.distributed import TCPStore

        self.store = TCPStore(ip, 0, is_master=True, wait_for_workers=False)
        return ip, self.store.port

    def all_reduce(self, ip, port, rank, world):
        if self.fake:
            return _fake_all_reduce(self, ip, port, rank, world)
        import torch
        import torch.distributed as dist

        store = self.store if rank == 0 else dist.TCPStore(ip, port, is_master=False)
        dist.init_process_group("nccl", store=store, rank=rank, world_size=world)
        t = torch.tensor([float(rank + 1)], device="cuda:0")
        dist.all_reduce(t)
        torch.cuda.synchronize()
        value = t.item()
        dist.destroy_process_group()
        return value


def _fake_all_reduce(worker, ip, port, rank, world):
    """Sum of rank+1 over every actor through actor 0's listening socket (no torch)."""
    mine = rank + 1
    if rank == 0:
        peers, total = [], mine
        worker.server.settimeout(GET_TIMEOUT_S)
        for _ in range(world - 1):
            conn, _ = worker.server.accept()
            total += int(conn.recv(64).decode())
            peers.append(conn)
        for conn in peers:
            conn.sendall(str(total).encode())
            conn.close()
        return float(total)
    with socket.create_connection((ip, port), timeout=GET_TIMEOUT_S) as s:
        s.sendall(str(mine).encode())
        return float(s.recv(64).decode())


def nvidia_smi(*args):
    done = subprocess.run(["nvidia-smi", *args], capture_output=True, text=True, timeout=60)
    return done.stdout.strip().splitlines() if done.returncode == 0 else []


TELEMETRY_QUERY = ("--query-gpu=index,uuid,name,utilization.gpu,memory.used,memory.total",
                   "--format=csv,noheader,nounits")


def ray_cli(*args):
    """`ray ARGS` against this check's cluster (gpu_check.sh exports RAY_TMPDIR)."""
    temp = ["--temp-dir", os.environ["RAY_TMPDIR"]] if os.environ.get("RAY_TMPDIR") else []
    done = subprocess.run([shutil.which("ray") or "ray", *args, *temp], capture_output=True, text=True, timeout=60)
    expect(done.returncode == 0, f"ray {' '.join(args)} failed: {done.stderr[-500:]}")
    return done.stdout


def gpu_memory_used_mib(gpu_id):
    lines = nvidia_smi("--query-gpu=memory.used", "--format=csv,noheader,nounits", "-i", str(gpu_id))
    return int(lines[0]) if lines else None


class Report:
    def __init__(self):
        self.failed = 0
        self.t0 = time.monotonic()

    def check(self, name, fn):
        t = time.monotonic()
        try:
            detail = fn()
            print(f"PASS {name}: {detail} ({time.monotonic() - t:.1f} s)", flush=True)
        except Exception as e:  # one failed check must not hide the others
            self.failed += 1
            print(f"FAIL {name}: {type(e).__name__}: {e} ({time.monotonic() - t:.1f} s)", flush=True)


def expect(cond, message):
    if not cond:
        raise AssertionError(message)


def main():
    global FAKE
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fake", action="store_true", help="no GPU: fake device tree, host memory, socket sum")
    FAKE = ap.parse_args().fake
    ray.init(address="auto")
    report = Report()
    smi = [line for line in nvidia_smi("-L") if line.startswith("GPU ")]
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    want = len([v for v in visible.split(",") if v.strip()]) if visible is not None else len(smi)
    n = int(ray.cluster_resources().get("GPU", 0))

    def detect():
        where = f"CUDA_VISIBLE_DEVICES={visible}" if visible is not None else "nvidia-smi -L"
        expect(n == want and n > 0, f"beam sees {n} GPUs, {where} names {want}")
        types = sorted(k.split(":", 1)[1] for k in ray.cluster_resources() if k.startswith("accelerator_type:"))
        # the model comes from the driver's /proc files or nvidia-smi; a container may hide both
        expect(all(t in " ".join(smi) for t in types), f"beam's model {types} is not in {smi}")
        return f"{n} GPUs as {where} names them, model {types or 'not named'}"

    def telemetry():
        # what nvidia-smi prints here for the query the daemon runs, against what the head shows
        rows = [[f.strip() for f in line.split(",")] for line in nvidia_smi(*TELEMETRY_QUERY)]
        expect(rows and all(len(r) == 6 for r in rows), f"nvidia-smi's telemetry query printed {rows}")
        if visible is not None:  # the node keeps the GPUs it was started with, by index or UUID
            ids = {v.strip() for v in visible.split(",")}
            rows = [r for r in rows if r[0] in ids or r[1] in ids] or rows
        deadline = time.monotonic() + 15  # the first sample is taken at start, then every 5 s
        while True:
            head = [x for x in json.loads(ray_cli("status", "--json"))["nodes"] if x.get("IsHead")][0]
            t = head.get("BeamTelemetry") or {}
            if t.get("devices") or t.get("problem") or time.monotonic() > deadline:
                break
            time.sleep(0.5)
        expect(not t.get("problem"), f"the daemon's sample failed: {t.get('problem')}")
        got = {d["index"]: d for d in t.get("devices", [])}
        expect(sorted(got) == sorted(r[0] for r in rows), f"beam sampled devices {sorted(got)}, nvidia-smi lists "
               f"{[r[0] for r in rows]}")
        for r in rows:
            d = got[r[0]]
            expect(d["uuid"] == r[1] and d["name"] == r[2] and d["memory_total_mib"] == int(r[5]),
                   f"GPU {r[0]}: beam read {d}, nvidia-smi printed {r}")
        shown = ray_cli("status").split("Accelerator telemetry", 1)
        first = rows[0]
        expect(len(shown) == 2 and f" GPU {first[0]} {first[2]}: " in shown[1], f"ray status does not show GPU {first[0]}")
        d = got[first[0]]
        return (f"{len(got)} GPUs sampled by {t['tool']}; GPU {first[0]} {d['utilization_gpu']}% busy, "
                f"{d['memory_used_mib']}/{d['memory_total_mib']} MiB, as ray status shows")

    def one_gpu():
        a = GpuWorker.options(num_gpus=1).remote(FAKE)
        look = ray.get(a.look.remote(), timeout=GET_TIMEOUT_S)
        expect(len(look["ids"]) == 1 and look["cvd"] == look["ids"][0], f"ids/visibility: {look}")
        if not FAKE:
            expect(look["device_count"] == 1, f"torch sees {look['device_count']} devices, want 1")
        got = ray.get(a.allocate.remote(256), timeout=GET_TIMEOUT_S)
        ray.kill(a)
        return f"GPU {look['ids']} ({look.get('name') or 'fake'}), CUDA_VISIBLE_DEVICES={look['cvd']}, {got // MIB} MiB allocated"

    def halves():
        pair = [GpuWorker.options(num_gpus=0.5).remote(FAKE) for _ in range(2)]
        looks = ray.get([a.look.remote() for a in pair], timeout=GET_TIMEOUT_S)
        expect(looks[0]["ids"] == looks[1]["ids"] and len(looks[0]["ids"]) == 1, f"not one shared GPU: {looks}")
        sizes = ray.get([a.allocate.remote(128) for a in pair], timeout=GET_TIMEOUT_S)
        for a in pair:
            ray.kill(a)
        return f"both on GPU {looks[0]['ids']}, each allocated {sizes[0] // MIB} MiB"

    def noset():
        env = {"RAY_EXPERIMENTAL_NOSET_CUDA_VISIBLE_DEVICES": "1"}
        a = GpuWorker.options(num_gpus=1, runtime_env={"env_vars": env}).remote(FAKE)
        look = ray.get(a.look.remote(), timeout=GET_TIMEOUT_S)
        ray.kill(a)
        expect(look["cvd"] == os.environ.get("CUDA_VISIBLE_DEVICES"), f"CUDA_VISIBLE_DEVICES was set: {look}")
        expect(len(look["ids"]) == 1, f"no id reported: {look}")
        if not FAKE:
            expect(look["device_count"] == n, f"torch sees {look['device_count']} of {n} GPUs")
        return f"CUDA_VISIBLE_DEVICES left {look['cvd']!r}, ids still {look['ids']}"

    def all_reduce():
        pg = placement_group([{"GPU": 1}] * n, strategy="PACK")
        ray.get(pg.ready(), timeout=GET_TIMEOUT_S)
        actors = [GpuWorker.options(num_gpus=1, scheduling_strategy=PlacementGroupSchedulingStrategy(
            placement_group=pg, placement_group_bundle_index=i)).remote(FAKE) for i in range(n)]
        ip, port = ray.get(actors[0].open_rendezvous.remote(), timeout=GET_TIMEOUT_S)
        # all at once, as vLLM's initialize_worker: a rendezvous waits for every rank
        sums = ray.get([a.all_reduce.remote(ip, port, r, n) for r, a in enumerate(actors)], timeout=GET_TIMEOUT_S)
        for a in actors:
            ray.kill(a)
        ray.util.remove_placement_group(pg)
        want = n * (n + 1) / 2
        expect(all(s == want for s in sums), f"all-reduce gave {sums}, want {want}")
        return f"{'socket sum' if FAKE else 'NCCL'} over {n} GPUs via a store on {ip}:{port}: {want:g} everywhere"

    def sigkill():
        a = GpuWorker.options(num_gpus=1).remote(FAKE)
        look = ray.get(a.look.remote(), timeout=GET_TIMEOUT_S)
        ray.get(a.allocate.remote(1024), timeout=GET_TIMEOUT_S)
        gpu = look["ids"][0]
        before = None if FAKE else gpu_memory_used_mib(gpu)
        os.kill(look["pid"], signal.SIGKILL)
        t = time.monotonic()
        try:
            ray.get(a.look.remote(), timeout=30)
            raise AssertionError("a call on the SIGKILLed worker returned")
        except ray.exceptions.RayActorError:
            dead_after = time.monotonic() - t
        freed = "process gone"
        if not FAKE:
            deadline = time.monotonic() + 30
            while time.monotonic() < deadline and gpu_memory_used_mib(gpu) > before - 900:
                time.sleep(0.2)
            after = gpu_memory_used_mib(gpu)
            expect(after <= before - 900, f"GPU {gpu} still uses {after} MiB (was {before} with 1 GiB held)")
            freed = f"GPU {gpu} memory {before} -> {after} MiB"
        else:
            expect(not os.path.exists(f"/proc/{look['pid']}"), "the killed worker still exists")
        return f"reported dead {dead_after:.2f} s after SIGKILL, {freed}"

    report.check("detect", detect)
    for name, fn in (("telemetry", telemetry), ("one_gpu_actor", one_gpu), ("half_gpus_share", halves), ("noset", noset),
                     ("all_reduce", all_reduce), ("sigkill_frees", sigkill)):
        if n == 0:
            report.check(name, lambda: expect(False, "no GPU detected: skipped"))
            continue
        report.check(name, fn)
    total = time.monotonic() - report.t0
    if total > DEADLINE_S:
        report.failed += 1
        print(f"FAIL total: {total:.1f} s, over {DEADLINE_S} s", flush=True)
    print(f"{'OK' if not report.failed else 'FAILED'}: {report.failed} failed, {total:.1f} s", flush=True)
    ray.shutdown()
    return 1 if report.failed else 0


if __name__ == "__main__":
    sys.exit(main())
