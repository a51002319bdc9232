#!/usr/bin/env python3
"""Prove that nothing vLLM uses from ``ray`` is missing from beam.

Reads a vLLM source tree (a checkout, an unpacked sdist, or an sdist fetched from PyPI),
finds every ``ray`` symbol it imports or reaches through an attribute chain, and resolves
each against beam's ``ray`` package in a clean subprocess. Each symbol ends up present, out
of scope (the table below says why), or missing; any missing symbol makes the exit code 1.

    python tools/scan_vllm_ray.py --version 0.11.0        # fetch the sdist, scan it
    python tools/scan_vllm_ray.py --latest --json out.json
    python tools/scan_vllm_ray.py --src ~/vllm --include-tests
"""

import argparse
import ast
import fnmatch
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

BEAM_PYTHON = Path(__file__).resolve().parent.parent / "python"
CACHE = Path.home() / ".cache" / "beam"
TEST_DIRS = {"tests", "benchmarks", "examples"}

# Parts of Ray that beam deliberately leaves out. Keys are fnmatch patterns over the dotted
# symbol; a pattern also covers everything below it. Each reason says where vLLM uses it.
OUT_OF_SCOPE = {
    "ray.dag": "Ray Compiled Graphs: only the legacy RayDistributedExecutor "
               "(VLLM_USE_RAY_V2_EXECUTOR_BACKEND=0) builds a DAG for each step",
    "ray.experimental.channel": "Compiled Graphs channels (accelerator context, "
                                "communicator for the legacy executor's pipeline stages)",
    "ray.experimental.compiled_dag_ref": "must NOT exist: the legacy executor find_spec()s it "
                                         "and, finding none, stops with 'Ray Compiled Graph "
                                         "is not installed' instead of building a DAG",
    "ray.experimental.set_target_for_ref": "Ray Direct Transport: only the opt-in sharded_rdt "
                                           "weight-transfer backend (RL trainers)",
    "ray.experimental.register_nixl_memory": "Ray Direct Transport over NIXL: only the opt-in "
                                             "sharded_rdt weight-transfer backend",
    "ray.experimental.rdt": "Ray Direct Transport internals: only sharded_rdt tests",
    "ray.experimental.tqdm_ray": "progress bars across Ray workers: only the offline MoE "
                                 "kernel tuner benchmarks/kernels/benchmark_moe.py",
    "ray._private.accelerators.*TPU*": "TPU only: counts TPU chips per node for TPU pods",
    "ray.serve": "Ray Serve: v1/metrics/ray_wrappers.py (imported by no vLLM module; Ray Serve "
                 "LLM passes RayPrometheusStatLogger) tags metrics with the Serve replica; "
                 "ray.serve.llm in examples. Up to vLLM 0.33 the import shared a try block "
                 "with ray.util.metrics, so without ray.serve those Ray metric wrappers were "
                 "off too; from 0.34 it has its own and they run on beam "
                 "(tests/vllm/test_vllm_metrics.py)",
    "ray.data": "Ray Data: only examples (batch inference through ray.data.llm)",
    "ray.train": "Ray Train: not a vLLM dependency (no use in vLLM 0.8.5 to 0.34.0)",
    "ray.tune": "Ray Tune: not a vLLM dependency (no use in vLLM 0.8.5 to 0.34.0)",
    "ray.air": "Ray AIR: not a vLLM dependency (no use in vLLM 0.8.5 to 0.34.0)",
}
# Present in beam although vLLM must not find them: their absence is the correct state.
MUST_BE_ABSENT = {"ray.experimental.compiled_dag_ref"}


def is_ray(module):
    """True for ``ray`` and its submodules (not ``rayon`` or ``vllm.ray``)."""
    return module == "ray" or module.startswith("ray.")


def python_files(src, include_tests):
    """The .py files to scan: the ``vllm`` package when SRC holds one, else SRC itself.
    Test, benchmark and example trees are skipped by default because the question is what
    a *running* vLLM needs from Ray."""
    src, skip = Path(src), {"__pycache__"} | (set() if include_tests else TEST_DIRS)
    roots = [src / "vllm"] if (src / "vllm").is_dir() else [src]
    if include_tests and roots[0] != src:
        roots += [src / d for d in sorted(TEST_DIRS) if (src / d).is_dir()]
    for root in roots:
        for dirpath, dirnames, filenames in os.walk(root):
            dirnames[:] = sorted(d for d in dirnames if d not in skip and d[0] != ".")
            yield from (Path(dirpath) / f for f in sorted(filenames) if f.endswith(".py"))


def reexports_ray(src, module):
    """``from vllm.x.ray_utils import ray`` hands on Ray itself when ``vllm/x/ray_utils.py``
    is a module (not when ``vllm.x.ray`` is a vLLM subpackage of that name)."""
    return (Path(src) / (module.replace(".", "/") + ".py")).is_file()


