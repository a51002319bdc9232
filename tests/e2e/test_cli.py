"""The `ray` CLI end to end: start / status / stop, flags, --block, GPU detection.

Every test starts its own cluster through the venv's `ray` command (the bash script, which
starts the Java CLI from its launch file or through the Python launcher; test_ray_script.py
covers both paths) on a private temp dir; drivers are subprocesses with RAY_TMPDIR set.
"""

import json
import os
import re
import select
import signal
import subprocess

import pytest

from conftest import (RAY_BIN, assert_no_processes, beam_env, cluster_processes, finish,
                      node_json, pid_alive, ray_cli, read_line_with, run_driver,
                      spawn_driver)

# A driver that creates ``n`` actors, prints "PIDS [..]" and stays connected until killed.
HOLD_ACTORS = """
import os, sys, time, ray
ray.init(address="auto")
@ray.remote(num_cpus=0)
class A:
    def pid(self):
        return os.getpid()
actors = [A.remote() for _ in range({n})]
print("PIDS", ray.get([a.pid.remote() for a in actors], timeout=60), flush=True)
time.sleep(120)
"""


def _pids(lines):
    line = next(x for x in lines if x.startswith("PIDS "))
    return json.loads(line[len("PIDS "):])


def test_start_returns_once_serving_and_prints_how_to_connect(clusters):
    base = clusters.start("--num-cpus", "3", "--num-gpus", "2")
    out = clusters.last.stdout
    assert "ray.init()" in out and "ray stop" in out, f"no connect hint in: {out!r}"
    # Right after `ray start` returned: a driver connects at once (no retry, no sleep).
    done = run_driver(base, """
        import ray
        ray.init(address="auto")
        r = ray.cluster_resources()
        print("RES", r["CPU"], r["GPU"])
    """)
    assert done.returncode == 0, done.stderr
    assert "RES 3.0 2.0" in done.stdout, done.stdout


def test_the_daemon_keeps_nothing_of_whoever_ran_ray_start(clusters):
    """`ray start` spawns the daemon itself (the script from its launch file, or the Python
    launcher with posix_spawn, not subprocess): the daemon must still get what subprocess
    gave it. No descriptor of the caller: a shell's `$(ray start)`
    or a CI runner's log pipe would otherwise wait for EOF as long as the cluster runs. Its
    own session, and stdin /dev/null."""
    base = clusters.new_dir()
    r, w = os.pipe()
    os.set_inheritable(w, True)
    try:
        done = subprocess.run([RAY_BIN, "start", "--head", "--port", "0", "--temp-dir", base],
                              env=beam_env(base), pass_fds=(w,), capture_output=True, text=True, timeout=60)
        assert done.returncode == 0, done.stderr
        os.close(w)
        w = None
        readable, _, _ = select.select([r], [], [], 10)
        assert readable and os.read(r, 1) == b"", "the daemon kept the caller's pipe open"
        pid = node_json(base)["pid"]
        assert os.getsid(pid) == pid, "the daemon is not in a session of its own"
        assert os.readlink(f"/proc/{pid}/fd/0") == "/dev/null"
    finally:
        os.close(r)
        if w is not None:
            os.close(w)


def test_a_private_cluster_leaves_no_zombie_in_its_driver(tmp_path):
    """ray.init() without a cluster starts one as its child; once ray.shutdown() stops it,
    the driver, which lives on, must not keep it as a zombie."""
    done = run_driver(tmp_path, """
        import os, time, ray
        ray.init()
        me = str(os.getpid())
        def children():
            found = {}
            for entry in os.listdir("/proc"):
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        fields = f.read().rsplit(")", 1)[1].split()
                except (OSError, IndexError):
                    continue
                if fields[1] == me:
                    found[int(entry)] = fields[0]
            return found
        daemons = children()
        print("CHILDREN", daemons, flush=True)
        ray.shutdown()
        deadline = time.monotonic() + 30  # generous: a loaded machine; it ends as soon as they are gone
        while any(p in children() for p in daemons) and time.monotonic() < deadline:
            time.sleep(0.05)
        print("LEFT", {p: s for p, s in children().items() if p in daemons}, flush=True)
    """)
    assert done.returncode == 0, done.stderr
    assert re.search(r"CHILDREN \{\d+: '[^Z]'", done.stdout), done.stdout
    assert "LEFT {}" in done.stdout, done.stdout


