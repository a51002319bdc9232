"""Actor options: Ray's option names, checked like Ray, turned into create_actor options.

Options that matter to beam (resources, placement, env vars, concurrency, names) are sent
to the daemon; options Ray knows but beam has no use for are accepted silently; unknown
names raise ValueError as Ray does.
"""

from __future__ import annotations

import inspect
import logging
import warnings
from typing import Any, Dict, Optional

from ray._beam.api.pgs import OBJECT_STORE_MEMORY_DEPRECATED, PlacementGroup, PlacementGroupSchedulingStrategy
from ray._beam.api.strategies import NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy

logger = logging.getLogger("ray")

# Every actor option name Ray 2.58 accepts.
ACTOR_OPTIONS = (
    "accelerator_type", "memory", "name", "num_cpus", "num_gpus", "object_store_memory",
    "placement_group", "placement_group_bundle_index", "placement_group_capture_child_tasks",
    "resources", "runtime_env", "scheduling_strategy", "_metadata", "enable_task_events",
    "_labels", "label_selector", "fallback_strategy", "concurrency_groups", "lifetime",
    "max_concurrency", "max_restarts", "max_task_retries", "max_pending_calls", "namespace",
    "get_if_exists", "allow_out_of_order_execution", "enable_tensor_transport",
    "_owner", "_generator_backpressure_num_objects", "tensor_transport",
)

RUNTIME_ENV_KEYS_USED = {"env_vars"}
_warned: set = set()


def check(options: Dict[str, Any]) -> None:
    """Reject unknown option names and obviously wrong values, with Ray's wording."""
    for key in options:
        if key not in ACTOR_OPTIONS:
            raise ValueError(f"Invalid option keyword {key} for actors. "
                             f"Valid ones are {list(ACTOR_OPTIONS)}.")
    for key in ("num_cpus", "num_gpus", "memory", "object_store_memory"):
        value = options.get(key)
        if value is not None and (not isinstance(value, (int, float)) or isinstance(value, bool)
                                  or value < 0):
            raise ValueError(f"The keyword '{key}' only accepts None, 0 or a positive number, "
                             f"got {value!r}.")
    resources = options.get("resources")
    if resources is not None:
        if not isinstance(resources, dict):
            raise TypeError(f"The 'resources' option must be a dict, got {type(resources)}.")
        if "CPU" in resources or "GPU" in resources:
            raise ValueError("Use the 'num_cpus' and 'num_gpus' keyword instead of 'CPU' and "
                             "'GPU' in 'resources' keyword")
    for key in ("max_restarts", "max_task_retries"):
        value = options.get(key)
        if value not in (None, 0):
            raise ValueError(
                f"{key}={value!r}: beam does not restart actors or retry their calls (actor "
                f"restarts are out of its scope); a dead actor stays dead and its calls fail "
                f"with ActorDiedError. Leave {key} unset or 0, and create a new actor instead.")
    if options.get("object_store_memory") is not None:
        warnings.warn(OBJECT_STORE_MEMORY_DEPRECATED.format("actors"), DeprecationWarning,
                      stacklevel=3)
    mc = options.get("max_concurrency")
    if mc is not None and (not isinstance(mc, int) or isinstance(mc, bool) or mc < 1):
        raise ValueError(f"max_concurrency must be a positive integer, got {mc!r}.")
    lifetime = options.get("lifetime")
    if lifetime not in (None, "detached", "non_detached"):
        raise ValueError("actor `lifetime` argument must be one of 'detached', "
                         f"'non_detached' and 'None'. Got {lifetime!r}.")


def check_merged(options: Dict[str, Any]) -> Dict[str, Any]:
    """The rules on a class's options together with ``.options()``'s, as Ray checks them."""
    if options.get("get_if_exists") and not options.get("name"):
        raise ValueError("The actor name must be specified to use `get_if_exists`.")
    return options


def class_methods(cls) -> list:
    """Public and dunder-call method names the daemon will accept for this class."""
    names = [name for name, member in inspect.getmembers(cls)
             if callable(member) and (not name.startswith("__") or name == "__call__")]
    return sorted(set(names) | {"__ray_ready__", "__ray_terminate__"})


def repr_name(instance) -> str:
    """Ray's repr_name: repr() of the instance when its class defines its own __repr__, else ""."""
    if type(instance).__repr__ is object.__repr__:
        return ""
    try:
        return repr(instance)
    except Exception as e:  # a broken __repr__ must not fail the actor's start
        return f"<repr failed: {type(e).__name__}: {e}>"


def method_num_returns(cls) -> Dict[str, int]:
    """The methods whose @ray.method(num_returns=N) is not 1, by name."""
    found = {}
    for name, member in inspect.getmembers(cls, callable):
        n = getattr(member, "__ray_num_returns__", None)
        if n is not None and n != 1:
            found[name] = n
    return found


