"""The HTTP face of a real daemon: Prometheus /metrics read with prometheus_client's parser,
Ray's state API, an actor's log tail, and the token beyond loopback.

Every port is 0 (any free one, read from node.json): several clusters run at once here.
"""

import json
import urllib.error
import urllib.request

import pytest
from prometheus_client.parser import text_string_to_metric_families

# at import, while `conftest` is this folder's (tests/vllm has one of the same name)
from conftest import WAIT_S, Clusters, finish, node_json, ray_cli, read_line_with, run_driver, spawn_driver, wait_until

PORTS = ["--dashboard-port", "0", "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"]

# An actor that records ray.util.metrics with tags and prints; one that is killed; a group
# that can never be placed (8 GPUs on a 2-GPU node). Holds until the test ends it.
DRIVER = """
import sys, ray
from ray.util.placement_group import placement_group
from ray.util import metrics

ray.init(address="auto")

@ray.remote(num_gpus=1)
class Engine:
    def __init__(self):
        self.tokens = metrics.Counter("vllm:generation_tokens", "Tokens made", tag_keys=("model_name",))
        self.running = metrics.Gauge("vllm:num_requests_running", "Running", tag_keys=("model_name",))
        self.latency = metrics.Histogram("vllm:e2e_latency_s", "Latency", boundaries=[0.1, 1.0],
                                         tag_keys=("model_name",))
        self.running.set_default_tags({"model_name": "tiny"})

    def step(self):
        self.tokens.inc(5, tags={"model_name": "tiny"})
        self.running.set(3)
        for v in (0.05, 0.5, 5.0):
            self.latency.observe(v, tags={"model_name": "tiny"})
        print("engine stepped", flush=True)
        return True

    def boom(self):
        raise ValueError("a failing call")

@ray.remote
class Doomed:
    def ping(self):
        print("doomed says hello", flush=True)
        return 1

engine = Engine.remote()
ray.get([engine.step.remote() for _ in range(2)])
try:
    ray.get(engine.boom.remote())
except ValueError:
    pass
doomed = Doomed.remote()
ray.get(doomed.ping.remote())
ray.kill(doomed)
pg = placement_group([{"GPU": 8}], strategy="PACK", name="too-big")
print("READY", engine._actor_id.hex(), doomed._actor_id.hex(), pg.id.hex(), flush=True)
import time
time.sleep(600)
"""


def get(port, path, token=None, method="GET"):
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", method=method)
    if token:
        req.add_header("Authorization", "Bearer " + token)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def metrics_of(port):
    status, text = get(port, "/metrics")
    assert status == 200, text
    return {f.name: f for f in text_string_to_metric_families(text)}


def _engine_metrics_flushed(port):
    """The engine's two steps (10 tokens, 6 latencies) have reached the node's /metrics."""
    fam = metrics_of(port)
    if "ray_vllm_generation_tokens" not in fam or "ray_vllm_e2e_latency_s" not in fam:
        return False
    counts = [s.value for s in fam["ray_vllm_e2e_latency_s"].samples if s.name.endswith("_count")]
    return [s.value for s in samples(fam, "ray_vllm_generation_tokens", model_name="tiny")] == [10.0] and counts == [6]


def samples(families, name, **labels):
    return [s for s in families[name].samples
            if all(s.labels.get(k) == v for k, v in labels.items())]


@pytest.fixture(scope="module")
def head(tmp_path_factory):
    c = Clusters(tmp_path_factory)
    base = c.start("--num-gpus", "2", "--num-cpus", "4", *PORTS)
    wait_until(lambda: "http_ports" in node_json(base), WAIT_S, "the node's HTTP ports in node.json")
    ports = node_json(base)["http_ports"]
    driver = spawn_driver(base, DRIVER)
    line = [x for x in read_line_with(driver, "READY", timeout=90) if x.startswith("READY")][0]
    _, engine, doomed, pg = line.split()
    wait_until(lambda: _engine_metrics_flushed(ports["metrics"]), WAIT_S,
               "the engine's metrics (sent every FLUSH_INTERVAL_S, 2 s) on /metrics")
    yield {"base": base, "ports": ports, "engine": engine, "doomed": doomed, "pg": pg}
    finish(driver)
    c.stop_all()


def test_node_json_reports_every_chosen_port(head):
    ports = head["ports"]
    assert set(ports) == {"agent", "dashboard", "metrics"}
    assert all(p > 0 for p in ports.values()) and len(set(ports.values())) == 3


