"""beam: a small drop-in replacement for the slice of Ray that vLLM uses.

The public names below mirror Ray's ``ray`` module; the implementation lives in
``ray._beam``. A Java daemon per node does placement and process management; this package
is the thin client (and the actor worker) that speaks to it over a unix socket.

The names are loaded on first use (PEP 562 ``__getattr__``): ``import ray`` itself runs only
the coexistence check, so the ``ray`` command (``ray._beam.launch.launcher``) and actor workers
(``ray._beam.worker``) import just the modules they use, not cloudpickle, the client and
the actor machinery (docs/PERFORMANCE.md, "`ray start --head`"). ``ray.remote``,
``from ray import get`` and ``ray.util...`` work as if everything had been imported.
"""

from ray._beam.launch.coexist import check as _beam_coexist_check

_beam_coexist_check()  # refuse a beam/Ray mix, with the fix (docs/PACKAGING.md)
del _beam_coexist_check

from ray._version import RAY as __version__  # noqa: E402


def method(*args, **kwargs):
    """``@ray.method(num_returns=N)``: the method's calls give N ObjectRefs (ray._beam.api.
    returns); its other options have no effect in beam."""
    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    num_returns = kwargs.get("num_returns")
    if num_returns is not None:
        from ray._beam.api import returns

        returns.check(num_returns)

    def wrap(fn):
        if num_returns is not None:
            fn.__ray_num_returns__ = num_returns
        return fn

    return wrap


# name -> (module, attribute in it; None: the name is that submodule of ray)
_LAZY = {
    "exceptions": ("ray.exceptions", None),
    "get_actor": ("ray._beam.api.actors", "get_actor"),
    "kill": ("ray._beam.api.actors", "kill"),
    "remote": ("ray._beam.api.actors", "remote"),
    "get": ("ray._beam.api.getput", "get"),
    "put": ("ray._beam.api.getput", "put"),
    "wait": ("ray._beam.api.getput", "wait"),
    "init": ("ray._beam.api.client", "init"),
    "is_initialized": ("ray._beam.api.client", "is_initialized"),
    "shutdown": ("ray._beam.api.client", "shutdown"),
    "get_gpu_ids": ("ray._beam.api.context", "get_gpu_ids"),
    "get_runtime_context": ("ray._beam.api.context", "get_runtime_context"),
    "ObjectRef": ("ray._beam.api.objects", "ObjectRef"),
    "available_resources": ("ray._beam.api.state", "available_resources"),
    "cluster_resources": ("ray._beam.api.state", "cluster_resources"),
    "nodes": ("ray._beam.api.state", "nodes"),
    "actor": ("ray.actor", None),
    "runtime_env": ("ray.runtime_env", None),
    "job_config": ("ray.job_config", None),
    "types": ("ray.types", None),
    "util": ("ray.util", None),
    "_private": ("ray._private", None),
}


def __getattr__(name):
    """Import what ``ray.NAME`` stands for on first use and keep it as a plain attribute."""
    try:
        module, attr = _LAZY[name]
    except KeyError:
        raise AttributeError(f"module 'ray' has no attribute {name!r}") from None
    import importlib

    value = importlib.import_module(module)
    if attr is not None:
        value = getattr(value, attr)
    globals()[name] = value
    return value


def __dir__():
    return sorted((set(globals()) - {"_LAZY"}) | set(_LAZY))


__all__ = [
    "__version__", "ObjectRef", "available_resources", "cluster_resources", "exceptions",
    "get", "get_actor", "get_gpu_ids", "get_runtime_context", "init", "is_initialized",
    "kill", "method", "nodes", "put", "remote", "shutdown", "wait", "actor", "util",
    "runtime_env", "types",
]
