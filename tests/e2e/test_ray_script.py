"""The `ray` script (python/bin/ray): it starts Java by itself while its launch file is
current, and runs the Python launcher (which writes the file anew) when it is not.

Each test runs its own copy of the script in a folder of its own, beside a link to the venv's
`beam-ray-launcher` (what pip installs next to it), so its launch file is private. A stand-in
command line in the launch file (a shell that prints, or plays a daemon's report) shows
which path a run took.
"""

import os
import pathlib
import select
import shutil
import signal
import subprocess
import tempfile
import time

import pytest
from conftest import ROOT, VENV_BIN, VENV_PYTHON, beam_env, cluster_processes, node_json

from ray._beam.launch import launchfile

PYTHON_LAUNCHER = [VENV_PYTHON, "-c", "from ray._beam.launch.launcher import main; main()"]


@pytest.fixture
def script(tmp_path):
    """A copy of python/bin/ray in TMP/bin with its launch file made (by the Python path)."""
    folder = tmp_path / "bin"
    folder.mkdir()
    shutil.copy2(os.path.join(ROOT, "python", "bin", "ray"), folder / "ray")
    (folder / "beam-ray-launcher").symlink_to(os.path.join(VENV_BIN, "beam-ray-launcher"))
    done = run(folder / "ray", ["--version"])
    assert done.returncode == 0 and "beam" in done.stdout, done.stdout + done.stderr
    assert (folder / ".beam-launch").exists(), "the Python launcher wrote no launch file for the script"
    return folder / "ray"


@pytest.fixture
def temp_dir():
    """A temp dir short enough for the daemon's socket: the script leaves a longer one (pytest's
    tmp_path can be) to the Java CLI, which the stand-ins below would not be."""
    path = tempfile.mkdtemp(prefix="brs-", dir="/tmp")
    yield pathlib.Path(path)
    shutil.rmtree(path, ignore_errors=True)


def run(ray, args, env=None, **kwargs):
    return subprocess.run([str(ray), *args], env=env or beam_env(), capture_output=True, text=True,
                          timeout=60, **kwargs)


def launch_file(ray):
    return ray.parent / ".beam-launch"


def set_variable(ray, name, items):
    """Replace the bash array ``name`` in the launch file (its mtime becomes now)."""
    path = launch_file(ray)
    lines = path.read_text().splitlines(keepends=True)
    path.write_text("".join(f"{name}=(" + " ".join(launchfile.quote(i) for i in items) + ")\n"
                            if line.startswith(name + "=(") else line for line in lines))


def stand_in(ray, script):
    """The launch file's java command line replaced by ``sh -c SCRIPT sh``."""
    set_variable(ray, "beam_command", ["/bin/sh", "-c", script, "sh"])


ECHO = 'echo "FROM-LAUNCH-FILE $*"'


def test_a_current_launch_file_runs_java_without_python(script):
    stand_in(script, ECHO)
    done = run(script, ["--version"])
    assert done.stdout.strip() == "FROM-LAUNCH-FILE --version", done.stdout + done.stderr


def test_a_launch_file_older_than_what_it_names_is_remade(script):
    text = launch_file(script).read_text()
    jar = text.split("'-cp' '")[1].split("'")[0]
    stand_in(script, ECHO)
    old = os.stat(jar).st_mtime - 60
    os.utime(launch_file(script), (old, old))
    done = run(script, ["--version"])
    assert "FROM-LAUNCH-FILE" not in done.stdout and "beam" in done.stdout, done.stdout
    assert "FROM-LAUNCH-FILE" not in launch_file(script).read_text(), "the stale launch file was not remade"
    assert os.stat(launch_file(script)).st_mtime > os.stat(jar).st_mtime


def test_a_launch_file_made_under_another_environment_is_remade(script, tmp_path):
    """PATH is one of the variables that pick Java (BEAM_JAVA, JAVA_HOME, BEAM_JAR, PATH)."""
    stand_in(script, ECHO)
    env = beam_env()
    env["PATH"] += os.pathsep + str(tmp_path)
    done = run(script, ["--version"], env=env)
    assert "FROM-LAUNCH-FILE" not in done.stdout and "beam" in done.stdout, done.stdout + done.stderr
    assert f"PATH={env['PATH']}'" in launch_file(script).read_text()
    assert run(script, ["--version"], env=env).stdout == done.stdout  # and the new file serves it


def test_a_path_that_appears_or_a_file_that_goes_makes_the_launch_file_stale(script, tmp_path):
    appears, goes = tmp_path / "appears", tmp_path / "goes"
    goes.write_text("")
    os.utime(goes, (time.time() - 60, time.time() - 60))
    stand_in(script, ECHO)
    set_variable(script, "beam_absent", [str(appears)])
    assert run(script, ["--version"]).stdout.startswith("FROM-LAUNCH-FILE")
    appears.write_text("")
    assert "FROM-LAUNCH-FILE" not in run(script, ["--version"]).stdout
    stand_in(script, ECHO)
    set_variable(script, "beam_absent", [])
    with open(launch_file(script), "a") as f:
        f.write("beam_newer_than+=(" + launchfile.quote(str(goes)) + ")\n")
    assert run(script, ["--version"]).stdout.startswith("FROM-LAUNCH-FILE")
    goes.unlink()
    assert "FROM-LAUNCH-FILE" not in run(script, ["--version"]).stdout


