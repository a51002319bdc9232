"""The ``ray`` command's Python half: find Java >= 21 and the beam jar, then run the Java CLI.

The daemon is Java; this module only locates a JVM and the jar and hands over ``argv``.
``main()`` execs the CLI (so signals and exit codes are the CLI's own), except for
``ray start`` without ``--block``: then it launches the daemon JVM itself, detached, and
relays the daemon's report (notices, errors, banner: all the daemon's text; its exit status
on failure), which saves starting a second JVM for the CLI (beam.cli.ReadyReport has the
protocol). ``ray.init()`` starts its private cluster the same way (``start_detached``);
``run_cli()`` runs the CLI as a child process and waits for it. The JVM gets the AOT cache
beside the jar when it was made for this very JVM and jar (ray/_beam/launch/aotcache.py).

The ``ray`` command itself is a bash script (python/bin/ray) that runs ``main()`` only when
the launch file this module writes for it (``write_launch_file``) is missing or stale;
otherwise it starts Java with that file's command line, doing what ``main()`` does.
"""

from __future__ import annotations

import os
import sys

from ray._beam.launch import aotcache, findjava, launchfile, tempdirs
from ray._beam.launch.findjava import (  # noqa: F401  (LauncherError, java_major: this module's API too)
    LauncherError, _choose_java, _package_jars, _which, bundled_runtimes, find_jar, find_java, java_major)
from ray._beam.launch.jvmflags import AOT_RUN_FLAGS, JVM_FLAGS

# Only os and sys at module level: every import is read from disk when the host has evicted
# it, and `ray start` pays for it (docs/PERFORMANCE.md, "A lean `ray` command").
TYPE_CHECKING = False  # not typing's (see above)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence
    from typing import BinaryIO

MAIN_CLASS = "beam.cli.Main"
READY, OUT, ERR = b"BEAM-READY", b"OUT ", b"ERR "  # beam.cli.ReadyReport


def jvm_flags(java: str, jar: str) -> list[str]:
    """JVM_FLAGS, with ``-XX:AOTCache=`` instead of ``-Xshare:auto`` (the JVM refuses both at
    once) when beam's AOT cache beside the jar was made for this java and this jar."""
    cache = aotcache.usable(java, jar)
    if cache is None:
        return list(JVM_FLAGS)
    return [f for f in JVM_FLAGS if not f.startswith("-Xshare")] + [f"-XX:AOTCache={cache}", *AOT_RUN_FLAGS]


def command(argv: Sequence[str]) -> list[str]:
    """The full java command line for the CLI with ``argv``."""
    java, jar = find_java(), find_jar()
    return [java, *jvm_flags(java, jar), "-cp", jar, MAIN_CLASS, *argv]


def daemon_command(argv: Sequence[str]) -> list[str]:
    """The java command line of a daemon for ``ray start ARGV`` that reports to us (the CLI's
    flags, as StartCommand does)."""
    return command(["start", "--block", "--notify-ready", *argv])


def temp_root(argv: Sequence[str]) -> str:
    """Where ``ray start ARGV`` keeps its sessions (ray/_beam/launch/tempdirs.py; the daemon's stderr
    log goes there)."""
    return tempdirs.temp_dir(tempdirs.flag_in(argv))


def daemon_env() -> dict:
    """The environment for a daemon: ours, plus BEAM_PYTHON naming this interpreter, which the
    daemon asks for its Python, vLLM, torch and cloudpickle versions (`ray doctor`, `ray status`
    version warnings). Without it the daemon would ask whatever `python3` is on PATH, which is
    not the venv that has beam and vLLM installed."""
    env = dict(os.environ)
    env.setdefault("BEAM_PYTHON", sys.executable)
    return env


def start_detached(argv: Sequence[str], out: BinaryIO | None = None, err: BinaryIO | None = None,
                   reap: bool = False, env: dict | None = None) -> int:
    """``ray start ARGV`` (without --block): launch the daemon in a new session with stderr
    appended to TEMP/beamd-stderr.log, write what it reports to ``out`` and ``err`` (this
    process's stdout and stderr unless given) until it is ready, return the exit status of
    ``ray start``. ``ray start`` and ``ray.init()``'s private cluster both start this way;
    a caller that lives on after the start (``ray.init()``) passes ``reap`` so that the
    daemon, once it exits, does not linger as its zombie. ``env``: the daemon's environment
    instead of ``daemon_env()`` (a Cluster node's ``env_vars``)."""
    out = sys.stdout.buffer if out is None else out
    err = sys.stderr.buffer if err is None else err
    cmd = daemon_command(argv)
    temp = temp_root(argv)
    tempdirs.prepare_for_start(temp)  # ValueError: refused, before the log is made there
    log_path = os.path.join(temp, "beamd-stderr.log")
    pid, report = _spawn_daemon(cmd, log_path, env)
    explained = False
    with open(report, "rb") as lines:
        for line in lines:
            if line.rstrip(b"\n") == READY:
                if reap:
                    import threading

                    threading.Thread(target=os.waitpid, args=(pid, 0), name="beam-reap", daemon=True).start()
                return 0
            if line.startswith(OUT):
                out.write(line[len(OUT):])
                out.flush()
            elif line.startswith(ERR):
                err.write(line[len(ERR):])
                err.flush()
                explained = True
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    if code != 0 and not explained:
        err.write(f"beam: the daemon exited (code {code}) before it was ready; see {log_path}\n".encode())
        err.flush()
    return code


