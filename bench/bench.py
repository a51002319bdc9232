"""Side-by-side benchmark of beam and real Ray 2.58.0 (run it through bench/run.sh).

Standard library only. For each system, one after the other (never both at once):
start the head (timed), measure the idle memory of every process the start left running,
time ray.init() from fresh processes, run bench/workload.py's subcommands under that
system's interpreter, join a second node on 127.0.0.2, measure the two-host broadcast and
a host kill, stop everything. Then print the table, write bench/results/latest.json and
(when matplotlib is available in .bench/ray-venv) bench/results/chart.png.

Processes are found through the process tree: this process makes itself a child
subreaper (prctl PR_SET_CHILD_SUBREAPER), so every daemon that `ray start` leaves
running is re-parented to it when the CLI exits, and "what the start left running" is
exactly the new descendants of this process. A reaper thread collects those daemons
when they exit, so `ray stop` sees them gone.
"""
import argparse
import ctypes
import json
import os
import platform
import re
import resource
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
RESULTS = os.path.join(HERE, "results")
WORKLOAD = os.path.join(HERE, "workload.py")
RAY_VENV = os.path.join(ROOT, ".bench", "ray-venv")
BUILT_JAR = os.path.join(ROOT, "python", "ray", "_beam", "lib", "beam.jar")
BENCH_JAR = os.path.join(ROOT, ".bench", "beam.jar")

sys.path.insert(0, os.path.join(ROOT, "python"))
from ray._beam.launch import aotcache, findjava  # noqa: E402  (stdlib only; not the ray client)


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


JOIN_IP = "127.0.0.2"


def log(msg):
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


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
        me = os.getpid()
        kids = children_map()
        out, todo = [], [p for p in kids.get(me, []) if p not in self.own]
        while todo:
            p = todo.pop()
            if stat_field(p, "state") == "Z":
                continue
            out.append(p)
            todo.extend(kids.get(p, []))
        return sorted(out)


def _stat(pid):
    with open(f"/proc/{pid}/stat") as f:
        s = f.read()
    rest = s[s.rindex(")") + 2:].split()
    return {"state": rest[0], "ppid": int(rest[1])}


def stat_field(pid, field):
    try:
        return _stat(pid)[field]
    except (OSError, ValueError, IndexError):
        return None


def children_map():
    kids = {}
    for d in os.listdir("/proc"):
        if d.isdigit():
            ppid = stat_field(int(d), "ppid")
            if ppid is not None:
                kids.setdefault(ppid, []).append(int(d))
    return kids


def children_of(pid):
    return children_map().get(pid, [])


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return ""


def memory(pids):
    """(sum of RSS, sum of PSS) in MiB, and a per-process list."""
    rss = pss = 0
    each = []
    for p in pids:
        r = s = 0
        try:
            with open(f"/proc/{p}/status") as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        r = int(line.split()[1])
            with open(f"/proc/{p}/smaps_rollup") as f:
                for line in f:
                    if line.startswith("Pss:"):
                        s = int(line.split()[1])
        except OSError:
            continue
        rss += r
        pss += s
        each.append({"pid": p, "rss_mb": r / 1024, "cmd": cmdline(p)[:120]})
    return rss / 1024, pss / 1024, each


def cpu_seconds(pids):
    """utime + stime so far of the given processes."""
    tick = os.sysconf("SC_CLK_TCK")
    total = 0
    for p in pids:
        try:
            with open(f"/proc/{p}/stat") as f:
                st = f.read()
            fields = st[st.rindex(")") + 2:].split()
            total += int(fields[11]) + int(fields[12])
        except (OSError, ValueError):
            pass
    return total / tick


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


def find_java():
    """beam's one Java lookup (python/ray/_beam/launch/findjava.py): BEAM_JAVA, JAVA_HOME,
    PATH, /usr/lib/jvm/*, the first Java >= 21."""
    return findjava.find_java()


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


def start_cycle(sysm, r):
    """One `ray start --head` (timed), 2 s idle, memory and CPU of what it left running, `ray stop`."""
    procs = sysm.procs
    before = set(procs.descendants())
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, _, _, dt = sysm.start_head()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    time.sleep(2.0)
    left = [p for p in procs.descendants() if p not in before]
    m_rss, m_pss, each = memory(left)
    cpu = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) + cpu_seconds(left)
    for k, v in (("start_all", dt), ("rss_all", m_rss), ("pss_all", m_pss), ("cpu_all", cpu)):
        r.setdefault(k, []).append(v)
    r["idle_processes"] = each
    log(f"{sysm.name}: start {dt:.3f} s, {len(left)} processes, RSS {m_rss:.1f} MiB, PSS {m_pss:.1f} MiB, "
        f"CPU {cpu:.2f} s")
    sysm.stop()
    time.sleep(0.5)
    sysm.cleanup()


