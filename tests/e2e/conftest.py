"""End-to-end fixtures: a real beam daemon (Java) on a private temp dir, one per module.

Skipped when Java >= 21 or the jar is missing. The driver runs in the pytest process with
RAY_TMPDIR pointing at the daemon's temp dir, so ``ray.init(address="auto")`` finds it.
"""

import os
import shutil
import sys
import tempfile

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(ROOT, "tests"))  # waiting.py, shared with the unit tests

from ray._beam.launch import launcher  # noqa: E402
from waiting import WAIT_S, wait_until  # noqa: E402,F401  (the e2e tests import them from here)
from isolation import private_home  # noqa: E402

private_home()  # no user's ~/.ray/auth_token in any daemon the tests start (tests/isolation.py)


@pytest.fixture(scope="module")
def cluster(monkeypatch_module):
    try:
        launcher.command([])
    except launcher.LauncherError as e:
        pytest.fail(f"no daemon available (run ./dev build first): {e}")
    base = tempfile.mkdtemp(prefix="beam-e2e-")
    done = launcher.run_cli(["start", "--head", "--port", "0", "--temp-dir", base,
                             "--num-gpus", "4", "--num-cpus", "8"])
    assert done.returncode == 0, done.stderr
    monkeypatch_module.setenv("RAY_TMPDIR", base)
    monkeypatch_module.delenv("RAY_ADDRESS", raising=False)
    import ray

    ray.init(address="auto")
    yield base
    ray.shutdown()
    launcher.run_cli(["stop", "--temp-dir", base])
    for pid, _ in cluster_processes(base):  # leak guard: a stop that failed leaves none
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def monkeypatch_module():
    mp = pytest.MonkeyPatch()
    yield mp
    mp.undo()


# ---------------------------------------------------------------------------------------
# Helpers for tests that drive the CLI and run drivers as subprocesses.
# ---------------------------------------------------------------------------------------

import contextlib  # noqa: E402
import json  # noqa: E402
import signal  # noqa: E402
import subprocess  # noqa: E402
import textwrap  # noqa: E402
import time  # noqa: E402

VENV_BIN = os.path.join(ROOT, ".venv", "bin")
VENV_PYTHON = os.path.join(VENV_BIN, "python")
RAY_BIN = os.path.join(VENV_BIN, "ray")


def beam_env(temp_dir=None, **extra):
    """The environment for a `ray` CLI or driver subprocess: the venv first on PATH,
    RAY_TMPDIR pointing at ``temp_dir`` (when given), no RAY_ADDRESS inherited."""
    env = dict(os.environ)
    env.pop("RAY_ADDRESS", None)
    env.pop("CUDA_VISIBLE_DEVICES", None)
    env["PATH"] = VENV_BIN + os.pathsep + env.get("PATH", "")
    env["PYTHONUNBUFFERED"] = "1"
    if temp_dir is not None:
        env["RAY_TMPDIR"] = str(temp_dir)
    env.update({k: str(v) for k, v in extra.items()})
    return env


def ray_cli(args, temp_dir=None, timeout=60, env=None, **extra_env):
    """Run the venv's `ray` command (the bash script, python/bin/ray); returns the CompletedProcess."""
    return subprocess.run([RAY_BIN, *args], env=env or beam_env(temp_dir, **extra_env),
                          capture_output=True, text=True, timeout=timeout)


def driver_script(code):
    return textwrap.dedent(code).lstrip()


def run_driver(temp_dir, code, timeout=90, **extra_env):
    """Run ``code`` (dedented) as a driver subprocess with RAY_TMPDIR=temp_dir; wait for it."""
    return subprocess.run([VENV_PYTHON, "-c", driver_script(code)],
                          env=beam_env(temp_dir, **extra_env), capture_output=True,
                          text=True, timeout=timeout, cwd=ROOT)


def spawn_driver(temp_dir, code, **extra_env):
    """Start ``code`` as a driver subprocess (stdout/stderr piped, text); caller ends it."""
    return subprocess.Popen([VENV_PYTHON, "-c", driver_script(code)],
                            env=beam_env(temp_dir, **extra_env), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, cwd=ROOT)


def read_line_with(proc, needle, timeout=60, stream="stdout"):
    """Read ``proc``'s ``stream`` ("stdout" or "stderr") until a line containing ``needle``
    (or return at once if one was already read); return every line of that stream read so
    far. Fails with what was read on EOF/timeout.

    A daemon thread per stream moves lines into a queue, so no read ever blocks the test.
    """
    import queue
    import threading

    pumps = proc.__dict__.setdefault("_pumps", {})
    if stream not in pumps:
        q, seen = queue.Queue(), []

        def pump(f=getattr(proc, stream)):
            for line in f:
                q.put(line)
            q.put(None)
        threading.Thread(target=pump, daemon=True).start()
        pumps[stream] = (q, seen)
    q, seen = pumps[stream]
    if any(needle in line for line in seen):
        return list(seen)
    deadline = time.monotonic() + timeout
    while True:
        left = deadline - time.monotonic()
        try:
            line = q.get(timeout=left) if left > 0 else None
        except queue.Empty:
            line = None
        if line is None:
            break
        seen.append(line)
        if needle in line:
            return list(seen)
    other = "stderr" if stream == "stdout" else "stdout"
    err = ""
    if proc.poll() is not None and other not in pumps and getattr(proc, other) is not None:
        err = getattr(proc, other).read()[-3000:]
    pytest.fail(f"no {stream} line containing {needle!r} from pid {proc.pid} within "
                f"{timeout} s (exit {proc.poll()}); {stream} so far: {''.join(seen)!r}; "
                f"{other}: {err!r}")