def _spawn_daemon(cmd: list[str], log_path: str, env: dict | None = None) -> tuple[int, int]:
    """Start ``cmd`` in a new session: stdin /dev/null, stdout a pipe, stderr appended to
    ``log_path``, no other descriptor of ours (as subprocess's close_fds). Returns (its pid,
    the pipe's read end). posix_spawn, not subprocess: that import pulls in locale, re and
    enum, which the `ray` command would read at every start (docs/PERFORMANCE.md, "A lean
    `ray` command")."""
    read_end, write_end = _above_stdio(*os.pipe())  # both close-on-exec; dup2 onto 1 clears it there
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, write_end, 1),
               (os.POSIX_SPAWN_OPEN, 2, log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd not in (read_end, write_end)]
    try:
        # Signals need no reset (subprocess resets SIGPIPE, which Python ignores): the JVM
        # installs its own handler for it.
        pid = os.posix_spawn(cmd[0], cmd, env or daemon_env(), file_actions=actions, setsid=True)
    except BaseException:
        os.close(read_end)
        raise
    finally:
        os.close(write_end)
    return pid, read_end


def _above_stdio(*fds: int) -> tuple[int, ...]:
    """``fds`` moved above 2 where needed: a caller started with stdin or stdout closed gets a
    pipe end as fd 0 or 1, which the child's own stdin and stdout would then replace (or keep
    close-on-exec), and the report would never arrive."""
    if all(fd > 2 for fd in fds):
        return fds
    import fcntl

    moved = tuple(fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 3) for fd in fds)
    for fd in fds:
        os.close(fd)
    return moved


def _inheritable_fds() -> list[int]:
    """Our descriptors above 2 that a child would inherit."""
    try:
        names = os.listdir("/proc/self/fd")
    except OSError:
        return []
    found = []
    for name in names:
        fd = int(name)
        try:
            if fd > 2 and os.get_inheritable(fd):
                found.append(fd)
        except OSError:  # the listing's own descriptor, closed by now
            pass
    return found


def run_cli(argv: Sequence[str], timeout: float | None = 120, **kwargs) -> subprocess.CompletedProcess:
    """Run the CLI as a child process and wait for it."""
    import subprocess

    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    kwargs.setdefault("env", daemon_env())
    return subprocess.run(command(argv), timeout=timeout, **kwargs)


def write_launch_file(path: str) -> None:
    """The launch file that lets the ``ray`` script (python/bin/ray) start Java without us
    next time (ray/_beam/launch/launchfile.py). Nothing when Java or the jar cannot be found: the
    command that follows says why."""
    writer = launchfile.Writer(path)  # first: its time is "before we looked"
    try:
        (java, source, java_tried), jar = _choose_java(), find_jar()
    except LauncherError:
        writer.discard()
        return
    if source in ("PATH", "/usr/lib/jvm"):  # a bundled runtime or a java in an earlier PATH folder would win
        java_tried += [os.path.join(r, "bin", "java") for r in bundled_runtimes()
                       if not os.path.exists(os.path.join(r, "bin", "java"))]
        first = _which("java")
        for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
            candidate = os.path.join(folder or ".", "java")
            if candidate == first:
                break
            java_tried.append(candidate)
    jars = _package_jars()
    jar_tried = jars[:jars.index(jar)] if jar in jars else []
    deps = launchfile.dependencies(java, jar, java_tried, jar_tried, findjava.JVM_DIR)
    writer.write([java, *jvm_flags(java, jar), "-cp", jar, MAIN_CLASS], *deps)


def main(argv: Sequence[str] | None = None) -> None:
    """Entry point of the ``ray`` command when its script cannot start Java by itself: exec
    the Java CLI with our arguments (or, for ``ray start``, launch the daemon)."""
    args = list(sys.argv[1:] if argv is None else argv)
    launch_file = os.environ.pop("BEAM_LAUNCH_FILE", None)  # set by the script; not for the daemon
    if launch_file:
        write_launch_file(launch_file)
    if args[:1] == ["start"] and "--block" not in args and tempdirs.fits_socket(temp_root(args[1:])):
        try:
            sys.exit(start_detached(args[1:]))
        except ValueError as e:  # the temp dir (tempdirs.prepare_for_start), as the daemon says it
            print(f"beam: {e}", file=sys.stderr)
            sys.exit(2)
        except (LauncherError, OSError) as e:
            print(f"ray: {e}", file=sys.stderr)
            sys.exit(1)
        except KeyboardInterrupt:
            sys.exit(130)
    try:
        cmd = command(args)
    except LauncherError as e:
        print(f"ray: {e}", file=sys.stderr)
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execve(cmd[0], cmd, daemon_env())  # `ray start --block` is the daemon itself


if __name__ == "__main__":
    main()
