"""Calls on two loopback hosts (127.0.0.1 head, 127.0.0.2 joined): a driver on the joined node
calls an actor placed there; its labelled call, relayed through the joined node to the head,
is listed with the joined node's id and the actor's pid by `ray list tasks` and named as long
by `ray status`, asked on either node."""
import json
import shutil
import tempfile

import pytest

from conftest import WAIT_S, finish, wait_until, ray_cli, read_line_with, spawn_driver, wait_gone

DRIVER = """
import json, time, ray
ray.init(address="auto")

@ray.remote
class RayWorkerWrapper:
    def execute_method(self, name, s):
        time.sleep(s)

w = RayWorkerWrapper.options(resources={"node:127.0.0.2": 0.01}).remote()
ray.get(w.execute_method.remote("warm_up", 0))
stuck = w.execute_method.remote("init_device", 600)
print("READY " + json.dumps({"actor": w._actor_id.hex(), "stuck": stuck.hex()[:48]}), flush=True)
time.sleep(600)
"""


@pytest.fixture
def hosts():
    made = [tempfile.mkdtemp(prefix=f"beam-calls{i}-") for i in range(2)]
    yield made
    for d in reversed(made):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=made[0], within=10)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def test_a_call_on_the_joined_node_is_listed_and_named_from_both_nodes(hosts):
    head = ray_cli(["start", "--head", "--port", "0", "--temp-dir", hosts[0], "--num-cpus", "2",
                    "--node-ip-address", "127.0.0.1", "--long-call-seconds", "1", "--include-dashboard", "false"])
    assert head.returncode == 0, head.stderr
    with open(f"{hosts[0]}/session_latest/node.json") as f:
        address = json.load(f)["address"]
    with open(f"{hosts[0]}/session_latest/auth_token") as f:
        token = f.read().strip()
    joined = ray_cli(["start", "--address", address, "--temp-dir", hosts[1], "--num-cpus", "2",
                      "--node-ip-address", "127.0.0.2", "--include-dashboard", "false"], RAY_AUTH_TOKEN=token)
    assert joined.returncode == 0, joined.stderr
    driver = spawn_driver(hosts[1], DRIVER)
    try:
        ids = json.loads(read_line_with(driver, "READY", timeout=90)[-1].split("READY ", 1)[1])
        nodes = {n["node_ip"]: n["node_id"] for n in json.loads(
            ray_cli(["list", "nodes", "--json"], temp_dir=hosts[0]).stdout)}
        actors = {a["actor_id"]: a for a in json.loads(ray_cli(["list", "actors", "--json"], temp_dir=hosts[0]).stdout)}
        for base in hosts:
            def running():  # READY follows the submit; the relayed call starts when the machine gets to it
                rows = {t["task_id"]: t for t in json.loads(ray_cli(["list", "tasks", "--json"], temp_dir=base).stdout)}
                return rows.get(ids["stuck"]) if rows.get(ids["stuck"], {}).get("state") == "RUNNING" else None
            stuck = wait_until(running, WAIT_S, f"the stuck call RUNNING in `ray list tasks` on {base}")
            assert stuck["name"] == "RayWorkerWrapper.execute_method"
            assert stuck["beam_label"] == "init_device" and stuck["node_id"] == nodes["127.0.0.2"]
            assert stuck["worker_pid"] == actors[ids["actor"]]["pid"]
            status = wait_until(lambda: (lambda s: s if "init_device" in s.stdout else None)(ray_cli(["status"], temp_dir=base)),
                                WAIT_S, "`ray status` naming the call as long (it is one after 1 s)")
            line = next(l for l in status.stdout.splitlines() if "init_device" in l)
            assert "node 127.0.0.2" in line and "ray stack --actor-id " + ids["actor"] in line, status.stdout
    finally:
        finish(driver)
