"""Multi-host beam clusters for end-to-end tests, on hosts from ``netns.py``.

``BeamCluster(hosts)`` starts the head on a host (``ray start --head``) and joins others
(``ray start --address HEAD:PORT`` with the head's token in ``RAY_AUTH_TOKEN``), each host
with its own ``--temp-dir``; drivers run on a host with ``RAY_TMPDIR`` set to that host's
temp dir, so ``ray.init()`` finds the local daemon over its unix socket.

Drivers are subprocesses that talk to the test with tagged lines (``@@TAG <json>``) on
stdout and read commands from stdin (``Driver.send`` / ``Driver.expect``). ``PRELUDE`` is
prepended to every driver script: ``emit``, ``command``, ``err_info``, ``cluster_view``, a
``Probe`` actor class and a ``Monitor`` (vLLM's liveness loop: ``ray.wait(refs,
num_returns=1, timeout=5)`` in a thread, emitting ``DONE`` for every ref that completes).
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import textwrap
import threading
import time

import pytest

from conftest import RAY_BIN, ROOT, VENV_PYTHON, beam_env, cluster_processes, pid_alive, wait_until

AUTH_VARS = ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE")


def host_env(temp_dir=None, **extra):
    """``beam_env`` without any auth variables inherited from the test's environment."""
    env = beam_env(temp_dir)
    for k in AUTH_VARS:
        env.pop(k, None)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def free_port(ip="127.0.0.1"):
    with socket.socket() as s:
        s.bind((ip, 0))
        return s.getsockname()[1]


PRELUDE = r'''
import json, os, sys, threading, time
import ray
from ray.exceptions import ActorDiedError, RayActorError, GetTimeoutError
from ray.util.placement_group import (placement_group, placement_group_table,
                                      remove_placement_group)
from ray.util.scheduling_strategies import PlacementGroupSchedulingStrategy

_emit_lock = threading.Lock()

def emit(tag, obj=None):
    with _emit_lock:
        sys.stdout.write("@@" + tag + " " + json.dumps(obj, default=str) + "\n")
        sys.stdout.flush()

def command():
    """The next line the test sends on stdin ('' at EOF)."""
    return sys.stdin.readline().strip()

def err_info(e):
    return {"type": type(e).__name__, "mro": [c.__name__ for c in type(e).__mro__],
            "msg": str(e)}

def cluster_view():
    return {"nodes": [{k: n.get(k) for k in ("NodeID", "Alive", "NodeManagerAddress",
                                               "Resources", "DeathReasonMessage")}
                      for n in ray.nodes()],
            "total": ray.cluster_resources(), "available": ray.available_resources()}

def on_node(ip, **opts):
    """Actor options that put it on the node with this IP (Ray's node:<ip> resource)."""
    return dict(opts, resources={f"node:{ip}": 0.001})

@ray.remote(num_cpus=0)
class Probe:
    def info(self):
        ctx = ray.get_runtime_context()
        return {"ip": ray.util.get_node_ip_address(), "node_id": ctx.get_node_id(),
                "pid": os.getpid(), "gpu_ids": [str(g) for g in ray.get_gpu_ids()]}
    def ping(self):
        return "pong"
    def echo(self, x):
        return x
    def sleep(self, s):
        time.sleep(s)
        return s

class Monitor:
    """vLLM's liveness loop: ray.wait(pending, num_returns=1, timeout=5) in a thread; emits
    DONE {index, ok, value|error} for every ref that completes, WAIT_ERROR if ray.wait raises."""

    def __init__(self, refs):
        self.pending = dict(enumerate(refs))
        self.stop = False
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while self.pending and not self.stop and ray.is_initialized():
            index_of = {r: i for i, r in self.pending.items()}
            try:
                done, _ = ray.wait(list(index_of), num_returns=1, timeout=5)
            except BaseException as e:
                emit("WAIT_ERROR", err_info(e))
                return
            for ref in done:
                i = index_of[ref]
                del self.pending[i]
                try:
                    emit("DONE", {"index": i, "ok": True, "value": ray.get(ref, timeout=10)})
                except BaseException as e:
                    emit("DONE", {"index": i, "ok": False, "error": err_info(e)})
'''


