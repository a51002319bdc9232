"""`ray logs` on two loopback hosts (127.0.0.1 head, 127.0.0.2 joined): an actor on the joined
node prints to stdout and stderr, and its logs are read, from either node, by the node that
holds them: `actor --id`, `worker --pid [--node-ip]`, `cluster [GLOB]`, `--tail`, `--follow`,
the dashboard's log tail, and what an attacker would try (other folders, links, bad ids)."""
import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import pytest

from conftest import (RAY_BIN, VENV_PYTHON, WAIT_S, beam_env, driver_script, finish, ray_cli, read_line_with,
                      wait_gone, wait_until)

DRIVER = """
    import json, sys, time, ray
    ray.init()

    @ray.remote(resources={"node:127.0.0.2": 0.001})
    class Talker:
        def __init__(self):
            for i in range(50):
                print(f"line {i:02d}", flush=True)
            print("to stderr, not stdout", file=sys.stderr, flush=True)

        def say(self, text):
            print(text, flush=True)

        def where(self):
            import os
            return os.getpid(), ray.util.get_node_ip_address()

    t = Talker.remote()
    pid, ip = ray.get(t.where.remote(), timeout=60)
    print("@@READY " + json.dumps({"id": t._actor_id.hex(), "pid": pid, "ip": ip}), flush=True)
    for line in sys.stdin:
        if line.startswith("say "):
            ray.get(t.say.remote(line[4:].strip()))
            print("@@SAID " + line[4:].strip(), flush=True)
        elif line.startswith("kill"):
            ray.kill(t)
            print("@@KILLED", flush=True)
    """


def node_json(base):
    with open(os.path.join(base, "session_latest", "node.json")) as f:
        return json.load(f)


@pytest.fixture(scope="module")
def two_hosts():
    head, member = (tempfile.mkdtemp(prefix=f"beam-logs{i}-") for i in range(2))
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", head, "--num-cpus", "2",
                    "--node-ip-address", "127.0.0.1", "--dashboard-port", "0",
                    "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"])
    assert done.returncode == 0, done.stderr
    with open(os.path.join(head, "session_latest", "auth_token")) as f:
        token = f.read().strip()
    done = ray_cli(["start", "--address", node_json(head)["address"], "--temp-dir", member, "--num-cpus", "2",
                    "--node-ip-address", "127.0.0.2", "--dashboard-agent-listen-port", "0",
                    "--metrics-export-port", "0"], RAY_AUTH_TOKEN=token)
    assert done.returncode == 0, done.stderr
    yield head, member
    for d in (member, head):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=head, within=10)
    for d in (head, member):
        shutil.rmtree(d, ignore_errors=True)


