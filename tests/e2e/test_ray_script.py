"""The `ray` script (python/bin/ray): it starts Java by itself while its launch file is
current, and runs the Python launcher (which writes the file anew) when it is not.

A stand-in command line in the launch file (a shell that prints or plays a daemon's report)
shows which path a run took; the file is put back as it was after each test.
"""

import os
import select
import shutil
import signal
import subprocess
import time

import pytest
from conftest import RAY_BIN, VENV_PYTHON, beam_env, cluster_processes, node_json

from ray._beam import launchfile

LAUNCH = os.path.join(os.path.dirname(RAY_BIN), ".beam-launch")
PYTHON_LAUNCHER = [VENV_PYTHON, "-c", "from ray._beam.launcher import main; main()"]


def run(args, env=None, **kwargs):
    return subprocess.run([RAY_BIN, *args], env=env or beam_env(), capture_output=True, text=True,
                          timeout=60, **kwargs)


@pytest.fixture
def launch_file():
    """A current launch file (made by the Python launcher through the script), restored after."""
    saved = LAUNCH + ".saved"
    if os.path.exists(LAUNCH):
        os.remove(LAUNCH)
    done = run(["--version"])
    assert done.returncode == 0 and "beam" in done.stdout, done.stdout + done.stderr
    assert os.path.exists(LAUNCH), "the Python launcher wrote no launch file for the script"
    shutil.copy2(LAUNCH, saved)
    yield LAUNCH
    os.replace(saved, LAUNCH)


def set_variable(path, name, items):
    """Replace the bash array ``name`` in the launch file (its mtime becomes now)."""
    lines = open(path).read().splitlines(keepends=True)
    lines = [f"{name}=(" + " ".join(launchfile.quote(i) for i in items) + ")\n" if l.startswith(name + "=(") else l
             for l in lines]
    with open(path, "w") as f:
        f.writelines(lines)


def stand_in(path, script):
    """The launch file's java command line replaced by ``sh -c SCRIPT sh``."""
    set_variable(path, "beam_command", ["/bin/sh", "-c", script, "sh"])


def test_a_current_launch_file_runs_java_without_python(launch_file):
    stand_in(launch_file, 'echo "FROM-LAUNCH-FILE $*"')
    done = run(["--version"])
    assert done.stdout.strip() == "FROM-LAUNCH-FILE --version", done.stdout + done.stderr


def test_a_launch_file_older_than_what_it_names_is_remade(launch_file):
    text = open(launch_file).read()
    jar = next(l for l in text.splitlines() if l.startswith("beam_command=")).split("'-cp' ")[1].split("'")[1]
    stand_in(launch_file, 'echo "FROM-LAUNCH-FILE $*"')
    old = os.stat(jar).st_mtime - 60
    os.utime(launch_file, (old, old))
    done = run(["--version"])
    assert "FROM-LAUNCH-FILE" not in done.stdout and "beam" in done.stdout, done.stdout
    assert "FROM-LAUNCH-FILE" not in open(launch_file).read(), "the stale launch file was not remade"
    assert os.stat(launch_file).st_mtime > os.stat(jar).st_mtime


def test_a_launch_file_made_under_another_environment_is_remade(launch_file, tmp_path):
    """PATH is one of the variables that pick Java (BEAM_JAVA, JAVA_HOME, BEAM_JAR, PATH)."""
    stand_in(launch_file, 'echo "FROM-LAUNCH-FILE $*"')
    env = beam_env()
    env["PATH"] += os.pathsep + str(tmp_path)
    done = run(["--version"], env=env)
    assert "FROM-LAUNCH-FILE" not in done.stdout and "beam" in done.stdout, done.stdout + done.stderr
    assert f"PATH={env['PATH']}'" in open(launch_file).read()
    assert run(["--version"], env=env).stdout == done.stdout  # and the new file serves that environment