class Driver:
    """A driver subprocess on a host. Lines ``@@TAG json`` on its stdout are events;
    ``expect(TAG)`` returns the payload of the oldest unread event with that tag (bounded
    wait, clear failure with the driver's output). ``@@FAIL`` fails the test at once."""

    def __init__(self, host, code, env):
        self.host = host
        self._err = tempfile.TemporaryFile(mode="w+")
        script = PRELUDE + "\n" + textwrap.dedent(code).lstrip()
        self.proc = host.popen([VENV_PYTHON, "-u", "-c", script], env=env, cwd=ROOT,
                               stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                               stderr=self._err, text=True)
        self.lines = []
        self.events = []  # [tag, payload, monotonic arrival, consumed]
        self.ended = False
        self._cv = threading.Condition()
        threading.Thread(target=self._pump, daemon=True).start()

    def _pump(self):
        for line in self.proc.stdout:
            self.lines.append(line)
            if line.startswith("@@"):
                tag, _, rest = line[2:].rstrip("\n").partition(" ")
                with self._cv:
                    self.events.append([tag, json.loads(rest) if rest else None,
                                        time.monotonic(), False])
                    self._cv.notify_all()
        with self._cv:
            self.ended = True
            self._cv.notify_all()

    def stderr(self):
        with contextlib.suppress(Exception):
            self._err.seek(0)
            return self._err.read()[-4000:]
        return ""

    def describe(self):
        return (f"driver pid {self.proc.pid} on {self.host} (exit {self.proc.poll()}); "
                f"stdout: {''.join(self.lines)[-4000:]!r}; stderr: {self.stderr()!r}")

    def _take(self, tags):
        for ev in self.events:
            if ev[0] == "FAIL":
                pytest.fail(f"the driver reported a failure: {ev[1]}; {self.describe()}")
            if not ev[3] and ev[0] in tags:
                ev[3] = True
                return ev
        return None

    def expect(self, tag, timeout=60.0, what=None):
        """The payload of the oldest unread ``@@tag`` event, waiting up to ``timeout`` s."""
        return self.expect_timed(tag, timeout, what)[0]

    def expect_timed(self, tags, timeout=60.0, what=None):
        """(payload, arrival time (monotonic), tag) of the oldest unread event with one of
        ``tags`` (a tag or a tuple of tags)."""
        tags = (tags,) if isinstance(tags, str) else tuple(tags)
        deadline = time.monotonic() + timeout
        with self._cv:
            while True:
                ev = self._take(tags)
                if ev is not None:
                    return ev[1], ev[2], ev[0]
                left = deadline - time.monotonic()
                if self.ended or left <= 0:
                    break
                self._cv.wait(left)
        if self.ended:
            time.sleep(0.2)
            pytest.fail(f"{what or tags}: the driver ended before @@{'/'.join(tags)}; "
                        f"{self.describe()}")
        pytest.fail(f"{what or tags}: no @@{'/'.join(tags)} within {timeout} s; "
                    f"{self.describe()}")

    def unread(self, tag):
        """Payloads of the unread events with ``tag`` (not consumed)."""
        with self._cv:
            return [ev[1] for ev in self.events if ev[0] == tag and not ev[3]]

    def ask(self, line, tag, timeout=60.0):
        """Send a command line and return the payload of the next ``@@tag``."""
        self.send(line)
        return self.expect(tag, timeout, what=f"answer to {line!r}")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def close(self):
        if self.proc.poll() is None:
            with contextlib.suppress(ProcessLookupError):
                os.kill(self.proc.pid, signal.SIGKILL)
        with contextlib.suppress(Exception):
            self.proc.wait(timeout=10)


