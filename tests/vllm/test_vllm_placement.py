"""Two real vLLM instances (TP=2 each, Ray executor) on one 2-host beam cluster, on disjoint
bundles of one placement group, each driven from an actor inside that group: vLLM finds the
group with ``get_current_placement_group()`` and takes the bundles ``VLLM_RAY_BUNDLE_INDICES``
names (tests/vllm/vllm_in_pg.py). Checks: each instance's workers sit on its two bundles'
hosts and GPUs (one per host, no GPU shared between the instances) and both generate the
mp executor's greedy tokens. Needs .bench/vllm-venv (`./dev test` makes it).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from _cluster import ROOT, TwoHosts  # noqa: E402

DRIVER = os.path.join(ROOT, "tests", "vllm", "vllm_in_pg.py")


def test_two_instances_on_disjoint_bundles_driven_from_inside_a_group(vllm_venv, model_dir,
                                                                      mp_tokens):
    cluster = TwoHosts(_cluster.host_kind(), _vllm.RAY_BIN,
                       start_args=[*_vllm.device_args(2), "--num-cpus", "4"],
                       host_env=_vllm.host_env)
    driver = None
    try:
        driver = cluster.popen(cluster.h1, [_vllm.PYTHON, "-u", DRIVER, "--model-dir", model_dir],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               extra_env=_vllm.host_env(cluster.h1))
        out, err = driver.communicate(timeout=1200)
        events = _vllm.events_of(out)
        instances = [json.loads(line.split(" ", 1)[1]) for line in out.splitlines()
                     if line.startswith("@@INSTANCE ")]
        assert driver.returncode == 0 and "DONE" in events and len(instances) == 2, \
            f"driver failed ({driver.returncode}): {err[-6000:]}"
        group = events["GROUP"]
        node_of = {b: node for node, bs in group["bundles_by_node"].items() for b in bs}
        seen = set()
        for inst in instances:
            assert inst["pg_in_actor"] == group["id"], inst
            assert inst["tokens"] == mp_tokens, f"instance {inst['index']}: {inst['tokens']}"
            workers = inst["workers"]
            assert sorted(w["node"] for w in workers) == sorted(node_of[b] for b in inst["bundles"]), \
                f"instance {inst['index']} workers {workers} not on bundles {inst['bundles']}"
            for w in workers:
                assert len(w["gpus"]) == 1, w
                slot = (w["node"], w["gpus"][0])
                assert slot not in seen, f"GPU {slot} given to both instances: {instances}"
                seen.add(slot)
        assert len(seen) == 4
        print(f"\ntwo vLLM instances in group {group['id'][:8]}: bundles "
              f"{[i['bundles'] for i in instances]}, workers on {sorted(seen)}")
    finally:
        _vllm.kill_tree(driver)
        cluster.stop()