def test_a_path_that_appears_or_a_file_that_goes_makes_the_launch_file_stale(launch_file, tmp_path):
    appears, goes = tmp_path / "appears", tmp_path / "goes"
    goes.write_text("")
    os.utime(goes, (time.time() - 60, time.time() - 60))
    stand_in(launch_file, 'echo "FROM-LAUNCH-FILE $*"')
    set_variable(launch_file, "beam_absent", [str(appears)])
    text = open(launch_file).read()
    newer = text.split("beam_newer_than=(")[1].split(")\n")[0]
    with open(launch_file, "w") as f:
        f.write(text.replace("beam_newer_than=(" + newer + ")", "beam_newer_than=(" + newer + " "
                             + launchfile.quote(str(goes)) + ")"))
    assert run(["--version"]).stdout.startswith("FROM-LAUNCH-FILE")
    appears.write_text("")
    assert "FROM-LAUNCH-FILE" not in run(["--version"]).stdout
    stand_in(launch_file, 'echo "FROM-LAUNCH-FILE $*"')
    set_variable(launch_file, "beam_absent", [])
    with open(launch_file, "a") as f:
        f.write("beam_newer_than+=(" + launchfile.quote(str(goes)) + ")\n")
    assert run(["--version"]).stdout.startswith("FROM-LAUNCH-FILE")
    goes.unlink()
    assert "FROM-LAUNCH-FILE" not in run(["--version"]).stdout


def test_start_relays_the_daemons_report_and_its_exit_status(launch_file, tmp_path):
    env = beam_env(tmp_path)
    stand_in(launch_file, 'echo "OUT said $*"; echo "ERR a problem"; echo "BEAM-EXIT 3"; exit 3')
    done = run(["start", "--head"], env=env)
    assert done.returncode == 3
    assert done.stdout == "said start --block --notify-ready --head\n", done.stdout
    assert done.stderr == "a problem\n", done.stderr
    # silent death: the status is unknown, the message names the log
    stand_in(launch_file, 'echo "to the log" >&2; exit 7')
    done = run(["start", "--head"], env=env)
    assert done.returncode == 1
    log = tmp_path / "beamd-stderr.log"
    assert f"the daemon exited before it was ready; see {log}" in done.stderr, done.stderr
    assert "to the log" in log.read_text()


def test_start_returns_at_ready_and_the_daemon_keeps_nothing_of_the_caller(launch_file, tmp_path):
    pid_file = tmp_path / "stand-in.pid"
    stand_in(launch_file, f'echo $$ > {pid_file}; echo "OUT up"; echo BEAM-READY; exec sleep 30')
    r, w = os.pipe()
    os.set_inheritable(w, True)
    try:
        started = time.monotonic()
        done = run(["start", "--head", "--temp-dir", str(tmp_path)], env=beam_env(), pass_fds=(w,))
        assert done.returncode == 0 and done.stdout == "up\n", done.stdout + done.stderr
        assert time.monotonic() - started < 10
        os.close(w)
        w = None
        readable, _, _ = select.select([r], [], [], 10)
        assert readable and os.read(r, 1) == b"", "the stand-in daemon kept the caller's pipe open"
    finally:
        os.close(r)
        if w is not None:
            os.close(w)
        if pid_file.exists():
            os.kill(int(pid_file.read_text()), signal.SIGKILL)


@pytest.mark.parametrize("command", ["script", "python launcher"])
def test_a_real_start_by_either_path(launch_file, clusters, command):
    """The real daemon, started by the script from its launch file or by the Python launcher
    it falls back to: its own session, stdin /dev/null, the banner relayed, BEAM_PYTHON set
    and BEAM_LAUNCH_FILE not passed on."""
    base = clusters.new_dir()
    argv = [RAY_BIN] if command == "script" else PYTHON_LAUNCHER
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
    cmdline = open(f"/proc/{pid}/cmdline").read().split("\0")
    assert "beam.cli.Main" in cmdline and cmdline[-1] == ""
    assert [p for p, _ in cluster_processes(base)] == [pid]
