"""Actor calls as Ray's task list, and long calls named: a real head started with
`--long-call-seconds 2`, an actor whose call is stuck (sleeping) with calls queued behind it,
a call that raised, one that returned, and an actor still starting with a call waiting for it.
Read through `ray list tasks`, `ray.util.state.list_tasks()` / `get_task()`, `/api/v0/tasks`,
`ray status`, `ray doctor` and the dashboard's view."""
import json
import os
import time
import urllib.request

import pytest

from conftest import ROOT, WAIT_S, Clusters, finish, node_json, ray_cli, read_line_with, run_driver, spawn_driver, wait_until

DRIVER = """
import json, time, ray
ray.init(address="auto")

@ray.remote
class Worker:
    def __init__(self, start_s):
        time.sleep(start_s)

    def execute_method(self, name, s):
        time.sleep(s)
        return name

    def boom(self):
        raise ValueError("boom")

@ray.remote
class RayWorkerProc:  # vLLM's worker: run() is its engine loop, for the life of the engine
    def run(self):
        time.sleep(600)

engine = RayWorkerProc.remote()
loop = engine.run.remote()
w = Worker.remote(0)
ray.get(w.execute_method.remote("warm_up", 0))
try:
    ray.get(w.boom.remote())
except Exception:
    pass
stuck = w.execute_method.remote("init_device", 600)
behind = [w.execute_method.remote("load_model", 0) for _ in range(2)]
slow = Worker.remote(600)
waiting = slow.execute_method.remote("never_yet", 0)
print("READY " + json.dumps({"actor": w._actor_id.hex(), "slow": slow._actor_id.hex(), "stuck": stuck.hex()[:48],
                             "behind": [b.hex()[:48] for b in behind], "waiting": waiting.hex()[:48],
                             "loop": loop.hex()[:48]}), flush=True)
time.sleep(600)
"""


@pytest.fixture
def cluster(clusters: Clusters):
    base = clusters.start("--num-cpus", "4", "--node-ip-address", "127.0.0.1", "--long-call-seconds", "2", "--dashboard-port", "0",
                          "--dashboard-agent-listen-port", "0", "--metrics-export-port", "0")
    driver = spawn_driver(base, DRIVER)
    try:
        line = read_line_with(driver, "READY", timeout=90)[-1]
        ids = json.loads(line.split("READY ", 1)[1])
        # READY follows the submits, not the starts: each actor's worker picks its call up when
        # the machine gets to it, so wait for the state every test here reads
        wait_until(lambda: all(tasks(base).get(ids[k], {}).get("state") == "RUNNING" for k in ("stuck", "loop")),
                   WAIT_S, "the stuck call and the engine loop both RUNNING in `ray list tasks`")
        yield base, ids
    finally:
        finish(driver)


def tasks(base):
    done = ray_cli(["list", "tasks", "--json"], temp_dir=base)
    assert done.returncode == 0, done.stderr
    return {t["task_id"]: t for t in json.loads(done.stdout)}


def wait_for(check, within=60):
    deadline = time.monotonic() + within
    while True:
        got = check()
        if got or time.monotonic() > deadline:
            return got
        time.sleep(0.2)


def test_calls_are_listed_with_rays_states(cluster):
    base, ids = cluster
    rows = tasks(base)
    stuck = rows[ids["stuck"]]
    assert stuck["state"] == "RUNNING" and stuck["type"] == "ACTOR_TASK"
    assert stuck["name"] == "Worker.execute_method" and stuck["beam_label"] == "init_device"
    assert stuck["actor_id"] == ids["actor"] and stuck["start_time_ms"] >= stuck["creation_time_ms"]
    actors = {a["actor_id"]: a for a in json.loads(ray_cli(["list", "actors", "--json"], temp_dir=base).stdout)}
    assert stuck["worker_pid"] == actors[ids["actor"]]["pid"] > 0
    assert stuck["node_id"] == actors[ids["actor"]]["node_id"]
    for b in ids["behind"]:  # a sequential actor: queued behind the stuck call, as Ray shows it
        assert rows[b]["state"] == "SUBMITTED_TO_WORKER" and rows[b]["beam_label"] == "load_model"
        assert rows[b]["start_time_ms"] is None and rows[b]["worker_pid"] is None
    assert rows[ids["waiting"]]["state"] == "PENDING_NODE_ASSIGNMENT"
    assert rows[ids["waiting"]]["actor_id"] == ids["slow"]
    by_name = {(t["name"], t["state"]): t for t in rows.values()}
    failed = by_name[("Worker.boom", "FAILED")]
    assert failed["error_type"] == "TASK_EXECUTION_EXCEPTION" and failed["end_time_ms"] >= failed["start_time_ms"]
    finished = [t for t in rows.values() if t["beam_label"] == "warm_up"]
    assert finished and finished[0]["state"] == "FINISHED" and finished[0]["error_type"] is None

    table = ray_cli(["list", "tasks"], temp_dir=base)
    assert table.returncode == 0, table.stderr
    line = next(l for l in table.stdout.splitlines() if ids["stuck"] in l)
    assert "Worker.execute_method" in line and "init_device" in line and "RUNNING" in line


