"""`vllm serve` (real vLLM, CPU build) on a 2-host beam cluster, as a user runs it.

1. TP=2 across the hosts (`--distributed-executor-backend ray`): completions of token-id
   prompts equal the mp executor's offline greedy tokens; then, with a request in flight,
   host 2 is killed (every process, as a power loss) or, in network namespaces, its link is
   cut (silence, no FIN/RST): the server stops answering and exits within 10 s, and no vLLM
   process is left on either host.
2. Data parallel with the Ray backend, DP=2 x TP=1 (`--data-parallel-size 2
   --data-parallel-size-local 1 --data-parallel-backend ray`: an engine actor per rank,
   which creates its worker actor): both ranks answer requests (vLLM's per-engine
   Prometheus counters), and host 2's loss ends the server within 10 s.

Hosts: network namespaces when root can make them, else 127.0.0.1 / 127.0.0.2 (where a
link cannot be cut, that case is skipped). Needs .bench/vllm-venv (`./dev test` makes it).
"""

from __future__ import annotations

import os
import re
import sys
import time

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from _cluster import TwoHosts  # noqa: E402
from _serve import Server  # noqa: E402

TP2 = ["--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"]
DP2 = ["--tensor-parallel-size", "1", "--data-parallel-size", "2",
       "--data-parallel-size-local", "1", "--data-parallel-backend", "ray"]


def _cluster_for(devices_per_host=1):
    return TwoHosts(_cluster.host_kind(), _vllm.RAY_BIN,
                    start_args=[*_vllm.device_args(devices_per_host), "--num-cpus", "2"],
                    host_env=_vllm.host_env)


def _lose_host_2(cluster, server, how):
    """Kill or cut host 2 with a request in flight; assert the server is gone within 10 s
    and no vLLM process is left. Returns seconds until the server process exited."""
    h2 = cluster.h2
    h2_workers = [p for p in cluster.host_pids(h2) if p not in server.daemons]
    assert h2_workers, f"no vLLM process on host 2: {cluster.host_pids(h2)}"
    before = server.vllm_pids()
    load = server.start_load()
    time.sleep(1.5)  # mid-generation
    what = {"kill": "killed", "cut": "cut off (link down)"}[how]
    t0 = time.monotonic()
    if how == "kill":
        cluster.kill_host(h2)
    else:
        h2.cut()
    exited = server.wait_exit(t0, _vllm.EXIT_WITHIN_S)
    assert exited is not None, (f"`vllm serve` still running {_vllm.EXIT_WITHIN_S} s after "
                                f"host 2 was {what}: {server.tail()}")
    probe = _vllm.client(cluster.h1, "probe", server.url)
    assert probe["status"] is None, f"the server still answers after exiting: {probe}"
    print(f"\n`vllm serve` exited {exited:.2f} s after host 2 was {what} "
          f"(exit code {server.proc.returncode})")
    # Every process of the run ends: the server's tree on host 1, the workers on host 2
    # (killed, or stopped by their own daemon once it is cut off from the head).
    left = _cluster.wait_gone(before + [load.pid], 10)
    assert not left, f"processes left: {[(p, _cluster.cmdline(p)) for p in left]}"
    left = _cluster.wait_gone(server.vllm_pids(), 5)
    assert not left, f"processes left: {[(p, _cluster.cmdline(p)) for p in left]}"
    return exited


@pytest.mark.parametrize("how", ["kill", "cut"])
def test_serve_tp2_across_hosts(vllm_venv, model_dir, mp_tokens, how):
    cluster = _cluster_for()
    server = None
    try:
        if how == "cut" and not cluster.h2.can_cut:
            pytest.skip("loopback hosts: a link cannot be cut (needs network namespaces)")
        server = Server(cluster, model_dir, TP2)
        ready = server.wait_ready()
        tokens = server.complete()
        assert tokens == mp_tokens, f"vllm serve on beam: {tokens}\nmp executor: {mp_tokens}"
        print(f"\n`vllm serve` TP=2 ready {ready} s after its health endpoint was first polled")
        _lose_host_2(cluster, server, how)
    finally:
        if server:
            server.close()
        cluster.stop()


def _per_engine(metrics, name="vllm:request_success_total"):
    """{engine index: count} summed over the other labels of counter ``name``."""
    out = {}
    for line in metrics.splitlines():
        if line.startswith(name + "{"):
            engine = re.search(r'engine="(\d+)"', line)
            if engine:
                out[engine.group(1)] = out.get(engine.group(1), 0.0) + float(line.rsplit(" ", 1)[1])
    return out


def test_serve_data_parallel_ray_backend(vllm_venv, model_dir):
    cluster = _cluster_for()
    server = None
    try:
        server = Server(cluster, model_dir, DP2)
        server.wait_ready()
        prompts = [[1, 10 + i, 20 + i, 30 + i] for i in range(8)]
        tokens = server.complete(prompts)
        assert len(tokens) == len(prompts) and all(len(t) == 24 for t in tokens), tokens
        served = _per_engine(server.metrics())
        assert set(served) == {"0", "1"} and all(v > 0 for v in served.values()), \
            f"requests per DP rank (vllm:request_success_total by engine): {served}"
        print(f"\nDP=2 requests per rank: {served}")
        _lose_host_2(cluster, server, "kill")
    finally:
        if server:
            server.close()
        cluster.stop()