def import_bindings(tree, src):
    """Map each local name bound to part of Ray to its dotted path. One map per file,
    whatever the scope: vLLM imports Ray lazily inside functions and try blocks, and the
    same name always means the same thing there."""
    names = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for a in node.names:
                if is_ray(a.name):
                    names[a.asname or "ray"] = a.name if a.asname else "ray"
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            for a in node.names:
                if is_ray(node.module) and a.name != "*":
                    names[a.asname or a.name] = f"{node.module}.{a.name}"
                elif a.name == "ray" and reexports_ray(src, node.module):
                    names[a.asname or "ray"] = "ray"
    return names


def attribute_chain(node):
    """``a.b.c`` -> ["a", "b", "c"]; None when the chain starts at a call or subscript
    (``ray.get_runtime_context().get_node_id``): the part before the call is its own chain."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return [node.id] + parts[::-1]


class UseFinder(ast.NodeVisitor):
    """Records each Ray import and the longest Ray attribute chain wherever a Ray-bound
    name is read, as (symbol, line, typing_only). typing_only marks code Python never runs:
    an ``if TYPE_CHECKING:`` body or a variable annotation inside a function (PEP 526)."""

    def __init__(self, names):
        self.names, self.uses = names, []
        self.typing, self.in_function = False, False

    def add(self, symbol, node):
        self.uses.append((symbol, node.lineno, self.typing))

    def visit_Import(self, node):
        for a in node.names:
            if is_ray(a.name):
                self.add(a.name, node)

    def visit_ImportFrom(self, node):
        if node.level == 0 and node.module and is_ray(node.module):
            for a in node.names:
                self.add(node.module if a.name == "*" else f"{node.module}.{a.name}", node)

    def visit_Attribute(self, node):
        parts = attribute_chain(node)
        if parts and parts[0] in self.names:
            self.add(".".join([self.names[parts[0]]] + parts[1:]), node)
        else:
            self.generic_visit(node)

    def visit_Call(self, node):
        """``importlib.util.find_spec("ray.x")`` / ``import_module("ray.x")``: vLLM probes
        optional parts of Ray by name (compiled graphs)."""
        chain = attribute_chain(node.func) or [""]
        arg = node.args[0] if node.args else None
        if chain[-1] in ("find_spec", "import_module", "__import__") and \
                isinstance(arg, ast.Constant) and is_ray(str(arg.value)):
            self.add(arg.value, node)
        self.generic_visit(node)

    def visit_Name(self, node):
        if isinstance(node.ctx, ast.Load) and node.id in self.names:
            self.add(self.names[node.id], node)

    def typing_only(self, nodes):
        saved, self.typing = self.typing, True
        for n in nodes:
            self.visit(n)
        self.typing = saved

    def visit_If(self, node):
        """The body of ``if TYPE_CHECKING:`` (or ``typing.TYPE_CHECKING``) never runs."""
        if (attribute_chain(node.test) or [""])[-1] != "TYPE_CHECKING":
            return self.generic_visit(node)
        self.typing_only(node.body)
        for n in node.orelse:
            self.visit(n)

    def visit_FunctionDef(self, node, in_function=True):
        saved, self.in_function = self.in_function, in_function
        self.generic_visit(node)
        self.in_function = saved

    visit_AsyncFunctionDef = visit_FunctionDef

    def visit_ClassDef(self, node):
        self.visit_FunctionDef(node, in_function=False)  # class-level annotations do run

    def visit_AnnAssign(self, node):
        """A variable annotation inside a function is never evaluated (PEP 526)."""
        if not self.in_function:
            return self.generic_visit(node)
        self.typing_only([node.annotation])
        for n in (node.target, node.value):
            if n is not None:
                self.visit(n)


def scan(src, include_tests=False):
    """Return {symbol: [(relative file, line, typing_only), ...]} for every Ray symbol
    under SRC."""
    found = {}
    for path in python_files(src, include_tests):
        data = path.read_bytes()
        if not re.search(rb"\bray\b", data):  # no Ray here: skip the costly parse
            continue
        try:
            tree = ast.parse(data, filename=str(path))
        except (SyntaxError, ValueError) as e:
            print(f"scan: skipping {path}: {e}", file=sys.stderr)
            continue
        finder = UseFinder(import_bindings(tree, src))
        finder.visit(tree)
        rel = path.relative_to(src).as_posix()
        for symbol, line, typing in set(finder.uses):
            found.setdefault(symbol, []).append((rel, line, typing))
    return {symbol: sorted(uses) for symbol, uses in found.items()}


def resolve(symbol):
    """Why SYMBOL does not resolve in the ``ray`` on sys.path, or None if it does: import
    the longest module path it starts with, then getattr the rest (Python's own rule, so
    ``ray.util.placement_group.PlacementGroup`` reaches the module even though the
    attribute ``ray.util.placement_group`` is the function of that name)."""
    import importlib
    parts = symbol.split(".")
    for i in range(len(parts), 0, -1):
        module = ".".join(parts[:i])
        try:
            obj = importlib.import_module(module)
            break
        except ModuleNotFoundError as e:
            if e.name is None or not (module + ".").startswith(e.name + "."):
                return f"import {module} failed: {e}"
        except Exception as e:
            return f"import {module} failed: {type(e).__name__}: {e}"
    else:
        return f"no module {parts[0]}"
    for j in range(i, len(parts)):
        try:
            obj = getattr(obj, parts[j])
        except AttributeError:
            return f"{'.'.join(parts[:j])} has no attribute {parts[j]!r}"
    return None


def resolver_main():
    """Subprocess side of resolve_in_beam: symbols as JSON on stdin, answers on stdout."""
    import ray
    errors = {}
    for symbol in json.load(sys.stdin):
        try:
            errors[symbol] = resolve(symbol)
        except Exception as e:  # a broken __getattr__ is an answer too
            errors[symbol] = f"{type(e).__name__}: {e}"
    json.dump({"ray_file": ray.__file__, "errors": errors}, sys.stdout)


def resolve_in_beam(symbols, beam_python=BEAM_PYTHON, python=sys.executable):
    """Resolve each symbol against beam's ``ray`` in a fresh interpreter whose only extra
    paths are beam's python/ directory and this tool's, so a real Ray (or a beam install)
    in the caller's environment cannot answer for it.
    Returns {symbol: None or why it does not resolve}."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTHON")}
    env["PYTHONPATH"] = str(beam_python)
    code = (f"import sys; sys.path.append({str(Path(__file__).resolve().parent)!r}); "
            "import scan_vllm_ray; scan_vllm_ray.resolver_main()")
    proc = subprocess.run([python, "-s", "-c", code], input=json.dumps(sorted(symbols)),
                          capture_output=True, text=True, env=env, cwd=str(beam_python))
    if proc.returncode != 0:
        sys.exit(f"scan: could not import beam's ray from {beam_python}:\n{proc.stderr}")
    out = json.loads(proc.stdout)
    if not Path(out["ray_file"]).resolve().is_relative_to(Path(beam_python).resolve()):
        sys.exit(f"scan: resolved ray from {out['ray_file']}, not from {beam_python}")
    return out["errors"]


