"""`ray list|get|summary` as Ray's state CLI and `ray.util.state` on a real two-host cluster
(127.0.0.1 head, 127.0.0.2 joined): actors alive, dead and pending, a placed group and a
pending one; the daemon filters and limits, the CLI prints Ray's layouts and errors."""

import json
import os
import shutil
import tempfile

import pytest

from conftest import finish, ray_cli, read_line_with, run_driver, spawn_driver, wait_gone

SETUP = """
    import json, time
    import ray
    from ray.util.placement_group import placement_group, placement_group_table
    ray.init()

    @ray.remote(num_cpus=0)
    class Pinger:
        def ping(self):
            return ray.util.get_node_ip_address()

    @ray.remote(num_cpus=0)
    class Solo:
        def ping(self):
            return 1

    pingers = [Pinger.options(resources={"node:127.0.0.2": 0.01}).remote() for _ in range(3)]
    solo = Solo.options(name="solo").remote()
    assert ray.get([p.ping.remote() for p in pingers]) == ["127.0.0.2"] * 3
    ray.get(solo.ping.remote())
    ray.kill(pingers[2])
    waiting = Solo.options(resources={"nowhere": 1}).remote()
    placed = placement_group([{"CPU": 1}], name="placed")
    ray.get(placed.ready(), timeout=30)
    never = placement_group([{"CPU": 64}], name="never")
    deadline = time.monotonic() + 60  # the group is sent one way: listed once the daemon has it
    while never.id.hex() not in placement_group_table() and time.monotonic() < deadline:
        time.sleep(0.05)
    print("IDS", json.dumps({"alive": [p._actor_id.hex() for p in pingers[:2]], "dead": pingers[2]._actor_id.hex(),
                             "solo": solo._actor_id.hex(), "placed": placed.id.hex()}, separators=(",", ":")), flush=True)
    time.sleep(600)  # the test ends it
    """


@pytest.fixture(scope="module")
def cluster():
    head, member = (tempfile.mkdtemp(prefix=f"beam-st{i}-") for i in range(2))
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", head, "--num-gpus", "0",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.1"])
    assert done.returncode == 0, done.stderr
    with open(os.path.join(head, "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    done = ray_cli(["start", "--address", address, "--temp-dir", member, "--num-gpus", "0",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.2"], RAY_AUTH_TOKEN=token)
    assert done.returncode == 0, done.stderr
    driver = spawn_driver(head, SETUP)
    try:
        ids = json.loads(read_line_with(driver, "IDS", timeout=90)[-1].split(" ", 1)[1])
        yield head, ids
    finally:
        finish(driver)
        for d in (member, head):
            ray_cli(["stop", "--temp-dir", d], timeout=30)
        wait_gone(base=head, within=10)
        for d in (head, member):
            shutil.rmtree(d, ignore_errors=True)


def listed(head, *args):
    done = ray_cli(["list", *args, "--format", "json"], head)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout) if done.stdout.strip() != "No resource in the cluster" else []


def test_filters_are_anded_case_insensitive_and_typed(cluster):
    head, ids = cluster
    rows = listed(head, "actors", "--filter", "state=alive", "-f", "class_name=PINGER")
    assert sorted(r["actor_id"] for r in rows) == sorted(ids["alive"])
    assert set(rows[0]) == {"actor_id", "class_name", "state", "job_id", "name", "node_id", "pid", "ray_namespace"}
    assert [r["actor_id"] for r in listed(head, "actors", "-f", "class_name=Pinger", "-f", "state!=ALIVE")] == [ids["dead"]]
    assert [r["state"] for r in listed(head, "actors", "-f", "class_name=Solo", "-f", "name!=solo")] == ["PENDING_CREATION"]
    pid = rows[0]["pid"]
    assert [r["actor_id"] for r in listed(head, "actors", "-f", f"pid={pid}")] == [rows[0]["actor_id"]]
    joined = listed(head, "nodes", "-f", "is_head_node=false")
    assert [n["node_ip"] for n in joined] == ["127.0.0.2"]
    assert [n["node_ip"] for n in listed(head, "nodes", "-f", "is_head_node=1")] == ["127.0.0.1"]
    assert [g["name"] for g in listed(head, "placement-groups", "-f", "state=PENDING")] == ["never"]


def test_the_table_layout_and_the_limit_note(cluster):
    head, _ = cluster
    done = ray_cli(["list", "actors", "--limit", "2"], head)
    assert done.returncode == 0, done.stderr
    assert "Stats:" in done.stdout and "Total: 2" in done.stdout and "ACTOR_ID" in done.stdout, done.stdout
    assert "Limit last 2 entries (Total 5)." in done.stderr, done.stderr
    done = ray_cli(["list", "actors", "-f", "class_name=Nobody"], head)
    assert done.returncode == 0 and done.stdout.strip() == "No resource in the cluster", done


