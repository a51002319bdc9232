"""``repr_name`` in the state API, as Ray: the actor's repr() when its class defines
``__repr__``, else empty. The pytest process is the driver (the module's `cluster`)."""

import ray
from ray.util.state import get_actor, list_actors


@ray.remote(num_cpus=0)
class Shown:
    def __init__(self, n):
        self.n = n

    def __repr__(self):
        return f"Shown(n={self.n})"

    def ping(self):
        return 1


@ray.remote(num_cpus=0)
class Plain:
    def ping(self):
        return 1


def test_repr_name_is_the_actors_own_repr(cluster):
    shown, plain = Shown.remote(7), Plain.remote()
    assert ray.get([shown.ping.remote(), plain.ping.remote()], timeout=60) == [1, 1]
    rows = {row["actor_id"]: row for row in list_actors(detail=True, limit=1000)}
    assert rows[shown._actor_id.hex()]["repr_name"] == "Shown(n=7)"
    assert rows[plain._actor_id.hex()]["repr_name"] == ""
    assert get_actor(shown._actor_id.hex())["repr_name"] == "Shown(n=7)"
    ray.kill(shown)
    ray.kill(plain)
