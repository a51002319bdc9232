"""Explain yourself: `ray status`, `ray list`, `ray doctor`, waiting placement groups and
version checks, on a cluster of two loopback hosts (127.0.0.1 head, 127.0.0.2 joined)."""
import json
import os
import shutil
import tempfile
import time
import urllib.request

import pytest

from conftest import WAIT_S, beam_env, ray_cli, run_driver, spawn_driver, read_line_with, finish, wait_gone, wait_until


def start_head(base, *extra, **env):
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-gpus", "2", "--num-cpus", "2",
                    "--node-ip-address", "127.0.0.1", *extra], **env)
    assert done.returncode == 0, done.stderr
    with open(os.path.join(base, "session_latest", "node.json")) as f:
        address = json.load(f)["address"]
    with open(os.path.join(base, "session_latest", "auth_token")) as f:
        return address, f.read().strip()


def join(base, address, token, ip, *extra, **env):
    done = ray_cli(["start", "--address", address, "--temp-dir", base, "--num-gpus", "2", "--num-cpus", "2",
                    "--node-ip-address", ip, *extra], RAY_AUTH_TOKEN=token, **env)
    assert done.returncode == 0, done.stderr
    return done


def limits_file(folder, open_files="1048576", locked_memory="unlimited"):
    """A /proc/self/limits of a well-set host (or with the limits given), for BEAM_LIMITS_PATH:
    the test machine's own limits are whatever its container got."""
    path = os.path.join(folder, "limits")
    with open(path, "w") as f:
        f.write("Limit                     Soft Limit           Hard Limit           Units     \n"
                f"Max open files            {open_files:<20} {open_files:<20} files     \n"
                f"Max locked memory         {locked_memory:<20} {locked_memory:<20} bytes     \n")
    return path


@pytest.fixture
def hosts():
    made = [tempfile.mkdtemp(prefix=f"beam-diag{i}-") for i in range(3)]
    yield made
    for d in reversed(made):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=made[0], within=10)
    for d in made:
        shutil.rmtree(d, ignore_errors=True)


def test_doctor_passes_on_a_healthy_cluster_and_catches_a_wrong_node_ip(hosts):
    # well-set limits, and the temp folder's disk for /dev/shm: a CI container's own may be small
    good = {"BEAM_LIMITS_PATH": limits_file(hosts[2]), "BEAM_SHM_PATH": hosts[2]}
    address, token = start_head(hosts[0], **good)
    join(hosts[1], address, token, "127.0.0.2", **good)
    ok = ray_cli(["doctor", "--temp-dir", hosts[0]])
    assert ok.returncode == 0, ok.stdout + ok.stderr
    assert "127.0.0.1 -> 127.0.0.2" in ok.stdout and "127.0.0.2 -> 127.0.0.1" in ok.stdout
    assert "No problems found." in ok.stdout
    assert "interface lo" in ok.stdout
    # From the joined node: its request is relayed to the head, whose probe that same node
    # must answer over the same link; it used to wait on the link's thread, so the node's
    # heartbeats stalled and the head declared it lost.
    relayed = ray_cli(["doctor", "--temp-dir", hosts[1]])
    assert relayed.returncode == 0, relayed.stdout + relayed.stderr
    assert "127.0.0.2 -> 127.0.0.1" in relayed.stdout and "No problems found." in relayed.stdout
    status = json.loads(ray_cli(["status", "--json", "--temp-dir", hosts[0]]).stdout)
    assert all(n["Alive"] for n in status["nodes"]), status["nodes"]

    join(hosts[2], address, token, "10.254.254.254", **good)  # not an address of this host
    bad = ray_cli(["doctor", "--temp-dir", hosts[0]])
    assert bad.returncode == 1, bad.stdout
    assert "10.254.254.254: its node IP is not an address of any interface" in bad.stdout
    assert "--node-ip-address" in bad.stdout
    report = json.loads(ray_cli(["doctor", "--json", "--temp-dir", hosts[0]]).stdout)
    assert any("10.254.254.254" in p for p in report["problems"])
    assert {n["node_ip"] for n in report["nodes"]} == {"127.0.0.1", "127.0.0.2", "10.254.254.254"}


