"""Where is the daemon? Resolve ``ray.init(address=...)`` to a socket to connect to.

The rule (docs/DESIGN.md, "Finding the cluster"; beam.cli.Discovery is the CLI's copy):

- an address (the argument, else ``RAY_ADDRESS``) other than "auto"/"local": the local
  daemon serving it, any of this user's, private or not, whatever temp dir was chosen
  (drivers talk to their own machine's daemon; of several, the one whose IP the address
  names), else that address;
- else the daemon of the temp dir (ray/_beam/launch/tempdirs.py). When the user chose that folder
  (``_temp_dir`` or ``RAY_TMPDIR``), only it counts. Otherwise, if none runs there, every
  beam daemon of this user on this machine, found in /proc as Ray finds its GCS: exactly one
  is taken, several raise ``ConnectionError`` listing each (address, temp dir, start time);
- nothing found: ``address=None`` starts a private cluster owned by this process, "auto"
  raises ``ConnectionError`` with Ray's words.

A private cluster (one a driver's ``ray.init()`` started for itself, ``--owner-pid``) is found
only by a second driver that asks to join: "auto" when no other daemon runs, or its address.
``address=None`` never takes it and starts its own, as Ray does. It still ends with its
owner, and the drivers that joined it then lose their connection (on Ray too).

Only a daemon whose files are this user's own, and that nobody else may write, counts
(tempdirs.problem); a node.json whose socket does not answer (a dead daemon's) is ignored.
"""

from __future__ import annotations

import io
import json
import os
import socket
import tempfile
from dataclasses import dataclass
from typing import List, Optional

from ray._beam.launch import launcher, procscan, tempdirs

NO_CLUSTER_MSG = ("Could not find any running Ray instance. Please specify the one to "
                  "connect to by setting `--address` flag or `RAY_ADDRESS` environment variable.")
SEVERAL_MSG = ("Found multiple active Ray instances: {addresses}. Please specify the one to connect "
               "to by setting the `--address` flag or `RAY_ADDRESS` environment variable.")


@dataclass
class Target:
    """What to connect to, and whether this process owns (and must stop) the cluster."""

    address: str  # unix socket path or "host:port"
    node: Optional[dict] = None  # node.json contents, when known
    private_dir: Optional[str] = None  # temp dir of a private cluster we started


def read_node_json(session: str, refuse: bool = False) -> Optional[dict]:
    """node.json of ``session`` (a session dir, or ``<temp>/session_latest``) when it and its
    files are trusted; with ``refuse``, an untrusted one raises PermissionError naming it."""
    path = os.path.join(session, "node.json")
    for p, what in ((session, "session dir"), (path, "node.json")):
        bad = tempdirs.problem(p, what)
        if bad:
            if refuse:
                raise PermissionError(bad)
            return None
    try:
        with open(path, encoding="utf-8") as f:
            node = json.load(f)
    except (OSError, ValueError):
        return None
    if not (isinstance(node, dict) and isinstance(node.get("socket"), str)):
        return None
    bad = tempdirs.problem(node["socket"], "socket")
    if bad:
        if refuse:
            raise PermissionError(bad)
        return None
    return node


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


def node_in(temp: str, refuse: bool = False) -> Optional[dict]:
    """The running daemon's node.json in ``temp``, or None."""
    bad = tempdirs.problem(temp, "temp dir")
    if bad:
        if refuse:
            raise PermissionError(bad)
        return None
    node = read_node_json(os.path.join(temp, "session_latest"), refuse)
    return node if node and _alive(node) else None


def _alive(node: dict) -> bool:
    """The daemon of ``node`` runs: its socket answers, and its pid, where this process can see
    it, is still a beam daemon (not a reused pid). A daemon in another PID namespace (a
    container beside ours) is known by its socket alone."""
    if procscan.is_daemon(node.get("pid")) is False:
        return False
    return socket_answers(node["socket"])


def _node_of(pid: int, temp: str) -> Optional[dict]:
    """Daemon ``pid``'s node.json under ``temp``: its session_latest's, else its session_*_PID's."""
    if tempdirs.problem(temp, "temp dir"):
        return None
    sessions = [os.path.join(temp, "session_latest")]
    try:
        sessions += [os.path.join(temp, n) for n in os.listdir(temp)
                     if n.startswith("session_") and n.endswith(f"_{pid}")]
    except OSError:
        return None
    for session in sessions:
        node = read_node_json(session)
        if node and node.get("pid") == pid and _alive(node):
            return node
    return None


def elsewhere(temp: str, private: bool = False, any_owner: bool = False) -> List[dict]:
    """node.json of each daemon of this user running with another temp dir than ``temp``
    (with ``private``, of each private cluster whose driver runs with ``temp`` instead, or
    with ``any_owner`` whatever its driver's temp dir)."""
    found = []
    for pid, dir_ in procscan.daemons(private):
        if private and not any_owner and procscan.owner_temp(pid) != temp:
            continue
        if dir_ != temp:
            node = _node_of(pid, dir_)
            if node is not None:
                found.append(dict(node, temp_dir=node.get("temp_dir", dir_)))
    return found


