"""The launch file of the ``ray`` shell script (python/bin/ray): the java command line that
``ray._beam.launcher`` resolved, and what it resolved it from, so that the script can start
Java without a Python interpreter next time (docs/DESIGN.md, "The `ray` command").

The file is bash, sourced by the script: four variables.

- ``beam_command``: the java command line up to the CLI's arguments (launcher.command([])).
- ``beam_python``: this interpreter (the daemon's BEAM_PYTHON, as launcher.daemon_env).
- ``beam_environment``: the environment variables that find_java and find_jar read. The
  script uses the file only while they are the same.
- ``beam_newer_than`` / ``beam_absent``: the files the choice depended on. The script uses the
  file only while it is newer than each of the first (the jar, the AOT cache and its
  description, the JDK's folders, this package's launcher code and ``ray/__init__.py``) and
  none of the second exists (an AOT cache or a Java that would have been chosen had it been
  there). Any install of beam or of Ray rewrites ``ray/__init__.py``, so the Python launcher,
  whose import of ``ray`` refuses a beam/Ray mix (ray/_beam/coexist.py), runs again after one.

The script asks for the file by setting BEAM_LAUNCH_FILE when it runs the Python launcher;
nothing else writes it.
"""

from __future__ import annotations

import os
import sys

from ray._beam import aotcache

ENVIRONMENT = ("BEAM_JAVA", "JAVA_HOME", "BEAM_JAR", "PATH")


def environment() -> str:
    """The value the script compares: ``NAME=value`` lines, unset and empty alike."""
    return "\n".join(f"{name}={os.environ.get(name, '')}" for name in ENVIRONMENT)


def quote(text: str) -> str:
    """``text`` as one bash word, taken literally."""
    return "'" + text.replace("'", "'\\''") + "'"


def _array(name: str, items: list[str]) -> str:
    return f"{name}=(" + " ".join(quote(i) for i in items) + ")\n"


def dependencies(java: str, jar: str, runtimes: list[str], jvm_dir: str) -> tuple[list[str], list[str]]:
    """(files the file must be newer than, paths that must not exist) for this choice of java and jar."""
    here = os.path.dirname(os.path.realpath(__file__))
    jdk_bin = os.path.dirname(os.path.realpath(java))
    newer = [jar, os.path.dirname(os.path.realpath(jar)), jdk_bin, os.path.dirname(jdk_bin)]
    newer += [os.path.join(here, name) for name in ("launcher.py", "aotcache.py", "launchfile.py", "coexist.py")]
    newer.append(os.path.join(os.path.dirname(here), "__init__.py"))  # rewritten by any install of a `ray` package
    absent = []
    for path in aotcache.paths(jar):
        (newer if os.path.exists(path) else absent).append(path)
    for runtime in runtimes:  # a bundled runtime that appears would win over PATH and /usr/lib/jvm
        candidate = os.path.join(runtime, "bin", "java")
        if not os.path.exists(candidate):
            absent.append(candidate)
    if os.path.isdir(jvm_dir):
        newer.append(jvm_dir)  # a JDK installed or removed there changes the candidates
    return newer, absent


def write(path: str, command: list[str], newer: list[str], absent: list[str]) -> None:
    """Write the launch file at ``path`` (through a temporary file); quietly nothing when the
    folder is not writable (the script then keeps running the Python launcher)."""
    text = ("# written by ray._beam.launchfile for the `ray` script beside it; remade when stale\n"
            + f"beam_environment={quote(environment())}\n"
            + f"beam_python={quote(sys.executable)}\n"
            + _array("beam_command", command) + _array("beam_newer_than", newer) + _array("beam_absent", absent))
    tmp = f"{path}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write(text)
        os.replace(tmp, path)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
