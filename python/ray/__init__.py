"""beam: a small drop-in replacement for the slice of Ray that vLLM uses.

The public names below mirror Ray 2.58's ``ray`` module; the implementation lives in
``ray._beam``. A Java daemon per node does placement and process management; this package
is the thin client (and the actor worker) that speaks to it over a unix socket.
"""

from ray._beam.coexist import check as _beam_coexist_check

_beam_coexist_check()  # refuse a beam/Ray mix, with the fix (docs/PACKAGING.md)
del _beam_coexist_check

from ray import exceptions  # noqa: F401,E402  (import order: exceptions first, everything uses it)
from ray._beam.actors import get_actor, kill, remote
from ray._beam.api import get, put, wait
from ray._beam.client import init, is_initialized, shutdown
from ray._beam.context import get_gpu_ids, get_runtime_context
from ray._beam.objects import ObjectRef
from ray._beam.state import available_resources, cluster_resources, nodes

__version__ = "2.58.0"


def method(*args, **kwargs):
    """``@ray.method(...)``: accepted for compatibility; options other than
    ``num_returns=1`` have no effect in beam."""
    def wrap(fn):
        return fn

    if len(args) == 1 and callable(args[0]) and not kwargs:
        return args[0]
    return wrap


from ray import actor, runtime_env, types, util  # noqa: E402,F401
from ray import _private  # noqa: E402,F401

__all__ = [
    "__version__", "ObjectRef", "available_resources", "cluster_resources", "exceptions",
    "get", "get_actor", "get_gpu_ids", "get_runtime_context", "init", "is_initialized",
    "kill", "method", "nodes", "put", "remote", "shutdown", "wait", "actor", "util",
    "runtime_env", "types",
]
