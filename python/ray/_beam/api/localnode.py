"""One node of a ``ray.cluster_utils.Cluster``: a real beam daemon started as ``ray start``
starts one, in a temp dir of its own, and what Ray's ``ray._private.node.Node`` lets tests
read of it.

Ray's ``add_node(**node_args)`` takes ``RayParams`` fields. Each one beam knows is in one of
three tables below: turned into a ``ray start`` flag, accepted and ignored (what it tunes does
not exist in beam), or refused with why. Any other name is refused as Ray's ``RayParams``
refuses it: a ``TypeError`` naming it.
"""

from __future__ import annotations

import json
import os
import signal
import time
from typing import Dict, List, Optional

from ray._beam.launch import discovery

# Accepted and ignored: each tunes a part of Ray that beam does not have (README, "Cluster").
IGNORED = {
    "object_store_memory": "beam has no object store (results live in the caller)",
    "plasma_directory": "no object store", "object_spilling_directory": "no object store",
    "huge_pages": "no object store", "plasma_store_socket_name": "no object store",
    "redis_port": "no Redis", "redis_shard_ports": "no Redis", "num_redis_shards": "no Redis",
    "redis_max_clients": "no Redis", "redis_username": "no Redis", "redis_password": "no Redis",
    "external_addresses": "no Redis",
    "gcs_server_port": "the head's one port is picked when it starts",
    "node_manager_port": "a joined node opens no port of its own",
    "object_manager_port": "no object manager",
    "min_worker_port": "actor workers use the daemon's unix socket, no ports",
    "max_worker_port": "actor workers use the daemon's unix socket, no ports",
    "worker_port_list": "actor workers use the daemon's unix socket, no ports",
    "ray_client_server_port": "no Ray Client server", "raylet_socket_name": "the daemon names its socket",
    "runtime_env_agent_port": "no runtime-env agent", "runtime_env_dir_name": "no runtime-env agent",
    "metrics_agent_port": "metrics are served on --metrics-export-port",
    "redirect_output": "output goes to the session's logs/", "log_to_stderr": "output goes to logs/",
    "include_log_monitor": "each daemon pumps its own workers' logs", "no_monitor": "no autoscaler",
    "ray_debugger_external": "no Ray debugger", "enable_object_reconstruction": "no objects to rebuild",
    "_system_config": "beam has no such internal settings", "session_name": "each daemon names its session",
    "node_name": "nodes are named by IP", "webui": "the dashboard is include_dashboard/dashboard_port",
    "memory": "beam's memory resource is the host's, not declared",
    "cleanup": "shutdown() always removes what it started", "cluster_id": "the head makes the cluster's id",
}

# Refused: beam cannot do what they ask, and ignoring them would change what the test sees.
REFUSED = {
    "worker_path": "beam's actor worker is its own (python -m ray._beam.worker)",
    "setup_worker_path": "beam's actor worker is its own (python -m ray._beam.worker)",
    "autoscaling_config": "beam has no autoscaler; add nodes with add_node()",
    "resource_isolation_config": "beam does not isolate resources with cgroups",
    "proxy_server_url": "beam has no Ray Client proxy",
    "node_id": "each daemon makes its own node id",
}

# Ray's defaults for add_node (cluster_utils), the rest are ray start's.
DEFAULTS = {"num_cpus": 1, "num_gpus": 0}


def start_flags(args: Dict, head_address: Optional[str], ip: str, temp_dir: str, token_path: Optional[str]) -> List[str]:
    """The ``ray start`` flags for ``args`` (RayParams names); TypeError or ValueError names a bad one."""
    for name in args:
        if name in REFUSED:
            raise ValueError(f"Cluster.add_node({name}=...) is not supported by beam: {REFUSED[name]}.")
    known = set(IGNORED) | {"num_cpus", "num_gpus", "resources", "labels", "node_ip_address", "temp_dir",
                            "include_dashboard", "dashboard_host", "dashboard_port", "dashboard_agent_listen_port",
                            "metrics_export_port", "env_vars", "gcs_address", "redis_address"}
    unknown = sorted(set(args) - known)
    if unknown:
        raise TypeError(f"RayParams.__init__() got an unexpected keyword argument '{unknown[0]}'")
    args = {**DEFAULTS, **{k: v for k, v in args.items() if v is not None}}
    flags = ["--temp-dir", temp_dir, "--node-ip-address", ip,
             "--num-cpus", str(_whole(args, "num_cpus")), "--num-gpus", str(_whole(args, "num_gpus")),
             # every node of a Cluster shares this machine: ports are picked free unless given
             "--dashboard-agent-listen-port", str(args.get("dashboard_agent_listen_port", 0)),
             "--metrics-export-port", str(args.get("metrics_export_port", 0))]
    if head_address is None:
        flags = ["--head", "--port", "0", "--dashboard-port", str(args.get("dashboard_port", 0)), *flags]
        if "include_dashboard" in args:
            flags += ["--include-dashboard", "true" if args["include_dashboard"] else "false"]
        if "dashboard_host" in args:
            flags += ["--dashboard-host", str(args["dashboard_host"])]
    else:
        for name in ("gcs_address", "redis_address"):
            if args.get(name) not in (None, head_address):
                raise ValueError(f"Cluster.add_node({name}={args[name]!r}): a node of this Cluster joins "
                                 f"its head at {head_address}; leave {name} out.")
        flags = ["--address", head_address, "--auth-token-path", token_path, *flags]
    if args.get("resources"):
        flags += ["--resources", json.dumps(args["resources"])]
    if args.get("labels"):
        flags += ["--labels", discovery.labels_flag(args["labels"])]
    return flags


