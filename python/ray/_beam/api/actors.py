"""``ray.remote`` for classes: ActorClass, ActorHandle, ActorMethod, kill, get_actor.

beam supports actors only (vLLM uses only actors): ``@ray.remote`` on a function raises a
TypeError saying so. The method list and whether the class is async are computed here and
sent with create_actor, so the daemon can reject bad method names without unpickling.
"""

from __future__ import annotations

import inspect
from typing import Any, Dict, Optional


from ray._beam.api import pickling
from ray._beam.api import client, handlecount, ids, options, returns
from ray._beam.api.ids import ActorID
from ray._beam.api.objects import ObjectRef
from ray._beam.api.submit import top_level_refs

_DAG_MSG = "compiled graphs are not supported by beam (ray.dag / .bind())"
_REMOTE_USAGE = ("The @ray.remote decorator must be applied either with no arguments and no "
                 "parentheses, for example '@ray.remote', or it must be applied using some of "
                 f"the arguments in the list {list(options.ACTOR_OPTIONS)}, for example "
                 "'@ray.remote(num_returns=2, resources={\"CustomResource\": 1})'.")


class ActorClassInheritanceException(TypeError):
    pass


class _NoSubclass:
    """What ``class B(MyActor)`` derives from (ActorClass.__mro_entries__): defining B fails
    with Ray's error, which names both classes."""

    def __init_subclass__(cls, **kwargs):
        if "_ray_actor_class_name" in cls.__dict__:  # the stand-in for one actor class
            return
        raise ActorClassInheritanceException(
            f"Attempted to define subclass '{cls.__name__}' of actor class "
            f"'{cls._ray_actor_class_name}'. Inheriting from actor classes is not currently "
            "supported. You can instead inherit from a non-actor base class and make the "
            "derived class an actor class (with @ray.remote).")


def remote(*args, **kwargs):
    """``@ray.remote`` / ``@ray.remote(**options)`` / ``ray.remote(Cls)``."""
    if len(args) == 1 and not kwargs and callable(args[0]):
        return _make(args[0], {})
    if args:
        raise TypeError(_REMOTE_USAGE)
    if not kwargs:  # @ray.remote(): Ray refuses empty parentheses
        raise AssertionError(_REMOTE_USAGE)
    return lambda obj: _make(obj, kwargs)


def _make(obj, opts: Dict[str, Any]):
    if inspect.isclass(obj):
        options.check(opts)
        return ActorClass(obj, options.check_merged(opts))
    raise TypeError(
        f"beam supports actors only: @ray.remote was applied to {obj!r}, which is not a "
        "class. Remote functions (tasks) are not implemented; vLLM uses only actors. Wrap "
        "the function in a class with a method and use an actor instead.")


class ActorClass:
    """What ``ray.remote(Cls)`` returns: ``.remote(...)`` creates an actor."""

    def __init__(self, cls, opts: Dict[str, Any]):
        self.__ray_class__ = cls
        self._default_options = dict(opts)
        self.__name__ = cls.__name__
        self.__qualname__ = getattr(cls, "__qualname__", cls.__name__)
        self.__module__ = cls.__module__
        self.__doc__ = cls.__doc__

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Actors cannot be instantiated directly. Instead of "
                        f"'{self.__name__}()', use '{self.__name__}.remote()'.")

    def __getattr__(self, name: str):
        """Class attributes, staticmethods and classmethods of the decorated class, as in
        Ray: a method's ``MyActor.CONST`` (the module's ``MyActor`` is this object)."""
        cls = self.__dict__.get("__ray_class__")
        if cls is None or (name.startswith("__") and name.endswith("__")):
            raise AttributeError(name)
        member = inspect.getattr_static(cls, name)  # AttributeError when there is none
        if inspect.isfunction(member):
            raise AttributeError(f"'{self.__name__}.{name}' is an actor method: call it on a "
                                 f"handle, '{self.__name__}.remote().{name}.remote()'.")
        return getattr(cls, name)

    def __mro_entries__(self, bases):
        return (type("ActorClass", (_NoSubclass,), {"_ray_actor_class_name": self.__name__}),)

    def options(self, **opts) -> "_BoundActorClass":
        options.check(opts)
        return _BoundActorClass(self, options.check_merged({**self._default_options, **opts}))

    def remote(self, *args, **kwargs) -> "ActorHandle":
        return create(self.__ray_class__, self._default_options, args, kwargs)

    def bind(self, *args, **kwargs):
        raise NotImplementedError(_DAG_MSG)