GOLDEN = os.path.join(ROOT, "tests", "golden", "ray-2.60-tasks.json")  # tests/golden/ray_task_shapes.py


def same_shape(ours, rays, case):
    """Ray's keys (beam adds only beam_*), Ray's state name, and each value of Ray's type
    where both have one (ids, pids and times differ by nature; an unknown is None on either side)."""
    assert set(ours) - {k for k in ours if k.startswith("beam_")} == set(rays), case
    assert ours["state"] == rays["state"], case
    for key, value in rays.items():
        if value is not None and ours[key] is not None:
            assert type(ours[key]) is type(value), (case, key, ours[key], value)


def test_rows_have_the_shapes_of_ray_2_60(cluster):
    base, ids = cluster
    with open(GOLDEN) as f:
        golden = json.load(f)
    rows = tasks(base)
    by_name = {(t["name"], t["state"]): t for t in rows.values()}
    same_shape(rows[ids["waiting"]], golden["waiting_for_actor_start"], "waiting for its actor to start")
    same_shape(rows[ids["stuck"]], golden["running"], "running")
    same_shape(rows[ids["behind"][0]], golden["queued_behind_running"], "queued behind a running call")
    same_shape(next(t for t in rows.values() if t["beam_label"] == "warm_up"), golden["finished"], "finished")
    same_shape(by_name[("Worker.boom", "FAILED")], golden["failed"], "failed")
    for key in ("worker_pid", "start_time_ms"):  # what Ray knows in each state, beam knows too
        assert (rows[ids["stuck"]][key] is None) == (golden["running"][key] is None), key
        assert (rows[ids["behind"][0]][key] is None) == (golden["queued_behind_running"][key] is None), key


def test_python_state_api_and_http_route(cluster):
    base, ids = cluster
    done = run_driver(base, f"""
        import json, ray
        from ray.util.state import get_task, list_tasks
        ray.init(address="auto")
        running = list_tasks(filters=[("state", "=", "RUNNING")])
        got = get_task({ids["stuck"]!r})
        print(json.dumps({{"running": [t.asdict() for t in running], "got": got.asdict(),
                          "missing": get_task("ab" * 24), "limited": len(list_tasks(limit=1))}}))
    """)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout.strip().splitlines()[-1])
    assert sorted(t["task_id"] for t in out["running"]) == sorted([ids["stuck"], ids["loop"]])
    # one attempt: Ray's get_task returns the row itself (a list only for several attempts)
    assert out["got"]["beam_label"] == "init_device" and out["got"]["state"] == "RUNNING"
    assert out["missing"] is None and out["limited"] == 1

    assert wait_for(lambda: "http_ports" in node_json(base)), "the head never wrote its HTTP ports"
    port = node_json(base)["http_ports"]["dashboard"]
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/v0/tasks?limit=1000", timeout=10) as r:
        body = json.loads(r.read())
    assert body["result"] is True
    rows = {t["task_id"]: t for t in body["data"]["result"]["result"]}
    assert rows[ids["stuck"]]["state"] == "RUNNING" and rows[ids["stuck"]]["beam_label"] == "init_device"
    with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/beam/dashboard", timeout=10) as r:
        view = json.loads(r.read())
    assert view["long_call_threshold_ms"] == 2000