def _whole(args: Dict, name: str) -> int:
    value = args[name]
    if isinstance(value, bool) or not isinstance(value, (int, float)) or value < 0 or int(value) != value:
        raise ValueError(f"Cluster.add_node({name}={value!r}): a whole number >= 0 is expected.")
    return int(value)


class LocalNode:
    """A started daemon, with the attributes of Ray's ``Node`` that tests and users read."""

    def __init__(self, info: dict, head: bool, head_address: str, temp_dir: str):
        self.head = head
        self.node_id = self.unique_id = info["node_id"]
        self.node_ip_address = self.raylet_ip_address = info["node_ip"]
        self.address = self.gcs_address = self.redis_address = self.bootstrap_address = head_address
        self.node_manager_port = int(info["address"].rpartition(":")[2]) if head else 0
        self._session_dir = self.session_dir = info["session_dir"]
        self.session_name = os.path.basename(self.session_dir)
        self._temp_dir = self.temp_dir = temp_dir
        self._raylet_socket_name = self.raylet_socket_name = info["socket"]
        self._plasma_store_socket_name = self.plasma_store_socket_name = info["socket"]
        self.pid = int(info["pid"])

    def __repr__(self):
        return f"LocalNode({'head, ' if self.head else ''}{self.node_ip_address}, {self.node_id[:8]})"

    def is_head(self) -> bool:
        return self.head

    def get_session_dir_path(self) -> str:
        return self.session_dir

    def get_temp_dir_path(self) -> str:
        return self.temp_dir

    def get_logs_dir_path(self) -> str:
        return os.path.join(self.session_dir, "logs")

    # -- processes: the daemon and the actor workers it started ------------------------------

    def process_ids(self) -> List[int]:
        """Live (not zombie) processes of this node: the daemon and every process whose command
        line names the node's temp dir (its actor workers, pooled or running)."""
        found = []
        for entry in os.listdir("/proc"):
            if not entry.isdigit():
                continue
            pid = int(entry)
            try:
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    cmdline = f.read()
            except OSError:
                continue
            mine = pid == self.pid or any(self.temp_dir.encode() + end in cmdline for end in (b"/", b"\0"))
            if mine and pid != os.getpid() and not _zombie(pid):
                found.append(pid)
        return found

    def any_processes_alive(self) -> bool:
        return bool(self.process_ids())

    def remaining_processes_alive(self) -> bool:
        return not _zombie(self.pid) and _exists(self.pid)

    def kill_raylet(self) -> None:
        """The daemon killed at once (SIGKILL): the node is lost, its workers end with it."""
        _signal(self.pid, signal.SIGKILL)

    def kill_all_processes(self, check_alive: bool = True, allow_graceful: bool = False, wait: bool = False,
                           timeout: float = 30.0) -> None:
        """Stop the node. Graceful: SIGTERM to the daemon, which stops its actors and leaves the
        cluster, then SIGKILL for whatever remains after 10 s (ray stop's grace). Otherwise SIGKILL
        to the daemon and every worker: the head sees the node lost, as when a host dies."""
        if allow_graceful:
            _signal(self.pid, signal.SIGTERM)
            _wait_gone(self.remaining_processes_alive, 10.0)
        for pid in self.process_ids():
            _signal(pid, signal.SIGKILL)
        if not _wait_gone(self.any_processes_alive, timeout):
            raise RuntimeError(f"processes of {self} still run {timeout} s after SIGKILL: {self.process_ids()}")


def _wait_gone(alive, timeout: float) -> bool:
    deadline = time.monotonic() + timeout
    while alive():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass


def _exists(pid: int) -> bool:
    return os.path.exists(f"/proc/{pid}")


def _zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rpartition(b")")[2].split()[0] == b"Z"
    except (OSError, IndexError):
        return True
