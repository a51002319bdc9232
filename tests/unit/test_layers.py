"""The Python package's layers (ray/_beam/__init__.py) hold, and no import cycle exists.

Imports are read with ``ast`` from every module under python/ray, those inside functions
too: an import there still ties the two modules together, it only runs later. Imports under
``if TYPE_CHECKING:`` are checked against the layers but are not edges of the cycle check
(they never run). A parent package is not an edge either: the packages' ``__init__`` files
import nothing but ``ray/__init__.py``'s coexistence check.
"""

import ast
import importlib
import os

import pytest

from _paths import ROOT

PACKAGE_DIR = os.path.join(ROOT, "python")

# what each layer of ray._beam may import from ray._beam, and from the rest of ray
MAY_USE = {
    "wire": {"wire"},
    "launch": {"launch"},
    "api": {"wire", "launch", "api"},
    "worker": {"wire", "api", "worker"},
}
# Modules of ray outside ray._beam (prefixes) each layer may import; None: any. ray.* above
# ray._beam is Ray's public face built on api/, so api/ may use only its leaves (data classes
# that import nothing of ray): an import of anything else there points up.
LEAVES = ("ray.exceptions", "ray.runtime_env", "ray._version", "ray.job_config")
MAY_USE_OUTSIDE = {
    "wire": ("ray.exceptions",),
    "launch": ("ray._version",),  # a leaf: beam's versions, for coexist's fix text
    "api": LEAVES,
    "worker": None,
}

# Imports of ray's own modules made inside a function, each for a start-up cost (never to
# dodge a cycle: what two modules both need moves into a lower one, as this process's client
# lives in api/process.py, below refs.py and pgs.py): (importer, imported) -> why.
DEFERRED = {
    ("ray._beam.worker_start", "ray._beam.worker"):
        "an idle pooled worker arms die-with-parent before the worker's imports take their time",
    ("ray._beam.api.client", "ray._beam.launch.discovery"):
        "only a driver finds and starts daemons; actor workers never load it",
    ("ray", "ray._beam.api.returns"):
        "ray.method is reached through ray's lazy names; `import ray` alone loads no object table",
}


def _modules():
    """{module name: path} for every module of the ray package in this checkout."""
    found = {}
    for folder, _dirs, files in os.walk(os.path.join(PACKAGE_DIR, "ray")):
        for f in files:
            if f.endswith(".py"):
                path = os.path.join(folder, f)
                parts = os.path.relpath(path, PACKAGE_DIR)[:-3].split(os.sep)
                found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


MODULES = _modules()


def _is_type_checking(node):
    return isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test)


def _is_ray(module):
    return module == "ray" or module.startswith("ray.")