def measure_starts(make_systems, results, reps):
    """Start/idle/stop cycles, alternating between the systems (one at a time) so that background
    load on a shared machine hits both alike. Each system's `ray` runs once before: beam's first
    command after an install or a new jar (the bench's own snapshot) resolves Java in Python and
    writes the launch file that later ones start Java from (docs/DESIGN.md, "The `ray` command")."""
    for _, make in make_systems:
        sysm = make()
        sysm.procs.run([sysm.ray, "--version"], sysm.env(), timeout=120, check=False)
        sysm.cleanup()
    for i in range(reps):
        for name, make in make_systems:
            log(f"{name}: ray start --head, round {i + 1}/{reps}")
            start_cycle(make(), results[name])
    for r in results.values():
        r["start_s"] = statistics.median(r["start_all"])
        r["start_best_s"] = min(r["start_all"])
        r["idle_rss_mb"] = statistics.median(r["rss_all"])
        r["idle_pss_mb"] = statistics.median(r["pss_all"])
        r["start_cpu_s"] = statistics.median(r["cpu_all"])


def measure_system(sysm, quick, r):
    """On one fresh cluster of this system: the first ray.init right after `ray start`, warm
    ray.init, the workloads, a second node, the two-host broadcast and the host kill."""
    procs = sysm.procs
    before = set(procs.descendants())
    if before:
        log(f"warning: processes left from before: {before}")
    log(f"{sysm.name}: ray start --head for the workloads")
    ru0 = resource.getrusage(resource.RUSAGE_CHILDREN)
    _, _, _, dt = sysm.start_head()
    ru1 = resource.getrusage(resource.RUSAGE_CHILDREN)
    try:
        if quick:
            # Smoke run: no separate start/stop cycles; idle memory is taken on this cluster before
            # the first driver (so "then the first ray.init" comes 2 s late and flatters Ray).
            time.sleep(2.0)
            left = [p for p in procs.descendants() if p not in before]
            m_rss, m_pss, each = memory(left)
            cpu = (ru1.ru_utime + ru1.ru_stime - ru0.ru_utime - ru0.ru_stime) + cpu_seconds(left)
            r.update({"start_all": [dt], "rss_all": [m_rss], "pss_all": [m_pss], "cpu_all": [cpu],
                      "idle_processes": each, "start_s": dt, "start_best_s": dt, "idle_rss_mb": m_rss,
                      "idle_pss_mb": m_pss, "start_cpu_s": cpu})
        # Ray's start returns before its raylet takes drivers: time the first driver at once.
        first = workload(sysm, "init")["init_s"]
        r["first_init_s"] = first
        r["start_to_usable_s"] = dt + first
        log(f"{sysm.name}: start {dt:.3f} s, first ray.init right after it {first:.3f} s")
        inits = [workload(sysm, "init")["init_s"] for _ in range(0 if quick else 3)] or [first]
        r["init_s"] = statistics.median(inits)
        r["init_all"] = inits
        log(f"{sysm.name}: ray.init {r['init_s']:.3f} s")
        log(f"{sysm.name}: main workload")
        r["main"] = workload(sysm, "main", *(["--quick"] if quick else []))
        log(f"{sysm.name}: vLLM-shaped start-up")
        r["vllm"] = workload(sysm, "vllm")
        log(f"{sysm.name}: joining a second node on {JOIN_IP}")
        head_set = set(procs.descendants())
        try:
            sysm.join()
            time.sleep(1.0)
            node2 = [p for p in procs.descendants() if p not in head_set]
            r["node2_processes"] = [cmdline(p)[:100] for p in node2]
            r["multihost"] = workload(sysm, "multihost", "--node-ip", JOIN_IP, "--kill-pids",
                                      ",".join(map(str, node2)), *(["--quick"] if quick else []))
        except RuntimeError as e:
            r["multihost_error"] = str(e)[-2000:]
            log(f"{sysm.name}: two-host part failed: {str(e)[-500:]}")
    finally:
        log(f"{sysm.name}: ray stop")
        sysm.stop()
        time.sleep(0.5)
        left = [p for p in procs.descendants() if p not in before]
        if left:
            log(f"{sysm.name}: killing {len(left)} leftover processes: {[cmdline(p)[:60] for p in left]}")
            for p in left:
                try:
                    os.kill(p, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        sysm.cleanup()
    return r


# ---------------------------------------------------------------- table

# (key, label, unit, getter, better: "lower"/"higher", target factor or None)
def _g(*path):
    def get(r):
        for k in path:
            if r is None or not isinstance(r, dict):
                return None
            r = r.get(k)
        return r
    return get


METRICS = [
    ("start", "ray start --head (median)", "s", _g("start_s"), "lower", 10),
    ("start_best", "ray start --head (best run)", "s", _g("start_best_s"), "lower", None),
    ("start_usable", "ray start, then the first ray.init", "s", _g("start_to_usable_s"), "lower", None),
    ("start_cpu", "CPU used by ray start and 2 s idle", "s", _g("start_cpu_s"), "lower", None),
    ("idle_rss", "idle memory, sum of RSS", "MiB", _g("idle_rss_mb"), "lower", 8),
    ("idle_pss", "idle memory, sum of PSS", "MiB", _g("idle_pss_mb"), "lower", None),
    ("init", "ray.init() to the running cluster (warm)", "s", _g("init_s"), "lower", None),
    ("actors4", "4 actors created, first call answered", "s", _g("main", "actors4_s"), "lower", 3),
    ("actors16", "16 actors created, first call answered", "s", _g("main", "actors16_s"), "lower", 3),
    ("sync_p50", "sync actor call p50", "us", _g("main", "sync", "p50_us"), "lower", 8),
    ("sync_p99", "sync actor call p99", "us", _g("main", "sync", "p99_us"), "lower", 5),
    ("bcast4_p50", "4 KB broadcast to 4 actors p50", "us", _g("main", "bcast4", "p50_us"), "lower", 8),
    ("bcast4_p99", "4 KB broadcast to 4 actors p99", "us", _g("main", "bcast4", "p99_us"), "lower", None),
    ("bcast8_p50", "4 KB broadcast to 8 actors, 2 hosts p50", "us", _g("multihost", "bcast8", "p50_us"), "lower", 8),
    ("bcast8_p99", "4 KB broadcast to 8 actors, 2 hosts p99", "us", _g("multihost", "bcast8", "p99_us"), "lower",
     None),
    ("pipelined", "pipelined calls to one actor", "calls/s", _g("main", "pipelined", "calls_per_s"), "higher", 10),
    ("pg", "placement group create/ready/remove", "per s", _g("main", "pg", "per_s"), "higher", 20),
    ("pg_wait", "placement group create/pg.wait()/remove", "per s", _g("main", "pg_wait", "per_s"), "higher", None),
    ("actor_kill", "actor SIGKILL until its ref fails", "s", _g("main", "actor_kill", "s"), "lower", None),
    ("host_kill", "host killed until its actors' refs fail", "s", _g("multihost", "host_kill", "s"), "lower", None),
    ("vllm", "vLLM-shaped start: init to workers ready", "s", _g("vllm", "vllm_ready_s"), "lower", None),
]


def build_rows(beam, ray):
    rows = []
    for key, label, unit, get, better, target in METRICS:
        b, r = get(beam), (get(ray) if ray else None)
        factor = None
        if isinstance(b, (int, float)) and isinstance(r, (int, float)) and b > 0 and r > 0:
            factor = r / b if better == "lower" else b / r
        verdict = None
        if target is not None and factor is not None:
            verdict = "PASS" if factor >= target else "MISS"
        why = None
        if r is None and ray is not None:
            why = ray.get("multihost_error", "n/a")[:200] if key.startswith(("bcast8", "host_kill")) else "n/a"
        rows.append({"key": key, "metric": label, "unit": unit, "beam": b, "ray": r, "better": better,
                     "factor": factor, "target": target, "verdict": verdict, "note": why})
    return rows


def fmt(v, unit):
    if v is None:
        return "n/a"
    if unit in ("us", "calls/s", "per s", "MiB") and v >= 100:
        return f"{v:,.0f}"
    if unit == "s":
        return f"{v:.3f}"
    return f"{v:.1f}"


def table(rows):
    head = ["metric", "unit", "beam", "Ray", "beam vs Ray", "target", ""]
    lines = []
    for r in rows:
        lines.append([r["metric"], r["unit"], fmt(r["beam"], r["unit"]), fmt(r["ray"], r["unit"]),
                      f"{r['factor']:.1f}x better" if r["factor"] and r["factor"] >= 1 else
                      (f"{1 / r['factor']:.1f}x worse" if r["factor"] else "n/a"),
                      (f"<= {r['target']}" if r["better"] == "own" else f">= {r['target']}x") if r["target"] else "",
                      r["verdict"] or ""])
    return head, lines


def markdown(rows):
    head, lines = table(rows)
    out = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    out += ["| " + " | ".join(line) + " |" for line in lines]
    return "\n".join(out)


def plain(rows):
    head, lines = table(rows)
    w = [max(len(x) for x in col) for col in zip(head, *lines)]
    fmt_line = lambda cells: "  ".join(c.ljust(w[i]) if i == 0 else c.rjust(w[i]) for i, c in enumerate(cells))  # noqa
    return "\n".join([fmt_line(head), fmt_line(["-" * x for x in w])] + [fmt_line(line) for line in lines])


# ---------------------------------------------------------------- machine

def machine():
    mem = 0
    with open("/proc/meminfo") as f:
        for line in f:
            if line.startswith("MemTotal:"):
                mem = int(line.split()[1]) / 1024 / 1024
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            cpu = next((line.split(":", 1)[1].strip() for line in f if line.startswith("model name")), "")
    except OSError:
        pass
    java = os.environ.get("BEAM_JAVA") or find_java()
    jv = subprocess.run([java, "-version"], capture_output=True, text=True).stderr.splitlines()
    py = subprocess.run([os.path.join(ROOT, ".venv", "bin", "python"), "--version"], capture_output=True,
                        text=True).stdout.strip()
    head = subprocess.run(["git", "-C", ROOT, "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no", "--", "java", "python"],
                           capture_output=True, text=True).stdout.strip()
    return {"commit": head + (" + uncommitted changes in java/ or python/" if dirty else ""),
            "nproc": os.cpu_count(), "cpu": cpu, "memory_gib": round(mem, 1), "kernel": platform.release(),
            "jdk": jv[1] if len(jv) > 1 else (jv[0] if jv else ""), "python": py,
            "loadavg_at_start": os.getloadavg()}


# ---------------------------------------------------------------- main

def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--quick", action="store_true", help="few iterations; Ray only if already installed")
    ap.add_argument("--systems", default="beam,ray", help="comma-separated: beam, ray")
    ap.add_argument("--out", default=os.path.join(RESULTS, "latest.json"))
    ap.add_argument("--show", metavar="JSON", help="only print the table of a results file, as Markdown")
    args = ap.parse_args()
    if args.show:
        doc = json.load(open(args.show))
        print(markdown(doc["rows"]))
        return 0
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    procs = Procs()
    snapshot_jar()
    systems = [s for s in args.systems.split(",") if s]
    if "ray" in systems and not os.path.exists(os.path.join(RAY_VENV, "bin", "ray")):
        log("Ray is not installed (.bench/ray-venv); measuring beam only")
        systems.remove("ray")
    info = machine()
    t0 = time.time()
    makers = [(s, (lambda s=s: Beam(procs) if s == "beam" else Ray(procs))) for s in systems]
    results = {s: {"system": s} for s in systems}
    if not args.quick:
        measure_starts(makers, results, 5)
    for s, make in makers:
        measure_system(make(), args.quick, results[s])
    rows = build_rows(results.get("beam"), results.get("ray"))
    doc = {"when": time.strftime("%Y-%m-%d %H:%M:%S %Z"), "quick": args.quick, "machine": info,
           "loadavg_at_end": os.getloadavg(), "seconds": round(time.time() - t0, 1), "rows": rows,
           "raw": results}
    with open(args.out, "w") as f:
        json.dump(doc, f, indent=1)
    print()
    print(plain(rows))
    for r in rows:
        if r["note"]:
            print(f"n/a for {r['metric']}: {r['note']}")
    print()
    print(f"machine: {info['nproc']} CPUs ({info['cpu']}), {info['memory_gib']} GiB, {info['jdk']}, {info['python']}; "
          f"load average {info['loadavg_at_start'][0]:.2f} at start, {doc['loadavg_at_end'][0]:.2f} at end")
    print(f"wrote {os.path.relpath(args.out, ROOT)} ({doc['seconds']} s)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
