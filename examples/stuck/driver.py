"""A vLLM-shaped driver that gets stuck in the five ways docs/DIAGNOSE.md walks through.

Run by examples/stuck/run.sh on two loopback nodes (127.0.0.1, the head, and 127.0.0.2).
Each worker is a RayWorkerWrapper-like actor called through execute_method(name, ...), as
vLLM's executor does, so `ray list tasks` and `ray status` show the method's name as its label.
"""
import socket
import sys
import time

import ray
from ray.util.placement_group import placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

ray.init(address="auto")


@ray.remote(num_cpus=0, num_gpus=1)  # as vLLM creates its workers: a GPU bundle holds no CPU
class RayWorkerWrapper:
    def execute_method(self, method, *args):
        return getattr(self, method)(*args)

    def init_device(self, master):
        # torch.distributed's TCP store on a wrong interface: the connect never completes
        host, port = master.split(":")
        while True:
            try:
                socket.create_connection((host, int(port)), timeout=1).close()
                return "connected"
            except OSError:
                time.sleep(0.5)

    def load_model(self, seconds):
        print(f"loading weights ({seconds} s of shards)", flush=True)
        for shard in range(int(seconds)):
            time.sleep(1)
            print(f"shard {shard + 1}/{int(seconds)}", flush=True)
        return "loaded"


head_ip, member_ip = sys.argv[1], sys.argv[2]
# 1. Wrong interface: the head's worker waits for a rendezvous where no one listens (here a
# loopback port no one has bound; on real hosts, the other host's IP on the wrong interface).
closed = socket.socket()
closed.bind(("127.0.0.1", 0))
rendezvous = "127.0.0.1:%d" % closed.getsockname()[1]  # bound, never listening: refused
fast = RayWorkerWrapper.options(resources={f"node:{head_ip}": 0.001}).remote()
fast.execute_method.remote("init_device", rendezvous)
# 5. One host slow to load the model: the joined node's worker takes minutes.
slow = RayWorkerWrapper.options(resources={f"node:{member_ip}": 0.001}).remote()
slow.execute_method.remote("load_model", 600)
# 2. Node-IP mismatch: vLLM asks for node:<VLLM_HOST_IP>, and no node has that IP.
pg = placement_group([{"GPU": 1, "node:10.9.9.9": 0.001}], strategy="PACK", name="vllm-tp")
pinned = RayWorkerWrapper.options(scheduling_strategy=PlacementGroupSchedulingStrategy(pg)).remote()
print("STUCK", slow._actor_id.hex(), flush=True)
time.sleep(3600)