class _BoundActorClass:
    def __init__(self, actor_class: ActorClass, opts: Dict[str, Any]):
        self._actor_class = actor_class
        self._options = opts

    def options(self, **opts) -> "_BoundActorClass":
        options.check(opts)
        return _BoundActorClass(self._actor_class, options.check_merged({**self._options, **opts}))

    def remote(self, *args, **kwargs) -> "ActorHandle":
        return create(self._actor_class.__ray_class__, self._options, args, kwargs)

    def bind(self, *args, **kwargs):
        raise NotImplementedError(_DAG_MSG)


def create(cls, opts: Dict[str, Any], args: tuple, kwargs: dict) -> "ActorHandle":
    """Send create_actor (a short request: the daemon answers once it has validated it)."""
    c = client.ensure()
    name = opts.get("name")
    if name is not None and not isinstance(name, str):
        raise TypeError(f"name must be None or a string, got: '{type(name)}'.")
    if name == "":
        raise ValueError("Actor name cannot be an empty string.")
    _check_constructor_args(cls, args, kwargs)
    if opts.get("lifetime") is None:  # ray.init(job_config=JobConfig(default_actor_lifetime=...))
        opts = {**opts, "lifetime": getattr(c, "default_actor_lifetime", None)}
    wire = options.wire_options(opts, cls, c.job_runtime_env)
    if top_level_refs(args, kwargs):  # creation args are resolved before sending, blocking
        args = tuple(_value(c, a) for a in args)
        kwargs = {k: _value(c, v) for k, v in kwargs.items()}
    payload = pickling.dumps((cls, args, kwargs))
    actor_id = ids.new_actor_id(c.job_id)
    # get_if_exists is decided by the head under its lock (atomic across threads and drivers):
    # its reply names the live actor holding the name, which is this one only if it was free.
    reply = c.request("create_actor", {"actor_id": actor_id, "class_name": cls.__name__,
                                       "name": name, "namespace": opts.get("namespace"), "options": wire,
                                       "get_if_exists": bool(opts.get("get_if_exists"))}, payload)
    if reply.get("actor_id", actor_id) != actor_id:
        handle = _handle_from_reply(reply)
    else:
        handle = ActorHandle(actor_id, cls.__name__, wire["methods"], wire["is_async"],
                             wire["max_concurrency"])
    handle._ray_method_num_returns = options.method_num_returns(cls)
    return handle


def _check_constructor_args(cls, args: tuple, kwargs: dict) -> None:
    """A TypeError at ``.remote()``, as Ray, when the arguments cannot bind to __init__."""
    try:
        signature = inspect.signature(cls.__init__)
    except (TypeError, ValueError):  # a builtin __init__ without a signature
        return
    signature.bind(None, *args, **kwargs)  # None stands for self


def _value(c, a):
    return c.table.get([a.hex()], None)[0] if isinstance(a, ObjectRef) else a


