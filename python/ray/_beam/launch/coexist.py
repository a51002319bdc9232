"""Refuse a ``ray`` that is half beam and half Ray.

beam and Ray are both the distribution ``ray`` at one version (ray/_version/RAY, so that
``importlib.metadata.version("ray")`` answers what vLLM accepts), and both install the
package folder ``ray/``. pip treats them as one project: installing one over the other
either keeps the first ("Requirement already satisfied"), replaces it cleanly (upgrade,
``--force-reinstall``: pip removes the files in the old RECORD first), or, with
``--ignore-installed``, ``--target`` or a second tool (conda, a copied folder), writes one
set of files over the other and leaves a mix that fails later in confusing ways.

This module runs where beam's code runs (``import ray`` and the ``ray`` command, which
imports the package) and raises :class:`MixedInstallError` with the fix when:

A. the ``ray/`` folder beam is imported from also holds Ray-only files (``_raylet*.so``,
   ``core/``, ``dashboard/``, ...): files of both in one folder;
B. one ``sys.path`` folder holds more than one ``ray-*.dist-info`` (or ``.egg-info``);
C. the first ``ray`` metadata on ``sys.path`` (what ``importlib.metadata.version("ray")``
   answers) is not beam's (its Summary does not start with ``beam``): Ray's metadata over
   beam's code.

A Ray installed in a *later* ``sys.path`` folder is not an error: that is the one-mount
bundle on ``PYTHONPATH`` in front of an image's own Ray (docs/PACKAGING.md); beam's files and
metadata are both found first, so ``import ray`` and ``importlib.metadata`` agree.

The check costs a few directory listings (no ``importlib.metadata`` import, which alone
takes ~20 ms). ``BEAM_SKIP_COEXIST_CHECK=1`` turns it off. ``python -m ray._beam.launch.coexist``
prints a report and exits 1 when the install is mixed.
"""

from __future__ import annotations

import os
import sys
from ray._version import RAY as RAY_VERSION
TYPE_CHECKING = False  # not `typing`'s: importing typing costs the `ray` command ~10 ms
if TYPE_CHECKING:
    from collections.abc import Sequence

SKIP_ENV = "BEAM_SKIP_COEXIST_CHECK"

# Files and folders that Ray 2.58's wheel puts directly under ray/ and beam never has.
RAY_ONLY_NAMES = ("_raylet.pyi", "_raylet.pxd", "core", "dashboard", "autoscaler", "serve",
                  "includes", "jars")


def _is_raylet_so(name: str) -> bool:
    """``_raylet.so`` or ``_raylet.<anything>.so`` (string tests: ``re`` costs the ``ray``
    command ~14 ms of imports)."""
    return name == "_raylet.so" or (name.startswith("_raylet.") and name.endswith(".so"))


def _is_ray_metadata(name: str) -> bool:
    """``ray-<version>.dist-info`` or ``.egg-info``, any case."""
    low = name.lower()
    for suffix in (".dist-info", ".egg-info"):
        if low.startswith("ray-") and low.endswith(suffix):
            version = low[len("ray-"):-len(suffix)]
            return bool(version) and "-" not in version
    return False


class MixedInstallError(ImportError):
    """beam and Ray files or metadata are mixed in one environment; the message says how to fix it."""


def package_dir() -> str:
    """The ``ray/`` folder this beam is imported from."""
    return os.path.dirname(os.path.dirname(os.path.dirname(os.path.realpath(__file__))))  # of ray/_beam/launch


def ray_only_files(pkg: str) -> list[str]:
    """Names directly under ``pkg`` that only Ray installs."""
    try:
        names = os.listdir(pkg)
    except OSError:
        return []
    return sorted(n for n in names if n in RAY_ONLY_NAMES or _is_raylet_so(n))


def metadata_dirs(entries: Sequence[str]) -> list[tuple[str, list[str]]]:
    """For each ``sys.path`` folder, in order, the ``ray`` metadata folders it holds."""
    found = []
    seen = set()
    for entry in entries:
        folder = os.path.abspath(entry or os.getcwd())
        if folder in seen or not os.path.isdir(folder):
            continue
        seen.add(folder)
        try:
            names = os.listdir(folder)
        except OSError:
            continue
        metas = sorted(os.path.join(folder, n) for n in names if _is_ray_metadata(n))
        if metas:
            found.append((folder, metas))
    return found