@pytest.fixture
def talker(two_hosts):
    """A driver on the head holding a Talker on the joined node; it says what stdin tells it."""
    driver = subprocess.Popen([VENV_PYTHON, "-c", driver_script(DRIVER)],
                              env=beam_env(two_hosts[0]), stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    ready = json.loads(read_line_with(driver, "@@READY", timeout=90)[-1].split(" ", 1)[1])
    assert ready["ip"] == "127.0.0.2"
    yield driver, ready
    finish(driver)


def logs(base, *args, timeout=30):
    return ray_cli(["logs", *args, "--temp-dir", base], timeout=timeout)


def test_actor_logs_from_either_node_stdout_and_stderr(two_hosts, talker):
    _, actor = talker
    for base in two_hosts:  # the head, then the joined node: both read the joined node's file
        out = logs(base, "actor", "--id", actor["id"])
        assert out.returncode == 0, out.stderr
        assert "line 00" in out.stdout and "line 49" in out.stdout
        assert "to stderr" not in out.stdout
        err = logs(base, "actor", "--id", actor["id"], "--err")
        assert err.returncode == 0 and err.stdout == "to stderr, not stdout\n", err.stdout + err.stderr


def test_tail_counts_lines_from_the_end(two_hosts, talker):
    out = logs(two_hosts[0], "actor", "--id", talker[1]["id"], "--tail", "3")
    assert out.returncode == 0, out.stderr
    assert out.stdout == "line 47\nline 48\nline 49\n"
    whole = logs(two_hosts[1], "actor", "--id", talker[1]["id"], "--tail", "-1")
    assert whole.stdout.splitlines() == [f"line {i:02d}" for i in range(50)]
    for bad in ("0", "-2", "100001"):
        refused = logs(two_hosts[0], "actor", "--id", talker[1]["id"], "--tail", bad)
        assert refused.returncode == 2 and "--tail must be" in refused.stderr


def test_worker_by_pid_on_the_node_named(two_hosts, talker):
    _, actor = talker
    pid = str(actor["pid"])
    out = logs(two_hosts[0], "worker", "--pid", pid, "--node-ip", "127.0.0.2", "--tail", "1")
    assert out.returncode == 0 and out.stdout == "line 49\n", out.stdout + out.stderr
    found = logs(two_hosts[1], "worker", "--pid", pid, "--tail", "1")  # no IP: the node running that pid
    assert found.returncode == 0 and found.stdout == "line 49\n", found.stdout + found.stderr
    member_id = node_json(two_hosts[1])["node_id"]
    by_id = logs(two_hosts[0], "worker", "--pid", pid, "--node-id", member_id, "--tail", "1")
    assert by_id.returncode == 0 and by_id.stdout == "line 49\n", by_id.stdout + by_id.stderr
    listed = logs(two_hosts[0], "cluster", "--node-id", member_id)
    assert listed.stdout.startswith(f"Node ID: {member_id}\n") and f"-{pid}.out" in listed.stdout, listed.stdout
    unknown = logs(two_hosts[0], "cluster", "--node-id", "ab" * 28)
    assert unknown.returncode == 1 and f"no node {'ab' * 28} in this cluster" in unknown.stderr
    wrong = logs(two_hosts[0], "worker", "--pid", pid, "--node-ip", "127.0.0.1")
    assert wrong.returncode == 1 and f"no stdout file of a worker with pid {pid}" in wrong.stderr
    nowhere = logs(two_hosts[0], "worker", "--pid", pid, "--node-ip", "10.9.9.9")
    assert nowhere.returncode == 1 and "no node with IP 10.9.9.9" in nowhere.stderr
    assert "127.0.0.1" in nowhere.stderr and "127.0.0.2" in nowhere.stderr


def test_cluster_lists_a_nodes_files_and_prints_the_one_a_glob_matches(two_hosts, talker):
    _, actor = talker
    listed = logs(two_hosts[0], "cluster", "--node-ip", "127.0.0.2")
    assert listed.returncode == 0, listed.stderr
    assert listed.stdout.startswith("Node IP: 127.0.0.2\n")
    assert f"- actor-Talker-{actor['id']}-{actor['pid']}.out" in listed.stdout
    assert "worker_err:" in listed.stdout and "worker_out:" in listed.stdout
    head = logs(two_hosts[1], "cluster")  # Ray's default: the head's files
    assert head.stdout.startswith("Node IP: 127.0.0.1\n") and "- beamd.log" in head.stdout, head.stdout
    assert actor["id"] not in head.stdout
    one = logs(two_hosts[1], "cluster", f"*{actor['id']}*.err", "--node-ip", "127.0.0.2")
    assert one.returncode == 0 and one.stdout == "to stderr, not stdout\n", one.stdout + one.stderr
    alias = logs(two_hosts[0], f"*{actor['id']}*.out", "--node-ip", "127.0.0.2", "--tail", "2")
    assert alias.stdout == "line 48\nline 49\n", alias.stdout + alias.stderr
    none = logs(two_hosts[0], "cluster", "nothing-is-called-this*")
    assert none.returncode == 0 and none.stdout == "Node IP: 127.0.0.1\n{}\n"


WITH_SIGINT = "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_DFL); os.execv(sys.argv[1], sys.argv[1:])"


def test_follow_prints_new_lines_as_they_come_and_ends_on_ctrl_c(two_hosts, talker):
    driver, actor = talker
    # SIGINT as a terminal's Ctrl-C finds it: a suite started in the background (`./dev test &`,
    # CI without job control) passes it down ignored, so it is reset before exec (no preexec_fn:
    # this process has threads)
    follow = subprocess.Popen([VENV_PYTHON, "-c", WITH_SIGINT, RAY_BIN, "logs", "actor", "--id", actor["id"],
                               "--follow", "--tail", "1", "--temp-dir", two_hosts[1]], env=beam_env(two_hosts[1]),
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        read_line_with(follow, "line 49", timeout=30)
        for i in range(3):
            said = time.monotonic()
            driver.stdin.write(f"say fresh {i}\n")
            driver.stdin.flush()
            read_line_with(follow, f"fresh {i}", timeout=30)
            print(f"follow: line {i} seen {1000 * (time.monotonic() - said):.0f} ms after the call was sent")
        follow.send_signal(signal.SIGINT)
        assert follow.wait(30) in (0, 130)
        assert "Exception" not in follow.stderr.read()
    finally:
        finish(follow)


def test_following_a_glob_stops_when_it_matches_more_than_one_file(two_hosts):
    logs_dir = os.path.join(two_hosts[0], "session_latest", "logs")
    with open(os.path.join(logs_dir, "mine-1.log"), "w") as f:
        f.write("first file\n")
    follow = subprocess.Popen([RAY_BIN, "logs", "cluster", "mine-*.log", "-f", "--temp-dir", two_hosts[0]],
                              env=beam_env(two_hosts[0]), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        read_line_with(follow, "first file", timeout=30)
        with open(os.path.join(logs_dir, "mine-1.log"), "a") as f:
            f.write("appended\n")
        read_line_with(follow, "appended", timeout=30)
        with open(os.path.join(logs_dir, "mine-2.log"), "w") as f:
            f.write("second file\n")
        assert follow.wait(30) == 1
        assert "mine-*.log matches 2 files now, not one; stopped following." in follow.stderr.read()
    finally:
        finish(follow)


def test_follow_ends_with_a_message_when_the_actor_dies(two_hosts, talker):
    driver, actor = talker
    follow = subprocess.Popen([RAY_BIN, "logs", "actor", "--id", actor["id"], "-f", "--temp-dir", two_hosts[0]],
                              env=beam_env(two_hosts[0]), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        read_line_with(follow, "line 49", timeout=30)
        driver.stdin.write("say last words\nkill\n")
        driver.stdin.flush()
        read_line_with(driver, "@@KILLED", timeout=30)
        assert follow.wait(30) == 0
        assert "last words" in "".join(read_line_with(follow, "last words", timeout=30))  # its pipe drains
        assert f"actor {actor['id']} is dead" in follow.stderr.read()
    finally:
        finish(follow)


def test_bad_ids_and_what_an_attacker_would_try(two_hosts, talker):
    head, member = two_hosts
    unknown = logs(head, "actor", "--id", "ab" * 16)
    assert unknown.returncode == 1 and f"Actor ID {'ab' * 16} not found" in unknown.stderr
    malformed = logs(head, "actor", "--id", "../../auth_token")
    assert malformed.returncode == 2 and "not an actor id" in malformed.stderr
    # a secret next to the session folder, and a link to it planted inside logs/
    secret = os.path.join(member, "secret.txt")
    with open(secret, "w") as f:
        f.write("the secret\n")
    os.symlink(secret, os.path.join(member, "session_latest", "logs", "planted.log"))
    for glob in ("../secret.txt", "/etc/passwd", "*/node.json", "..", ".*", "../../*", "a\\b"):
        out = logs(head, "cluster", glob, "--node-ip", "127.0.0.2")
        assert out.returncode == 1 and "is not allowed" in out.stderr, (glob, out.stdout, out.stderr)
    for glob in ("planted.log", "planted*", "*"):
        out = logs(head, "cluster", glob, "--node-ip", "127.0.0.2", "--tail", "-1")
        assert "the secret" not in out.stdout and "planted" not in out.stdout, (glob, out.stdout)


def get(port, path):
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}{path}", timeout=30) as r:
            return r.status, r.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_the_dashboards_log_tail_reads_the_joined_nodes_file(two_hosts, talker):
    head, _ = two_hosts
    wait_until(lambda: "dashboard" in node_json(head).get("http_ports", {}), WAIT_S, "the head's dashboard port open")
    port = node_json(head)["http_ports"]["dashboard"]
    actor = talker[1]
    status, text = get(port, f"/api/v0/logs/file?actor_id={actor['id']}&lines=2&format=text")
    assert (status, text) == (200, "line 48\nline 49\n")
    status, text = get(port, f"/api/v0/logs/file?actor_id={actor['id']}&suffix=err")
    assert (status, text) == (200, "1to stderr, not stdout\n")
    status, text = get(port, f"/api/v0/logs/file?pid={actor['pid']}&node_ip=127.0.0.2&lines=1&format=text")
    assert (status, text) == (200, "line 49\n")
    for bad in ("filename=../auth_token&node_ip=127.0.0.2", "filename=%2Fetc%2Fpasswd", "actor_id=" + "0" * 31):
        assert get(port, "/api/v0/logs/file?" + bad)[0] == 400, bad
    assert get(port, "/api/v0/logs/file?actor_id=" + "0" * 32)[0] == 404


def test_follow_ends_with_a_message_when_the_actors_node_goes():
    """Its own cluster: the joined node is stopped under a follow run on the head."""
    head, member = (tempfile.mkdtemp(prefix=f"beam-lgn{i}-") for i in range(2))
    try:
        assert ray_cli(["start", "--head", "--port", "0", "--temp-dir", head, "--num-cpus", "1",
                        "--node-ip-address", "127.0.0.1", "--include-dashboard=false",
                        "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0"]).returncode == 0
        with open(os.path.join(head, "session_latest", "auth_token")) as f:
            token = f.read().strip()
        assert ray_cli(["start", "--address", node_json(head)["address"], "--temp-dir", member, "--num-cpus", "1",
                        "--node-ip-address", "127.0.0.2", "--dashboard-agent-listen-port", "0",
                        "--metrics-export-port", "0"], RAY_AUTH_TOKEN=token).returncode == 0
        driver = subprocess.Popen([VENV_PYTHON, "-c", driver_script(DRIVER)], env=beam_env(head),
                                  stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            actor = json.loads(read_line_with(driver, "@@READY", timeout=90)[-1].split(" ", 1)[1])
            follow = subprocess.Popen([RAY_BIN, "logs", "actor", "--id", actor["id"], "-f", "--temp-dir", head],
                                      env=beam_env(head), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            try:
                read_line_with(follow, "line 49", timeout=30)
                assert ray_cli(["stop", "--temp-dir", member], timeout=30).returncode == 0
                code = follow.wait(20)
                err = follow.stderr.read()
                # the actor's death (its node stopped it) or the node's, whichever the follow saw first
                saw_actor_die = code == 0 and f"actor {actor['id']} is dead" in err
                saw_node_go = code == 1 and "node 127.0.0.2" in err
                assert saw_actor_die or saw_node_go, (code, err)
                print(f"follow ended with {code}: {err.strip()}")
            finally:
                finish(follow)
        finally:
            finish(driver)
    finally:
        for d in (member, head):
            ray_cli(["stop", "--temp-dir", d], timeout=30)
        wait_gone(base=head, within=10)
        for d in (head, member):
            shutil.rmtree(d, ignore_errors=True)
