"""``ray.cluster_utils.Cluster``: several real beam daemons on this machine, as Ray's test helper
makes several raylets, so that multi-node code (Ray's own tests included) runs on one host.

Each node is a daemon started as ``ray start`` starts one (localnode.py), in a temp dir of its
own and on a loopback IP of its own (the head 127.0.0.1, the others 127.0.0.2, 127.0.0.3, ...)
unless ``node_ip_address`` is given; the others join the head with its token file. Removing a
node kills its daemon and workers (gracefully or not), which the head sees as a node lost.
With ``shutdown_at_exit`` the daemons also end with this process (``--owner-pid``) and
``shutdown()`` runs at exit; either way ``shutdown()`` leaves no process and no temp dir.

While the head runs, ``RAY_ADDRESS`` names it in this process (unless already set), so a bare
``ray.init()`` connects to it, as Ray's ``ray_current_cluster`` file makes it do.
"""

from __future__ import annotations

import atexit
import io
import ipaddress
import os
import shutil
import tempfile
import time
from typing import List, Optional

from ray._beam.api import client
from ray._beam.api.localnode import LocalNode, start_flags
from ray._beam.launch import discovery, launcher
from ray._beam.wire.connection import Connection

REMOVE_CONNECTED = ("Removing a node that is connected to this Ray client is not allowed because it "
                    "will break the driver. You can use the get_other_node utility to avoid removing "
                    "a node that the Ray client is connected.")


