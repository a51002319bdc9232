"""Ray's multi-node test fixtures, by their names and arguments, made with beam's
``ray.cluster_utils.Cluster``, so a test written for Ray's ``conftest.py`` runs unchanged.

``ray_start_cluster`` (params: ``num_nodes``, ``do_init`` and add_node's arguments; with nodes,
the driver is connected to the first), ``ray_start_cluster_head`` (a head, connected) and
``ray_start_cluster_enabled`` (an empty cluster). Ray's default node arguments are passed as
Ray's fixtures pass them (``object_store_memory``, ``dashboard_port``, ``_system_config``),
which beam accepts and ignores (README, "Cluster").
"""

import contextlib
import shutil
import tempfile

import pytest

import ray
from ray.cluster_utils import Cluster

RAY_FIXTURE_NODE_ARGS = {"num_cpus": 1, "object_store_memory": 150 * 1024 * 1024, "dashboard_port": None,
                         "_system_config": {"health_check_failure_threshold": 10}}


@contextlib.contextmanager
def _started(head: bool, connect: bool, **params):
    params = dict(params)
    num_nodes = params.pop("num_nodes", 1 if head else 0)
    do_init = params.pop("do_init", connect or num_nodes > 0)
    namespace = params.pop("namespace", "default_test_namespace")
    args = {**RAY_FIXTURE_NODE_ARGS, **params}
    cluster = Cluster()
    try:
        for i in range(num_nodes):
            cluster.add_node(**(args if i == 0 else {k: v for k, v in args.items() if k != "_system_config"}))
        if num_nodes:
            cluster.wait_for_nodes()
        if do_init:
            ray.init(address=cluster.address, namespace=namespace)
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()


@pytest.fixture
def own_temp_dir(monkeypatch):
    """A temp dir of the test's own (beam's tests choose theirs; Ray's fixtures do not need to)."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    temp = tempfile.mkdtemp(prefix="beam-rsc-", dir="/tmp")
    monkeypatch.setenv("RAY_TMPDIR", temp)
    yield temp
    shutil.rmtree(temp, ignore_errors=True)


@pytest.fixture
def ray_start_cluster(request, own_temp_dir):
    with _started(False, False, **getattr(request, "param", {})) as cluster:
        yield cluster


@pytest.fixture
def ray_start_cluster_head(request, own_temp_dir):
    with _started(True, True, **getattr(request, "param", {})) as cluster:
        yield cluster


@pytest.fixture
def ray_start_cluster_enabled(request, own_temp_dir):
    with _started(False, False, **getattr(request, "param", {})) as cluster:
        yield cluster
