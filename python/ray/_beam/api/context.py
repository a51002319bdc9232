"""``ray.get_runtime_context()``, ``ray.get_gpu_ids()`` and ``get_node_ip_address()``.

In a driver the answers come from the daemon's hello reply; inside an actor they also
come from the ``actor_init`` frame (actor id, device ids per accelerator resource, placement
group, runtime env). The daemon chose the ids and set the visibility variables before the
worker started; nothing here touches the environment.
"""

from __future__ import annotations

import socket
from typing import Dict, List, Optional

from ray._beam.api import client
from ray._beam.api.actors import ActorHandle
from ray._beam.api.ids import JobID, NodeID
from ray.runtime_env import RuntimeEnv

ACCELERATOR_KEYS = ("GPU", "HPU", "NPU", "RBLN", "TTNPU", "FURIOSA", "MBLT", "TPU", "neuron_cores")


def _actor() -> dict:
    c = client.get_client()
    return (c.actor or {}) if c is not None else {}


def _accelerator_ids() -> Dict[str, List[str]]:
    return {str(k): [str(i) for i in v] for k, v in (_actor().get("accelerator_ids") or {}).items()}


def gpu_id_strings() -> List[str]:
    return _accelerator_ids().get("GPU", [])


def get_gpu_ids() -> list:
    """GPU ids assigned to this actor (ints where they are numeric); [] in a driver."""
    out = []
    for g in gpu_id_strings():
        out.append(int(g) if g.isdigit() else g)
    return out


def get_node_ip_address() -> str:
    """The daemon's node IP; before ray.init, the address of the default route."""
    c = client.get_client()
    if c is not None and c.node_ip:
        return c.node_ip
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        s.connect(("8.8.8.8", 80))  # no packet is sent; this picks the outgoing interface
        return s.getsockname()[0]
    except OSError:
        return "127.0.0.1"
    finally:
        s.close()


class RuntimeContext:
    """Ray's RuntimeContext, answered from local state (no round trips)."""

    def _c(self):
        return client.ensure()

    def get_node_id(self) -> str:
        return self._c().node_id

    def get_node_labels(self) -> Dict[str, str]:
        """The labels of the node this process runs on (Ray's node labels: ray.io/node-id among them)."""
        return dict(self._c().node_labels)

    def get_job_id(self) -> str:
        c = self._c()
        return (c.actor or {}).get("job_id") or c.job_id

    def get_actor_id(self) -> Optional[str]:
        self._c()
        return _actor().get("actor_id")

    def get_actor_name(self) -> Optional[str]:
        return _actor().get("name")

    def get_task_id(self) -> Optional[str]:
        return None

    def get_worker_id(self) -> str:
        return ""

    def get_placement_group_id(self) -> Optional[str]:
        return _actor().get("pg_id")

    def get_accelerator_ids(self) -> Dict[str, List[str]]:
        ids = {key: [] for key in ACCELERATOR_KEYS}
        ids.update(_accelerator_ids())
        return ids

    def get_assigned_resources(self) -> Dict[str, float]:
        return dict(_actor().get("resources") or {})

    def get_runtime_env_string(self) -> str:
        import json

        return json.dumps(dict(self.runtime_env))

    def was_current_actor_reconstructed(self) -> bool:
        return False

    @property
    def gcs_address(self) -> str:
        return self._c().gcs_address

    @property
    def namespace(self) -> str:
        c = self._c()
        return (c.actor or {}).get("namespace") or c.namespace

    @property
    def node_id(self):
        return NodeID(self.get_node_id())

    @property
    def job_id(self):
        return JobID(self.get_job_id())

    @property
    def runtime_env(self):
        c = self._c()
        env = (c.actor or {}).get("runtime_env") if c.actor else c.job_runtime_env
        return RuntimeEnv(**(env or {}))

    @property
    def current_actor(self):
        actor = _actor()
        if not actor:
            raise RuntimeError("This method is only available in an actor.")
        return ActorHandle(actor["actor_id"], actor.get("class_name", "Actor"),
                           actor.get("methods") or (), bool(actor.get("is_async")),
                           int(actor.get("max_concurrency") or 1))

    def get(self) -> dict:
        out = {"job_id": self.job_id, "node_id": self.node_id, "namespace": self.namespace}
        if _actor():
            out["actor_id"] = self.get_actor_id()
        return out


def get_runtime_context() -> RuntimeContext:
    """Connects (``ray.init()``) if this process is not connected yet, as Ray 2.60 does."""
    client.ensure()
    return RuntimeContext()
