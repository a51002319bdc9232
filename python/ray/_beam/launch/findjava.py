"""Finding Java >= 21 and the beam jar, for the ``ray`` command and ``ray.init()``: the
order is BEAM_JAVA, JAVA_HOME, the bundled runtime, PATH, /usr/lib/jvm/* for Java and
BEAM_JAR, the package's lib/, the checkout's build for the jar. Every failure names each place
that was tried and what to set."""

from __future__ import annotations

import os

from ray._beam.launch import aotcache

MIN_JAVA = 21
JVM_DIR = "/usr/lib/jvm"  # where Debian-style packages install JDKs, one folder each


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
    here = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # ray/_beam (this is ray/_beam/launch)
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
    here = os.path.dirname(os.path.realpath(__file__))  # <root>/python/ray/_beam/launch
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(here))))
    return os.path.join(root, "java", "target", "beam.jar")


def _package_jars() -> list[str]:
    """Where find_jar looks without BEAM_JAR, in order: the package's lib/, then the checkout's build."""
    return [os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(__file__))), "lib", "beam.jar"), _repo_jar()]


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