def test_a_locked_memory_limit_fails_doctor_only_on_a_host_with_rdma_devices(hosts):
    """The owner's decision: NCCL pins memory only over RDMA, so `ulimit -l` matters (exit 1)
    where /sys/class/infiniband has devices, and is a warning (exit 0) elsewhere."""
    rdma_root = os.path.join(hosts[2], "rdma-host")
    os.makedirs(os.path.join(rdma_root, "sys", "class", "infiniband", "mlx5_0"))
    locked = {"BEAM_LIMITS_PATH": limits_file(hosts[2], locked_memory="65536"), "BEAM_SHM_PATH": hosts[2]}
    address, token = start_head(hosts[0], **locked)
    head_rdma = json.loads(ray_cli(["doctor", "--json", "--temp-dir", hosts[0]]).stdout)["nodes"][0]["host_limits"]
    if head_rdma["rdma_devices"]:
        pytest.skip("this machine has RDMA devices of its own")
    alone = ray_cli(["doctor", "--temp-dir", hosts[0]])
    assert alone.returncode == 0, alone.stdout + alone.stderr
    assert "Warnings\n  - node 127.0.0.1: the locked-memory limit (ulimit -l) is 64 KiB, not unlimited" in alone.stdout
    assert "(only a warning: this host has no RDMA device in /sys/class/infiniband)" in alone.stdout
    assert "No problems found." in alone.stdout
    join(hosts[1], address, token, "127.0.0.2", BEAM_DEVICE_ROOT=rdma_root, **locked)
    both = ray_cli(["doctor", "--temp-dir", hosts[0]])
    assert both.returncode == 1, both.stdout + both.stderr
    problems = both.stdout.split("Problems\n", 1)[1]
    assert "node 127.0.0.2: the locked-memory limit (ulimit -l) is 64 KiB, not unlimited" in problems
    assert "(this host has 1 RDMA device(s) in /sys/class/infiniband)" in problems
    assert "node 127.0.0.1" not in problems, problems


def test_doctor_names_small_shm_low_limits_and_nccl_settings_that_differ_with_the_fix(hosts):
    # Head: a low open-files limit, NCCL_SOCKET_IFNAME=lo. Joined node: a small /dev/shm (devpts,
    # a real filesystem of 0 bytes, stands in for Docker's 64 MiB default), another
    # NCCL_SOCKET_IFNAME and a VLLM_HOST_IP that is not its node IP.
    if not os.path.isdir("/dev/pts"):
        pytest.skip("no /dev/pts to stand in for a small /dev/shm")
    address, token = start_head(hosts[0], BEAM_LIMITS_PATH=limits_file(hosts[0], open_files="1024"),
                                NCCL_SOCKET_IFNAME="lo", GLOO_SOCKET_IFNAME="lo")
    join(hosts[1], address, token, "127.0.0.2", BEAM_LIMITS_PATH=limits_file(hosts[1], locked_memory="8388608"),
         BEAM_SHM_PATH="/dev/pts", NCCL_SOCKET_IFNAME="eth0", GLOO_SOCKET_IFNAME="lo", VLLM_HOST_IP="10.9.9.9")
    doctor = ray_cli(["doctor", "--temp-dir", hosts[0]])
    out = doctor.stdout
    assert doctor.returncode == 1, out + doctor.stderr
    assert "node 127.0.0.2: /dev/pts is 0 B (under 1 GiB): vLLM and NCCL use /dev/shm; in Docker pass --shm-size" in out
    assert "node 127.0.0.1: the open-files limit (ulimit -n) is 1024, under 65536" in out and "ulimit -n 65536" in out
    assert "node 127.0.0.2: the locked-memory limit (ulimit -l) is 8 MiB, not unlimited" in out, out
    assert "NCCL_SOCKET_IFNAME differs between nodes: lo on 127.0.0.1; eth0 on 127.0.0.2" in out, out
    assert "GLOO_SOCKET_IFNAME differs" not in out, out
    assert "node 127.0.0.2: VLLM_HOST_IP=10.9.9.9 is not this node's IP" in out and "VLLM_HOST_IP=127.0.0.2" in out
    assert "open files 1024, locked memory unlimited" in out and "NCCL_SOCKET_IFNAME=eth0" in out, out
    report = json.loads(ray_cli(["doctor", "--json", "--temp-dir", hosts[0]]).stdout)
    host = {n["node_ip"]: n["host_limits"] for n in report["nodes"]}
    assert host["127.0.0.2"]["shm_bytes"] == 0 and host["127.0.0.1"]["shm_bytes"] >= 0
    assert host["127.0.0.1"]["open_files"] == 1024 and host["127.0.0.2"]["locked_memory"] == 8388608
    assert host["127.0.0.2"]["env"]["VLLM_HOST_IP"] == "10.9.9.9"
    assert sum("differs between nodes" in p for p in report["problems"]) == 1, report["problems"]


