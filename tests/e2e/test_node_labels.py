"""Node labels as Ray 2.60's: set with ``ray start --labels`` / ``--labels-file`` /
``RAY_OVERRIDE_LABELS`` / ``Cluster.add_node(labels=)``, Ray's defaults (``ray.io/node-id``,
the pod-spec variables), read with ``get_node_labels()`` and ``ray.nodes()``, and honoured by
``label_selector`` on actors and ``bundle_label_selector`` on placement groups across real
daemons on their own loopback IPs."""

import json
import os

import pytest

import ray
from ray.util.placement_group import placement_group, placement_group_table, remove_placement_group
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

from conftest import WAIT_S, Clusters, ray_cli, wait_until
from ray_cluster_fixtures import own_temp_dir, ray_start_cluster_head  # noqa: F401 (fixtures)


@ray.remote(num_cpus=0)
class Where:
    def node(self):
        return ray.get_runtime_context().get_node_id()

    def labels(self):
        return ray.get_runtime_context().get_node_labels()


def _zones(cluster):
    a = cluster.add_node(num_cpus=2, labels={"zone": "a", "market": "spot"})
    b = cluster.add_node(num_cpus=2, labels={"zone": "b"})
    cluster.wait_for_nodes()
    return a, b


def test_actors_land_only_where_their_selector_matches(ray_start_cluster_head):
    cluster = ray_start_cluster_head
    a, b = _zones(cluster)
    on = lambda selector: ray.get(Where.options(label_selector=selector).remote().node.remote(), timeout=60)  # noqa: E731
    assert on({"zone": "a"}) == a.node_id
    assert on({"zone": "in(b,c)"}) == b.node_id
    assert on({"zone": "!a", "ray.io/node-id": b.node_id}) == b.node_id
    assert {on({"market": "!spot", "zone": "in(a, b)"}) for _ in range(3)} == {b.node_id}  # lacking the key counts as "not"
    here = Where.options(label_selector={"zone": "b"}).remote()
    labels = ray.get(here.labels.remote(), timeout=60)
    assert labels == {"ray.io/node-id": b.node_id, "zone": "b"}
    listed = {n["NodeID"]: n["Labels"] for n in ray.nodes()}
    assert listed[a.node_id] == {"ray.io/node-id": a.node_id, "zone": "a", "market": "spot"}


def test_node_label_scheduling_strategy_places_hard_and_prefers_soft(ray_start_cluster_head):
    from ray.util.scheduling_strategies import DoesNotExist, Exists, In, NodeLabelSchedulingStrategy, NotIn

    cluster = ray_start_cluster_head
    a, b = _zones(cluster)
    on = lambda **kw: ray.get(Where.options(  # noqa: E731
        scheduling_strategy=NodeLabelSchedulingStrategy(**kw)).remote().node.remote(), timeout=60)
    assert on(hard={"zone": In("b", "c")}) == b.node_id
    assert on(hard={"market": Exists()}) == a.node_id
    head = cluster.head_node.node_id  # has no zone, so NotIn("a") holds there too
    assert on(hard={"zone": NotIn("a"), "market": DoesNotExist(), "ray.io/node-id": NotIn(head)}) == b.node_id
    assert on(hard={"zone": DoesNotExist()}) == head
    assert {on(hard={"zone": Exists()}, soft={"zone": In("b")}) for _ in range(3)} == {b.node_id}
    assert on(hard={}, soft={"zone": In("nowhere")}) in {a.node_id, b.node_id, head}
    with pytest.raises(ValueError, match="cannot both be empty"):
        NodeLabelSchedulingStrategy(hard={})
    with pytest.raises(ValueError, match="must be a non-empty tuple"):
        In()
    with pytest.raises(ValueError, match="must be one of the `In`, `NotIn`, `Exists` or `DoesNotExist`"):
        NodeLabelSchedulingStrategy(hard={"zone": "a"})


def test_an_actor_no_node_matches_waits_says_why_and_is_placed_when_one_joins(ray_start_cluster_head):
    cluster = ray_start_cluster_head
    _zones(cluster)
    waiting = Where.options(label_selector={"zone": "c"}).remote()
    ready, _ = ray.wait([waiting.node.remote()], timeout=1)
    assert ready == []
    rows = json.loads(ray_cli(["list", "actors", "--detail", "--json"], temp_dir=cluster.head_node.temp_dir).stdout)
    mine = next(r for r in rows if r["actor_id"] == waiting._actor_id.hex())
    assert mine["state"] == "PENDING_CREATION"
    c = cluster.add_node(num_cpus=1, labels={"zone": "c"})
    assert ray.get(waiting.node.remote(), timeout=60) == c.node_id


