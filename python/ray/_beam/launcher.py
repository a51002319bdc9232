"""The ``ray`` command's Python half: find Java >= 21 and the beam jar, then run the Java CLI.

The daemon is Java; this module only locates a JVM and the jar and hands over ``argv``.
``main()`` execs the CLI (so signals and exit codes are the CLI's own), except for
``ray start`` without ``--block``: then it launches the daemon JVM itself, detached, and
relays the daemon's report (notices, errors, banner: all the daemon's text; its exit status
on failure), which saves starting a second JVM for the CLI (beam.cli.ReadyReport has the
protocol). ``ray.init()`` starts its private cluster the same way (``start_detached``);
``run_cli()`` runs the CLI as a child process and waits for it. The JVM gets the AOT cache
beside the jar when it was made for this very JVM and jar (ray/_beam/aotcache.py).

The ``ray`` command itself is a bash script (python/bin/ray) that runs ``main()`` only when
the launch file this module writes for it (``write_launch_file``) is missing or stale;
otherwise it starts Java with that file's command line, doing what ``main()`` does.
"""

from __future__ import annotations

import os
import sys

from ray._beam import aotcache, tempdirs

# Only os and sys at module level: every import is read from disk when the host has evicted
# it, and `ray start` pays for it (re, typing, subprocess and shutil cost ~30 ms warm, more
# cold; docs/PERFORMANCE.md, "A lean `ray` command").
TYPE_CHECKING = False  # not typing's (see above)
if TYPE_CHECKING:
    import subprocess
    from collections.abc import Sequence
    from typing import BinaryIO

MIN_JAVA = 21
# The same flags for the CLI and the daemon (measurements: docs/PERFORMANCE.md, "JVM start-up
# options"): Serial GC and a small heap (4 MiB first, 1.5 MiB young generation: start-up garbage
# touches fresh pages of whatever young generation there is); C1 only, compiling after 3x the
# usual invocation counts: C2 and eager compiling during start-up left ~6 MiB of compiler arenas
# and code behind at idle, and on 2 cores C2's compile bursts showed in the p99 of calls; the
# JDK's CDS, replaced by beam's AOT cache where one fits (jvm_flags). The call path (beam's own
# classes and the JDK's socket channels) compiles after 0.2x the usual counts instead: at 3x a
# fresh daemon ran its first few thousand calls partly interpreted (sync p99 1,175 -> 564 us),
# while a global 1x cost 6 MiB of idle memory; per method, it costs none (PERFORMANCE.md).
JVM_FLAGS = ["-XX:+UseSerialGC", "-Xms4m", "-Xmn1536k", "-XX:TieredStopAtLevel=1",
             "-XX:CompileThresholdScaling=3", "-XX:CompileCommand=quiet",
             "-XX:CompileCommand=CompileThresholdScaling,beam.*::*,0.2",
             "-XX:CompileCommand=CompileThresholdScaling,sun.nio.ch.*::*,0.2", "-Xshare:auto"]
# With a cache: compile at start-up, in the background, what the training run (tools/train_aot.py,
# a cold vLLM-shaped set-up) compiled, instead of when a user's first calls reach the thresholds:
# the compiles otherwise land in those calls' tail on a small machine (docs/PERFORMANCE.md, "Cold shape").
AOT_RUN_FLAGS = ["-XX:+UnlockExperimentalVMOptions", "-XX:+AOTCompileEagerly"]
MAIN_CLASS = "beam.cli.Main"
JVM_DIR = "/usr/lib/jvm"  # where Debian-style packages install JDKs, one folder each
READY, OUT, ERR = b"BEAM-READY", b"OUT ", b"ERR "  # beam.cli.ReadyReport


class LauncherError(RuntimeError):
    """Java or the jar could not be found; the message names every place that was tried."""


def java_major(java: str) -> int | None:
    """The major version of the JDK that owns ``java``, from its ``release`` file.

    Falls back to ``java -version`` only when there is no release file (odd installs).
    """
    text = aotcache.java_release(java)
    if text is not None:
        version = aotcache.release_value(text, "JAVA_VERSION")
        return _major(version) if version else None
    import subprocess  # rare: a runtime without a release file

    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    said = out.stderr + out.stdout
    start = said.find('version "')
    if start < 0:
        return None
    start += len('version "')
    end = said.find('"', start)
    return _major(said[start:end]) if end > start else None


def _leading_int(text: str) -> int | None:
    digits = len(text) - len(text.lstrip("0123456789"))
    return int(text[:digits]) if digits else None


def _major(version: str) -> int | None:
    """21 for "21.0.2", 8 for "1.8.0_392"; None when it does not start with a number."""
    parts = version.split(".")
    first = _leading_int(parts[0])
    if first == 1 and len(parts) > 1:
        return _leading_int(parts[1])
    return first


def bundled_runtimes() -> list[str]:
    """Java runtimes shipped with beam (a ``jlink`` image, see docs/PACKAGING.md), in order:
    ``ray/_beam/runtime`` (the platform wheel) and ``<root>/runtime`` beside ``<root>/python/ray``
    (the one-mount bundle). Neither exists in a source checkout."""
    here = os.path.dirname(os.path.realpath(__file__))  # ray/_beam
    root = os.path.dirname(os.path.dirname(os.path.dirname(here)))  # <root> of <root>/python/ray/_beam
    return [os.path.join(here, "runtime"), os.path.join(root, "runtime")]


