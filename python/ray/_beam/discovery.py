"""Where is the daemon? Resolve ``ray.init(address=...)`` to a socket to connect to.

Discovery mirrors Ray: ``RAY_ADDRESS``, else ``<RAY_TMPDIR or /tmp/ray>/session_latest/
node.json`` (written by the daemon). ``address=None`` with nothing running starts a private
cluster owned by this process; ``"auto"`` with nothing running is an error, as in Ray.
"""

from __future__ import annotations

import io
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from typing import Optional

from ray._beam import launcher

NO_CLUSTER_MSG = ("Could not find any running Ray instance. Please specify the one to "
                  "connect to by setting `--address` flag or `RAY_ADDRESS` environment variable.")


@dataclass
class Target:
    """What to connect to, and whether this process owns (and must stop) the cluster."""

    address: str  # unix socket path or "host:port"
    node: Optional[dict] = None  # node.json contents, when known
    private_dir: Optional[str] = None  # temp dir of a private cluster we started


def temp_dir() -> str:
    return os.environ.get("RAY_TMPDIR") or os.path.join(tempfile.gettempdir(), "ray")


def read_node_json(base: Optional[str] = None) -> Optional[dict]:
    path = os.path.join(base or temp_dir(), "session_latest", "node.json")
    try:
        with open(path, encoding="utf-8") as f:
            node = json.load(f)
    except (OSError, ValueError):
        return None
    return node if isinstance(node, dict) and node.get("socket") else None


def socket_answers(path: str) -> bool:
    """True if something accepts connections on the unix socket (a stale file does not)."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(2.0)
    try:
        s.connect(path)
        return True
    except OSError:
        return False
    finally:
        s.close()


def _local_node() -> Optional[dict]:
    node = read_node_json()
    if node and socket_answers(node["socket"]):
        return node
    return None


def _same_address(node: dict, address: str) -> bool:
    if node.get("address") == address:
        return True
    host, _, port = address.rpartition(":")
    n_host, _, n_port = str(node.get("address", "")).rpartition(":")
    local = {"localhost", "127.0.0.1", socket.gethostname(), node.get("node_ip")}
    return port == n_port and host in local


def resolve(address: Optional[str], start_args: Optional[list] = None) -> Target:
    """Find (or start) the daemon for ``address``; see the module docstring."""
    if address is None:
        address = os.environ.get("RAY_ADDRESS") or None
    if address and address.startswith("ray://"):
        address = address[len("ray://"):]
    if address in (None, "auto", "local"):
        node = _local_node()
        if node is not None:
            return Target(node["socket"], node)
        if address == "auto":
            raise ConnectionError(NO_CLUSTER_MSG)
        return start_private(start_args or [])
    node = _local_node()
    if node is not None and _same_address(node, address):
        return Target(node["socket"], node)
    return Target(address)


def start_private(extra_args: list) -> Target:
    """Start a cluster owned by this process (``ray start --head --port 0 ...``)."""
    # $TMPDIR as usual, unless it is so long that the daemon's unix socket path
    # (<base>/session_<stamp>/sockets/beamd.sock) would pass the 107-byte limit.
    parent = tempfile.gettempdir()
    if len(parent) > 40 and os.path.isdir("/tmp"):
        parent = "/tmp"
    base = tempfile.mkdtemp(prefix="beam-", dir=parent)
    argv = ["start", "--head", "--port", "0", "--temp-dir", base,
            "--owner-pid", str(os.getpid()), *extra_args]
    out, err = io.BytesIO(), io.BytesIO()
    try:  # one JVM, the daemon, as `ray start` does (launcher.start_detached)
        code = launcher.start_detached(argv[1:], out, err, reap=True)
    except (launcher.LauncherError, OSError) as e:
        raise RuntimeError(f"ray.init() could not start a local beam cluster: {e}") from None
    if code != 0:
        said = (err.getvalue() or out.getvalue()).decode("utf-8", errors="replace")
        raise RuntimeError(
            f"ray.init() could not start a local beam cluster (`ray {' '.join(argv)}` exited "
            f"with {code}): {said.strip()[-2000:]}")
    node = read_node_json(base)
    if node is None:
        raise RuntimeError(f"the local beam cluster started but wrote no node.json under {base}")
    return Target(node["socket"], node, private_dir=base)


def start_args(num_cpus=None, num_gpus=None, resources=None) -> list:
    """CLI flags for a private cluster from ray.init's resource arguments."""
    args = []
    if num_cpus is not None:
        args += ["--num-cpus", str(int(num_cpus))]
    if num_gpus is not None:
        args += ["--num-gpus", str(int(num_gpus))]
    if resources:
        args += ["--resources", json.dumps(resources)]
    return args
