"""``ray.cluster_utils.Cluster`` on beam: each node a real daemon on a loopback IP of its own,
``remove_node`` a real node loss, and nothing left once the cluster is shut down."""

import os
import json
import subprocess
import tempfile
import textwrap

import pytest

import ray
from ray.cluster_utils import AutoscalingCluster, Cluster
from ray.exceptions import ActorDiedError
from ray.util.placement_group import placement_group, placement_group_table

from conftest import ROOT, VENV_PYTHON, beam_env, wait_gone


@pytest.fixture
def cluster(monkeypatch):
    own_temp(monkeypatch)
    made = Cluster()
    yield made
    made.shutdown()


@ray.remote(num_cpus=0)
class Where:
    def node(self):
        return ray.get_runtime_context().get_node_id(), ray.util.get_node_ip_address()


def _alive_ids():
    return {n["NodeID"] for n in ray.nodes() if n["Alive"]}


def test_nodes_are_daemons_with_rays_attributes(cluster):
    head = cluster.add_node(num_cpus=2)
    assert cluster.head_node is head and cluster.address == cluster.gcs_address == head.address
    workers = [cluster.add_node(num_cpus=1, num_gpus=1, resources={"x": 1}) for _ in range(2)]
    cluster.wait_for_nodes()
    assert cluster.list_all_nodes() == [head, *cluster.worker_nodes] and cluster.worker_nodes == set(workers)
    cluster.connect()
    assert _alive_ids() == {n.node_id for n in cluster.list_all_nodes()}
    ips = [n.node_ip_address for n in cluster.list_all_nodes()]
    assert ips[0] == "127.0.0.1" and len(set(ips)) == 3, ips
    for n in cluster.list_all_nodes():
        assert n.unique_id == n.node_id and len(n.node_id) == 56
        assert n.address == n.gcs_address == cluster.address
        assert os.path.isdir(n.get_session_dir_path()) and os.path.exists(n.raylet_socket_name)
        assert n.remaining_processes_alive() and n.any_processes_alive()
    total = ray.cluster_resources()
    assert (total["CPU"], total["GPU"], total["x"]) == (4.0, 2.0, 2.0), total
    node_id, ip = ray.get(Where.options(resources={"x": 1}).remote().node.remote(), timeout=60)
    assert (node_id, ip) in {(w.node_id, w.node_ip_address) for w in workers}


def own_temp(monkeypatch):
    """No cluster of the test's environment, and a temp dir of the test's own: whatever another
    program left in /tmp/ray (real Ray leaves it world-writable) must not decide the test."""
    monkeypatch.delenv("RAY_ADDRESS", raising=False)
    monkeypatch.setenv("RAY_TMPDIR", tempfile.mkdtemp(prefix="beam-ct-", dir="/tmp"))


def test_initialize_head_and_connect_in_the_constructor(monkeypatch):
    own_temp(monkeypatch)
    with pytest.raises(RuntimeError, match="Cannot connect to uninitialized cluster"):
        Cluster(connect=True)
    c = Cluster(initialize_head=True, connect=True, head_node_args={"num_cpus": 3})
    try:
        assert ray.is_initialized() and ray.cluster_resources()["CPU"] == 3.0
        assert os.environ["RAY_ADDRESS"] == c.address  # a bare ray.init() finds it, as Ray's address file
    finally:
        c.shutdown()
    assert not ray.is_initialized() and "RAY_ADDRESS" not in os.environ


def test_remove_node_is_a_node_loss_for_its_actors(cluster):
    cluster.add_node(num_cpus=1)
    doomed = cluster.add_node(num_cpus=1, resources={"doomed": 1})
    cluster.connect()
    actor = Where.options(resources={"doomed": 1}).remote()
    assert ray.get(actor.node.remote(), timeout=60)[0] == doomed.node_id
    worker_pids = set(doomed.process_ids()) - {doomed.pid}
    assert worker_pids, "the actor's worker is not counted among the node's processes"
    cluster.remove_node(doomed, allow_graceful=False)
    assert not doomed.any_processes_alive() and not os.path.exists(doomed.temp_dir)
    cluster.wait_for_nodes()
    assert doomed.node_id not in _alive_ids()
    with pytest.raises(ActorDiedError) as died:
        ray.get(actor.node.remote(), timeout=60)
    assert "127.0.0.2" in str(died.value), str(died.value)


def test_a_graceful_removal_and_a_group_that_lost_a_node(cluster):
    cluster.add_node(num_cpus=1)
    nodes = [cluster.add_node(num_cpus=1, resources={"slot": 1}) for _ in range(2)]
    cluster.connect()
    pg = placement_group([{"slot": 1}] * 2, strategy="STRICT_SPREAD")
    ray.get(pg.ready(), timeout=60)
    placed = placement_group_table(pg)["bundles_to_node_id"]
    assert set(placed.values()) == {n.node_id for n in nodes}
    cluster.remove_node(nodes[0], allow_graceful=True)
    cluster.wait_for_nodes()
    replacement = cluster.add_node(num_cpus=1, resources={"slot": 1})
    assert pg.wait(60), "the group did not come back once a node that fits joined"
    assert set(placement_group_table(pg)["bundles_to_node_id"].values()) == {nodes[1].node_id, replacement.node_id}


def test_rays_fixture_arguments_are_accepted_and_what_beam_cannot_do_is_refused(cluster):
    head = cluster.add_node(num_cpus=1, object_store_memory=75 * 1024 * 1024, dashboard_port=None,
                            _system_config={"health_check_period_ms": 1000}, include_dashboard=False,
                            min_worker_port=0, max_worker_port=0, redis_port=None)
    with pytest.raises(ValueError, match="worker_path.*not supported by beam"):
        cluster.add_node(worker_path="/bin/true")
    with pytest.raises(TypeError, match="unexpected keyword argument 'num_cpu'"):
        cluster.add_node(num_cpu=1)
    with pytest.raises(ValueError, match="num_gpus=-1"):
        cluster.add_node(num_gpus=-1)
    with pytest.raises(NotImplementedError, match="autoscaler"):
        AutoscalingCluster(head_resources={}, worker_node_types={})
    assert cluster.list_all_nodes() == [head]
    cluster.connect()
    with pytest.raises(ValueError, match="Removing a node that is connected to this Ray client"):
        cluster.remove_node(head)
    assert not ray.is_initialized()


def test_a_cluster_ends_with_the_process_that_made_it():
    """shutdown_at_exit: the daemons stop when the making process exits, shut down or not."""
    code = textwrap.dedent("""
        import json
        from ray.cluster_utils import Cluster
        c = Cluster(initialize_head=True)
        n = c.add_node()
        print(json.dumps([c.head_node.temp_dir, n.temp_dir, c.head_node.pid, n.pid]), flush=True)
    """)
    env = beam_env()
    env.pop("RAY_ADDRESS", None)
    done = subprocess.run([VENV_PYTHON, "-c", code], env=env, capture_output=True, text=True, timeout=120, cwd=ROOT)
    assert done.returncode == 0, done.stderr
    dirs_and_pids = json.loads(done.stdout.strip().splitlines()[-1])
    for temp in dirs_and_pids[:2]:
        assert not wait_gone(base=temp, within=30), f"processes of {temp} outlived the process that made them"
        assert not os.path.exists(temp), f"{temp} is left behind"

