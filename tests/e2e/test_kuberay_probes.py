"""KubeRay's default probes, verbatim, against a 2-node cluster on network-namespace hosts
(each with its own localhost, so Ray's default ports 8265 and 52365 are free there).

The commands are KubeRay's (ray-operator/controllers/ray/common/pod.go,
initLivenessAndReadinessProbe, BaseWgetHealthCommand): on the head the agent's raylet check
and the dashboard's GCS check, on a worker the first alone; KubeRay for Ray >= 2.53 also uses
an httpGet probe of /api/healthz on the agent port, and worker pods wait for the head with
`ray health-check --address HEAD:PORT`.
"""

import os
import shutil
import signal

import pytest

import netns
from conftest import RAY_BIN, process_state
from multihost import BeamCluster, host_env, wait_for

RAYLET = "wget --tries 1 -T 2 -q -O- http://localhost:52365/api/local_raylet_healthz | grep success"
GCS = "wget --tries 1 -T 10 -q -O- http://localhost:8265/api/gcs_healthz | grep success"
HEAD_PROBE = f"{RAYLET} && {GCS}"
WORKER_PROBE = RAYLET


def _needs():
    reason = netns.unavailable_reason()
    if reason:
        pytest.skip(f"network namespaces unavailable ({reason}): the probes use Ray's fixed ports")
    if not shutil.which("wget"):
        pytest.skip("wget is not installed (tools/setup_chromium.sh installs it)")


@pytest.fixture
def cluster():
    _needs()
    hosts = netns.make_hosts("netns", 2)
    c = BeamCluster(hosts)
    try:
        c.start(n=2)
        for h in hosts:  # the HTTP face binds just after `ray start` returns
            wait_for(lambda: "http_ports" in c.node_json(h), 60, f"the HTTP face of {h}")
        yield c
    finally:
        for h in hosts:
            for pid in h.pids():
                try:
                    os.kill(pid, signal.SIGCONT)
                except ProcessLookupError:
                    pass
        try:
            c.teardown()
        finally:
            hosts.teardown()


def sh(host, command, timeout=30):
    return host.run(["bash", "-c", command], timeout=timeout)


def test_probes_pass_on_a_healthy_cluster(cluster):
    head, worker = cluster.hosts[0], cluster.hosts[1]
    done = sh(head, HEAD_PROBE)
    assert done.returncode == 0 and done.stdout.split() == ["success", "success"], done
    done = sh(worker, WORKER_PROBE)
    assert done.returncode == 0 and done.stdout.strip() == "success", done
    for host in (head, worker):  # KubeRay's httpGet probe for Ray >= 2.53: only the status counts
        assert sh(host, "wget -q -S -O- http://localhost:52365/api/healthz 2>&1 | grep -q '200 OK'").returncode == 0
    # the worker has no dashboard port: GCS lives on the head
    assert sh(worker, GCS).returncode != 0
    ok = cluster.ray(worker, ["health-check", "--address", cluster.address], env=host_env())
    assert ok.returncode == 0, ok.stderr
    ok = cluster.ray(head, ["health-check", "--temp-dir", cluster.temp_dir(head)], env=host_env())
    assert ok.returncode == 0, ok.stderr


def test_probes_fail_when_the_head_is_frozen(cluster):
    head, worker = cluster.hosts[0], cluster.hosts[1]
    head_pid = cluster.daemon_pid(head)
    os.kill(head_pid, signal.SIGSTOP)  # a hung head: its sockets accept, nothing answers
    try:
        # stopped when the kernel next runs it, not when kill() returns
        wait_for(lambda: process_state(head_pid) == "T", 60, f"the head daemon (pid {head_pid}) stopped by SIGSTOP")
        done = sh(head, HEAD_PROBE, timeout=60)  # one that did not give up by its own -T would hang here
        assert done.returncode != 0 and "success" not in done.stdout, done
        bad = cluster.ray(worker, ["health-check", "--address", cluster.address], env=host_env())
        assert bad.returncode != 0 and "did not answer" in bad.stderr, bad
        # The worker sees the head silent past the node timeout (2.5 s): its probe fails with
        # the reason (503) while it stops, then nothing listens (the daemon exited).
        seen = []

        def worker_probe_fails():
            r = sh(worker, "wget --tries 1 -T 2 -O- -S http://localhost:52365/api/local_raylet_healthz 2>&1")
            seen.append(r.stdout)
            return sh(worker, WORKER_PROBE).returncode != 0

        wait_for(worker_probe_fails, 60, "the worker's probe failing")
        text = "\n".join(seen)
        assert "503" in text or "refused" in text.lower(), text
    finally:
        os.kill(head_pid, signal.SIGCONT)


