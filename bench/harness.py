"""The benchmarks' harness: the two systems (beam and real Ray 2.60) started and stopped
as processes of this one, the daemon jar and Java they run, and bench/workload.py run under
either. bench/bench.py (the table) and the other bench/ scripts build on it.

Processes are found through the process tree: Procs makes this process a child subreaper
(prctl PR_SET_CHILD_SUBREAPER), so every daemon that `ray start` leaves running is
re-parented to it when the CLI exits, and "what the start left running" is exactly the new
descendants of this process. A reaper thread collects those daemons when they exit, so
`ray stop` sees them gone.
"""

import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

from proctree import (children_of, cmdline, cpu_seconds, descendants, logger, memory,  # noqa: F401  (the scripts' API too)
                      stat_field)

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
WORKLOAD = os.path.join(HERE, "workload.py")
RAY_VENV = os.path.join(ROOT, ".bench", "ray-venv")
BUILT_JAR = os.path.join(ROOT, "python", "ray", "_beam", "lib", "beam.jar")
BENCH_JAR = os.path.join(ROOT, ".bench", "beam.jar")

sys.path.insert(0, os.path.join(ROOT, "python"))
from ray._beam.launch import aotcache, findjava  # noqa: E402  (stdlib only; not the ray client)

log = logger("bench")
JOIN_IP = "127.0.0.2"


def snapshot_jar():
    """A private copy of the daemon jar for this run (through BEAM_JAR): a rebuild that rewrites
    python/ray/_beam/lib/beam.jar in place while a daemon runs would pull classes out from under
    it, and would invalidate class archives trained on it. beam's AOT cache comes along when it
    fits the java this run uses (it is valid for the same jar bytes anywhere; its description
    names the jar's folder-relative java, so it is written anew for the copy)."""
    os.makedirs(os.path.dirname(BENCH_JAR), exist_ok=True)
    tmp = BENCH_JAR + ".tmp"
    shutil.copyfile(BUILT_JAR, tmp)
    os.replace(tmp, BENCH_JAR)
    java = os.environ.get("BEAM_JAVA") or find_java()
    built_cache, _ = aotcache.paths(BUILT_JAR)
    cache, meta = aotcache.paths(BENCH_JAR)
    for stale in (cache, meta):
        if os.path.exists(stale):
            os.remove(stale)
    if aotcache.usable(java, BUILT_JAR):
        shutil.copyfile(built_cache, cache)
        aotcache.write_description(meta, aotcache.describe(java, BENCH_JAR))
        if aotcache.usable(java, BENCH_JAR) != cache:  # beam would start without it: say so
            raise SystemExit(f"bench: the AOT cache copied to {cache} is not usable by {java}")
    else:
        log(f"note: no AOT cache for {java} beside {BUILT_JAR} (./dev build makes one); beam starts without it")
    return BENCH_JAR


def find_java():
    """beam's one Java lookup (python/ray/_beam/launch/findjava.py): BEAM_JAVA, JAVA_HOME,
    PATH, /usr/lib/jvm/*, the first Java >= 21."""
    return findjava.find_java()


# ---------------------------------------------------------------- processes

class Procs:
    """Spawns children and reaps adopted orphans (we are a subreaper)."""

    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        if libc.prctl(36, 1, 0, 0, 0) != 0:  # PR_SET_CHILD_SUBREAPER
            raise OSError(ctypes.get_errno(), "prctl(PR_SET_CHILD_SUBREAPER) failed")
        self.lock = threading.Lock()
        self.own = set()  # pids of children we spawned and wait for ourselves
        threading.Thread(target=self._reap, daemon=True).start()

    def _reap(self):
        me = os.getpid()
        while True:
            time.sleep(0.05)
            with self.lock:
                for pid in children_of(me):
                    if pid in self.own or stat_field(pid, "state") != "Z":
                        continue
                    try:
                        os.waitpid(pid, os.WNOHANG)
                    except ChildProcessError:
                        pass

    def run(self, cmd, env, timeout=600, check=True):
        """Runs cmd to completion; returns (rc, stdout, stderr, seconds)."""
        with self.lock:
            t0 = time.perf_counter()
            p = subprocess.Popen(cmd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE,
                                 stderr=subprocess.PIPE, text=True, cwd=ROOT)
            self.own.add(p.pid)
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            p.kill()
            out, err = p.communicate()
            raise RuntimeError(f"timed out after {timeout} s: {' '.join(cmd)}\n{err[-3000:]}")
        finally:
            dt = time.perf_counter() - t0
            with self.lock:
                self.own.discard(p.pid)
        if check and p.returncode != 0:
            raise RuntimeError(f"exit {p.returncode}: {' '.join(cmd)}\n--- stdout\n{out[-3000:]}\n--- stderr\n{err[-3000:]}")
        return p.returncode, out, err, dt

    def terminate_all(self, grace=15.0):
        """SIGTERM every live descendant (not the children we wait for), SIGKILL what is left after grace."""
        pids = self.descendants()
        for p in pids:
            try:
                os.kill(p, signal.SIGTERM)
            except ProcessLookupError:
                pass
        deadline = time.time() + grace
        while time.time() < deadline and any(stat_field(p, "state") not in (None, "Z") for p in pids):
            time.sleep(0.1)
        for p in pids:
            if stat_field(p, "state") not in (None, "Z"):
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        return len(pids)

    def descendants(self):
        """Every live process below this one except the children we are waiting for."""
        return descendants([os.getpid()], skip=self.own)