def _import_nodes(name, path):
    """[(imported module, only under TYPE_CHECKING, inside a function)] of one module, ray's
    modules only."""
    package = name if path.endswith("__init__.py") else name.rpartition(".")[0]
    out = []

    def visit(node, typing_only, in_function):
        for child in ast.iter_child_nodes(node):
            guarded = typing_only or _is_type_checking(child)
            local = in_function or isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                out.extend((a.name, guarded, in_function) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    up = package.split(".")[:len(package.split(".")) - child.level + 1]
                    base = ".".join(up + ([child.module] if child.module else []))
                for a in child.names:  # `from pkg import module` imports that module
                    full = f"{base}.{a.name}"
                    out.append((full if full in MODULES else base, guarded, in_function))
            visit(child, guarded, local)

    with open(path) as f:
        visit(ast.parse(f.read(), path), False, False)
    return [(m, g, f) for m, g, f in out if _is_ray(m) and m != name]


IMPORT_NODES = {name: _import_nodes(name, path) for name, path in MODULES.items()}
IMPORTS = {name: [(m, g) for m, g, _ in found] for name, found in IMPORT_NODES.items()}


def _layer(module):
    """wire, launch, api or worker for a module of ray._beam; None for the rest of ray."""
    parts = module.split(".")
    if parts[:2] != ["ray", "_beam"] or len(parts) == 2:
        return None
    return "worker" if parts[2] == "worker" or parts[2].startswith("worker_") else parts[2]


def test_the_graph_is_read_from_the_real_tree():
    # a parser that found nothing would pass every check below
    assert ("ray._beam.wire.framing", False) in IMPORTS["ray._beam.wire.connection"]
    assert ("ray._beam.launch.discovery", False) in IMPORTS["ray._beam.api.client"]
    assert len(MODULES) > 30


def _function_local(import_nodes):
    return sorted({(module, target) for module, found in import_nodes.items()
                   for target, _, in_function in found if in_function})


def test_no_function_local_import_of_rays_modules():
    found = _function_local(IMPORT_NODES)
    stray = [f"{m} imports {t} inside a function" for m, t in found if (m, t) not in DEFERRED]
    assert stray == [], ("import these at the top of the module; where that makes a cycle, hand "
                         "what both need into a lower module instead (as api/process.py holds the process's client):\n"
                         + "\n".join(stray))
    assert sorted(DEFERRED) == [p for p in found if p in DEFERRED], "DEFERRED names an import that is gone"


def test_the_local_import_check_sees_one():
    source = "import os\ndef f():\n    from ray._beam.api import client\n    import json\n"
    path = os.path.join(os.environ.get("TMPDIR", "/tmp"), f"beam_layers_probe_{os.getpid()}.py")
    with open(path, "w") as f:
        f.write(source)
    try:
        nodes = _import_nodes("ray._beam.api.probe", path)
    finally:
        os.unlink(path)
    assert _function_local({"ray._beam.api.probe": nodes}) == [("ray._beam.api.probe", "ray._beam.api.client")]


def test_the_leaves_api_may_use_import_nothing_of_ray():
    for module, imports in IMPORTS.items():
        leaf = next((p for p in LEAVES if module == p or module.startswith(p + ".")), None)
        if leaf is not None:
            out = [t for t, _ in imports if not (t == leaf or t.startswith(leaf + "."))]
            assert out == [], f"{module} imports {out}: api/ may no longer use {leaf}"


def test_every_beam_module_is_in_a_layer():
    stray = [m for m in MODULES if m.startswith("ray._beam.") and _layer(m) not in MAY_USE]
    assert stray == [], (f"{stray} sit in no layer of ray/_beam/: put each in wire/, launch/ or "
                         "api/ (ray/_beam/__init__.py says which holds what)")


def test_no_layer_imports_what_is_above_it():
    wrong = []
    for module, imports in IMPORTS.items():
        layer = _layer(module)
        if layer is None:
            continue
        for target, _ in imports:
            target_layer = _layer(target)
            if target_layer is not None:
                if target_layer not in MAY_USE[layer]:
                    wrong.append(f"{module} imports {target} ({layer} may use {sorted(MAY_USE[layer])})")
            elif target.startswith("ray._beam"):
                continue  # the ray._beam package itself: a docstring
            elif MAY_USE_OUTSIDE[layer] is not None and not target.startswith(MAY_USE_OUTSIDE[layer]):
                wrong.append(f"{module} imports {target} (the {layer} layer may use only "
                             f"{list(MAY_USE_OUTSIDE[layer]) or 'its own modules'} outside ray._beam)")
    assert wrong == [], "layer rule of ray/_beam/__init__.py broken:\n" + "\n".join(wrong)


def _cycle(graph):
    """One import cycle as a list of modules (first == last), or None."""
    state, stack = {}, []

    def visit(m):
        state[m] = "open"
        stack.append(m)
        for t in sorted(graph.get(m, ())):
            if state.get(t) == "open":
                return stack[stack.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        stack.pop()
        state[m] = "done"
        return None

    for m in sorted(graph):
        if m not in state:
            found = visit(m)
            if found:
                return found
    return None


def test_no_import_cycle():
    graph = {m: {t for t, typing_only in imports if not typing_only and t in MODULES}
             for m, imports in IMPORTS.items()}
    cycle = _cycle(graph)
    assert cycle is None, ("import cycle: " + " -> ".join(cycle) + ". Move what both need into "
                           "the lower module (as api/process.py holds the client that refs.py and pgs.py read)")


def test_the_cycle_check_finds_a_cycle():
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


@pytest.mark.parametrize("module", sorted(MODULES))
def test_each_module_imports(module):
    importlib.import_module(module)
