"""beam's AOT cache (JDK >= 25, JEP 483/514): the classes the daemon uses, loaded and linked
ahead of time, which makes a JVM start about a third cheaper (docs/PERFORMANCE.md).

tools/train_aot.py makes it (``./dev build``, packaging) beside the jar: ``beam.aot`` for
``beam.jar``, with ``beam.aot.info`` naming the java and the jar it was made for. A cache is
valid only for that JVM build and that jar: the JVM takes one made for another jar without a
word (and would run stale classes) and prints errors for one made by another JVM, so the
launcher passes ``-XX:AOTCache`` only when both match (``usable``).

The description is ``key=value`` lines, not JSON: the ``ray`` command reads it at every
start, and ``json`` imports ``re`` and ``enum`` (~8 ms warm, more when the host has evicted
them; docs/PERFORMANCE.md, "A lean `ray` command").
"""

from __future__ import annotations

import os

from ray._beam.launch import jvmflags
from ray._beam.launch.findjava import java_release, release_value

MIN_JAVA = 25  # -XX:AOTCache / -XX:AOTCacheOutput


def paths(jar: str) -> tuple[str, str]:
    """(the cache, its description) for ``jar``: same folder, same stem."""
    stem = jar[:-len(".jar")] if jar.endswith(".jar") else jar
    return stem + ".aot", stem + ".aot.info"


def java_version(java: str) -> str | None:
    """The full version of the runtime that owns ``java`` (e.g. "25.0.3+9-LTS"), from its
    ``release`` file; None without one."""
    text = java_release(java)
    if text is None:
        return None
    return release_value(text, "JAVA_RUNTIME_VERSION") or release_value(text, "JAVA_VERSION")


def describe(java: str, jar: str, jar_sha256: str | None = None) -> dict[str, str]:
    """What a cache for ``java`` and ``jar`` is bound to. The java's path is relative to the
    cache's folder, so a wheel (jar, cache and runtime in one package) may be installed anywhere.
    ``jar_mtime_ns`` only lets ``usable`` skip hashing an unchanged jar; it is not part of the
    match (an install copies the jar and changes it)."""
    folder = os.path.dirname(os.path.realpath(jar))
    st = os.stat(jar)
    return {"java": os.path.relpath(os.path.realpath(java), folder), "java_version": str(java_version(java)),
            "jar_size": str(st.st_size), "jar_sha256": jar_sha256 or _sha256(jar),
            "jvm_flags": " ".join(training_flags()), "jar_mtime_ns": str(st.st_mtime_ns)}


def write_description(meta: str, description: dict[str, str]) -> None:
    """Write ``description`` to ``meta`` (through a temporary file: readers never see half)."""
    tmp = f"{meta}.{os.getpid()}.tmp"
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            f.write("# what beam's AOT cache beside this file was made for (ray/_beam/launch/aotcache.py)\n")
            f.writelines(f"{key}={value}\n" for key, value in description.items())
        os.replace(tmp, meta)
    except OSError:
        try:
            os.remove(tmp)
        except OSError:
            pass
        raise


def read_description(meta: str) -> dict[str, str]:
    """The ``key=value`` lines of ``meta``; raises ValueError for any other line."""
    found = {}
    with open(meta, encoding="utf-8") as f:
        for line in f:
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            key, sep, value = line.partition("=")
            if not sep:
                raise ValueError(f"{meta}: not a key=value line: {line!r}")
            found[key] = value
    return found


def _sha256(path: str) -> str:
    import hashlib  # here: loading OpenSSL costs ~8 ms, and an unchanged jar is not hashed

    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def training_flags() -> list[str]:
    """The launcher's JVM flags that the cache is trained under (all but the CDS switch, which
    the cache replaces). Part of the description: what the cache holds (classes, and how much
    of each was compiled and profiled) depends on them, so new flags mean a new cache."""
    return [f for f in jvmflags.JVM_FLAGS if not f.startswith("-Xshare")]


def usable(java: str, jar: str) -> str | None:
    """The cache beside ``jar`` if it was made for this ``java`` and this ``jar``, else None.

    The jar is hashed only when its size or modification time differ from the description's
    (the check the JVM's own class-data sharing makes); when the bytes still match, the
    description is brought up to date, if the folder is writable, so the next start skips it."""
    cache, meta = paths(jar)
    try:
        made_for = read_description(meta)
        st = os.stat(jar)
        if not os.path.isfile(cache) or made_for.get("jar_size") != str(st.st_size):
            return None
        unchanged = made_for.get("jar_mtime_ns") == str(st.st_mtime_ns)
        now = describe(java, jar, made_for.get("jar_sha256") if unchanged else None)
        if {**now, "jar_mtime_ns": None} != {**made_for, "jar_mtime_ns": None}:
            return None
        if not unchanged:
            try:
                write_description(meta, now)
            except OSError:
                pass  # a read-only install: hashed again next time
        return cache
    except (OSError, ValueError, UnicodeDecodeError):
        return None