class ActorHandle:
    """A handle to an actor; ``handle.method.remote(...)`` returns an ObjectRef at once."""

    def __init__(self, actor_id: str, class_name: str, methods, is_async: bool = False,
                 max_concurrency: int = 1):
        self._ray_actor_id_hex = actor_id
        self._ray_class_name = class_name
        self._ray_methods = frozenset(methods)
        self._ray_is_async = is_async
        self._ray_max_concurrency = max_concurrency
        handlecount.created(actor_id)

    def __del__(self):
        handlecount.dropped(self.__dict__.get("_ray_actor_id_hex", ""))

    @property
    def _actor_id(self) -> ActorID:
        return ActorID(self._ray_actor_id_hex)

    def __getattr__(self, name: str):
        methods = self.__dict__.get("_ray_methods", ())
        if name in methods:
            return ActorMethod(self, name)
        raise AttributeError(f"'ActorHandle' object has no attribute '{name}'")

    def __repr__(self):
        return f"Actor({self._ray_class_name}, {self._ray_actor_id_hex})"

    def __eq__(self, other):
        return isinstance(other, ActorHandle) and other._ray_actor_id_hex == self._ray_actor_id_hex

    def __hash__(self):
        return hash(self._ray_actor_id_hex)

    def __reduce__(self):
        handlecount.leaving(self._ray_actor_id_hex)
        return (_arrived_handle, (self._ray_actor_id_hex, self._ray_class_name,
                              sorted(self._ray_methods), self._ray_is_async,
                              self._ray_max_concurrency),
                {"_ray_method_num_returns": self.__dict__.get("_ray_method_num_returns") or {}})


ActorHandle.__module__ = "ray.actor"


def _arrived_handle(actor_id, class_name, methods, is_async=False, max_concurrency=1):
    """An unpickled handle: counted here, and borrowed from the head (handlecount)."""
    handle = ActorHandle(actor_id, class_name, methods, is_async, max_concurrency)
    handlecount.arrived(actor_id)
    return handle


class ActorMethod:
    """``handle.method``: ``.remote(*args, **kwargs)`` and ``.options(...)``."""

    def __init__(self, handle: ActorHandle, name: str, num_returns: Optional[int] = None):
        self._handle = handle
        self._method_name = name
        self._num_returns = num_returns  # None: the method's own (@ray.method), else 1

    def remote(self, *args, **kwargs):
        """One ObjectRef; with num_returns=N a list of N (None for 0), as Ray."""
        c = client.ensure()
        ref = c.submitter.submit(self._handle._ray_actor_id_hex, self._method_name, args, kwargs)
        n = self._num_returns
        if n is None:
            n = (self._handle.__dict__.get("_ray_method_num_returns") or {}).get(self._method_name, 1)
        if n == 1:
            return ref
        return returns.split(c.table, ref, n, f"{self._handle._ray_class_name}.{self._method_name}")

    def options(self, **opts) -> "ActorMethod":
        num_returns = opts.get("num_returns", self._num_returns)
        if num_returns is not None:
            returns.check(num_returns)
        return ActorMethod(self._handle, self._method_name, num_returns)

    def bind(self, *args, **kwargs):
        raise NotImplementedError(_DAG_MSG)

    def __call__(self, *args, **kwargs):
        raise TypeError(f"Actor methods cannot be called directly. Instead of running "
                        f"'object.{self._method_name}()', try "
                        f"'object.{self._method_name}.remote()'.")


ActorMethod.__module__ = "ray.actor"
ActorClass.__module__ = "ray.actor"


def kill(actor, *, no_restart: bool = True) -> None:
    if not isinstance(actor, ActorHandle):
        raise ValueError("ray.kill() only supported for actors. For tasks, try ray.cancel(). "
                         f"Got: {type(actor)}.")
    client.ensure().request("kill", {"actor_id": actor._ray_actor_id_hex,
                                     "no_restart": bool(no_restart)})


def get_actor(name: str, namespace: Optional[str] = None) -> ActorHandle:
    if not name or not isinstance(name, str):
        raise ValueError("Please supply a non-empty value to get_actor")
    return _handle_from_reply(client.ensure().request("get_actor", {"name": name, "namespace": namespace}))


def _handle_from_reply(reply: dict) -> ActorHandle:
    """A handle to an existing actor, from the head's description of it (get_actor, get-or-create)."""
    return ActorHandle(reply["actor_id"], reply.get("class_name", "Actor"),
                       reply.get("methods") or (), bool(reply.get("is_async")),
                       int(reply.get("max_concurrency") or 1))
