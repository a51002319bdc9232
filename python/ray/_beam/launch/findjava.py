"""Finding Java >= 21 and the beam jar, for the ``ray`` command and ``ray.init()``: the
order is BEAM_JAVA, JAVA_HOME, the bundled runtime, PATH, /usr/lib/jvm/* for Java and
BEAM_JAR, the package's lib/, the checkout's build for the jar. Every failure names each place
that was tried and what to set.

It is also beam's one JDK finder for the shell (``./dev``, packaging/, bench/): it imports
nothing but the standard library, so the system python runs it before any venv exists:

    python3 python/ray/_beam/launch/findjava.py --jdk [--tool jlink] [--prefer DIR]...
    python3 python/ray/_beam/launch/findjava.py --java

``--jdk`` prints the home of the first JDK >= 21 that has ``bin/<tool>`` (javac unless
told), looking at each --prefer DIR, then JAVA_HOME, then /usr/lib/jvm/* (newest name
first); ``--java`` prints what find_java() finds. Either exits 1 saying where it looked.
"""

from __future__ import annotations

import os
import sys

MIN_JAVA = 21
JVM_DIR = "/usr/lib/jvm"  # where Debian-style packages install JDKs, one folder each


class LauncherError(RuntimeError):
    """Java or the jar could not be found; the message names every place that was tried."""


def java_release(java: str) -> str | None:
    """The ``release`` file of the runtime that owns ``java`` (its versions), or None."""
    release = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "release")
    try:
        with open(release, errors="replace") as f:
            return f.read()
    except OSError:
        return None


def release_value(text: str, key: str) -> str | None:
    """``KEY="value"`` (quotes optional) from a runtime's ``release`` text; None if absent."""
    for line in text.splitlines():
        if line.startswith(key + "="):
            value = line[len(key) + 1:].strip().strip('"')
            return value or None
    return None


def java_major(java: str) -> int | None:
    """The major version of the JDK that owns ``java``, from its ``release`` file.

    Falls back to ``java -version`` only when there is no release file (odd installs).
    """
    text = java_release(java)
    if text is not None:
        version = release_value(text, "JAVA_VERSION")
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


def _installed_jdks() -> list[str]:
    """The folders under /usr/lib/jvm, newest name first (temurin-25-... before java-17-...)."""
    try:
        names = sorted(os.listdir(JVM_DIR), reverse=True)
    except OSError:
        return []
    return [p for p in (os.path.join(JVM_DIR, n) for n in names) if os.path.isdir(p)]


def find_jdk(preferred: list[str] = (), tool: str = "javac") -> str:
    """The home of the first JDK >= 21 with an executable ``bin/<tool>``: each of
    ``preferred``, then JAVA_HOME, then /usr/lib/jvm/*."""
    homes = [d for d in [*preferred, os.environ.get("JAVA_HOME", "")] if d] + _installed_jdks()
    tried = []
    for home in homes:
        if not os.access(os.path.join(home, "bin", tool), os.X_OK):
            tried.append(f"{home} (no bin/{tool})")
            continue
        major = java_major(os.path.join(home, "bin", "java"))
        if major is not None and major >= MIN_JAVA:
            return home
        tried.append(f"{home} (version {major if major else 'unknown'})")
    detail = "; ".join(tried) if tried else "no JDK folder at all"
    raise LauncherError(f"no JDK >= {MIN_JAVA} with bin/{tool} found: {detail}. Install one "
                        "(e.g. Temurin 21+) and set JAVA_HOME to it.")


def main(argv: list[str]) -> int:
    """The shell's entry (see the module's docstring): prints one path, or why there is none."""
    usage = "usage: findjava.py --jdk [--tool NAME] [--prefer DIR]... | --java"
    preferred, tool, want = [], "javac", None
    args = list(argv)
    while args:
        arg = args.pop(0)
        if arg in ("--jdk", "--java") and want is None:
            want = arg
        elif arg in ("--tool", "--prefer") and args:
            value = args.pop(0)
            if arg == "--tool":
                tool = value
            else:
                preferred.append(value)
        else:
            print(f"findjava.py: unexpected argument {arg!r}; {usage}", file=sys.stderr)
            return 2
    if want is None:
        print(usage, file=sys.stderr)
        return 2
    try:
        print(find_jdk(preferred, tool) if want == "--jdk" else find_java())
    except LauncherError as e:
        print(f"findjava.py: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