def test_version_mismatch_is_a_warning_in_status_and_a_doctor_problem(hosts, tmp_path):
    address, token = start_head(hosts[0])
    # A joined node whose Python reports another cloudpickle version than the head's.
    fake = tmp_path / "python"
    fake.write_text('#!/bin/sh\necho \'{"python": "3.11.0", "vllm": null, "torch": null, "cloudpickle": "0.0.1"}\'\n')
    fake.chmod(0o755)
    join(hosts[1], address, token, "127.0.0.2", BEAM_PYTHON=str(fake))
    status = wait_until(lambda: (lambda out: out if "Version warnings" in out else None)(
        ray_cli(["status", "--temp-dir", hosts[0]]).stdout), WAIT_S, "ray status showing version warnings", 0.2)
    assert "cloudpickle 0.0.1 on 127.0.0.2 differs from" in status, status
    doctor = ray_cli(["doctor", "--temp-dir", hosts[0]])
    assert doctor.returncode == 1 and "version mismatch: cloudpickle" in doctor.stdout, doctor.stdout


def test_versions_come_from_the_python_that_ran_ray_not_the_one_on_path(hosts, tmp_path):
    # A `python3` on PATH that is not the venv (as when beam and vLLM live in a venv that is
    # not activated): the daemon must ask the interpreter that ran `ray start` instead.
    import cloudpickle

    fake_bin = tmp_path / "bin"
    fake_bin.mkdir()
    fake = fake_bin / "python3"
    fake.write_text('#!/bin/sh\necho \'{"python": "3.0.0", "vllm": null, "torch": null, "cloudpickle": "0.0.1"}\'\n')
    fake.chmod(0o755)
    env = beam_env(hosts[0])
    env["PATH"] = f"{fake_bin}{os.pathsep}{env['PATH']}"
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", hosts[0], "--num-cpus", "1",
                    "--node-ip-address", "127.0.0.1"], env=env)
    assert done.returncode == 0, done.stderr
    versions = wait_until(lambda: (lambda v: v if v.get("cloudpickle") else None)(
        json.loads(ray_cli(["doctor", "--json", "--temp-dir", hosts[0]]).stdout)["nodes"][0]["versions"]),
        WAIT_S, "ray doctor showing the node's cloudpickle version", 0.2)
    assert versions.get("cloudpickle") == cloudpickle.__version__, versions
    assert versions.get("python") == "%d.%d.%d" % __import__("sys").version_info[:3], versions


def test_waiting_groups_say_why_in_status_list_and_the_driver_log(hosts, tmp_path):
    address, token = start_head(hosts[0])
    go = tmp_path / "go"
    driver = spawn_driver(hosts[0], """
        import os, ray, time
        def wait_for_go():
            while not os.path.exists(GO):
                time.sleep(0.05)
        from ray.util.placement_group import placement_group
        ray.init()
        never = placement_group([{"GPU": 8}], strategy="PACK", name="too-big")
        held = placement_group([{"GPU": 2}], strategy="STRICT_PACK", name="holder")
        assert held.wait(60)
        later = placement_group([{"GPU": 2}], strategy="STRICT_PACK", name="later")
        assert not later.wait(1)
        print("PENDING", flush=True)
        wait_for_go()
        ray.util.remove_placement_group(held)
        print("PLACED" if later.wait(60) else "STILL-PENDING", flush=True)
        time.sleep(60)
    """.replace("GO", repr(str(go))))
    try:
        read_line_with(driver, "PENDING")
        err = "".join(read_line_with(driver, "too-big", stream="stderr"))
        assert "can never be placed" in err and "GPU" in err, err
        status = ray_cli(["status", "--temp-dir", hosts[0]]).stdout
        assert "can never be placed" in status and "largest GPU total on a node is 2 on 127.0.0.1" in status, status
        assert "needs {GPU: 2} on one node (STRICT_PACK); the largest free GPU is 0 on 127.0.0.1" in status, status
        groups = json.loads(ray_cli(["list", "placement-groups", "--json", "--temp-dir", hosts[0]]).stdout)
        assert {g["name"]: g["state"] for g in groups} == {"too-big": "PENDING", "holder": "CREATED",
                                                            "later": "PENDING"}
        go.write_text("go")
        read_line_with(driver, "PLACED")
    finally:
        finish(driver)