def test_metrics_parse_and_carry_rays_names(head):
    fam = metrics_of(head["ports"]["metrics"])
    gpu_used = samples(fam, "ray_resources", Name="GPU", State="USED")
    gpu_free = samples(fam, "ray_resources", Name="GPU", State="AVAILABLE")
    assert [s.value for s in gpu_used] == [1.0] and [s.value for s in gpu_free] == [1.0], get(head["ports"]["metrics"], "/metrics")[1]
    assert samples(fam, "beam_resources_total", Name="CPU")[0].value == 4.0
    assert samples(fam, "ray_actors", State="ALIVE", Name="Engine")[0].value == 1.0
    assert samples(fam, "ray_actors", State="DEAD", Name="Doomed")[0].value == 1.0
    assert samples(fam, "ray_placement_groups", State="PENDING")[0].value == 1.0
    waited = samples(fam, "beam_placement_group_pending_seconds", PlacementGroupId=head["pg"])
    assert waited and waited[0].value > 0
    assert samples(fam, "ray_cluster_active_nodes", node_type="head")[0].value == 1.0
    assert samples(fam, "ray_component_rss_mb", Component="beamd")[0].value > 10
    assert samples(fam, "beam_daemon_threads")[0].value > 0
    assert samples(fam, "beam_daemon_open_fds")[0].value > 0
    assert samples(fam, "beam_actor_calls")[0].value >= 4  # counter: the family drops _total
    assert samples(fam, "beam_actor_calls_failed")[0].value == 1.0  # engine.boom raised
    assert samples(fam, "beam_node_healthy")[0].value == 1.0


def test_user_metrics_from_an_actor_show_up_with_their_tags(head):
    fam = metrics_of(head["ports"]["metrics"])
    assert samples(fam, "ray_vllm_generation_tokens", model_name="tiny")[0].value == 10.0
    assert samples(fam, "ray_vllm_num_requests_running", model_name="tiny")[0].value == 3.0
    hist = {(s.name, s.labels.get("le")): s.value for s in fam["ray_vllm_e2e_latency_s"].samples}
    assert hist[("ray_vllm_e2e_latency_s_bucket", "0.1")] == 2
    assert hist[("ray_vllm_e2e_latency_s_bucket", "1.0")] == 4
    assert hist[("ray_vllm_e2e_latency_s_bucket", "+Inf")] == 6
    assert hist[("ray_vllm_e2e_latency_s_count", None)] == 6


def test_state_api_has_rays_shapes(head):
    port = head["ports"]["dashboard"]
    status, body = get(port, "/api/v0/actors?limit=10&detail=true")
    assert status == 200
    reply = json.loads(body)
    assert reply["result"] is True and reply["msg"] == ""
    rows = {r["actor_id"]: r for r in reply["data"]["result"]["result"]}
    assert rows[head["engine"]]["state"] == "ALIVE" and rows[head["engine"]]["class_name"] == "Engine"
    dead = rows[head["doomed"]]
    assert dead["state"] == "DEAD"
    assert "ray.kill" in dead["death_cause"]["actor_died_error_context"]["error_message"]
    nodes = json.loads(get(port, "/api/v0/nodes")[1])["data"]["result"]["result"]
    assert nodes[0]["is_head_node"] is True and nodes[0]["state"] == "ALIVE"
    pgs = json.loads(get(port, "/api/v0/placement_groups")[1])["data"]["result"]["result"]
    assert [g["state"] for g in pgs if g["placement_group_id"] == head["pg"]] == ["PENDING"]
    filtered = json.loads(get(port, "/api/v0/actors?filter_keys=state&filter_predicates=%3D&filter_values=DEAD")[1])
    assert [r["actor_id"] for r in filtered["data"]["result"]["result"]] == [head["doomed"]]
    cs = json.loads(get(port, "/api/cluster_status")[1])["data"]
    assert cs["clusterStatus"]["loadMetricsReport"]["usage"]["GPU"] == [1.0, 2.0]
    assert cs["clusterStatus"]["loadMetricsReport"]["pgDemand"][0]["bundles"] == [{"GPU": 8.0}]
    assert "death_cause" not in json.loads(get(port, "/api/v0/actors")[1])["data"]["result"]["result"][0]  # Ray: detail only
    both = json.loads(get(port, "/api/v0/actors?filter_keys=state&filter_predicates=%21%3D&filter_values=dead"
                                "&filter_keys=class_name&filter_predicates=%3D&filter_values=engine&limit=1")[1])
    assert [r["actor_id"] for r in both["data"]["result"]["result"]] == [head["engine"]]
    assert get(port, "/api/v0/actors?filter_keys=state&filter_values=DEAD")[0] == 400  # no predicate for it
    assert get(port, "/api/v0/actors?limit=0")[0] == 400
    assert get(port, "/api/v0/actors?filter_keys=secret")[0] == 400


def test_an_actors_log_tail(head):
    port = head["ports"]["dashboard"]
    status, text = get(port, f"/api/v0/logs/file?actor_id={head['engine']}&lines=5&format=text")
    assert status == 200 and "engine stepped" in text
    status, text = get(port, f"/api/v0/logs/file?actor_id={head['doomed']}&lines=5")
    assert status == 200 and text.startswith("1") and "doomed says hello" in text  # Ray's leading_1
    assert get(port, "/api/v0/logs/file?actor_id=" + "0" * 32)[0] == 404
    assert get(port, "/api/v0/logs/file?actor_id=../../etc/passwd")[0] == 400