def free_port():
    with socket.socket() as s:
        s.bind(("", 0))
        return s.getsockname()[1]


# ---------------------------------------------------------------- systems

def clean_env():
    env = dict(os.environ)
    for k in ("RAY_ADDRESS", "RAY_TMPDIR", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "PYTHONPATH", "VIRTUAL_ENV",
              "BEAM_JAR", "JAVA_TOOL_OPTIONS", "JDK_JAVA_OPTIONS"):
        env.pop(k, None)
    return env


class Beam:
    name = "beam"

    def __init__(self, procs):
        self.procs = procs
        self.venv = os.path.join(ROOT, ".venv")
        self.python = os.path.join(self.venv, "bin", "python")
        self.ray = os.path.join(self.venv, "bin", "ray")
        self.tmp = tempfile.mkdtemp(prefix="bb.", dir="/tmp")
        self.tmp2 = tempfile.mkdtemp(prefix="bb2.", dir="/tmp")
        self.java = os.environ.get("BEAM_JAVA") or find_java()

    def env(self):
        env = clean_env()
        env["PATH"] = os.path.join(self.venv, "bin") + os.pathsep + env.get("PATH", "")
        env["BEAM_JAVA"] = self.java
        env["BEAM_JAR"] = BENCH_JAR
        env["RAY_TMPDIR"] = self.tmp
        return env

    def start_head(self):
        return self.procs.run([self.ray, "start", "--head", "--num-gpus", "4", "--num-cpus", "8", "--port", "0",
                               "--temp-dir", self.tmp], self.env(), timeout=120)

    def head_address(self):
        with open(os.path.join(self.tmp, "session_latest", "node.json")) as f:
            return json.load(f)["address"]

    def join(self):
        env = self.env()
        with open(os.path.join(self.tmp, "session_latest", "auth_token")) as f:
            env["RAY_AUTH_TOKEN"] = f.read().strip()
        return self.procs.run([self.ray, "start", "--address", self.head_address(), "--num-gpus", "2", "--num-cpus",
                               "8", "--temp-dir", self.tmp2, "--node-ip-address", JOIN_IP], env, timeout=120)

    def stop(self):
        self.procs.run([self.ray, "stop", "--temp-dir", self.tmp2], self.env(), timeout=60, check=False)
        return self.procs.run([self.ray, "stop", "--temp-dir", self.tmp], self.env(), timeout=60, check=False)

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)
        shutil.rmtree(self.tmp2, ignore_errors=True)


class Ray:
    name = "ray"

    def __init__(self, procs):
        self.procs = procs
        self.python = os.path.join(RAY_VENV, "bin", "python")
        self.ray = os.path.join(RAY_VENV, "bin", "ray")
        # Short: Ray puts unix sockets under RAY_TMPDIR/ray/session_*/sockets.
        self.tmp = tempfile.mkdtemp(prefix="rb.", dir="/tmp")
        self.port = free_port()
        self.head_ip = None

    def env(self):
        env = clean_env()
        env["PATH"] = os.path.join(RAY_VENV, "bin") + os.pathsep + env.get("PATH", "")
        env["RAY_TMPDIR"] = self.tmp
        return env

    def start_head(self):
        r = self.procs.run([self.ray, "start", "--head", "--num-gpus", "4", "--num-cpus", "8", "--disable-usage-stats",
                            "--include-dashboard=false", "--port", str(self.port)], self.env(), timeout=180)
        m = re.search(r"Local node IP: (\S+)", r[1] + r[2])
        self.head_ip = m.group(1) if m else "127.0.0.1"
        return r

    def join(self):
        # A second raylet on this machine with its own node IP, resources and agent ports.
        ports = [str(free_port()) for _ in range(4)]
        return self.procs.run([self.ray, "start", "--address", f"{self.head_ip}:{self.port}", "--num-gpus", "2",
                               "--num-cpus", "8", "--node-ip-address", JOIN_IP, "--disable-usage-stats",
                               "--dashboard-agent-listen-port", ports[0], "--dashboard-agent-grpc-port", ports[1],
                               "--metrics-export-port", ports[2], "--runtime-env-agent-port", ports[3]],
                              self.env(), timeout=180)

    def stop(self):
        # Not `ray stop`: it stops every Ray process on the machine, other users' clusters included
        # (it matches process names). Everything this cluster started is below us (subreaper), so
        # SIGTERM exactly that, as `ray stop` would, and SIGKILL what outlives the grace period.
        n = self.procs.terminate_all()
        return 0, f"stopped {n} Ray processes", "", 0.0

    def cleanup(self):
        shutil.rmtree(self.tmp, ignore_errors=True)


# ---------------------------------------------------------------- one system

def workload(sysm, sub, *extra, timeout=900):
    return run_workload(sysm.procs, sysm.python, sysm.env(), sub, *extra, timeout=timeout, who=sysm.name)


def run_workload(procs, python, env, sub, *extra, timeout=900, who="", script=WORKLOAD):
    """`bench/workload.py SUB EXTRA...` (or SCRIPT EXTRA...) with PYTHON in ENV: the JSON of its BENCH-RESULT line."""
    cmd = [python, script, sub, *extra] if script == WORKLOAD else [python, script, *extra]
    _, out, err, _ = procs.run(cmd, env, timeout=timeout)
    for line in reversed(out.splitlines()):
        if line.startswith("BENCH-RESULT "):
            return json.loads(line[len("BENCH-RESULT "):])
    raise RuntimeError(f"{who} workload {sub}: no result\n{err[-3000:]}".lstrip())