def test_status_shows_cpu_and_gpu_totals(clusters):
    base = clusters.start("--num-cpus", "3", "--num-gpus", "2")
    done = ray_cli(["status", "--temp-dir", base])
    assert done.returncode == 0, done.stderr
    assert re.search(r"\b0(\.0)?/3(\.0)? CPU\b", done.stdout), done.stdout
    assert re.search(r"\b0(\.0)?/2(\.0)? GPU\b", done.stdout), done.stdout


def test_status_of_a_stuck_daemon_fails_with_a_message_instead_of_hanging(clusters):
    base = clusters.start()
    daemon = next(pid for pid, cmd in cluster_processes(base) if "beam.cli.Main" in cmd)
    os.kill(daemon, signal.SIGSTOP)
    try:
        done = ray_cli(["status", "--temp-dir", base], timeout=30, BEAM_CLI_TIMEOUT_S="2")
    finally:
        os.kill(daemon, signal.SIGCONT)
    assert done.returncode != 0, done.stdout
    assert "did not answer 'hello' within 2 s" in done.stderr and "ray stop --force" in done.stderr, done.stderr
    assert ray_cli(["status", "--temp-dir", base]).returncode == 0


def test_status_without_cluster_fails(tmp_path):
    done = ray_cli(["status", "--temp-dir", str(tmp_path)])
    assert done.returncode != 0, done.stdout


def test_second_start_on_same_temp_dir_is_refused(clusters):
    base = clusters.start("--num-cpus", "1", "--num-gpus", "0")
    first_pid = node_json(base)["pid"]
    again = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-cpus", "1"])
    assert again.returncode != 0, f"second start succeeded: {again.stdout}"
    assert "already running" in (again.stdout + again.stderr), again.stderr
    assert pid_alive(first_pid), "the refused start hurt the running daemon"
    assert node_json(base)["pid"] == first_pid


def test_ignored_ray_flags_are_accepted_with_one_notice_each(clusters):
    base = clusters.new_dir()
    ignored = ["--memory", "--node-manager-port", "--disable-usage-stats",
               "--object-store-memory"]
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--num-cpus", "1",
                    "--memory", "100", "--node-manager-port=7001",
                    "--disable-usage-stats", "--object-store-memory", "1000"])
    assert done.returncode == 0, done.stderr
    text = (done.stdout + done.stderr).splitlines()
    for flag in ignored:
        lines = [x for x in text if flag in x]
        assert len(lines) == 1, f"expected one notice naming {flag}, got {lines} in {text}"
    assert cluster_processes(base), "the daemon is not running after start"


def test_unknown_flag_is_an_error_naming_it(clusters):
    base = clusters.new_dir()
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base, "--bogus-flag-xyz"])
    assert done.returncode != 0
    assert "--bogus-flag-xyz" in done.stdout + done.stderr, done.stderr
    assert not cluster_processes(base), "a daemon started despite the bad flag"


def test_stop_leaves_no_process(clusters):
    base = clusters.start("--num-cpus", "2", "--num-gpus", "0")
    daemon = node_json(base)["pid"]
    driver = spawn_driver(base, HOLD_ACTORS.format(n=2))
    try:
        actors = _pids(read_line_with(driver, "PIDS"))
        assert all(pid_alive(p) for p in actors)
        done = ray_cli(["stop", "--temp-dir", base])
        assert done.returncode == 0, done.stderr
        # `ray stop` has returned: it waited for the daemon and the actors it had started
        # (StopCommand), so they are gone now; anything else of the cluster (a pooled worker
        # started while it stopped) goes on its own, given time
        assert not [p for p in [daemon, *actors] if pid_alive(p)], "`ray stop` returned before its processes ended"
        assert_no_processes(base, what="`ray stop`")
        # The daemon logged its last line (no logging torn down under it: that printed a
        # NullPointerException per line to its stderr log)
        with open(os.path.join(base, "session_latest", "logs", "beamd.log")) as f:
            assert f.read().rstrip().endswith("beam daemon stopped")
        with open(os.path.join(base, "beamd-stderr.log")) as f:
            assert "Exception" not in f.read()
    finally:
        finish(driver)


