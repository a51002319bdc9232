"""An actor on a joined node whose last handle is gone is ended there too, its GPU freed for
the next actor; the driver holding it may be on either node. Two loopback hosts
(127.0.0.1 head, 127.0.0.2 joined), real daemons, drivers as subprocesses."""

import json
import os
import shutil
import tempfile

import pytest

from conftest import ray_cli, run_driver, wait_gone

DROP_THEN_NEXT = """
    import ray
    ray.init()
    @ray.remote(num_gpus=1, resources={"node:127.0.0.2": 0.001})
    class G:
        def where(self):
            return ray.util.get_node_ip_address(), ray.get_gpu_ids()
    for i in range(3):  # the joined node has one GPU: each waits for the one before to end
        g = G.remote()
        print("ON", i, *ray.get(g.where.remote(), timeout=30), flush=True)
        del g
    """


def out_of_scope(head):
    """The ids of the actors the head logged as ended for want of handles."""
    with open(os.path.join(head, "session_latest", "logs", "beamd.log")) as f:
        return {line.split(" died:")[0].split()[-1] for line in f
                if " died: The actor is dead because all references to the actor were removed." in line}


@pytest.fixture(scope="module")
def two_hosts():
    head, member = (tempfile.mkdtemp(prefix=f"beam-hc{i}-") for i in range(2))
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", head, "--num-gpus", "0",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.1"])
    assert done.returncode == 0, done.stderr
    with open(os.path.join(head, "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    done = ray_cli(["start", "--address", address, "--temp-dir", member, "--num-gpus", "1",
                    "--num-cpus", "2", "--node-ip-address", "127.0.0.2"], RAY_AUTH_TOKEN=token)
    assert done.returncode == 0, done.stderr
    yield head, member
    for d in (member, head):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=head, within=10)
    for d in (head, member):
        shutil.rmtree(d, ignore_errors=True)


@pytest.mark.parametrize("driver_on", ["head", "joined"])
def test_a_dropped_actor_on_a_joined_node_frees_its_gpu(two_hosts, driver_on):
    base = two_hosts[0] if driver_on == "head" else two_hosts[1]
    before = len(out_of_scope(two_hosts[0]))
    done = run_driver(base, DROP_THEN_NEXT, timeout=120)
    assert done.returncode == 0, f"{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    lines = [line.split() for line in done.stdout.splitlines() if line.startswith("ON")]
    assert [(ip, gpus) for _, _, ip, gpus in lines] == [("127.0.0.2", "[0]")] * 3, done.stdout
    # the head says why each ended, in Ray's words (the last one may go with its driver instead)
    assert len(out_of_scope(two_hosts[0])) >= before + 2, out_of_scope(two_hosts[0])