def several(nodes: List[dict]) -> str:
    lines = [SEVERAL_MSG.format(addresses=sorted({n.get("address", "?") for n in nodes}))]
    for n in nodes:
        lines.append(f"  {n.get('address', '?')}  temp dir {n.get('temp_dir', '?')}  started "
                     f"{n.get('start_time', '?')}  (pid {n.get('pid', '?')})")
    lines.append("Pick one with RAY_ADDRESS=<address> or RAY_TMPDIR=<temp dir>.")
    return "\n".join(lines)


def _same_address(node: dict, address: str) -> bool:
    if node.get("address") == address:
        return True
    host, _, port = address.rpartition(":")
    n_host, _, n_port = str(node.get("address", "")).rpartition(":")
    local = {"localhost", "127.0.0.1", socket.gethostname(), node.get("node_ip")}
    return port == n_port and host in local


def resolve(address: Optional[str], start_args: Optional[list] = None,
            temp_flag: Optional[str] = None) -> Target:
    """Find (or start) the daemon for ``address``; see the module docstring."""
    if address is None:
        address = os.environ.get("RAY_ADDRESS") or None
    if address and address.startswith("ray://"):
        address = address[len("ray://"):]
    temp = tempdirs.temp_dir(temp_flag)
    chosen = tempdirs.chosen_name(temp_flag) is not None
    here = node_in(temp, refuse=True)
    if address not in (None, "auto", "local"):
        # An address names one cluster: any daemon of this user that serves it will do,
        # whatever temp dir was chosen (the nodes of a ray.cluster_utils.Cluster each have
        # their own, and are private to the process that made them).
        candidates = elsewhere(temp) + elsewhere(temp, private=True, any_owner=True)
        serving = [n for n in ([here] if here else []) + candidates if _same_address(n, address)]
        # Several nodes of one cluster on this machine (ray.cluster_utils.Cluster) all serve its
        # address: the one whose IP the address names is the head, which Ray's drivers reach first.
        host = address.rpartition(":")[0]
        serving.sort(key=lambda n: n.get("node_ip") != host)
        if serving:
            return Target(serving[0]["socket"], serving[0])
        return Target(address)
    if here is not None:
        return Target(here["socket"], here)
    others = elsewhere(temp)
    if address == "auto" and (chosen or not others):
        privates = elsewhere(temp, private=True)
        if len(privates) == 1:
            return Target(privates[0]["socket"], privates[0])
        if privates:
            raise ConnectionError(several(privates))
    if not chosen and len(others) == 1:
        return Target(others[0]["socket"], others[0])
    if not chosen and len(others) > 1:
        raise ConnectionError(several(others))
    if address == "auto":
        hint = "" if not others else (
            f" (none in the temp dir {temp}; elsewhere: "
            + "; ".join(f"{n.get('address')} in {n.get('temp_dir')}" for n in others)
            + ". Set RAY_TMPDIR to one of those folders, or RAY_ADDRESS.)")
        raise ConnectionError(NO_CLUSTER_MSG + hint)
    return start_private(start_args or [])


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
    except (launcher.LauncherError, OSError, ValueError) as e:
        raise RuntimeError(f"ray.init() could not start a local beam cluster: {e}") from None
    if code != 0:
        said = (err.getvalue() or out.getvalue()).decode("utf-8", errors="replace")
        raise RuntimeError(
            f"ray.init() could not start a local beam cluster (`ray {' '.join(argv)}` exited "
            f"with {code}): {said.strip()[-2000:]}")
    node = read_node_json(os.path.join(base, "session_latest"))
    if node is None:
        raise RuntimeError(f"the local beam cluster started but wrote no node.json under {base}")
    return Target(node["socket"], node, private_dir=base)


def start_args(num_cpus=None, num_gpus=None, resources=None, labels=None) -> list:
    """CLI flags for a private cluster from ray.init's resource and label arguments."""
    args = []
    if labels:
        args += ["--labels", labels_flag(labels)]
    if num_cpus is not None:
        args += ["--num-cpus", str(int(num_cpus))]
    if num_gpus is not None:
        args += ["--num-gpus", str(int(num_gpus))]
    if resources:
        args += ["--resources", json.dumps(resources)]
    return args


def labels_flag(labels: dict) -> str:
    """``ray start --labels``' form of a label dict (the daemon checks each key and value)."""
    if not isinstance(labels, dict):
        raise TypeError(f"labels must be a dict of str to str, got {type(labels)}")
    return ",".join(f"{k}={v}" for k, v in labels.items())