def test_an_actors_stack(head):
    port = head["ports"]["dashboard"]
    status, text = get(port, f"/api/beam/stack?actor_id={head['engine']}")
    assert status == 200, text
    [row] = json.loads(text)["processes"]
    assert row["actor_id"] == head["engine"] and "most recent call first" in row["stack"], row
    assert get(port, "/api/beam/stack?actor_id=" + "0" * 32)[0] == 404
    assert get(port, "/api/beam/stack?actor_id=../../etc/passwd")[0] == 400


def test_health_paths_and_nothing_that_writes(head):
    agent, dash = head["ports"]["agent"], head["ports"]["dashboard"]
    assert get(agent, "/api/local_raylet_healthz") == (200, "success")
    assert get(agent, "/api/healthz")[0] == 200
    assert get(dash, "/api/gcs_healthz") == (200, "success")
    for path in ("/api/jobs/", "/api/v0/actors"):
        assert get(dash, path, method="POST")[0] in (404, 405)
    assert get(dash, "/api/jobs/")[0] == 404
    status, page = get(dash, "/")
    assert status == 200 and "<title>beam dashboard</title>" in page


def test_beyond_loopback_the_token_is_required_and_never_shown(clusters):
    base = clusters.start("--num-cpus", "1", "--dashboard-host", "0.0.0.0", *PORTS)
    wait_until(lambda: "http_ports" in node_json(base), WAIT_S, "the node's HTTP ports in node.json")
    ports = node_json(base)["http_ports"]
    with open(f"{base}/session_latest/auth_token") as f:
        token = f.read().strip()
    assert get(ports["agent"], "/api/local_raylet_healthz") == (200, "success")
    assert get(ports["dashboard"], "/api/gcs_healthz") == (200, "success")
    for port, path in ((ports["dashboard"], "/api/v0/nodes"), (ports["dashboard"], "/"),
                       (ports["metrics"], "/metrics"), (ports["dashboard"], "/api/beam/dashboard"),
                       (ports["dashboard"], "/api/v0/logs/file?filename=beamd.log&format=text"),
                       (ports["dashboard"], "/api/v0/tasks")):  # call labels are call arguments
        status, body = get(port, path)
        assert status == 401, (path, status)
        assert token not in body
        status, body = get(port, path, token=token)
        assert status == 200, (path, body)
        assert token not in body, f"{path} shows the cluster token"
    assert get(ports["dashboard"], "/api/v0/nodes", token="0" * 32)[0] == 401
    stack = "/api/beam/stack?actor_id=" + "0" * 32  # stacks name code and files: guarded like the rest
    assert get(ports["dashboard"], stack)[0] == 401
    assert get(ports["dashboard"], stack, token=token)[0] == 404  # past the guard: no such actor


def test_a_bad_port_is_refused_and_a_busy_one_named_while_the_others_serve(clusters):
    import socket
    bad = ray_cli(["start", "--head", "--port", "0", "--temp-dir", clusters.new_dir(),
                   "--dashboard-port", "70000"])
    assert bad.returncode != 0 and "--dashboard-port must be in 0..65535" in bad.stderr, bad
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        busy = taken.getsockname()[1]
        base = clusters.start("--num-cpus", "1", "--dashboard-port", "0", "--dashboard-agent-listen-port", "0",
                              "--metrics-export-port", str(busy))
        wait_until(lambda: "http_error" in node_json(base), WAIT_S, "node.json naming the busy port's error")
        info = node_json(base)
        assert str(busy) in info.get("http_error", ""), info
        assert "metrics" not in info["http_ports"]
        assert get(info["http_ports"]["agent"], "/api/local_raylet_healthz") == (200, "success")


def test_include_dashboard_false_leaves_only_the_dashboard_port_closed(clusters):
    base = clusters.start("--num-cpus", "1", "--include-dashboard=false", *PORTS)
    wait_until(lambda: "http_ports" in node_json(base), WAIT_S, "the node's HTTP ports in node.json")
    ports = node_json(base)["http_ports"]
    assert set(ports) == {"agent", "metrics"}, ports
    assert get(ports["agent"], "/api/local_raylet_healthz") == (200, "success")
    assert get(ports["metrics"], "/metrics")[0] == 200


def test_an_actors_last_counts_are_sent_as_it_exits_and_stay(head):
    done = run_driver(head["base"], """
        import sys, ray
        from ray.util import metrics
        ray.init(address="auto")

        @ray.remote
        class Once:
            def run(self):
                metrics.Counter("finished_jobs", tag_keys=("kind",)).inc(3, tags={"kind": "batch"})
                sys.exit(0)  # at once: before the 2 s periodic send

        try:
            ray.get(Once.remote().run.remote())
        except Exception as e:
            print("ended:", type(e).__name__)
        """)
    assert done.returncode == 0, done.stderr
    def finished_jobs():
        fam = metrics_of(head["ports"]["metrics"])
        return [s.value for s in samples(fam, "ray_finished_jobs", kind="batch")] if "ray_finished_jobs" in fam else []
    wait_until(lambda: finished_jobs() == [3.0], WAIT_S, "ray_finished_jobs{kind=batch} counting the 3 jobs")