def out_of_scope_reason(symbol):
    """The table's reason for SYMBOL (or for a pattern above it), else None."""
    for pattern, reason in OUT_OF_SCOPE.items():
        if fnmatch.fnmatchcase(symbol, pattern) or fnmatch.fnmatchcase(symbol, pattern + ".*"):
            return reason
    return None


def classify(found, errors):
    """One row per symbol: present if it resolves in beam; else out of scope if the table
    covers it or every use is one Python never runs (typing only); else missing. A
    MUST_BE_ABSENT symbol that resolves is 'must be absent'."""
    rows = []
    for symbol, uses in sorted(found.items()):
        error, reason = errors[symbol], out_of_scope_reason(symbol)
        if symbol in MUST_BE_ABSENT and error is None:
            status = "must be absent"
        elif error is None:
            status, reason = "present", ""
        elif reason:
            status = "out of scope"
        elif all(typing for _, _, typing in uses):
            status, reason = "out of scope", f"typing only, never evaluated ({error})"
        else:
            status, reason = "missing", error
        rows.append({"symbol": symbol, "status": status, "reason": reason,
                     "uses": [{"file": f, "line": n, "typing_only": t} for f, n, t in uses]})
    return rows


def summary(rows):
    """``present N, out of scope M, missing K`` (plus any symbol that must be absent)."""
    count = {s: sum(r["status"] == s for r in rows)
             for s in ("present", "out of scope", "missing", "must be absent")}
    line = f"present {count['present']}, out of scope {count['out of scope']}, " \
           f"missing {count['missing']}"
    if count["must be absent"]:
        line += f", must be absent {count['must be absent']}"
    return line, count


def print_table(rows, out):
    """Text table, missing symbols first; uses are the first three file:line places."""
    order = {"missing": 0, "must be absent": 1, "out of scope": 2, "present": 3}
    cells = [(r["symbol"], r["status"],
              ", ".join(f"{u['file']}:{u['line']}" for u in r["uses"][:3])
              + (f" (+{len(r['uses']) - 3})" if len(r["uses"]) > 3 else ""), r["reason"])
             for r in sorted(rows, key=lambda r: (order[r["status"]], r["symbol"]))]
    head = ("symbol", "status", "used at", "reason")
    widths = [max(len(c[i]) for c in cells + [head]) for i in range(3)]
    for c in [head] + cells:
        print("  ".join(c[i].ljust(widths[i]) for i in range(3)) + "  " + c[3], file=out)