def test_a_java_link_repointed_makes_the_launch_file_stale(script, tmp_path):
    """BEAM_JAVA names a link (as update-alternatives makes them): pointed at another Java,
    the launch file no longer holds, though no file it names changed. Here the link is left
    dangling, so the Python launcher passes over it to the next Java."""
    real = launch_file(script).read_text().split("beam_command=('")[1].split("'")[0]
    link = tmp_path / "alternatives" / "java"
    link.parent.mkdir()
    link.symlink_to(real)
    env = beam_env(BEAM_JAVA=str(link))
    assert "beam" in run(script, ["--version"], env=env).stdout  # the file, made for the link
    assert f"'{link}' '{real}'" in launch_file(script).read_text()
    link.unlink()
    link.symlink_to(tmp_path / "uninstalled" / "java")
    done = run(script, ["--version"], env=env)
    assert done.returncode == 0 and "beam" in done.stdout, done.stdout + done.stderr


def test_the_script_runs_through_a_link_from_another_folder(script, tmp_path):
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "ray").symlink_to(script)
    stand_in(script, ECHO)
    done = run(elsewhere / "ray", ["--version"])
    assert done.stdout.strip() == "FROM-LAUNCH-FILE --version", done.stdout + done.stderr
    assert not (elsewhere / ".beam-launch").exists()


def test_an_environment_that_is_not_utf8_still_works(script):
    env = {k.encode(): v.encode() for k, v in beam_env().items()}
    env[b"PATH"] += b":/nonexistent/\xff"
    for _ in range(2):  # the Python path, then the launch file it wrote
        done = subprocess.run([str(script), "--version"], env=env, capture_output=True, timeout=60)
        assert done.returncode == 0 and b"beam" in done.stdout, done.stdout + done.stderr
    assert b"/nonexistent/\xff" in launch_file(script).read_bytes()
    assert [p.name for p in script.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_start_relays_the_daemons_report_and_its_exit_status(script, temp_dir):
    env = beam_env(temp_dir)
    stand_in(script, 'echo "OUT said $*"; echo "ERR a problem"; exit 3')
    done = run(script, ["start", "--head"], env=env)
    assert done.returncode == 3
    assert done.stdout == "said start --block --notify-ready --head\n", done.stdout
    assert done.stderr == "a problem\n", done.stderr
    # a silent death: explained by a message that names the log
    stand_in(script, 'echo "to the log" >&2; exit 7')
    done = run(script, ["start", "--head"], env=env)
    assert done.returncode == 7
    log = temp_dir / "beamd-stderr.log"
    assert f"the daemon exited (code 7) before it was ready; see {log}" in done.stderr, done.stderr
    assert "to the log" in log.read_text()


def test_start_returns_at_ready_and_the_daemon_keeps_nothing_of_the_caller(script, temp_dir):
    pid_file = temp_dir / "stand-in.pid"
    stand_in(script, f'echo $$ > {pid_file}; echo "OUT fd 255: $(readlink /proc/$$/fd/255 || echo none)"; '
                     'echo BEAM-READY; exec sleep 600')
    r, w = os.pipe()
    os.dup2(w, 255)  # also the number bash keeps its own script on
    os.close(w)
    try:
        # returned at BEAM-READY: run's own timeout (well under the stand-in's 600 s) proves it
        done = run(script, ["start", "--head", "--temp-dir", str(temp_dir)], pass_fds=(255,))
        assert done.returncode == 0 and done.stdout == "fd 255: none\n", done.stdout + done.stderr
        os.close(255)
        readable, _, _ = select.select([r], [], [], 60)
        assert readable and os.read(r, 1) == b"", "the stand-in daemon kept the caller's pipe open"
    finally:
        os.close(r)
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("command", ["script", "python launcher"])
def test_a_real_start_by_either_path(script, clusters, command):
    """The real daemon, started by the script from its launch file or by the Python launcher
    it falls back to: its own session, stdin /dev/null, the banner relayed, BEAM_PYTHON set
    and BEAM_LAUNCH_FILE not passed on."""
    base = clusters.new_dir()
    argv = [str(script)] if command == "script" else PYTHON_LAUNCHER
    done = subprocess.run([*argv, "start", "--head", "--port", "0", "--temp-dir", base], env=beam_env(base),
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "beam runtime started" in done.stdout, done.stdout
    pid = node_json(base)["pid"]
    assert os.getsid(pid) == pid, "the daemon is not in a session of its own"
    assert os.readlink(f"/proc/{pid}/fd/0") == "/dev/null"
    environ = open(f"/proc/{pid}/environ").read().split("\0")
    assert any(v.startswith("BEAM_PYTHON=/") for v in environ), environ
    assert not any(v.startswith("BEAM_LAUNCH_FILE=") for v in environ), environ
    assert [p for p, cmd in cluster_processes(base) if "--pooled" not in cmd] == [pid]  # and its idle pool