def test_a_group_pinned_to_an_ip_no_node_has_names_it_the_cluster_ips_and_the_fix(hosts):
    # What vLLM does when VLLM_HOST_IP is not an IP the cluster knows: a bundle asks for
    # node:<that ip> and the group waits for a node that never joins.
    address, token = start_head(hosts[0], "--dashboard-port", "0", "--dashboard-agent-listen-port", "0",
                                "--metrics-export-port", "0")
    join(hosts[1], address, token, "127.0.0.2")
    driver = spawn_driver(hosts[0], """
        import ray, time
        from ray.util.placement_group import placement_group
        ray.init()
        pg = placement_group([{"CPU": 1, "node:10.9.9.9": 0.001}], strategy="PACK", name="vllm-like")
        assert not pg.wait(1)
        @ray.remote(num_cpus=0, resources={"node:10.9.9.9": 0.001})
        class Pinned:
            pass
        pinned = Pinned.remote()
        print("PENDING", flush=True)
        time.sleep(60)
    """)
    fix = "--node-ip-address 10.9.9.9`, or set VLLM_HOST_IP to one of the IPs the cluster knows"
    ips = "the cluster's node IPs are 127.0.0.1, 127.0.0.2"
    try:
        read_line_with(driver, "PENDING")
        err = "".join(read_line_with(driver, "vllm-like", stream="stderr"))
        assert "is pending" in err and "no node has IP 10.9.9.9" in err and ips in err and fix in err, err
        err = "".join(read_line_with(driver, "Actor Pinned", stream="stderr"))
        assert "asks for node:10.9.9.9 but no node has IP 10.9.9.9" in err and ips in err and fix in err, err
        status = ray_cli(["status", "--temp-dir", hosts[0]]).stdout
        demands = status[status.index("Demands:"):]
        assert "node:10.9.9.9" in demands and ips in demands and fix in demands, status
        report = json.loads(ray_cli(["status", "--json", "--temp-dir", hosts[0]]).stdout)
        (group,) = [g for g in report["placement_groups"].values() if g["state"] == "PENDING"]
        reason = group["beam_waiting_reason"]
        assert "no node has IP 10.9.9.9" in reason and ips in reason and fix in reason, reason
        with open(os.path.join(hosts[0], "session_latest", "node.json")) as f:
            dashboard = json.load(f)["http_ports"]["dashboard"]
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/cluster_status", timeout=10) as r:
            (shown,) = [d["beamWaitingReason"] for d in
                        json.load(r)["data"]["clusterStatus"]["loadMetricsReport"]["pgDemand"]]
        assert shown == reason
        # The actor waits with its own line and reason, in ray status, --json and the
        # dashboard's status text (its table shows the actor row's reason).
        assert "actor Pinned " in demands, status
        actor_line = demands[demands.index("actor Pinned "):].splitlines()[0]
        assert "asks for node:10.9.9.9 but no node has IP 10.9.9.9" in actor_line and fix in actor_line, status
        (pinned,) = [a for a in report["actors"] if a["class_name"] == "Pinned"]
        assert pinned["state"] == "PENDING" and "no node has IP 10.9.9.9" in pinned["beam_waiting_reason"], pinned
        with urllib.request.urlopen(f"http://127.0.0.1:{dashboard}/api/cluster_status", timeout=10) as r:
            text = json.load(r)["data"]["autoscalingStatus"]
        assert "actor Pinned " + pinned["actor_id"] + ": asks for node:10.9.9.9" in text, text
        # A node joining changes which IPs the cluster has: the reason says so at once.
        join(hosts[2], address, token, "127.0.0.3")
        report = json.loads(ray_cli(["status", "--json", "--temp-dir", hosts[0]]).stdout)
        (pinned,) = [a for a in report["actors"] if a["class_name"] == "Pinned"]
        assert "127.0.0.1, 127.0.0.2, 127.0.0.3" in pinned["beam_waiting_reason"], pinned
    finally:
        finish(driver)


