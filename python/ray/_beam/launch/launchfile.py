"""The launch file of the ``ray`` shell script (python/bin/ray): the java command line that
``ray._beam.launch.launcher`` resolved, and what it resolved it from, so that the script can start
Java without a Python interpreter next time (docs/DESIGN.md, "The `ray` command").

The file is bash, sourced by the script, which uses it only while all of these hold:

- ``beam_environment``: the environment variables that find_java and find_jar read
  (``ENVIRONMENT``) have the values they had;
- ``beam_newer_than``: the file is newer than each of these (the jar and its folder, the AOT
  cache and its description, the chosen JDK's folders, the JDKs tried before it, ``/usr/lib/jvm``,
  this package's launcher code and ``ray/__init__.py``). Its mtime is the moment before the
  launcher looked at anything, so a change made while it decided counts too;
- ``beam_absent``: none of these exists (an AOT cache not made yet, a Java or a jar that
  would have been chosen had it been there, such as ``java`` in an earlier ``PATH`` folder);
- ``beam_same_file``: each pair (the java and the jar as named, the files they were) is still
  one file, so a link repointed elsewhere (``update-alternatives``) counts as a change.

It then runs ``beam_command`` (the java command line up to the CLI's arguments) with
``beam_python`` as the daemon's BEAM_PYTHON. Any install of beam or of Ray rewrites
``ray/__init__.py``, so the Python launcher, whose import of ``ray`` refuses a beam/Ray mix
(ray/_beam/launch/coexist.py), runs again after one. The script asks for the file by setting
BEAM_LAUNCH_FILE when it runs the Python launcher; nothing else writes it.
"""

from __future__ import annotations

import os
import sys

from ray._beam.launch import aotcache

ENVIRONMENT = ("BEAM_JAVA", "JAVA_HOME", "BEAM_JAR", "PATH")


def environment() -> str:
    """The value the script compares: ``NAME=value`` lines, unset and empty alike."""
    return "\n".join(f"{name}={os.environ.get(name, '')}" for name in ENVIRONMENT)


def quote(text: str) -> str:
    """``text`` as one bash word, taken literally."""
    return "'" + text.replace("'", "'\\''") + "'"


def _array(name: str, items: list[str]) -> str:
    return f"{name}=(" + " ".join(quote(i) for i in items) + ")\n"


def _jdk_root(java: str) -> str:
    return os.path.dirname(os.path.dirname(os.path.realpath(java)))


def dependencies(java: str, jar: str, java_tried: list[str], jar_tried: list[str],
                 jvm_dir: str) -> tuple[list[str], list[str], list[str]]:
    """(files the launch file must be newer than, paths that must not exist, pairs of paths
    that must stay one file) for this choice of ``java`` and ``jar``. ``java_tried`` and
    ``jar_tried`` are the candidates looked at before them, in the launcher's order."""
    here = os.path.dirname(os.path.realpath(__file__))
    jdk_bin = os.path.dirname(os.path.realpath(java))
    newer = [jar, os.path.dirname(os.path.realpath(jar)), jdk_bin, os.path.dirname(jdk_bin)]
    newer += [os.path.join(here, name) for name in ("launcher.py", "findjava.py", "jvmflags.py", "aotcache.py", "launchfile.py", "coexist.py")]
    newer.append(os.path.join(os.path.dirname(os.path.dirname(here)), "__init__.py"))  # rewritten by any install of a `ray` package
    absent = []
    for path in aotcache.paths(jar):
        (newer if os.path.exists(path) else absent).append(path)
    same = [java, os.path.realpath(java), jar, os.path.realpath(jar)]
    for candidate in java_tried:  # missing, or too old: appearing, upgraded or repointed would change the choice
        if os.path.exists(candidate):
            newer.append(_jdk_root(candidate))
            same += [candidate, os.path.realpath(candidate)]
        else:
            absent.append(candidate)
    absent += [c for c in jar_tried if not os.path.exists(c)]
    if os.path.isdir(jvm_dir):
        newer.append(jvm_dir)  # a JDK installed or removed there changes the candidates
    return newer, absent, same


class Writer:
    """Writes the launch file at ``path`` through a temporary file made first, whose mtime
    (the kernel's clock, before anything was decided) the finished file keeps. Quietly does
    nothing where the folder is not writable: the script then keeps running the launcher."""

    def __init__(self, path: str):
        self.path = path
        self.tmp = f"{path}.{os.getpid()}.tmp"
        try:
            with open(self.tmp, "wb"):
                pass
            self.stamp = os.stat(self.tmp).st_mtime_ns
        except OSError:
            self.stamp = None

    def write(self, command: list[str], newer: list[str], absent: list[str], same: list[str]) -> None:
        if self.stamp is None:
            return
        text = ("# written by ray._beam.launch.launchfile for the `ray` script beside it; remade when stale\n"
                + f"beam_environment={quote(environment())}\n"
                + f"beam_python={quote(sys.executable)}\n"
                + _array("beam_command", command) + _array("beam_newer_than", newer)
                + _array("beam_absent", absent) + _array("beam_same_file", same))
        try:
            # surrogateescape: a name or variable that is not UTF-8 goes back as the bytes it was
            with open(self.tmp, "w", encoding="utf-8", errors="surrogateescape") as f:
                f.write(text)
            os.utime(self.tmp, ns=(self.stamp, self.stamp))
            os.replace(self.tmp, self.path)
        except (OSError, ValueError):
            pass
        finally:
            self.discard()

    def discard(self) -> None:
        try:
            os.remove(self.tmp)
        except OSError:
            pass