def is_async_class(cls) -> bool:
    return any(inspect.iscoroutinefunction(m) or inspect.isasyncgenfunction(m)
               for _n, m in inspect.getmembers(cls, inspect.isfunction))


def runtime_env_dict(env) -> dict:
    if env is None:
        return {}
    if not isinstance(env, dict):
        raise TypeError(f"runtime_env must be a dict or RuntimeEnv, got {type(env)}")
    return dict(env)


def merged_runtime_env(job_env: dict, actor_env) -> dict:
    """Ray merges the job's runtime_env into each actor's; the actor's keys win."""
    actor = runtime_env_dict(actor_env)
    merged = {**job_env, **actor}
    env_vars = {**(job_env.get("env_vars") or {}), **(actor.get("env_vars") or {})}
    if env_vars:
        merged["env_vars"] = {str(k): str(v) for k, v in env_vars.items()}
    for key in merged:
        if key not in RUNTIME_ENV_KEYS_USED and key not in _warned:
            _warned.add(key)
            logger.warning("beam ignores runtime_env[%r]; only env_vars is applied.", key)
    return merged


def wire_options(options: Dict[str, Any], cls, job_env: dict) -> dict:
    """The ``options`` object of a create_actor request (docs/PROTOCOL.md)."""
    pg, bundle_index = options.get("placement_group"), options.get("placement_group_bundle_index", -1)
    strategy = options.get("scheduling_strategy")
    if isinstance(strategy, PlacementGroupSchedulingStrategy):
        pg, bundle_index = strategy.placement_group, strategy.placement_group_bundle_index
    if pg == "default":
        pg = None
    if pg is not None and not isinstance(pg, PlacementGroup):
        raise TypeError(f"placement_group must be a PlacementGroup, got {type(pg)}")
    if pg is not None and pg.is_empty:
        pg = None
    is_async = is_async_class(cls)
    runtime_env = merged_runtime_env(job_env, options.get("runtime_env"))
    max_concurrency = options.get("max_concurrency") or (1000 if is_async else 1)
    resources = {k: float(v) for k, v in (options.get("resources") or {}).items()}
    if options.get("accelerator_type"):
        # as Ray: a sliver of the node resource a detected model adds (accelerator_type:H200)
        resources[f"accelerator_type:{options['accelerator_type']}"] = 0.001
    return {
        "num_cpus": float(held_cpus(options)),
        "num_gpus": float(options.get("num_gpus") or 0),
        "resources": resources,
        "pg_id": pg.id.hex() if pg is not None else None,
        "bundle_index": int(bundle_index if bundle_index is not None else -1),
        "env_vars": dict(runtime_env.get("env_vars") or {}),
        "runtime_env": runtime_env,
        "max_concurrency": int(max_concurrency),
        "is_async": is_async,
        "lifetime": "detached" if options.get("lifetime") == "detached" else None,
        "methods": class_methods(cls),
        "node_affinity": node_affinity(strategy),
        "spread": strategy == "SPREAD",
        "label_selector": options.get("label_selector"),  # checked by the daemon, with Ray's words
        "node_labels": strategy.wire() if isinstance(strategy, NodeLabelSchedulingStrategy) else None,
    }


def held_cpus(options: Dict[str, Any]) -> float:
    """The CPUs an actor holds while it lives, as Ray decides it: ``num_cpus`` when given;
    else none for an actor that asks for nothing (Ray: 1 to place it, 0 while it runs, and beam
    does not run its methods as tasks), and 1 for one that asks for any other resource (GPUs,
    custom resources, an accelerator type; memory does not count), which Ray then holds for
    the actor's life."""
    if options.get("num_cpus") is not None:
        return options["num_cpus"]
    asked = options.get("num_gpus") is not None or bool(options.get("resources")) or bool(options.get("accelerator_type"))
    return 1 if asked else 0


def node_affinity(strategy) -> Optional[dict]:
    """NodeAffinitySchedulingStrategy as the daemon takes it; a node id that is not hex is
    refused here with Ray's words."""
    if not isinstance(strategy, NodeAffinitySchedulingStrategy):
        return None
    node_id = strategy.node_id
    try:
        if not isinstance(node_id, str) or len(bytes.fromhex(node_id)) != 28:
            raise ValueError
    except ValueError:
        raise ValueError(f"Invalid node_id '{node_id}'. Node ID must be a valid hex string. To get a list of all "
                         "nodes and their IDs in your cluster, use ray.nodes(). See https://docs.ray.io/en/latest/"
                         "ray-core/miscellaneous.html#node-information for more details.") from None
    return {"node_id": node_id.lower(), "soft": bool(strategy.soft)}