# Runs in a PID namespace of its own (`unshare --pid --mount-proc`), so that `ray stop`
# without a folder, which stops every beam daemon of this user on the machine, sees only
# the daemon this script starts; when the script ends the kernel ends what it left.
STOP_ELSEWHERE = r"""
set -u
ray start --head --port 0 --num-cpus 1 --num-gpus 0 --temp-dir "$BASE" >/dev/null || exit 9
pid=$(python3 -c "import json,sys; print(json.load(open(sys.argv[1]))['pid'])" "$BASE/session_latest/node.json")
echo "DAEMON $pid"
echo "== status"; ray status; echo "rc=$?"
echo "== stop other"; RAY_TMPDIR="$BASE-other" ray stop; echo "rc=$?"
kill -0 "$pid" && echo "ALIVE"
echo "== stop"; ray stop; echo "rc=$?"
sleep 0.2; kill -0 "$pid" 2>/dev/null || echo "GONE"
"""


def test_stop_without_a_folder_stops_a_daemon_started_with_one(clusters):
    """`ray start --temp-dir X` then plain `ray stop`: stopped, as with Ray; plain `ray status`
    finds that one daemon (as Ray finds its GCS), and a `ray stop` pointed at another folder
    names the daemon and the flag that reaches it."""
    if os.geteuid() != 0:
        pytest.skip("needs root for a PID namespace (unshare)")
    base = clusters.new_dir()
    env = beam_env(BASE=base)
    env.pop("RAY_TMPDIR", None)
    done = subprocess.run(["unshare", "--pid", "--fork", "--mount-proc", "bash", "-c", STOP_ELSEWHERE],
                          env=env, capture_output=True, text=True, timeout=120)
    out = done.stdout + done.stderr
    assert done.returncode == 0, out
    pid = re.search(r"^DAEMON (\d+)$", done.stdout, re.M).group(1)
    assert f"pid {pid}: `ray stop --temp-dir {base}`" in done.stderr, out
    status, other, stop = re.split(r"^== ", done.stdout, flags=re.M)[1:]
    assert "Cluster status" in status and "rc=0" in status, out
    assert "Did not find any active beam processes." in other and "rc=0" in other and "ALIVE" in other, out
    assert re.search(r"Stopped all \d+ beam processes\.", stop) and "rc=0" in stop and "GONE" in stop, out


def test_a_temp_dir_too_long_for_the_socket_is_named_with_the_limit(tmp_path):
    """The JDK's own error names neither the path nor the limit; beam's names both, and
    what length of --temp-dir would do."""
    base = str(tmp_path / ("t" * 60))
    done = ray_cli(["start", "--head", "--port", "0", "--temp-dir", base])
    assert done.returncode != 0
    assert f"the temp dir {base} is too long for the daemon's unix socket" in done.stderr, done.stderr
    assert "at most 106 can be bound" in done.stderr and "Pick a --temp-dir" in done.stderr, done.stderr
    assert not os.path.exists(base), f"the temp dir was made anyway: {os.listdir(base)}"


def test_block_stays_in_foreground_until_sigterm(clusters):
    base = clusters.new_dir()
    proc = subprocess.Popen([RAY_BIN, "start", "--head", "--block", "--port", "0",
                             "--temp-dir", base, "--num-cpus", "2", "--num-gpus", "0"],
                            env=beam_env(), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            text=True)
    driver = None
    try:
        read_line_with(proc, "ray.init()", timeout=60)
        driver = spawn_driver(base, HOLD_ACTORS.format(n=1))
        (actor,) = _pids(read_line_with(driver, "PIDS"))
        assert proc.poll() is None, "`ray start --block` returned instead of blocking"
        os.kill(proc.pid, signal.SIGTERM)
        try:
            rc = proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            raise AssertionError("`ray start --block` still running 15 s after SIGTERM")
        assert rc is not None
        assert_no_processes(base, [actor], what="the --block daemon")
    finally:
        if driver is not None:
            finish(driver)
        finish(proc)


def test_gpu_detection_honours_cuda_visible_devices(clusters):
    base = clusters.start("--num-cpus", "2", CUDA_VISIBLE_DEVICES="3,5")
    done = run_driver(base, """
        import os, ray
        ray.init(address="auto")
        @ray.remote(num_gpus=1, num_cpus=0)
        class G:
            def ids(self):
                return ray.get_gpu_ids(), os.environ.get("CUDA_VISIBLE_DEVICES")
        gs = [G.remote(), G.remote()]
        print("GPU", ray.cluster_resources().get("GPU"))
        print("IDS", sorted(ray.get([g.ids.remote() for g in gs], timeout=60)))
    """)
    assert done.returncode == 0, done.stderr
    assert "GPU 2.0" in done.stdout, done.stdout
    assert "IDS [([3], '3'), ([5], '5')]" in done.stdout, done.stdout
