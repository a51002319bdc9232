"""``ray.actor``: the actor handle types (implemented in ray._beam.api.actors)."""

from ray._beam.api import client
from ray._beam.api.actors import ActorClass, ActorHandle, ActorMethod  # noqa: F401


def exit_actor() -> None:
    """End the current actor from inside one of its methods (Ray's ``ray.actor.exit_actor``).

    The worker exits; the daemon then fails this and later calls with ActorDiedError.
    """
    c = client.get_client()
    if c is None or c.role != "worker":
        raise TypeError("exit_actor API is called on a non-actor worker, the driver. "
                        "Call this API inside an actor methods if you'd like to exit the actor "
                        "gracefully.")
    raise SystemExit(0)


__all__ = ["ActorClass", "ActorHandle", "ActorMethod", "exit_actor"]