def lines_read(proc, stream="stdout"):
    """Every line ``read_line_with`` has read from ``proc``'s ``stream`` so far."""
    return list(proc.__dict__.get("_pumps", {}).get(stream, (None, []))[1])


def finish(proc, sig=signal.SIGKILL, timeout=10):
    """End a Popen we started (by its pid) and reap it; return (stdout, stderr)."""
    if proc.poll() is None:
        with contextlib.suppress(ProcessLookupError):
            os.kill(proc.pid, sig)
    if "_pumps" in proc.__dict__:  # pump threads own the pipes: just reap
        with contextlib.suppress(subprocess.TimeoutExpired):
            proc.wait(timeout)
        return "".join(lines_read(proc)), "".join(lines_read(proc, "stderr"))
    try:
        return proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        return proc.communicate()


def process_state(pid):
    """The state letter of /proc/PID/stat (R, S, T for stopped, Z...), or None once it is gone."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return None


def pid_alive(pid):
    """True if ``pid`` exists and is not a zombie."""
    return process_state(pid) not in (None, "Z")


def cluster_processes(base, workers_only=False, idle=None):
    """Live (pid, cmdline) of beam daemons and actor workers whose command line mentions
    ``base`` (the daemon's --temp-dir, the workers' socket path under it). Idle pooled workers
    (named beam-idle, beam.node.WorkerPool) count unless ``idle`` is false; by default they
    do, but not with ``workers_only`` (actors' processes)."""
    idle = not workers_only if idle is None else idle
    kinds = ("ray._beam.worker",) if workers_only else ("beam.cli.Main", "ray._beam.worker")
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as f:
                cmd = f.read().replace(b"\0", b" ").decode(errors="replace").strip()
        except OSError:
            continue
        mentions = f"{base}/" in cmd or f"{base} " in cmd + " "
        if mentions and any(k in cmd for k in kinds) \
                and pid_alive(int(entry)) and (idle or not is_idle_worker(int(entry))):
            found.append((int(entry), cmd))
    return found


def is_idle_worker(pid):
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() == "beam-idle"
    except OSError:
        return False


def wait_gone(pids=(), base=None, within=WAIT_S, workers_only=False):
    """Wait up to ``within`` s until none of ``pids`` and no process of cluster ``base`` (only
    its actor workers with ``workers_only``) is alive; return what is still alive."""
    deadline = time.monotonic() + within
    while True:
        left = [(p, "pid") for p in pids if pid_alive(p)]
        if base is not None:
            left += [x for x in cluster_processes(base, workers_only) if x[0] not in pids]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.05)


def assert_no_processes(base, pids=(), within=WAIT_S, what="the cluster", workers_only=False):
    """None of ``pids``, no daemon (unless ``workers_only``) and no `ray._beam.worker` of
    cluster ``base`` left after ``within`` s."""
    left = wait_gone(pids, base, within, workers_only)
    assert not left, f"processes of {what} still alive {within} s later: {left}"


def node_json(base):
    with open(os.path.join(base, "session_latest", "node.json")) as f:
        return json.load(f)


class Clusters:
    """Start clusters with the real CLI; every one still running is stopped at teardown."""

    def __init__(self, tmp_path_factory):
        self._factory = tmp_path_factory
        self.bases = []

    def new_dir(self):
        base = tempfile.mkdtemp(prefix="beam-e2e-")
        self.bases.append(base)
        return base

    def start(self, *args, base=None, **extra_env):
        """`ray start --head --port 0 --temp-dir BASE ARGS`; asserts success; returns BASE."""
        base = base or self.new_dir()
        done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, *args],
                       **extra_env)
        assert done.returncode == 0, f"ray start failed ({done.returncode}): {done.stderr}"
        self.last = done
        return base

    def stop_all(self):
        for base in self.bases:
            if cluster_processes(base):
                ray_cli(["stop", "--force", "--temp-dir", base])
                for pid, _ in cluster_processes(base):  # only ours: they name our temp dir
                    with contextlib.suppress(ProcessLookupError):
                        os.kill(pid, signal.SIGKILL)
            shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def clusters(tmp_path_factory):
    """A factory of private CLI-started clusters, all stopped after the test."""
    c = Clusters(tmp_path_factory)
    yield c
    c.stop_all()