def test_detail_adds_rays_detail_columns(cluster):
    head, ids = cluster
    dead = listed(head, "actors", "-f", f"actor_id={ids['dead']}", "--detail")
    assert "ray.kill" in dead[0]["death_cause"]["actor_died_error_context"]["error_message"], dead
    assert dead[0]["node_ip"] == "127.0.0.2" and "required_resources" in dead[0]
    done = ray_cli(["list", "placement-groups", "--detail", "-f", "name=placed"], head)
    assert done.stdout.startswith("---\n") and "bundles:" in done.stdout and "scheduling_state: FINISHED" in done.stdout


def test_get_shows_one_row_by_id(cluster):
    head, ids = cluster
    done = ray_cli(["get", "actors", ids["solo"]], head)
    assert done.returncode == 0, done.stderr
    assert f"actor_id: {ids['solo']}" in done.stdout and "class_name: Solo" in done.stdout and "death_cause: null" in done.stdout
    done = ray_cli(["get", "placement-groups", ids["placed"]], head)
    assert "name: placed" in done.stdout and "state: CREATED" in done.stdout, done.stdout
    node = listed(head, "nodes", "-f", "node_ip=127.0.0.2")[0]["node_id"]
    assert "node_ip: 127.0.0.2" in ray_cli(["get", "nodes", node], head).stdout
    missing = ray_cli(["get", "actors", "ab" * 16], head)
    assert missing.stdout.strip() == f"Resource with id={'ab' * 16} not found in the cluster."


def test_summary_counts_per_class_and_state(cluster):
    head, _ = cluster
    done = ray_cli(["summary", "actors"], head)
    assert done.returncode == 0, done.stderr
    assert "total_actors: 5" in done.stdout and "Table (group by class):" in done.stdout, done.stdout
    assert "ALIVE: 2, DEAD: 1" in done.stdout and "ALIVE: 1, PENDING_CREATION: 1" in done.stdout, done.stdout
    reply = json.loads(ray_cli(["summary", "actors", "--json"], head).stdout)
    pinger = reply["result"]["node_id_to_summary"]["cluster"]["summary"]["Pinger"]
    assert pinger == {"class_name": "Pinger", "state_counts": {"ALIVE": 2, "DEAD": 1}}


@pytest.mark.parametrize("args, words", [
    (["list", "actors", "-f", "colour=red"], "Invalid filter key 'colour' for resource 'actors'. Available filter keys are: actor_id"),
    (["list", "actors", "-f", "death_cause=x"], "The given filter column death_cause is not supported"),
    (["list", "actors", "-f", "state"], "Cannot find the predicate. Please provide key=val or key!=val"),
    (["list", "actors", "-f", "pid=many"], "for a int type column"),
    (["list", "actors", "--limit", "0"], "Given limit 0 is not positive"),
    (["list", "actors", "--limit", "99999999999"], "exceeds the supported limit 10000"),
    (["list", "jobs"], "Unknown resource 'jobs': choose from actors, nodes, placement-groups"),
    (["list", "actors", "--format", "xml"], "--format must be one of default, json, yaml, table"),
    (["summary", "nodes"], "Unknown summary resource 'nodes': choose from actors, tasks"),
])
def test_bad_input_is_named_with_the_choices(cluster, args, words):
    done = ray_cli(args, cluster[0])
    assert done.returncode == 2 and words in done.stderr, (done.returncode, done.stderr)


def test_ray_util_state_filters_limits_and_gets(cluster):
    head, ids = cluster
    done = run_driver(head, f"""
        import json
        import ray
        from ray.util import state
        ray.init()
        alive = state.list_actors(filters=[("state", "=", "ALIVE"), ("class_name", "=", "Pinger")])
        one = state.list_actors(limit=1)
        nodes = state.list_nodes(filters=[("is_head_node", "=", False)])
        got = state.get_actor("{ids['solo']}")
        groups = state.list_placement_groups(filters=[("name", "=", "placed")], detail=True)
        try:
            state.list_actors(filters=[("colour", "=", "red")])
            bad = None
        except ValueError as e:
            bad = str(e)
        print(json.dumps({{"alive": sorted(a.actor_id for a in alive), "one": len(one), "nodes": [n.node_ip for n in nodes],
                          "get": [got.class_name, got["name"]], "missing": state.get_actor("{'cd' * 16}"),
                          "bundles": len(groups[0].bundles), "bad": bad,
                          "summary": state.summarize_actors()["cluster"]["summary"]["Pinger"]["state_counts"]}}))
        """)
    assert done.returncode == 0, done.stderr
    got = json.loads(done.stdout.strip().splitlines()[-1])
    assert got["alive"] == sorted(ids["alive"]) and got["one"] == 1 and got["nodes"] == ["127.0.0.2"]
    assert got["get"] == ["Solo", "solo"] and got["missing"] is None and got["bundles"] == 1
    assert "Invalid filter key 'colour'" in got["bad"]
    assert got["summary"] == {"ALIVE": 2, "DEAD": 1}
