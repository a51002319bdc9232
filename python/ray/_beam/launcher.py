"""The ``ray`` command: find Java >= 21 and the beam jar, then run the Java CLI.

The daemon is Java; this module only locates a JVM and the jar and hands over ``argv``.
``main()`` execs (so signals and exit codes are the CLI's own); ``run_cli()`` runs it as a
child process, which ``ray.init()`` uses to start a private cluster.
"""

from __future__ import annotations

import glob
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, Optional, Sequence, Tuple

MIN_JAVA = 21
# Serial GC and a small first heap: the daemon idles at ~68 MiB instead of ~86 (the default
# first heap is 1/64 of RAM and start-up garbage touches fresh pages of it); C1-only JIT for
# the short-lived CLI (the daemon drops it, see StartCommand.daemonJvmFlags); the JDK's CDS.
# Measurements: docs/PERFORMANCE.md, "JVM start-up options".
JVM_FLAGS = ["-XX:+UseSerialGC", "-Xms8m", "-XX:TieredStopAtLevel=1", "-Xshare:auto"]
MAIN_CLASS = "beam.cli.Main"


class LauncherError(RuntimeError):
    """Java or the jar could not be found; the message names every place that was tried."""


def java_major(java: str) -> Optional[int]:
    """The major version of the JDK that owns ``java``, from its ``release`` file.

    Falls back to ``java -version`` only when there is no release file (odd installs).
    """
    home = Path(os.path.realpath(java)).parent.parent
    release = home / "release"
    text = None
    if release.is_file():
        try:
            text = release.read_text(errors="replace")
        except OSError:
            text = None
    if text is not None:
        m = re.search(r'^JAVA_VERSION="?([0-9][^"\s]*)"?', text, re.M)
        return _major(m.group(1)) if m else None
    try:
        out = subprocess.run([java, "-version"], capture_output=True, text=True, timeout=20)
    except (OSError, subprocess.SubprocessError):
        return None
    m = re.search(r'version "([^"]+)"', out.stderr + out.stdout)
    return _major(m.group(1)) if m else None


def _major(version: str) -> Optional[int]:
    parts = version.split(".")
    try:
        first = int(re.match(r"\d+", parts[0]).group(0))
        if first == 1 and len(parts) > 1:  # "1.8.0_392"
            return int(re.match(r"\d+", parts[1]).group(0))
        return first
    except (AttributeError, ValueError):
        return None


def bundled_runtimes() -> List[Path]:
    """Java runtimes shipped with beam (a ``jlink`` image, see docs/PACKAGING.md), in order:
    ``ray/_beam/runtime`` (the platform wheel) and ``<root>/runtime`` beside ``<root>/python/ray``
    (the one-mount bundle). Neither exists in a source checkout."""
    here = Path(__file__).resolve().parent
    return [here / "runtime", here.parents[2] / "runtime"]


def _java_candidates() -> List[Tuple[str, str]]:
    """(where it came from, path) in search order: a Java the user names (BEAM_JAVA, then
    JAVA_HOME) wins over the bundled runtime, which wins over PATH and /usr/lib/jvm."""
    found = []
    if os.environ.get("BEAM_JAVA"):
        found.append(("BEAM_JAVA", os.environ["BEAM_JAVA"]))
    if os.environ.get("JAVA_HOME"):
        found.append(("JAVA_HOME", os.path.join(os.environ["JAVA_HOME"], "bin", "java")))
    for runtime in bundled_runtimes():
        java = runtime / "bin" / "java"
        if java.is_file():
            found.append(("bundled runtime", str(java)))
    on_path = shutil.which("java")
    if on_path:
        found.append(("PATH", on_path))
    for path in sorted(glob.glob("/usr/lib/jvm/*/bin/java"), reverse=True):
        found.append(("/usr/lib/jvm", path))
    return found


def find_java() -> str:
    """The first Java >= 21 in the order BEAM_JAVA, JAVA_HOME, the bundled runtime, PATH,
    /usr/lib/jvm/*."""
    tried = []
    for source, path in _java_candidates():
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            tried.append(f"{path} ({source}: not an executable)")
            continue
        major = java_major(path)
        if major is not None and major >= MIN_JAVA:
            return path
        tried.append(f"{path} ({source}: version {major if major else 'unknown'})")
    detail = "; ".join(tried) if tried else "no java found at all"
    raise LauncherError(
        f"beam needs Java {MIN_JAVA} or newer. Looked at BEAM_JAVA, JAVA_HOME/bin/java, "
        f"the bundled runtime ({bundled_runtimes()[0]}), 'java' on PATH and "
        f"/usr/lib/jvm/*/bin/java: {detail}. Install a JDK >= {MIN_JAVA} "
        "or set BEAM_JAVA to its java binary.")


def _repo_jar() -> Path:
    return Path(__file__).resolve().parents[3] / "java" / "target" / "beam.jar"


def find_jar() -> str:
    """BEAM_JAR, else ray/_beam/lib/beam.jar in the package, else <repo>/java/target/beam.jar."""
    env = os.environ.get("BEAM_JAR")
    if env:
        if os.path.isfile(env):
            return env
        raise LauncherError(f"BEAM_JAR is set to {env!r}, but no such file exists.")
    candidates = [Path(__file__).resolve().parent / "lib" / "beam.jar", _repo_jar()]
    for path in candidates:
        if path.is_file():
            return str(path)
    raise LauncherError(
        "beam daemon jar not found. Looked at: BEAM_JAR (unset), "
        + ", ".join(str(p) for p in candidates)
        + ". Build it with `mvn -f java package` or set BEAM_JAR.")


def command(argv: Sequence[str]) -> List[str]:
    """The full java command line for the CLI with ``argv``."""
    return [find_java(), *JVM_FLAGS, "-cp", find_jar(), MAIN_CLASS, *argv]


def run_cli(argv: Sequence[str], timeout: Optional[float] = 120, **kwargs) -> subprocess.CompletedProcess:
    """Run the CLI as a child process and wait for it (used to start a private cluster)."""
    kwargs.setdefault("capture_output", True)
    kwargs.setdefault("text", True)
    return subprocess.run(command(argv), timeout=timeout, **kwargs)


def main(argv: Optional[Sequence[str]] = None) -> None:
    """Console entry point ``ray``: exec the Java CLI with our arguments."""
    args = list(sys.argv[1:] if argv is None else argv)
    try:
        cmd = command(args)
    except LauncherError as e:
        print(f"ray: {e}", file=sys.stderr)
        sys.exit(1)
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(cmd[0], cmd)


if __name__ == "__main__":
    main()