class Cluster:
    """Ray's ``Cluster(initialize_head, connect, head_node_args, shutdown_at_exit)``."""

    def __init__(self, initialize_head: bool = False, connect: bool = False, head_node_args: dict = None,
                 shutdown_at_exit: bool = True):
        if not initialize_head and connect:
            raise RuntimeError("Cannot connect to uninitialized cluster.")
        self.head_node: Optional[LocalNode] = None
        self.worker_nodes = set()
        self.connected = False
        self.redis_address = None
        self._shutdown_at_exit = shutdown_at_exit
        self._next_ip = 1
        self._token_path: Optional[str] = None
        self._set_ray_address = False
        if shutdown_at_exit:
            atexit.register(self.shutdown)
        if initialize_head:
            self.add_node(**(head_node_args or {}))
            if connect:
                self.connect()

    @property
    def gcs_address(self) -> Optional[str]:
        return None if self.head_node is None else self.head_node.gcs_address

    @property
    def address(self) -> Optional[str]:
        return self.gcs_address

    @property
    def webui_url(self) -> Optional[str]:
        return None

    def connect(self, namespace=None):
        """``ray.init`` on this cluster's head."""
        assert self.address is not None
        assert not self.connected
        info = client.init(namespace=namespace, ignore_reinit_error=True, address=self.address)
        self.connected = True
        return info

    def add_node(self, wait: bool = True, **node_args) -> LocalNode:
        """Start a daemon: the head first, then nodes that join it. ``node_args`` are Ray's
        ``RayParams`` names (localnode.py says which beam ignores or refuses)."""
        head = self.head_node is None
        ip = node_args.get("node_ip_address") or self._free_ip()
        temp = tempfile.mkdtemp(prefix="beam-cluster-", dir=_short_tmp(node_args.get("temp_dir")))
        try:
            flags = start_flags(node_args, None if head else self.address, ip, temp, self._token_path)
            if self._shutdown_at_exit:
                flags += ["--owner-pid", str(os.getpid())]
            out, err = io.BytesIO(), io.BytesIO()
            code = launcher.start_detached(flags, out, err, reap=True, env=_env(node_args.get("env_vars")))
            if code != 0:
                said = (err.getvalue() or out.getvalue()).decode("utf-8", "replace").strip()
                raise RuntimeError(f"Cluster.add_node could not start a beam node (`ray start "
                                   f"{' '.join(flags)}` exited with {code}): {said[-2000:]}")
            info = discovery.read_node_json(os.path.join(temp, "session_latest"))
            if info is None:
                raise RuntimeError(f"the beam node started but wrote no node.json under {temp}")
        except BaseException:
            shutil.rmtree(temp, ignore_errors=True)
            raise
        node = LocalNode(info, head, info["address"] if head else self.address, temp)
        if head:
            self.head_node = node
            self.redis_address = node.address
            self._token_path = os.path.join(node.session_dir, "auth_token")
            if not os.environ.get("RAY_ADDRESS"):
                os.environ["RAY_ADDRESS"] = node.address
                self._set_ray_address = True
        else:
            self.worker_nodes.add(node)
        if wait:
            self._wait_for_node(node)
        return node

    def remove_node(self, node: LocalNode, allow_graceful: bool = True) -> None:
        """Stop ``node``'s daemon and workers; the head sees the node lost (or leaving)."""
        c = client.get_client()
        if c is not None and c.conn.address == node.raylet_socket_name:
            client.shutdown()
            raise ValueError(REMOVE_CONNECTED)
        node.kill_all_processes(check_alive=False, allow_graceful=allow_graceful, wait=True)
        if node is self.head_node:
            self.head_node = None
            self._restore_ray_address()
        else:
            self.worker_nodes.remove(node)
        shutil.rmtree(node.temp_dir, ignore_errors=True)

    def _wait_for_node(self, node: LocalNode, timeout: float = 30) -> None:
        """Until the head lists ``node`` alive."""
        deadline = time.monotonic() + timeout
        while node.node_id not in self._live_node_ids():
            if time.monotonic() > deadline:
                raise TimeoutError(f"Timed out after {timeout} s waiting for node {node.node_ip_address} "
                                   f"({node.node_id}) to be alive on the head {self.address}.")
            time.sleep(0.05)

    def wait_for_nodes(self, timeout: float = 30) -> None:
        """Until the head's live nodes are exactly those added and not removed."""
        deadline = time.monotonic() + timeout
        while True:
            live = self._live_node_ids()
            expected = {n.node_id for n in self.list_all_nodes()}
            if live == expected:
                return
            if time.monotonic() > deadline:
                raise TimeoutError(f"Timed out while waiting for nodes to join: the head lists {len(live)} "
                                   f"live nodes, {len(expected)} expected.")
            time.sleep(0.05)

    def list_all_nodes(self) -> List[LocalNode]:
        nodes = list(self.worker_nodes)
        return [self.head_node, *nodes] if self.head_node else nodes

    def remaining_processes_alive(self) -> bool:
        return all(n.remaining_processes_alive() for n in self.list_all_nodes())

    def shutdown(self) -> None:
        """Remove every node, the head last; nothing of the cluster is left."""
        if self.connected:
            client.shutdown()
            self.connected = False
        for node in list(self.worker_nodes):
            self.remove_node(node)
        if self.head_node is not None:
            self.remove_node(self.head_node)

    # -------------------------------------------------------------------------- helpers

    def _live_node_ids(self) -> set:
        """The ids of the nodes the head lists alive, asked over its socket (a short driver
        connection, as the CLI makes: no ``ray.init`` needed)."""
        if self.head_node is None:
            return set()
        conn = Connection(self.head_node.raylet_socket_name)
        try:
            conn.start()
            conn.request("hello", {"proto": client.PROTO, "role": "driver", "pid": os.getpid(),
                                   "log_to_driver": False}, timeout=30)
            state = conn.request("cluster_state", {}, timeout=30)
        finally:
            conn.close()
        return {n["NodeID"] for n in state.get("nodes") or [] if n.get("Alive")}

    def _free_ip(self) -> str:
        """The next loopback IP no node of this cluster has."""
        taken = {n.node_ip_address for n in self.list_all_nodes()}
        while True:
            ip = str(ipaddress.ip_address("127.0.0.0") + self._next_ip)
            self._next_ip += 1
            if ip not in taken:
                return ip

    def _restore_ray_address(self) -> None:
        if self._set_ray_address:
            os.environ.pop("RAY_ADDRESS", None)
            self._set_ray_address = False


def _short_tmp(given: Optional[str]) -> str:
    """A parent folder short enough for the daemon's socket path (107 bytes), as ray.init's."""
    parent = given or tempfile.gettempdir()
    return "/tmp" if len(parent) > 40 and os.path.isdir("/tmp") else parent


def _env(env_vars: Optional[dict]) -> Optional[dict]:
    if not env_vars:
        return None
    return {**launcher.daemon_env(), **{str(k): str(v) for k, v in env_vars.items()}}


class AutoscalingCluster:
    """Ray's autoscaler test harness: beam has no autoscaler."""

    def __init__(self, *args, **kwargs):
        raise NotImplementedError("ray.cluster_utils.AutoscalingCluster needs Ray's autoscaler, which beam does "
                                  "not have; build the cluster with ray.cluster_utils.Cluster and add_node().")