def test_bundles_go_to_the_nodes_their_selectors_name(ray_start_cluster_head):
    cluster = ray_start_cluster_head
    a, b = _zones(cluster)
    pg = placement_group([{"CPU": 1}, {"CPU": 1}], strategy="SPREAD",
                         bundle_label_selector=[{"zone": "b"}, {"zone": "a"}])
    ray.get(pg.ready(), timeout=60)
    assert placement_group_table(pg)["bundles_to_node_id"] == {0: b.node_id, 1: a.node_id}
    placed = [Where.options(scheduling_strategy=PlacementGroupSchedulingStrategy(
        placement_group=pg, placement_group_bundle_index=i)).remote() for i in range(2)]
    assert ray.get([p.node.remote() for p in placed], timeout=60) == [b.node_id, a.node_id]
    remove_placement_group(pg)

    never = placement_group([{"CPU": 1}], bundle_label_selector=[{"zone": "c"}])
    wait_until(lambda: placement_group_table(never)["stats"]["scheduling_state"] == "INFEASIBLE", WAIT_S,
               "a group no node's labels match reads INFEASIBLE")
    assert "zone=c" in placement_group_table(never)["beam_waiting_reason"]
    c = cluster.add_node(num_cpus=1, labels={"zone": "c"})
    ray.get(never.ready(), timeout=60)
    assert placement_group_table(never)["bundles_to_node_id"] == {0: c.node_id}


def test_bad_selectors_are_refused_with_rays_words(ray_start_cluster_head):
    for selector, says in (({"zone": "-x"}, "Invalid label selector value `-x`"),
                           ({"-k": "a"}, "Invalid label key name `-k`"),
                           ({"zone": "in()"}, "Invalid label selector value `in()`")):
        with pytest.raises(ValueError, match=says.replace("(", r"\(").replace(")", r"\)")):
            Where.options(label_selector=selector).remote()
    with pytest.raises(ValueError, match="The length of `bundle_label_selector` should equal the length of `bundles`"):
        placement_group([{"CPU": 1}], bundle_label_selector=[{"zone": "a"}, {"zone": "b"}])
    with pytest.raises(ValueError, match="bundle_label_selector must be a list"):
        placement_group([{"CPU": 1}], bundle_label_selector={"zone": "a"})
    with pytest.raises(ValueError, match="Invalid label selector provided in bundle_label_selector list"):
        placement_group([{"CPU": 1}], bundle_label_selector=[{"zone": "!!a"}])


def test_init_refuses_labels_for_an_existing_cluster(ray_start_cluster_head):
    ray.shutdown()  # the fixture connected; a second driver of the same cluster asks with labels
    with pytest.raises(ValueError, match="When connecting to an existing cluster, labels must not be provided."):
        ray.init(address=ray_start_cluster_head.address, labels={"zone": "a"})


def _labels(base):
    nodes = json.loads(ray_cli(["list", "nodes", "--json"], temp_dir=base).stdout)
    assert len(nodes) == 1, nodes
    return nodes[0]["labels"]


def test_ray_start_reads_labels_from_its_flags_file_and_environment(clusters: Clusters, tmp_path):
    file = tmp_path / "labels.yaml"
    file.write_text("# the rack\nrack: r7\nzone: 'from-file'\n")
    base = clusters.start("--num-cpus", "1", "--include-dashboard", "false", "--labels", "zone=us-west1-a,gpu=a100",
                          "--labels-file", str(file), RAY_NODE_ZONE="pod-zone", RAY_NODE_MARKET_TYPE="spot",
                          RAY_OVERRIDE_LABELS='{"gpu": "h200"}')
    labels = _labels(base)
    assert len(labels.pop("ray.io/node-id")) == 56
    # the pod spec's defaults, then the file, then --labels, then the override
    assert labels == {"ray.io/availability-zone": "pod-zone", "ray.io/market-type": "spot", "rack": "r7",
                      "zone": "us-west1-a", "gpu": "h200"}


@pytest.mark.parametrize("args, says", [
    (["--labels", "zone"], "is not a valid string of key-value pairs"),
    (["--labels", "-bad=x"], "Invalid label key name `-bad`"),
    (["--labels", "zone=a b"], "Invalid label key value `a b`"),
    (["--labels-file", "/nonexistent/labels.yaml"], "cannot be read"),
])
def test_ray_start_refuses_bad_labels_with_rays_words(clusters: Clusters, args, says):
    base = clusters.new_dir()
    started = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--include-dashboard", "false", *args])
    assert started.returncode != 0 and says in started.stderr, started.stderr