def summary(meta: str) -> str:
    """The Summary line of a dist-info's METADATA (egg-info: PKG-INFO); '' when unreadable."""
    for name in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(meta, name), encoding="utf-8", errors="replace") as f:
                for line in f:
                    if not line.strip():
                        break  # end of the headers
                    if line.lower().startswith("summary:"):
                        return line.split(":", 1)[1].strip()
        except OSError:
            continue
    return ""


def is_beam_metadata(meta: str) -> bool:
    return summary(meta).lower().startswith("beam")


def _describe(meta: str) -> str:
    who = "beam" if is_beam_metadata(meta) else "Ray (or another project)"
    return f"{meta} ({who}: {summary(meta) or 'no Summary'})"


def find_problems(pkg: str | None = None,
                  entries: Sequence[str] | None = None) -> list[str]:
    """Every reason this environment is a beam/Ray mix; empty when it is beam alone."""
    pkg = package_dir() if pkg is None else os.fspath(pkg)
    entries = list(sys.path) if entries is None else list(entries)
    problems = []
    ray_files = ray_only_files(pkg)
    if ray_files:
        problems.append(
            f"{pkg} holds beam (ray/_beam/) and files that only Ray installs: "
            + ", ".join(ray_files[:6]) + (" ..." if len(ray_files) > 6 else ""))
    metas = metadata_dirs(entries)
    for folder, dirs in metas:
        if len(dirs) > 1:
            problems.append(f"{folder} holds {len(dirs)} metadata folders for the distribution "
                            "`ray`: " + "; ".join(_describe(d) for d in dirs))
    if metas:
        first = metas[0][1][0]
        if not is_beam_metadata(first):
            problems.append(
                f"importlib.metadata reads `ray` from {_describe(first)}, but `import ray` "
                f"loads beam from {pkg}")
    return problems


def fix_text(pkg: str, problems: Sequence[str]) -> str:
    site = os.path.dirname(pkg)
    lines = ["ray: beam and Ray are mixed in this environment. Both are installed as the "
             "distribution `ray`, so pip overwrote one with the other instead of keeping "
             "them apart:"]
    lines += [f"  - {p}" for p in problems]
    lines += [
        "Fix: keep exactly one of them.",
        f"  {sys.executable} -m pip uninstall -y ray      (repeat until pip says it is not installed)",
        f"  rm -rf {site}/ray {site}/ray-*.dist-info      (what pip no longer tracks)",
        f"  then install one: the beam wheel (pip install ray-{RAY_VERSION}-...-manylinux_2_17_x86_64.whl)"
        f" or Ray (pip install ray=={RAY_VERSION}).",
        "To use beam beside an image's own Ray without touching it, put the beam bundle first "
        "on PYTHONPATH and PATH instead (docs/PACKAGING.md).",
        f"{SKIP_ENV}=1 skips this check.",
    ]
    return "\n".join(lines)


def check() -> None:
    """Raise :class:`MixedInstallError` when beam and Ray are mixed; call it first thing in
    ``ray/__init__.py``."""
    if os.environ.get(SKIP_ENV, "").strip().lower() in ("1", "true", "yes"):
        return
    pkg = package_dir()
    problems = find_problems(pkg)
    if problems:
        raise MixedInstallError(fix_text(pkg, problems))


def main() -> int:
    """``python -m ray._beam.launch.coexist``: report what is installed where; 1 when mixed."""
    pkg = package_dir()
    print(f"beam package: {pkg}")
    for folder, dirs in metadata_dirs(sys.path):
        for d in dirs:
            print(f"ray metadata: {_describe(d)}")
    problems = find_problems(pkg)
    if problems:
        print(fix_text(pkg, problems), file=sys.stderr)
        return 1
    print("ok: beam alone (a Ray later on sys.path, if any, is shadowed)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
