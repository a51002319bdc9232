"""vLLM's Ray metric wrappers record through beam: the newest vLLM's own code, a real node.

`vllm.v1.metrics.ray_wrappers` (RayGaugeWrapper, RayCounterWrapper, RayHistogramWrapper:
what `RayPrometheusStatLogger` records with) imports `ray.serve` in a try block of its own
from vLLM 0.34 on, so with beam (no Ray Serve) the wrappers are on and record through
`ray.util.metrics`; up to 0.33 the same try block also held `ray.util.metrics`, and the
wrappers refused to start. Here a head with a Prometheus port runs two engine actors (data
parallel ranks 0 and 1), each recording with vLLM's wrappers exactly as vLLM's stat logger
does (`vllm:` names, `labels(model_name, engine)`, the `ReplicaId` tag the wrappers add, and
the stat logger's own `log_metrics_info`: `vllm:cache_config_info`, a tag per CacheConfig
field), and the node's /metrics must show every value under the name Ray's exporter gives it.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import urllib.request

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import _cluster  # noqa: E402
import _vllm  # noqa: E402
from _cluster import ROOT  # noqa: E402

sys.path.insert(0, os.path.join(ROOT, "tests"))
from waiting import WAIT_S, wait_until  # noqa: E402

RAY = os.path.join(_vllm.LATEST_VENV, "bin", "ray")
MODEL = "tiny-llama"

# Two DP engine actors; each records one step with vLLM's wrappers, reports what it ran
# with, and stays alive (a gauge leaves /metrics with its process) until the test ends it.
DRIVER = r"""
import json, os, time
import ray

ray.init(address="auto")


@ray.remote(num_cpus=0)
class Engine:
    def __init__(self, engine):
        from vllm.v1.metrics import ray_wrappers as w
        labels = ["model_name", "engine"]
        self.report = {"ray_serve": w.ray_serve is not None,
                       "ray_metrics_file": os.path.realpath(w.ray_metrics.__file__)}
        running = w.RayGaugeWrapper(name="vllm:num_requests_running",
                                    documentation="Number of requests in model execution batches.",
                                    labelnames=labels)
        self.running = running.labels(%(model)r, str(engine))
        tokens = w.RayCounterWrapper(name="vllm:generation_tokens",
                                     documentation="Number of generation tokens processed.",
                                     labelnames=labels)
        self.tokens = tokens.labels(model_name=%(model)r, engine=engine)  # kwargs, not a str: vLLM makes it one
        latency = w.RayHistogramWrapper(name="vllm:e2e_request_latency_seconds",
                                        documentation="Histogram of e2e request latency in seconds.",
                                        labelnames=labels, buckets=[0.3, 0.5, 1.0, 2.5])
        self.latency = latency.labels(%(model)r, str(engine))
        self.corrupted = w.RayCounterWrapper(name="vllm:corrupted_requests",
                                             documentation="Corrupted requests.")  # no labels: only ReplicaId
        self.report["tag_keys"] = list(running.metric._tag_keys)
        self.engine = engine
        # vLLM's info gauge, made by its own stat logger's code: a tag per CacheConfig field
        from types import SimpleNamespace
        from vllm.config import CacheConfig
        logger = SimpleNamespace(_gauge_cls=w.RayGaugeWrapper, engine_indexes=[engine])
        w.RayPrometheusStatLogger.log_metrics_info(logger, "cache_config", CacheConfig())
        self.report["cache_config_info"] = CacheConfig().metrics_info()

    def step(self):
        self.running.set(5)
        self.running.set(3 + self.engine)  # the newest value is the gauge's
        self.tokens.inc(4)
        self.tokens.inc(0)  # vLLM's wrapper skips 0 (Ray's Counter refuses it)
        self.tokens.inc(6 + self.engine)
        for seconds in (0.1, 0.4, 0.4, 3.0):
            self.latency.observe(seconds)
        self.corrupted.inc()
        return self.report