def test_long_calls_are_named_in_status_and_doctor(cluster):
    base, ids = cluster
    hint = "ray stack --actor-id " + ids["actor"]
    status = wait_for(lambda: (lambda s: s if hint in s.stdout else None)(ray_cli(["status"], temp_dir=base)))
    assert status, "ray status never named the stuck call"
    assert "Calls running longer than 2 s:" in status.stdout
    line = next(l for l in status.stdout.splitlines() if hint in l)
    pid = tasks(base)[ids["stuck"]]["worker_pid"]
    assert "Worker.execute_method(init_device)" in line and f"pid {pid}" in line and "127.0.0.1" in line
    assert "load_model" not in status.stdout  # queued calls are not running, so never long
    doctor = ray_cli(["doctor"], temp_dir=base, timeout=60)
    assert "long call: Worker.execute_method(init_device)" in doctor.stdout and hint in doctor.stdout, doctor.stdout


def test_the_threshold_comes_from_the_flag_else_the_environment(clusters: Clusters):
    base = clusters.start("--num-cpus", "1", "--include-dashboard", "false", BEAM_LONG_CALL_S="5")
    status = json.loads(ray_cli(["status", "--json"], temp_dir=base).stdout)
    assert status["long_call_threshold_ms"] == 5000 and status["long_calls"] == []
    for args, env, says in ((["--long-call-seconds", "0"], {}, "--long-call-seconds (or BEAM_LONG_CALL_S) must be"),
                            ([], {"BEAM_LONG_CALL_S": "soon"}, "BEAM_LONG_CALL_S must be a whole number")):
        bad = ray_cli(["start", "--head", "--port", "0", "--temp-dir", clusters.new_dir(), *args], **env)
        assert bad.returncode != 0 and says in bad.stderr, bad.stderr


def test_the_state_cli_filters_gets_and_summarizes_tasks_in_the_daemon(cluster):
    base, ids = cluster
    queued = ray_cli(["list", "tasks", "--filter", "state=SUBMITTED_TO_WORKER", "--format", "json"], temp_dir=base)
    assert queued.returncode == 0, queued.stderr
    assert sorted(t["task_id"] for t in json.loads(queued.stdout)) == sorted(ids["behind"])
    labelled = ray_cli(["list", "tasks", "--filter", "beam_label=init_device", "--filter", "state!=FINISHED"],
                       temp_dir=base)
    assert ids["stuck"] in labelled.stdout and ids["behind"][0] not in labelled.stdout, labelled.stdout
    one = ray_cli(["list", "tasks", "--limit", "1"], temp_dir=base)
    assert one.returncode == 0 and "Limit last 1 entries (Total " in one.stderr, one.stderr
    got = ray_cli(["get", "tasks", ids["waiting"]], temp_dir=base)
    assert got.returncode == 0 and "PENDING_NODE_ASSIGNMENT" in got.stdout and "never_yet" in got.stdout, got.stdout
    summary = json.loads(ray_cli(["summary", "tasks", "--json"], temp_dir=base).stdout)
    counts = summary["result"]["node_id_to_summary"]["cluster"]["summary"]["Worker.execute_method"]["state_counts"]
    assert counts["RUNNING"] == 1 and counts["SUBMITTED_TO_WORKER"] == 2 and counts["PENDING_NODE_ASSIGNMENT"] == 1, counts
    bad = ray_cli(["list", "tasks", "--filter", "colour=red"], temp_dir=base)
    assert bad.returncode != 0 and "colour" in bad.stderr, bad.stderr


def test_vllms_engine_loop_is_counted_not_named_as_a_long_call(cluster):
    base, ids = cluster
    # the loop's actor may start after the stuck call's: wait until both are past the threshold
    loops = "vLLM engine loops running (RayWorkerProc.run, for the life of the engine): 1"
    status = wait_for(lambda: (lambda s: s if loops in s.stdout and "Calls running longer than" in s.stdout else None)(
        ray_cli(["status"], temp_dir=base)))
    assert status, "the engine loop was never counted, or no long call was ever named"
    assert tasks(base)[ids["loop"]]["state"] == "RUNNING"
    assert "RayWorkerProc.run has run" not in status.stdout, status.stdout
    report = json.loads(ray_cli(["status", "--json"], temp_dir=base).stdout)
    assert ids["loop"] not in {c["task_id"] for c in report["long_calls"]} and report["engine_loops_running"] == 1
    doctor = ray_cli(["doctor"], temp_dir=base, timeout=60)
    assert "long call: Worker.execute_method(init_device)" in doctor.stdout and "RayWorkerProc.run" not in doctor.stdout
