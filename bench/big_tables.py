"""Cluster state of any size: 100,000 placement groups on a real head, and 100,000 actors on
simulated nodes (bench/scale_node.py), each listed by every view before and after they are
all removed (the header-limit failure was at ~2,800 groups).

For each view it prints the wall time of one call: placement_group_table() and ray.nodes()
in this driver, and `ray status`, `ray status --json`, `ray list ...` as a user runs them
(each a fresh CLI process, so its JVM start is in the figure). The targets: listing 100,000
groups in under 1 s; `ray list actors --limit 10` (and `ray list tasks --limit 10` where
the cluster has that table) with 100,000 actors in under 0.5 s: the daemon filters and
limits, so the CLI gets ten rows, not the table. Writes bench/results/big_tables.json.

    python bench/big_tables.py [--groups 100000] [--actors 100000] [--fake-nodes 100]
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "python"))


def ray_bin():
    exe = os.path.join(os.path.dirname(sys.executable), "ray")
    return exe if os.path.exists(exe) else "ray"


def timed(fn):
    t0 = time.monotonic()
    value = fn()
    return time.monotonic() - t0, value


def cli(args, env):
    done = subprocess.run([ray_bin(), *args], env=env, capture_output=True, text=True, timeout=600)
    if done.returncode != 0:
        raise RuntimeError(f"`ray {' '.join(args)}` failed: {done.stderr[-2000:]}")
    return done.stdout


def views(env, listing):
    """Wall seconds of each view, and what it counted."""
    import ray
    from ray.util.placement_group import placement_group_table
    out = {}
    out["placement_group_table_s"], table = timed(placement_group_table)
    out["groups_in_table"] = len(table)
    out["ray_nodes_s"], nodes = timed(ray.nodes)
    out["nodes"] = len(nodes)
    out["ray_status_s"], _ = timed(lambda: cli(["status"], env))
    out["ray_status_json_s"], text = timed(lambda: cli(["status", "--json"], env))
    status = json.loads(text)
    out["groups_in_status"] = len(status["placement_groups"])
    out["actors_in_status"] = len(status["actors"])
    out[f"ray_list_{listing}_s"], _ = timed(lambda: cli(["list", listing], env))
    out[f"ray_list_{listing}_limit_10_s"], _ = timed(lambda: cli(["list", listing, "--limit", "10"], env))
    if listing == "actors":
        out["ray_list_actors_filter_state_limit_10_s"], _ = timed(
            lambda: cli(["list", "actors", "--filter", "state=ALIVE", "--limit", "10"], env))
        tasks = subprocess.run([ray_bin(), "list", "tasks", "--limit", "10"], env=env, capture_output=True, text=True,
                               timeout=600)
        if tasks.returncode == 0:
            out["ray_list_tasks_limit_10_s"], _ = timed(lambda: cli(["list", "tasks", "--limit", "10"], env))
        else:
            out["ray_list_tasks_limit_10_s"] = f"skipped: {tasks.stderr.strip()[-200:]}"
    return {k: round(v, 3) if isinstance(v, float) else v for k, v in out.items()}


def groups_run(n, env):
    import ray
    from ray.util.placement_group import placement_group, remove_placement_group
    res = {}
    res["create_s"], pgs = timed(lambda: [placement_group([{"slot": 1}]) for _ in range(n)])
    ray.get(pgs[-1].ready(), timeout=600)
    res["with_groups"] = views(env, "placement-groups")
    res["remove_s"], _ = timed(lambda: [remove_placement_group(pg) for pg in pgs])
    res["after_removal"] = views(env, "placement-groups")
    return res


def actors_run(n, fake_nodes, head_node, env):
    import ray
    session = os.path.join(env["RAY_TMPDIR"], "session_latest")
    fake = subprocess.Popen([sys.executable, os.path.join(HERE, "scale_node.py"), "--address", head_node["address"],
                             "--token-file", os.path.join(session, "auth_token"), "--count", str(fake_nodes)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        line = fake.stdout.readline()
        if not line.startswith("JOINED"):
            raise RuntimeError(f"fake nodes did not join: {line!r}")
        ips = [x["NodeManagerAddress"] for x in ray.nodes() if x["Alive"] and x["NodeManagerAddress"] != "127.0.0.1"]

        @ray.remote(num_cpus=0)
        class Fake:
            def echo(self, x):
                return x

        per_node = -(-n // len(ips))
        share = 1.0 / per_node
        res = {"fake_nodes": len(ips)}
        res["create_s"], actors = timed(lambda: [Fake.options(resources={f"node:{ips[i % len(ips)]}": share}).remote()
                                                 for i in range(n)])
        t0 = time.monotonic()
        ray.get([a.echo.remote(1) for a in actors[-100:]], timeout=600)
        res["ready_s"] = round(time.monotonic() - t0, 3)
        res["with_actors"] = views(env, "actors")
        print(json.dumps(res, indent=1), flush=True)

        def kill_all():
            gone = 0
            for a in actors:
                try:
                    ray.kill(a)
                except ValueError:  # died with a fake node that missed its heartbeats on a busy machine
                    gone += 1
            return gone
        res["kill_s"], res["already_gone"] = timed(kill_all)
        time.sleep(2.0)
        res["after_kill"] = views(env, "actors")
        return res
    finally:
        fake.stdin.close()
        fake.terminate()
        fake.wait(timeout=30)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--groups", type=int, default=100_000)
    ap.add_argument("--actors", type=int, default=100_000)
    ap.add_argument("--fake-nodes", type=int, default=100)
    args = ap.parse_args()
    tmp = tempfile.mkdtemp(prefix="beam-big-tables-")
    env = dict(os.environ, RAY_TMPDIR=tmp)
    env.pop("RAY_ADDRESS", None)
    os.environ["RAY_TMPDIR"] = tmp
    results = {"groups": args.groups, "actors": args.actors}
    try:
        cli(["start", "--head", "--port", "0", "--temp-dir", tmp, "--num-cpus", "1", "--num-gpus", "0",
             "--node-ip-address", "127.0.0.1", "--resources", json.dumps({"slot": args.groups})], env)
        with open(os.path.join(tmp, "session_latest", "node.json")) as f:
            head_node = json.load(f)
        import ray
        ray.init()
        results["placement_groups"] = groups_run(args.groups, env)
        print(json.dumps(results["placement_groups"], indent=1), flush=True)
        if args.actors:
            results["actors_on_fake_nodes"] = actors_run(args.actors, args.fake_nodes, head_node, env)
            print(json.dumps(results["actors_on_fake_nodes"], indent=1), flush=True)
        ray.shutdown()
    finally:
        subprocess.run([ray_bin(), "stop", "--temp-dir", tmp], env=env, capture_output=True, timeout=120)
        shutil.rmtree(tmp, ignore_errors=True)
    os.makedirs(os.path.join(HERE, "results"), exist_ok=True)
    with open(os.path.join(HERE, "results", "big_tables.json"), "w") as f:
        json.dump(results, f, indent=1)
    listing = results["placement_groups"]["with_groups"]["placement_group_table_s"]
    print(f"listing {args.groups} groups: {listing:.3f} s (target < 1 s)")
    if args.actors:
        with_actors = results["actors_on_fake_nodes"]["with_actors"]
        print(f"`ray list actors --limit 10` with {args.actors} actors: {with_actors['ray_list_actors_limit_10_s']} s "
              f"(target < 0.5 s; the whole table, `ray list actors`: {with_actors['ray_list_actors_s']} s)")
        print(f"`ray list tasks --limit 10`: {with_actors['ray_list_tasks_limit_10_s']}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
