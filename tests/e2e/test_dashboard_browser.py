"""The dashboard in a real headless Chromium on a 2-host cluster (network namespaces) with an
actor holding a GPU on the worker, whose fake nvidia-smi reports utilization and memory, a
call of it stuck past the head's --long-call-seconds, a dead actor and a pending placement
group: the test reads the rendered DOM, clicking the dead actor shows its log tail (its
stdout and stderr, read by the worker's daemon from its own files), and the busy actor's
Stack button its Python stack.

The browser runs on the head's host, where the dashboard listens on 127.0.0.1:8265 (the
default). BEAM_DASHBOARD_SCREENSHOT=PATH saves a screenshot there (docs/dashboard.png is one).
"""

import json
import os
import shutil

import pytest

import netns
from conftest import ROOT, VENV_PYTHON
from multihost import BeamCluster, wait_for

DRIVER = """
import json, sys, time, ray
from ray.util.placement_group import placement_group
ray.init(address="auto")
worker_ip = sys.argv[1]

@ray.remote(num_gpus=1)
class Engine:
    def where(self):
        return ray.get_gpu_ids()

    def execute_method(self, name, seconds):
        time.sleep(seconds)

@ray.remote
class Doomed:
    def ping(self):
        print("doomed says hello from the worker", flush=True)
        print("doomed warns on stderr", file=sys.stderr, flush=True)
        return 1

engine = Engine.options(resources={"node:" + worker_ip: 0.01}).remote()
ray.get(engine.where.remote())
stuck = engine.execute_method.remote("init_device", 600)  # busy for good: its Stack button shows it in execute_method
doomed = Doomed.options(resources={"node:" + worker_ip: 0.01}).remote()
ray.get(doomed.ping.remote())
time.sleep(0.5)  # its output reaches the head
ray.kill(doomed)
pg = placement_group([{"GPU": 8}], strategy="STRICT_PACK", name="too-big")
print("@@READY " + json.dumps({"engine": engine._actor_id.hex(), "dead": doomed._actor_id.hex(),
                               "pg": pg.id.hex(), "stuck": stuck.hex()[:48]}), flush=True)
time.sleep(600)
"""


# the worker's nvidia-smi: the telemetry query's CSV, one line per GPU
FAKE_NVIDIA_SMI = """#!/bin/sh
echo "0, GPU-aaaa-0000, NVIDIA H200, 42, 2048, 143771"
echo "1, GPU-bbbb-1111, NVIDIA H200, 7, 512, 143771"
"""


@pytest.fixture
def cluster(tmp_path):
    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(f"network namespaces unavailable ({reason})")
    if not (shutil.which("chromium") and shutil.which("chromedriver")):
        pytest.skip("chromium or chromedriver is not installed (tools/setup_chromium.sh installs them)")
    hosts = netns.make_hosts("netns", 2)
    c = BeamCluster(hosts)
    try:
        tool = tmp_path / "nvidia-smi"
        tool.write_text(FAKE_NVIDIA_SMI)
        tool.chmod(0o755)
        c.start_head(hosts[0], extra=("--long-call-seconds", "1"))
        c.join(hosts[1], env_extra={"PATH": f"{tmp_path}:{os.environ['PATH']}"})
        yield c
    finally:
        try:
            c.teardown()
        finally:
            hosts.teardown()


def test_dashboard_renders_the_cluster_an_actors_log_and_a_stack(cluster):
    head, worker = cluster.hosts[0], cluster.hosts[1]
    driver = cluster.spawn(head, DRIVER.replace("sys.argv[1]", repr(worker.ip)))
    ready = driver.expect("READY", timeout=90)
    expect = {"ips": [head.ip, worker.ip], "dead": ready["dead"], "pg": ready["pg"],
               "log_line": "doomed says hello from the worker", "long_call": "Engine.execute_method",
               "stack_actor": ready["engine"], "stack_line": "in execute_method", "gpu_util": "42 %"}
    shot = os.environ.get("BEAM_DASHBOARD_SCREENSHOT")
    script = os.path.join(ROOT, "tests", "e2e", "dashboard_browser.py")
    wait_for(lambda: "dashboard" in cluster.node_json(head).get("http_ports", {}), 60, "the head's dashboard port open")
    done = head.run([VENV_PYTHON, script, "http://127.0.0.1:8265/", json.dumps(expect),
                     *([os.path.abspath(shot)] if shot else [])], timeout=180)
    assert done.returncode == 0, done.stderr[-3000:] + done.stdout[-2000:]
    dom = json.loads(done.stdout.strip().splitlines()[-1])

    nodes = {r[0]: r for r in dom["nodes"]}
    assert nodes[head.ip][2] == "head" and nodes[worker.ip][2] == "worker"
    assert all(r[3] == "ALIVE" for r in dom["nodes"])
    assert "GPU 1/2" in nodes[worker.ip][4] and "GPU 0/2" in nodes[head.ip][4]
    gpus = [r for r in dom["gpus"] if r[1] == "GPU"]
    assert len(gpus) == 4, dom["gpus"]
    held = [r for r in gpus if "Engine" in r[6]]
    assert len(held) == 1 and held[0][0] == worker.ip, dom["gpus"]
    sampled = {r[2]: r for r in gpus if r[0] == worker.ip}
    assert sampled["0"][4] == "42 %" and sampled["0"][5] == "2048 / 143771 MiB", dom["gpus"]
    assert sampled["1"][4] == "7 %" and sampled["1"][5] == "512 / 143771 MiB", dom["gpus"]
    assert all(r[4] == "" and r[5] == "" for r in gpus if r[0] == head.ip), dom["gpus"]  # no tool there
    assert all(r[3].startswith("NVIDIA") for r in gpus), dom["gpus"]  # declared GPUs are NVIDIA's, as in Ray
    actors = {r[1]: r for r in dom["actors"]}
    assert actors[ready["engine"]][2] == "ALIVE" and actors[ready["engine"]][4] == worker.ip
    dead = actors[ready["dead"]]
    assert dead[2] == "DEAD" and "ray.kill" in dead[5], dead
    pending = [r for r in dom["pending"] if r[0] == ready["pg"]]
    assert pending and "GPU" in pending[0][5], dom["pending"]
    assert any(r[2] == ready["dead"] for r in dom["deaths"])
    # read from the worker's own files, as `ray logs actor` reads them: stdout, then stderr
    assert "doomed says hello from the worker" in dom["log"]
    assert dom["log"].index("(stdout)") < dom["log"].index("doomed says hello") < dom["log"].index("(stderr)") \
        < dom["log"].index("doomed warns on stderr")
    calls = [r for r in dom["calls"] if r[0] == "Engine.execute_method"]
    assert len(calls) == 1, dom["calls"]
    name, label, state, age, actor, node, pid, where = calls[0]
    assert (label, state, actor, node) == ("init_device", "RUNNING", ready["engine"], worker.ip), calls
    assert age.endswith(" s (long)") and int(age.split()[0]) >= 1 and int(pid) > 0, calls
    assert where == "ray stack --actor-id " + ready["engine"]
    # the Stack button: the worker node's actor, dumped through the head's /api/beam/stack
    assert f"Engine actor_id={ready['engine']}" in dom["stack"] and f"node_ip={worker.ip}" in dom["stack"], dom["stack"]
    assert "in execute_method" in dom["stack"] and "most recent call first" in dom["stack"]
    assert not any(r[1] == ready["dead"] and r[6] for r in dom["actors"])  # a dead actor has no Stack button
    if cluster.token:
        assert cluster.token not in dom["html"]