def test_list_and_status_show_who_holds_which_gpu(hosts):
    start_head(hosts[0])
    out = run_driver(hosts[0], """
        import json, subprocess, ray
        ray.init()
        @ray.remote(num_gpus=1)
        class Holder:
            def pid(self):
                import os
                return os.getpid()
        h = Holder.remote()
        pid = ray.get(h.pid.remote())
        actors = json.loads(subprocess.run(["ray", "list", "actors", "--json"], capture_output=True, text=True).stdout)
        status = subprocess.run(["ray", "status"], capture_output=True, text=True).stdout
        nodes = json.loads(subprocess.run(["ray", "list", "nodes", "--json"], capture_output=True, text=True).stdout)
        print(json.dumps({"pid": pid, "actors": actors, "status": status, "nodes": nodes}))
    """)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.strip().splitlines()[-1])
    holder = [a for a in got["actors"] if a["class_name"] == "Holder"]
    assert holder and holder[0]["pid"] == got["pid"] and len(holder[0]["gpu_ids"]) == 1
    assert f"Holder pid={got['pid']}" in got["status"]
    assert got["nodes"][0]["state"] == "ALIVE" and got["nodes"][0]["is_head_node"] is True


QUIET_S = 35


def test_quiet_actors_hold_up_no_request(hosts, tmp_path):
    """A quiet actor on each node, whose two log pumps block reading its pipes, for longer
    than the JDK keeps idle carrier threads of virtual threads (30 s): `ray doctor`
    (reachability probes on virtual threads on both nodes), ray.nodes() and `ray status`
    (requests the head serves off its reader loop) still answer at once. With the pumps on
    virtual threads, they held every carrier left, and all of these hung."""
    address, token = start_head(hosts[0])
    join(hosts[1], address, token, "127.0.0.2")
    go = tmp_path / "go"
    driver = spawn_driver(hosts[0], """
        import os, threading, time, ray
        ray.init()
        @ray.remote(num_cpus=0)
        class Quiet:
            def ping(self):
                return "pong"
        actors = [Quiet.options(resources={f"node:{ip}": 0.001}).remote()
                  for ip in ("127.0.0.1", "127.0.0.2")]
        assert ray.get([a.ping.remote() for a in actors], timeout=120) == ["pong"] * len(actors)
        print("QUIET", flush=True)
        while not os.path.exists(os.environ["GO_FILE"]):
            time.sleep(0.1)
        for _ in range(3):
            got = []
            t = threading.Thread(target=lambda: got.append(len(ray.nodes())), daemon=True)
            t0 = time.monotonic()
            t.start()
            t.join(30)  # a hang (the bug) is forever; 30 s leaves room for a loaded machine
            print("NODES", got, round(time.monotonic() - t0, 2), flush=True)
            time.sleep(0.5)
        print("CHECKED", flush=True)
        time.sleep(120)
    """, GO_FILE=str(go))
    try:
        read_line_with(driver, "QUIET", timeout=120)
        time.sleep(QUIET_S)  # the carriers the JDK added while the pumps blocked retire
        doctor = ray_cli(["doctor", "--temp-dir", hosts[0]], timeout=60)
        assert "did not answer the reachability probe" not in doctor.stdout, doctor.stdout
        assert "127.0.0.1 -> 127.0.0.2" in doctor.stdout and "127.0.0.2 -> 127.0.0.1" in doctor.stdout, doctor.stdout
        go.touch()
        lines = [x for x in read_line_with(driver, "CHECKED", timeout=150) if x.startswith("NODES")]
        assert len(lines) == 3, lines
        for line in lines:
            assert line.startswith("NODES [2]"), f"ray.nodes() did not answer within 30 s: {line}"
        status = ray_cli(["status", "--temp-dir", hosts[0]], timeout=30)
        assert status.returncode == 0 and "127.0.0.2" in status.stdout, status.stderr
    finally:
        finish(driver)
