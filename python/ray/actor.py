"""``ray.actor``: the actor handle types (implemented in ray._beam.api.actors)."""

from ray._beam.api import client
from ray._beam.api.actors import (  # noqa: F401
    ActorClass, ActorClassInheritanceException, ActorHandle, ActorMethod)


def exit_actor() -> None:
    """End the current actor from inside one of its methods (Ray's ``ray.actor.exit_actor``).

    The worker runs its atexit handlers and exits, even if the method catches the
    SystemExit raised here; the daemon then fails this and later calls with
    ActorDiedError (INTENDED_USER_EXIT, as Ray words it).
    """
    c = client.get_client()
    if c is None or c.role != "worker":
        raise TypeError("exit_actor API is called on a non-actor worker, the driver. "
                        "Call this API inside an actor methods if you'd like to exit the actor "
                        "gracefully.")
    c.exit_requested = True
    raise SystemExit(0)


__all__ = ["ActorClass", "ActorClassInheritanceException", "ActorHandle", "ActorMethod",
           "exit_actor"]