def _java_candidates() -> list[tuple[str, str]]:
    """(where it came from, path) in search order: a Java the user names (BEAM_JAVA, then
    JAVA_HOME) wins over the bundled runtime, which wins over PATH and /usr/lib/jvm."""
    found = []
    if os.environ.get("BEAM_JAVA"):
        found.append(("BEAM_JAVA", os.environ["BEAM_JAVA"]))
    if os.environ.get("JAVA_HOME"):
        found.append(("JAVA_HOME", os.path.join(os.environ["JAVA_HOME"], "bin", "java")))
    for runtime in bundled_runtimes():
        java = os.path.join(runtime, "bin", "java")
        if os.path.isfile(java):
            found.append(("bundled runtime", java))
    on_path = _which("java")
    if on_path:
        found.append(("PATH", on_path))
    try:
        installed = sorted(os.listdir(JVM_DIR), reverse=True)
    except OSError:
        installed = []
    for name in installed:
        path = os.path.join(JVM_DIR, name, "bin", "java")
        if os.path.exists(path):
            found.append(("/usr/lib/jvm", path))
    return found


def _which(name: str) -> str | None:
    """The first executable ``name`` on PATH (shutil.which without importing shutil)."""
    for folder in os.environ.get("PATH", os.defpath).split(os.pathsep):
        path = os.path.join(folder or ".", name)
        if os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    return None


def find_java() -> str:
    """The first Java >= 21 in the order BEAM_JAVA, JAVA_HOME, the bundled runtime, PATH,
    /usr/lib/jvm/*."""
    return _choose_java()[0]


def _choose_java() -> tuple[str, str, list[str]]:
    """(the first Java >= 21, where it came from, the candidates passed over before it)."""
    tried, passed = [], []
    for source, path in _java_candidates():
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            tried.append(f"{path} ({source}: not an executable)")
            passed.append(path)
            continue
        major = java_major(path)
        if major is not None and major >= MIN_JAVA:
            return path, source, passed
        tried.append(f"{path} ({source}: version {major if major else 'unknown'})")
        passed.append(path)
    detail = "; ".join(tried) if tried else "no java found at all"
    raise LauncherError(
        f"beam needs Java {MIN_JAVA} or newer. Looked at BEAM_JAVA, JAVA_HOME/bin/java, "
        f"the bundled runtime ({bundled_runtimes()[0]}), 'java' on PATH and "
        f"/usr/lib/jvm/*/bin/java: {detail}. Install a JDK >= {MIN_JAVA} "
        "or set BEAM_JAVA to its java binary.")


def _repo_jar() -> str:
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__)))))
    return os.path.join(root, "java", "target", "beam.jar")


def _package_jars() -> list[str]:
    """Where find_jar looks without BEAM_JAR, in order: the package's lib/, then the checkout's build."""
    return [os.path.join(os.path.dirname(os.path.realpath(__file__)), "lib", "beam.jar"), _repo_jar()]


def find_jar() -> str:
    """BEAM_JAR, else ray/_beam/lib/beam.jar in the package, else <repo>/java/target/beam.jar."""
    env = os.environ.get("BEAM_JAR")
    if env:
        if os.path.isfile(env):
            return env
        raise LauncherError(f"BEAM_JAR is set to {env!r}, but no such file exists.")
    candidates = _package_jars()
    for path in candidates:
        if os.path.isfile(path):
            return path
    raise LauncherError(
        "beam daemon jar not found. Looked at: BEAM_JAR (unset), "
        + ", ".join(str(p) for p in candidates)
        + ". Build it with `mvn -f java package` or set BEAM_JAR.")


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
    """Where ``ray start ARGV`` keeps its sessions (ray/_beam/tempdirs.py; the daemon's stderr
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
                   reap: bool = False) -> int:
    """``ray start ARGV`` (without --block): launch the daemon in a new session with stderr
    appended to TEMP/beamd-stderr.log, write what it reports to ``out`` and ``err`` (this
    process's stdout and stderr unless given) until it is ready, return the exit status of
    ``ray start``. ``ray start`` and ``ray.init()``'s private cluster both start this way;
    a caller that lives on after the start (``ray.init()``) passes ``reap`` so that the
    daemon, once it exits, does not linger as its zombie."""
    out = sys.stdout.buffer if out is None else out
    err = sys.stderr.buffer if err is None else err
    cmd = daemon_command(argv)
    temp = temp_root(argv)
    tempdirs.prepare_for_start(temp)  # ValueError: refused, before the log is made there
    log_path = os.path.join(temp, "beamd-stderr.log")
    pid, report = _spawn_daemon(cmd, log_path)
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


def _spawn_daemon(cmd: list[str], log_path: str) -> tuple[int, int]:
    """Start ``cmd`` in a new session: stdin /dev/null, stdout a pipe, stderr appended to
    ``log_path``, no other descriptor of ours (as subprocess's close_fds). Returns (its pid,
    the pipe's read end). posix_spawn, not subprocess: that import costs the `ray` command
    ~13 ms (it pulls in locale, re and enum)."""
    read_end, write_end = _above_stdio(*os.pipe())  # both close-on-exec; dup2 onto 1 clears it there
    actions = [(os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
               (os.POSIX_SPAWN_DUP2, write_end, 1),
               (os.POSIX_SPAWN_OPEN, 2, log_path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)]
    actions += [(os.POSIX_SPAWN_CLOSE, fd) for fd in _inheritable_fds() if fd not in (read_end, write_end)]
    try:
        # Signals need no reset (subprocess resets SIGPIPE, which Python ignores): the JVM
        # installs its own handler for it.
        pid = os.posix_spawn(cmd[0], cmd, daemon_env(), file_actions=actions, setsid=True)
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
    next time (ray/_beam/launchfile.py). Nothing when Java or the jar cannot be found: the
    command that follows says why."""
    from ray._beam import launchfile

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
    deps = launchfile.dependencies(java, jar, java_tried, jar_tried, JVM_DIR)
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