def test_health_check_without_a_daemon_says_why(tmp_path):
    done = __import__("subprocess").run([RAY_BIN, "health-check", "--temp-dir", str(tmp_path)],
                                        env=host_env(), capture_output=True, text=True, timeout=60)
    assert done.returncode == 1 and "no beam daemon is running" in done.stderr, done


WORKER_METRICS = """
import time
@ray.remote
class Engine:
    def __init__(self):
        from ray.util import metrics
        self.g = metrics.Gauge("vllm:gpu_cache_usage_perc", "cache", tag_keys=("engine",))
    def record(self):
        self.g.set(0.25, tags={"engine": "0"})
        return ray.get_runtime_context().get_node_id()

e = Engine.options(resources={"node:" + WORKER_IP: 0.01}).remote()
emit("NODE", ray.get(e.record.remote()))
time.sleep(600)  # a gauge lives as long as its process: the test ends this driver
"""


def test_each_node_exports_its_own_metrics_and_the_head_the_round_trips(cluster):
    from prometheus_client.parser import text_string_to_metric_families
    head, worker = cluster.hosts[0], cluster.hosts[1]
    driver = cluster.spawn(head, WORKER_METRICS.replace("WORKER_IP", repr(worker.ip)))
    assert driver.expect("NODE", timeout=90) == cluster.node_id(worker)

    def scrape(host):
        port = cluster.node_json(host)["http_ports"]["metrics"]
        r = sh(host, f"wget --tries 1 -T 5 -q -O- http://localhost:{port}/metrics")
        assert r.returncode == 0, r
        return {f.name: f for f in text_string_to_metric_families(r.stdout)}

    wait_for(lambda: "ray_vllm_gpu_cache_usage_perc" in scrape(worker), 60, "the actor's gauge on its node")
    on_worker = scrape(worker)
    gauge = [s for s in on_worker["ray_vllm_gpu_cache_usage_perc"].samples if s.labels == {"engine": "0"}]
    assert [s.value for s in gauge] == [0.25]
    assert "ray_resources" not in on_worker  # the cluster's metrics are the head's
    on_head = scrape(head)
    assert "ray_vllm_gpu_cache_usage_perc" not in on_head
    rtt = [s for s in on_head["beam_node_heartbeat_rtt_seconds"].samples
           if s.labels["NodeAddress"] == worker.ip]
    assert rtt and 0 < rtt[0].value < 1.0
    active = {s.labels["node_type"]: s.value for s in on_head["ray_cluster_active_nodes"].samples}
    assert active == {"head": 1.0, "worker": 1.0}
    # ray.nodes() names each node's HTTP ports, as Ray's does
    view = cluster.run_driver(head, "emit('N', ray.nodes())")["N"]
    by_ip = {n["NodeManagerAddress"]: n for n in view}
    assert by_ip[worker.ip]["MetricsExportPort"] == cluster.node_json(worker)["http_ports"]["metrics"]
    assert by_ip[worker.ip]["DashboardAgentListenPort"] == 52365
    # a node death shows on the head: the worker's host loses power
    driver.close()
    worker.kill_all()

    def counted():
        nodes = {s.labels["node_type"]: s.value for s in scrape(head)["ray_cluster_failed_nodes"].samples}
        return nodes.get("worker") == 1.0

    wait_for(counted, 60, "the head counting the worker's death")
    assert {s.labels["node_type"]: s.value for s in scrape(head)["ray_cluster_active_nodes"].samples}["worker"] == 0