def pip(*args, env=None):
    """Run this interpreter's pip (the ordinary PyPI client) and capture its output."""
    return subprocess.run([sys.executable, "-m", "pip", *args], capture_output=True,
                          text=True, env=env)


def latest_version():
    """The newest vLLM release on PyPI, as ``pip index versions`` reports it."""
    proc = pip("index", "versions", "vllm")
    match = re.search(r"^vllm \(([^)]+)\)", proc.stdout, re.M)
    if not match:
        sys.exit(f"scan: pip index versions vllm failed:\n{proc.stderr}")
    return match.group(1)


def fetch_sdist(version, cache=CACHE):
    """Unpacked sdist of vLLM VERSION under CACHE/vllm-VERSION/src, fetched once with pip.

    ``pip download --no-binary :all:`` must build an sdist's metadata before it saves the
    archive, and vLLM's build needs torch, which has no sdist, so the download itself
    always ends in an error. ``--no-build-isolation`` skips installing build deps (the
    build then fails at once on ``import torch``) and ``--no-clean`` keeps the sdist pip
    already unpacked in its temp dir (TMPDIR points into the cache): that tree is the sdist.
    A plain success (the .tar.gz in the cache) is handled too."""
    dest = Path(cache) / f"vllm-{version}"
    src = dest / "src"
    if (src / "PKG-INFO").is_file():
        return src
    tmp = dest / "tmp"
    shutil.rmtree(tmp, ignore_errors=True)
    tmp.mkdir(parents=True)
    proc = pip("download", f"vllm=={version}", "--no-deps", "--no-binary", ":all:",
               "--no-build-isolation", "--no-clean", "-d", str(dest),
               env=dict(os.environ, TMPDIR=str(tmp)))
    for archive in dest.glob(f"vllm-{version}.tar.gz"):
        with tarfile.open(archive) as tar:
            safe = {"filter": "data"} if hasattr(tarfile, "data_filter") else {}
            tar.extractall(tmp / "unpacked", **safe)
    for info in list(tmp.glob("*/PKG-INFO")) + list(tmp.glob("*/*/PKG-INFO")):
        if re.search(rf"^Version: {re.escape(version)}$", info.read_text(errors="replace"), re.M):
            info.parent.rename(src)
            break
    shutil.rmtree(tmp, ignore_errors=True)
    if not (src / "PKG-INFO").is_file():
        sys.exit(f"scan: could not fetch the vllm=={version} sdist:\n{proc.stdout[-2000:]}"
                 f"{proc.stderr[-2000:]}")
    return src


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    where = p.add_mutually_exclusive_group(required=True)
    where.add_argument("--src", help="vLLM source tree: a checkout or an unpacked sdist")
    where.add_argument("--version", help="fetch this vLLM release's sdist from PyPI")
    where.add_argument("--latest", action="store_true", help="fetch the newest vLLM release")
    p.add_argument("--include-tests", action="store_true",
                   help="also scan tests/, benchmarks/ and examples/")
    p.add_argument("--json", metavar="PATH", help="write machine-readable results ('-': stdout)")
    p.add_argument("--cache-dir", default=str(CACHE), help="where sdists are kept (%(default)s)")
    p.add_argument("--beam-python", default=str(BEAM_PYTHON),
                   help="directory holding beam's ray package (%(default)s)")
    return p.parse_args(argv)


def main(argv=None):
    """Scan, classify, report. Exit code 1 when anything vLLM uses is missing."""
    args = parse_args(argv)
    version = latest_version() if args.latest else args.version
    src = Path(args.src) if args.src else fetch_sdist(version, args.cache_dir)
    if not src.is_dir():
        sys.exit(f"scan: {src} is not a directory")
    found = scan(src, args.include_tests)
    rows = classify(found, resolve_in_beam(found, args.beam_python))
    line, count = summary(rows)
    out = sys.stderr if args.json == "-" else sys.stdout  # keep stdout pure JSON then
    print_table(rows, out)
    print(line, file=out)
    if args.json:
        text = json.dumps({"source": str(src), "vllm_version": version,
                           "include_tests": args.include_tests, "summary": count,
                           "symbols": rows}, indent=2) + "\n"
        sys.stdout.write(text) if args.json == "-" else Path(args.json).write_text(text)
    return 1 if count["missing"] or count["must be absent"] else 0


if __name__ == "__main__":
    sys.exit(main())