class BeamCluster:
    """beam daemons on ``hosts`` (a NetnsHosts / LoopbackHosts). ``teardown()`` stops them."""

    def __init__(self, hosts, port=None, heartbeat_ms=None, node_timeout_ms=None):
        self.hosts = hosts
        self.loopback = hosts.kind == "loopback"
        # Each namespace has its own ports: Ray's default 6379 is free there.
        self.port = port or (free_port() if self.loopback else 6379)
        self.timing = []
        if heartbeat_ms is not None:
            self.timing += ["--heartbeat-period-ms", str(heartbeat_ms)]
        if node_timeout_ms is not None:
            self.timing += ["--node-timeout-ms", str(node_timeout_ms)]
        self.head = None
        self.token = None
        self.dirs = []
        self.drivers = []

    # ---------------------------------------------------------------- hosts and daemons

    @property
    def address(self):
        return f"{self.head.ip}:{self.port}"

    def temp_dir(self, host, fresh=False):
        """The host's --temp-dir (made on first use, or a new one when ``fresh``)."""
        if host.temp_dir is None or fresh:
            host.temp_dir = tempfile.mkdtemp(prefix=f"beam-mh-{host.name}-")
            self.dirs.append(host.temp_dir)
        return host.temp_dir

    def ray(self, host, args, env=None, timeout=60):
        """``ray ARGS`` run on ``host`` (the venv's console command)."""
        return host.run([RAY_BIN, *args], env=env or host_env(), timeout=timeout)

    def _ip_flag(self, host):
        # On loopback every host needs its IP said; in a namespace the daemon finds it.
        return ["--node-ip-address", host.ip] if self.loopback else []

    def start_head(self, host, gpus=2, cpus=2, extra=(), env_extra=None):
        base = self.temp_dir(host)
        done = self.ray(host, ["start", "--head", "--num-gpus", str(gpus), "--num-cpus", str(cpus),
                               "--port", str(self.port), "--temp-dir", base, *self.timing,
                               *self._ip_flag(host), *extra], env=host_env(**(env_extra or {})))
        assert done.returncode == 0, (f"`ray start --head` on {host} failed ({done.returncode}): "
                                      f"{done.stderr}{done.stdout}")
        self.head = host
        self.head_output = done.stdout
        token_file = os.path.join(base, "session_latest", "auth_token")
        self.token = open(token_file).read().strip() if os.path.exists(token_file) else None
        return done

    def join(self, host, gpus=2, cpus=2, token="<head>", extra=(), check=True, fresh_dir=False, env_extra=None):
        """``ray start --address HEAD:PORT`` on ``host``; ``token`` None means no token."""
        base = self.temp_dir(host, fresh=fresh_dir)
        env = host_env(**(env_extra or {}))
        if token == "<head>":
            token = self.token
        if token is not None:
            env["RAY_AUTH_TOKEN"] = token
        done = self.ray(host, ["start", "--address", self.address, "--num-gpus", str(gpus),
                               "--num-cpus", str(cpus), "--temp-dir", base, *self.timing,
                               *self._ip_flag(host), *extra], env=env)
        if check:
            assert done.returncode == 0, (f"`ray start --address {self.address}` on {host} "
                                          f"failed ({done.returncode}): {done.stderr}{done.stdout}")
        return done

    def start(self, n=None, gpus=2, cpus=2):
        """Head on the first host, the next ``n - 1`` hosts join."""
        hosts = list(self.hosts)[: n or len(self.hosts)]
        self.start_head(hosts[0], gpus=gpus, cpus=cpus)
        for h in hosts[1:]:
            self.join(h, gpus=gpus, cpus=cpus)
        return self

    def stop(self, host, force=False):
        args = ["stop", "--temp-dir", self.temp_dir(host)] + (["--force"] if force else [])
        return self.ray(host, args)

    def node_json(self, host):
        with open(os.path.join(host.temp_dir, "session_latest", "node.json")) as f:
            return json.load(f)

    def daemon_pid(self, host):
        return int(self.node_json(host)["pid"])

    def node_id(self, host):
        return self.node_json(host)["node_id"]

    def beam_processes(self, host):
        """Live (pid, cmdline) of the beam daemons and actor workers on ``host``: in a
        namespace every one running there; on loopback the ones naming its temp dir."""
        if host.ns is None:
            return cluster_processes(host.temp_dir) if host.temp_dir else []
        found = []
        for pid in host.pids():
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
            except OSError:
                continue
            if ("beam.cli.Main" in cmd or "ray._beam.worker" in cmd) and pid_alive(pid):
                found.append((pid, cmd))
        return found

    def worker_pids(self, host):
        return [p for p, cmd in self.beam_processes(host) if "ray._beam.worker" in cmd]

    def wait_no_beam_processes(self, host, within):
        """Wait until ``host`` has no beam daemon or worker; return what is left."""
        deadline = time.monotonic() + within
        while True:
            left = self.beam_processes(host)
            if not left or time.monotonic() > deadline:
                return left
            time.sleep(0.05)

    # ---------------------------------------------------------------- drivers

    def driver_env(self, host, **extra):
        return host_env(self.temp_dir(host), **extra)

    def spawn(self, host, code, **extra_env):
        """Start a driver on ``host`` (a ``Driver``); it is killed at teardown."""
        d = Driver(host, code, self.driver_env(host, **extra_env))
        self.drivers.append(d)
        return d

    def run_driver(self, host, code, timeout=90, **extra_env):
        """Run a driver on ``host`` to the end; returns {tag: payload} of its events (the
        last of each tag) and fails with its output if it exits non-zero."""
        script = PRELUDE + "\n" + textwrap.dedent(code).lstrip()
        try:
            done = host.run([VENV_PYTHON, "-u", "-c", script],
                            env=self.driver_env(host, **extra_env), timeout=timeout, cwd=ROOT)
        except subprocess.TimeoutExpired as e:
            pytest.fail(f"driver on {host} did not finish within {timeout} s; "
                        f"stdout: {e.stdout!r}; stderr: {e.stderr!r}")
        assert done.returncode == 0, (f"driver on {host} failed ({done.returncode}); "
                                      f"stdout: {done.stdout[-4000:]!r}; "
                                      f"stderr: {done.stderr[-4000:]!r}")
        events = {}
        for line in done.stdout.splitlines():
            if line.startswith("@@"):
                tag, _, rest = line[2:].partition(" ")
                events[tag] = json.loads(rest) if rest else None
        events["_stdout"] = done.stdout
        return events

    def view(self, host=None):
        """ray.nodes() (a few keys), cluster_resources(), available_resources() from a driver
        on ``host`` (default: the head)."""
        return self.run_driver(host or self.head, """
            ray.init(address="auto")
            emit("VIEW", cluster_view())
        """, timeout=60)["VIEW"]

    # ---------------------------------------------------------------- teardown

    def teardown(self):
        for d in self.drivers:
            d.close()
        for host in self.hosts:
            if host.temp_dir and self.beam_processes(host):
                with contextlib.suppress(Exception):
                    self.ray(host, ["stop", "--force", "--temp-dir", host.temp_dir], timeout=30)
        for host in self.hosts:
            for pid, _ in self.beam_processes(host):
                with contextlib.suppress(ProcessLookupError):
                    os.kill(pid, signal.SIGKILL)
        if os.environ.get("BEAM_E2E_KEEP") == "1":  # keep the session dirs (logs) to debug
            print(f"BEAM_E2E_KEEP: kept {self.dirs}")
            return
        for base in self.dirs:
            shutil.rmtree(base, ignore_errors=True)


def nodes_by_ip(view, alive=True):
    """{ip: node dict} of the (alive / dead) nodes of a ``cluster_view``."""
    return {n["NodeManagerAddress"]: n for n in view["nodes"] if n["Alive"] == alive}


def wait_for(predicate, within, what, interval=0.1):
    """Poll ``predicate`` until truthy (returned); fail with ``what`` after ``within`` s."""
    return wait_until(predicate, within, what, interval)


def pids_alive(pids):
    return [p for p in pids if pid_alive(p)]