engines = [Engine.remote(i) for i in (0, 1)]
print("@@REPORTS " + json.dumps(ray.get([e.step.remote() for e in engines])), flush=True)
time.sleep(600)
""" % {"model": MODEL}


@pytest.fixture
def head():
    _vllm.require(_vllm.LATEST_PYTHON, _vllm.LATEST_SETUP, f"vLLM {_vllm.LATEST_VERSION}")
    temp_dir = tempfile.mkdtemp(prefix="beam-vllm-metrics-")
    env = _cluster.clean_env()
    try:
        done = subprocess.run([RAY, "start", "--head", "--port", "0", "--num-cpus", "1",
                               "--node-ip-address", "127.0.0.1", "--metrics-export-port", "0",
                               "--temp-dir", temp_dir], env=env, capture_output=True, text=True,
                              timeout=120)
        assert done.returncode == 0, f"ray start failed ({done.returncode}): {done.stderr}{done.stdout}"
        yield temp_dir
    finally:
        subprocess.run([RAY, "stop", "--force", "--temp-dir", temp_dir], env=env,
                       capture_output=True, timeout=60)
        shutil.rmtree(temp_dir, ignore_errors=True)


def node_json(temp_dir):
    with open(os.path.join(temp_dir, "session_latest", "node.json")) as f:
        return json.load(f)


def scrape(port):
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as r:
        return {f.name: f for f in text_string_to_metric_families(r.read().decode())}


def series(families, name, sample, **labels):
    """{engine label: value} of ``sample`` in family ``name`` whose labels include ``labels``."""
    fam = families.get(name)
    return {s.labels.get("engine"): s.value for s in (fam.samples if fam else [])
            if s.name == sample and all(s.labels.get(k) == v for k, v in labels.items())}


def both_engines_flushed(port, last):
    """Both engines' last records have reached /metrics (each process sends every 2 s);
    ``last`` keeps the vLLM samples of the latest scrape for the failure message."""
    fams = scrape(port)
    last["samples"] = [(s.name, s.labels, s.value) for n, f in fams.items() if "vllm" in n
                       for s in f.samples]
    done = (series(fams, "ray_vllm_generation_tokens", "ray_vllm_generation_tokens_total")
            == {"0": 10.0, "1": 11.0}
            and series(fams, "ray_vllm_corrupted_requests", "ray_vllm_corrupted_requests_total")
            == {None: 2.0}
            and series(fams, "ray_vllm_num_requests_running", "ray_vllm_num_requests_running")
            == {"0": 3.0, "1": 4.0}
            and series(fams, "ray_vllm_e2e_request_latency_seconds",
                       "ray_vllm_e2e_request_latency_seconds_count") == {"0": 4.0, "1": 4.0}
            and series(fams, "ray_vllm_cache_config_info", "ray_vllm_cache_config_info")
            == {"0": 1.0, "1": 1.0})
    return fams if done else None


def test_vllm_ray_metric_wrappers_record_through_beam(head):
    driver = subprocess.Popen([_vllm.LATEST_PYTHON, "-u", "-c", DRIVER],
                              env=_cluster.clean_env(head, **_vllm.VLLM_ENV), cwd=ROOT,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        events = _cluster.read_events(driver, 300, until="REPORTS")
        assert "REPORTS" in events, f"the engines never recorded: {''.join(driver._other)[-5000:]}"
        beam = os.path.realpath(os.path.join(ROOT, "python")) + "/"
        for report in events["REPORTS"]:
            assert report["ray_serve"] is False, report  # beam has no Ray Serve: no replica id
            assert report["ray_metrics_file"].startswith(beam), report
            assert report["tag_keys"] == ["model_name", "engine", "ReplicaId"], report

        port = wait_until(lambda: node_json(head).get("http_ports", {}).get("metrics"), WAIT_S,
                          "the node's metrics port in node.json")
        last = {}
        try:
            fams = wait_until(lambda: both_engines_flushed(port, last), WAIT_S,
                              "both engines' records on /metrics", interval=0.5)
        except pytest.fail.Exception as e:
            pytest.fail(f"{e}; the last scrape of http://127.0.0.1:{port}/metrics had {last}")

        running = fams["ray_vllm_num_requests_running"]
        assert running.type == "gauge" and running.documentation == "Number of requests in model execution batches."
        assert fams["ray_vllm_generation_tokens"].type == "counter"
        for fam in ("ray_vllm_num_requests_running", "ray_vllm_generation_tokens",
                    "ray_vllm_e2e_request_latency_seconds", "ray_vllm_corrupted_requests"):
            for s in fams[fam].samples:
                # outside Ray Serve the wrappers' ReplicaId is "", exported as an empty label
                # (as Ray's exporter does: every tag key of a series is a label)
                assert s.labels["ReplicaId"] == "", s
                if fam != "ray_vllm_corrupted_requests":
                    assert s.labels["model_name"] == MODEL, s

        # vllm:cache_config_info keeps its _info ending, and every CacheConfig field is a tag
        info = events["REPORTS"][0]["cache_config_info"]
        assert len(info) > 16, info  # beam once refused a series of more than 16 tags
        for s in fams["ray_vllm_cache_config_info"].samples:
            assert s.labels == dict(info, engine=s.labels["engine"], ReplicaId=""), s

        hist = fams["ray_vllm_e2e_request_latency_seconds"]
        assert hist.type == "histogram"
        for engine in ("0", "1"):
            buckets = {s.labels["le"]: s.value for s in hist.samples
                       if s.name.endswith("_bucket") and s.labels["engine"] == engine}
            assert buckets == {"0.3": 1.0, "0.5": 3.0, "1.0": 3.0, "2.5": 3.0, "+Inf": 4.0}, buckets
            (total,) = [s.value for s in hist.samples
                        if s.name.endswith("_sum") and s.labels["engine"] == engine]
            assert total == pytest.approx(3.9), total
    finally:
        _vllm.kill_tree(driver)
