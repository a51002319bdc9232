"""beam's AOT cache (JDK >= 25, JEP 483/514): the classes the daemon uses, loaded and linked
ahead of time, which makes a JVM start about a third cheaper (docs/PERFORMANCE.md).

tools/train_aot.py makes it (``./dev build``, packaging) beside the jar: ``beam.aot`` for
``beam.jar``, with ``beam.aot.json`` naming the java and the jar it was made for. A cache is
valid only for that JVM build and that jar: the JVM takes one made for another jar without a
word (and would run stale classes) and prints errors for one made by another JVM, so the
launcher passes ``-XX:AOTCache`` only when both match (``usable``).
"""

from __future__ import annotations

import hashlib
import json
import os
import re

MIN_JAVA = 25  # -XX:AOTCache / -XX:AOTCacheOutput


def paths(jar: str) -> tuple[str, str]:
    """(the cache, its description) for ``jar``: same folder, same stem."""
    stem = jar[:-len(".jar")] if jar.endswith(".jar") else jar
    return stem + ".aot", stem + ".aot.json"


def java_version(java: str) -> str | None:
    """The full version of the runtime that owns ``java`` (e.g. "25.0.3+9-LTS"), from its
    ``release`` file; None without one."""
    release = os.path.join(os.path.dirname(os.path.dirname(os.path.realpath(java))), "release")
    try:
        with open(release, errors="replace") as f:
            text = f.read()
    except OSError:
        return None
    for key in ("JAVA_RUNTIME_VERSION", "JAVA_VERSION"):
        m = re.search(rf'^{key}="?([^"\n]+)"?', text, re.M)
        if m:
            return m.group(1)
    return None


def describe(java: str, jar: str) -> dict[str, object]:
    """What a cache for ``java`` and ``jar`` is bound to. The java's path is relative to the
    cache's folder, so a wheel (jar, cache and runtime in one package) may be installed anywhere."""
    folder = os.path.dirname(os.path.realpath(jar))
    digest = hashlib.sha256()
    with open(jar, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return {"java": os.path.relpath(os.path.realpath(java), folder), "java_version": java_version(java),
            "jar_size": os.path.getsize(jar), "jar_sha256": digest.hexdigest(), "jvm_flags": training_flags()}


def training_flags() -> list[str]:
    """The launcher's JVM flags that the cache is trained under (all but the CDS switch, which
    the cache replaces). Part of the description: what the cache holds (classes, and how much
    of each was compiled and profiled) depends on them, so new flags mean a new cache."""
    from ray._beam import launcher  # here: launcher imports this module

    return [f for f in launcher.JVM_FLAGS if not f.startswith("-Xshare")]


def usable(java: str, jar: str) -> str | None:
    """The cache beside ``jar`` if it was made for this ``java`` and this ``jar``, else None."""
    cache, meta = paths(jar)
    try:
        with open(meta) as f:
            made_for = json.load(f)
        if not os.path.isfile(cache) or made_for.get("jar_size") != os.path.getsize(jar):
            return None
        return cache if made_for == describe(java, jar) else None
    except (OSError, ValueError, AttributeError):
        return None
