"""Two-host beam clusters for the vLLM tests, on hosts from tests/e2e/netns.py (network
namespaces when this process is root and can make them, else 127.0.0.1 / 127.0.0.2)."""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tests", "e2e"))

import netns  # noqa: E402


def host_kind(preferred=None):
    """"netns" when namespaces can be made here (or ``preferred``), else "loopback"."""
    want = preferred or os.environ.get("BEAM_VLLM_HOSTS")
    if want:
        return want
    return "netns" if netns.unavailable_reason() is None else "loopback"


def clean_env(temp_dir=None, **extra):
    env = dict(os.environ)
    for k in ("RAY_ADDRESS", "RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE",
              "CUDA_VISIBLE_DEVICES", "RAY_TMPDIR", "PYTEST_CURRENT_TEST"):
        env.pop(k, None)
    env["PYTHONUNBUFFERED"] = "1"
    if temp_dir:
        env["RAY_TMPDIR"] = temp_dir
    env.update({k: str(v) for k, v in extra.items()})
    return env


class TwoHosts:
    """Head on host 1, host 2 joined with the head's token; ``stop()`` ends everything."""

    def __init__(self, kind, ray_bin, start_args=(), host_env=None, hosts=None, port="6379"):
        self.kind = kind
        self.ray_bin = ray_bin
        self.hosts = hosts or netns.make_hosts(kind, 2)
        self.h1, self.h2 = self.hosts[0], self.hosts[1]
        host_env = host_env or (lambda h: {})
        try:
            for h in self.hosts:
                h.temp_dir = tempfile.mkdtemp(prefix=f"beam-vllm-{h.name}-")
            ip = (lambda h: ["--node-ip-address", h.ip]) if kind == "loopback" else (lambda h: [])
            port = "0" if kind == "loopback" else port
            self.run(self.h1, ["start", "--head", "--port", port, "--temp-dir", self.h1.temp_dir,
                               *ip(self.h1), *start_args], env=clean_env(**host_env(self.h1)))
            session = os.path.join(self.h1.temp_dir, "session_latest")
            with open(os.path.join(session, "node.json")) as f:
                self.address = json.load(f)["address"]
            with open(os.path.join(session, "auth_token")) as f:
                token = f.read().strip()
            self.run(self.h2, ["start", "--address", self.address, "--temp-dir", self.h2.temp_dir,
                               *ip(self.h2), *start_args],
                     env=clean_env(RAY_AUTH_TOKEN=token, **host_env(self.h2)))
        except BaseException:
            self.stop()
            raise

    def run(self, host, args, env=None):
        done = host.run([self.ray_bin, *args], env=env or clean_env(), timeout=60)
        if done.returncode != 0:
            raise RuntimeError(f"`ray {' '.join(args)}` on {host} failed ({done.returncode}): "
                               f"{done.stderr}{done.stdout}")
        return done

    def daemon_pid(self, host):
        with open(os.path.join(host.temp_dir, "session_latest", "node.json")) as f:
            return int(json.load(f)["pid"])

    def host_pids(self, host):
        """Every live process of ``host``: in a namespace all of them; on loopback the ones
        netns.py finds (started for the host, or naming its temp dir) plus the daemon's
        descendants: vLLM renames its workers (setproctitle "VLLM::Worker_TP1"), so their
        command line no longer names the temp dir."""
        try:
            pids = set(host.pids())
        except subprocess.TimeoutExpired:
            # `ip netns pids` (20 s limit) once overran on a loaded 2-core machine right after
            # a host kill, while gigabyte-sized vLLM processes were exiting: ask once more.
            pids = set(host.pids())
        with contextlib.suppress(OSError, ValueError, KeyError):
            pids.update(descendants(self.daemon_pid(host)))
        return sorted(p for p in pids if netns._alive(p) and not is_idle_worker(p))

    def kill_host(self, host):
        """SIGKILL every process of ``host`` (as if it lost power); returns their pids."""
        pids = self.host_pids(host)
        for p in pids:
            with contextlib.suppress(ProcessLookupError):
                os.kill(p, signal.SIGKILL)
        return sorted(set(pids) | set(host.kill_all()))

    def popen(self, host, argv, **kw):
        return host.popen(argv, env=clean_env(host.temp_dir, **kw.pop("extra_env", {})), cwd=ROOT, **kw)

    def stop(self):
        for h in self.hosts:
            if h.temp_dir:
                with contextlib.suppress(Exception):
                    h.run([self.ray_bin, "stop", "--force", "--temp-dir", h.temp_dir],
                          env=clean_env(), timeout=30)
        with contextlib.suppress(Exception):
            self.hosts.teardown()
        if os.environ.get("BEAM_E2E_KEEP") != "1":
            for h in self.hosts:
                if h.temp_dir:
                    shutil.rmtree(h.temp_dir, ignore_errors=True)


def interface_of(host):
    """The interface GLOO_SOCKET_IFNAME must name on ``host``."""
    return host.veth if host.ns else "lo"


def is_idle_worker(pid):
    """An idle pooled worker (beam.node.WorkerPool, named ``beam-idle`` until it takes on an
    actor): the node's standby, not a process of any run, so no test counts it as left over."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() == "beam-idle"
    except OSError:
        return False


def descendants(pid):
    """Every live descendant pid of ``pid`` (walks /proc ppid links), idle pooled workers
    left out (``is_idle_worker``)."""
    children = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
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
    return [p for p in out if not is_idle_worker(p)]


def alive(pids):
    return [p for p in pids if netns._alive(p)]


def wait_gone(pids, within):
    end = time.monotonic() + within
    while alive(pids) and time.monotonic() < end:
        time.sleep(0.1)
    return alive(pids)


def cmdline(pid):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as f:
            return f.read().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        return "?"


def read_events(proc, timeout, until, log_path=None):
    """Read ``@@TAG json`` lines from ``proc.stdout`` until a line with tag ``until`` (or
    EOF / timeout); returns {tag: payload}. Every line also goes to ``log_path`` (given on
    the first call) and the last 200 other lines to ``proc._other``."""
    import queue
    import threading

    q = proc.__dict__.setdefault("_q", None)
    if q is None:
        q = queue.Queue()
        proc._q = q
        proc._events = {}
        proc._other = []

        log = open(log_path, "a") if log_path else None

        def pump():
            for line in proc.stdout:
                if log:
                    log.write(line)
                    log.flush()
                q.put(line)
            q.put(None)
        threading.Thread(target=pump, daemon=True).start()
    end = time.monotonic() + timeout
    while until not in proc._events:
        try:
            line = q.get(timeout=max(0.0, end - time.monotonic()))
        except queue.Empty:
            break
        if line is None:
            break
        if line.startswith("@@"):
            tag, _, rest = line[2:].partition(" ")
            proc._events[tag] = json.loads(rest) if rest.strip() else None
            proc._events.setdefault("_at", {})[tag] = time.time()
        else:
            proc._other = (proc._other + [line])[-200:]
    return proc._events
