"""The pool of idle actor workers (beam.node.WorkerPool): an actor handed a pooled worker sees
exactly what a fresh process would (environment with runtime_env env_vars, accelerator
variables, stripped secrets, cwd, sys.path, sys.executable, argv, scheduling policy); an
actor whose start-up variables differ gets a fresh process; the pool stays under the
actor-process cap and leaves no process behind on `ray stop` or a killed daemon."""
import json
import os
import re
import signal
import textwrap
import time

from conftest import WAIT_S, assert_no_processes, cluster_processes, is_idle_worker, node_json, ray_cli, run_driver

PROBE = """
    import json, os, sys, ray
    ray.init()

    @ray.remote
    class Probe:
        def view(self):
            return {"pid": os.getpid(), "env": dict(os.environ), "cwd": os.getcwd(), "sys_path": list(sys.path),
                    "executable": sys.executable, "argv": sys.argv[1:], "orig_argv": sys.orig_argv,
                    "sched": os.sched_getscheduler(0), "optimize": sys.flags.optimize,
                    "comm": open("/proc/self/comm").read().strip()}

    a = Probe.options(**{"num_gpus": 1, "runtime_env": {"env_vars": {"POOL_TEST_VAR": "from runtime_env"}}, **opts}).remote()
    print("VIEW " + json.dumps(ray.get(a.view.remote())))
"""


def pooled_pids(base):
    return {pid for pid, _ in cluster_processes(base, workers_only=True, idle=True) if is_idle_worker(pid)}


def warm(base, n=4):
    """A driver's hello fills the head's pool (not `ray start`): connect one, wait for n idle."""
    out = run_driver(base, "import ray\nray.init()\nray.shutdown()\n")
    assert out.returncode == 0, out.stderr
    return wait_pooled(base, n)


def test_an_idle_node_has_no_pool_until_a_driver_arrives(clusters):
    base = clusters.start("--num-gpus", "4")
    time.sleep(1.5)  # what the pool would take to start, were it started with the daemon
    assert pooled_pids(base) == set(), "`ray start` alone started pooled workers"
    assert len(warm(base)) == 4


def wait_pooled(base, n, within=WAIT_S):
    deadline = time.monotonic() + within
    while len(pooled_pids(base)) < n and time.monotonic() < deadline:
        time.sleep(0.05)
    return pooled_pids(base)


def view(base, cwd, extra_path, opts=None):
    # a driver in its own cwd with an extra sys.path entry: the actor inherits both (ProcessContext)
    out = run_driver(base, f"import os, sys; os.chdir({str(cwd)!r}); sys.path.append({extra_path!r})\n"
                     f"opts = {opts or {}!r}\n" + textwrap.dedent(PROBE))
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stdout.splitlines() if x.startswith("VIEW "))
    return json.loads(line[5:])


def normalized(v, base):
    """What must be equal between two clusters: their own temp and session dirs, actor ids and BEAM_PYTHON
    (set differently on purpose) taken out."""
    def fix(s):
        return re.sub(r"session_[0-9_-]+", "<SESSION>", s.replace(base, "<TEMP>")) if isinstance(s, str) else s
    env = {k: fix(x) for k, x in v["env"].items() if k != "BEAM_PYTHON"}
    argv = [fix(x) for x in v["argv"]]
    orig = [fix(x) for x in v["orig_argv"]]
    for args in (argv, orig):
        if "--actor-id" in args:
            args[args.index("--actor-id") + 1] = "<ID>"
    return {"env": env, "cwd": v["cwd"], "sys_path": v["sys_path"], "executable": v["executable"], "argv": argv,
            "orig_argv": orig, "sched": v["sched"], "optimize": v["optimize"], "comm": v["comm"]}


def test_a_pooled_actor_sees_what_a_fresh_one_would(clusters, tmp_path):
    work = tmp_path / "driver-cwd"
    work.mkdir()
    extra = str(tmp_path / "driver-modules")
    secret = dict(RAY_AUTH_TOKEN="pool-test-credential")
    pooled_base = clusters.start("--num-gpus", "4", **secret)
    fresh_base = clusters.start("--num-gpus", "4", BEAM_PYTHON="", **secret)  # no pool without its Python
    before = warm(pooled_base)
    assert len(before) == 4, f"expected 4 idle pooled workers, found {before}"
    assert not pooled_pids(fresh_base)

    pooled = view(pooled_base, work, extra)
    fresh = view(fresh_base, work, extra)
    assert pooled["pid"] in before, "the actor did not get one of the idle pooled workers"
    assert fresh["pid"] not in pooled_pids(fresh_base)
    p, f = normalized(pooled, pooled_base), normalized(fresh, fresh_base)
    assert p["env"] == f["env"]
    assert {k: v for k, v in p.items() if k != "env"} == {k: v for k, v in f.items() if k != "env"}
    assert p["env"]["POOL_TEST_VAR"] == "from runtime_env"
    assert p["env"]["CUDA_VISIBLE_DEVICES"] == "0"
    assert p["cwd"] == os.path.realpath(work) and extra in p["sys_path"]
    assert not [k for k in p["env"] if k.startswith(("RAY_AUTH", "RAY_TLS"))]
    assert "--pooled" not in p["orig_argv"] and p["comm"] != "beam-idle"
    # the pool is refilled after the hand-over
    assert len(wait_pooled(pooled_base, 4)) == 4


def test_a_start_up_variable_gets_a_fresh_process(clusters, tmp_path):
    base = clusters.start("--num-gpus", "4")
    idle = warm(base)
    v = view(base, tmp_path, str(tmp_path),
             opts={"runtime_env": {"env_vars": {"PYTHONOPTIMIZE": "1", "POOL_TEST_VAR": "x"}}})
    assert v["pid"] not in idle, "an actor with its own PYTHON* variable was handed a pooled worker"
    assert v["optimize"] == 1, "the interpreter did not start with the actor's PYTHONOPTIMIZE"


def test_the_pool_stays_under_the_actor_process_cap(clusters, tmp_path):
    base = clusters.start("--num-gpus", "4", "--max-actor-processes", "2")
    assert len(warm(base, 2)) == 2
    time.sleep(1.0)  # room for any more it would wrongly start
    assert len(cluster_processes(base, workers_only=True, idle=True)) <= 2
    out = run_driver(base, """
        import ray
        ray.init()
        @ray.remote
        class A:
            def ping(self):
                return 1
        a, b = A.options(num_cpus=0).remote(), A.options(num_cpus=0).remote()
        assert ray.get([a.ping.remote(), b.ping.remote()]) == [1, 1]
        try:
            ray.get(A.options(num_cpus=0).remote().ping.remote(), timeout=30)
            print("THIRD STARTED")
        except Exception as e:
            print("REFUSED", type(e).__name__, str(e).replace("\\n", " "))
    """)
    assert out.returncode == 0, out.stderr
    assert "REFUSED" in out.stdout and "already runs 2 actor processes" in out.stdout, out.stdout
    assert len(cluster_processes(base, workers_only=True, idle=True)) <= 2


def test_idle_workers_go_with_ray_stop_and_with_a_killed_daemon(clusters):
    base = clusters.start("--num-gpus", "4")
    idle = warm(base)
    assert len(idle) == 4
    assert ray_cli(["stop", "--temp-dir", base]).returncode == 0
    assert_no_processes(base, pids=idle, what="a stopped node's pool")

    base = clusters.start("--num-gpus", "4")
    idle = warm(base)
    os.kill(node_json(base)["pid"], signal.SIGKILL)
    assert_no_processes(base, pids=idle, what="a killed daemon's pool")
