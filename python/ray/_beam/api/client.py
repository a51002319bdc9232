"""Process-wide beam client: the one connection, the object table, and init/shutdown.

A driver gets its Client from ``ray.init``; an actor worker builds one at start-up (role
``worker``) so the whole ray API works inside actors over the worker's own connection.
The reader thread feeds pushes (results, placement group events, logs) into local state;
API calls on any thread read that state under short locks.
"""

from __future__ import annotations

import atexit
import logging
import os
import sys
import threading
from typing import Optional

from ray._beam.api import failures, process, stackdump
from ray._beam.api.objects import ObjectTable
from ray._beam.api.pgtracker import PgTracker
from ray._beam.api.submit import Submitter
from ray._beam.wire.connection import Connection
from ray import job_config as jc
from ray.exceptions import ActorDiedError, RaySystemError

logger = logging.getLogger("ray")

PROTO = 1

class Client:
    """One connection to the local daemon plus everything that hangs off it."""

    def __init__(self, address: str, role: str = "driver", *, actor_id: Optional[str] = None,
                 log_to_driver: bool = True, namespace: Optional[str] = None,
                 runtime_env: Optional[dict] = None, private_dir: Optional[str] = None,
                 handlers: Optional[dict] = None):
        self.role = role
        self.log_to_driver = log_to_driver
        # Ray's RAY_DISABLE_WORKER_LOG_PREFIX ("1" or "true"): actors' lines reach the driver bare
        self.no_log_prefix = os.environ.get("RAY_DISABLE_WORKER_LOG_PREFIX", "").lower() in ("1", "true")
        self.job_runtime_env = dict(runtime_env or {})
        self.private_dir = private_dir
        self.conn = Connection(address, on_close=self._on_close)
        self.table = ObjectTable(self.conn.cond)
        self.table.wait_for = self.conn.wait_for
        self.table.flush_writes = self._flush_writes
        self.table.on_first_watch = self.conn.pushes_now_prompt
        self.conn.prompt_pushes = self.table.watched
        self.submitter = Submitter(self.conn, self.table)
        self.pgs = PgTracker(self)
        self.actor: Optional[dict] = None  # the actor_init header, inside an actor worker
        self._closing = False
        self.on_lost = None  # extra callback when the link drops (the worker exits on it)
        for op, handler in (("result", self._on_result), ("log", self._on_log),
                            ("pg_ready", self.pgs.on_ready), ("pg_removed", self.pgs.on_removed),
                            ("pg_failed", self.pgs.on_failed),
                            ("pg_waiting", self.pgs.on_waiting), ("warning", self._on_warning),
                            *(handlers or {}).items()):
            self.conn.on(op, handler)
        self.conn.start()
        hello = {"proto": PROTO, "role": role, "pid": os.getpid()}
        if role == "worker":
            hello["actor_id"] = actor_id
        # Workers send these too: actors they create are spawned with the same interpreter,
        # cwd and sys.path (the daemon takes them from the creator's hello).
        hello.update(python=sys.executable, cwd=os.getcwd(), sys_path=list(sys.path),
                     log_to_driver=bool(log_to_driver))
        if namespace is not None:
            hello["namespace"] = namespace
        try:
            self.info = self.conn.request("hello", hello, timeout=60)
        except BaseException:
            self.conn.close()
            raise
        self.conn.max_payload_bytes = int(self.info.get("max_payload_bytes") or self.conn.max_payload_bytes)
        self.conn.max_header_bytes = int(self.info.get("max_header_bytes") or self.conn.max_header_bytes)
        self.node_id: str = self.info.get("node_id", "")
        self.node_ip: str = self.info.get("node_ip", "127.0.0.1")
        self.node_labels: dict = self.info.get("node_labels") or {}
        self.job_id: str = self.info.get("job_id") or "01000000"
        self.namespace: str = namespace or self.info.get("namespace") or ""
        self.gcs_address: str = self.info.get("gcs_address", "")
        self.session_dir: str = self.info.get("session_dir", "")
        stackdump.register(self.session_dir)

    # -- pushes (reader thread; never block) --------------------------------------------

    def _on_result(self, header: dict, payload: bytes) -> None:
        oid = header.get("oid")
        status = header.get("status")
        if status == "ok":
            self.table.resolve(oid, data=payload)
        else:
            self.table.resolve(oid, error=failures.from_result(header, payload))

    def _on_warning(self, header: dict, payload: bytes) -> None:
        logger.warning("%s", header.get("message", ""))

    def _on_log(self, header: dict, payload: bytes) -> None:
        if not self.log_to_driver:
            return
        stream = sys.stderr if header.get("stream") == "stderr" else sys.stdout
        prefix = "" if self.no_log_prefix else f"({header.get('class_name', 'Actor')} pid={header.get('pid', '?')}) "
        text = payload.decode("utf-8", errors="replace")
        try:
            stream.write("".join(prefix + line + "\n" for line in text.splitlines()))
            stream.flush()
        except (OSError, ValueError):
            pass

    def _flush_writes(self, timeout: Optional[float] = None) -> None:
        try:
            self.conn.flush(timeout)
        except ConnectionError:
            pass  # the link is gone: pending objects fail through _on_close

    def _on_close(self, reason: str) -> None:
        if self._closing:
            msg = "ray.shutdown() was called while this object was still pending"
            self.pgs.fail_all(msg)
            self.table.fail_pending(lambda: RaySystemError(msg))
        else:  # the daemon (and with it every local actor) is gone: pending calls died
            self.pgs.fail_all(reason)
            self.table.fail_pending(lambda: ActorDiedError(
                f"{ActorDiedError.BASE_ERROR_MSG}\nThe actor is unreachable because {reason}."))
        if self.on_lost is not None:
            self.on_lost(reason)

    # -- requests ------------------------------------------------------------------------

    def request(self, op: str, fields: Optional[dict] = None, payload: bytes = b"",
                timeout: Optional[float] = None) -> dict:
        return self.conn.request(op, fields, payload, timeout=timeout)

    def close(self) -> None:
        """Fail pending objects, stop a private cluster we own, drop the connection."""
        self._closing = True
        # Calls held back in a burst (outbox.py) still go out; not waiting long for the write
        # lock, in case ray.shutdown() runs in a signal handler that interrupted a write.
        self._flush_writes(timeout=1.0)
        if self.private_dir is not None and not self.conn.closed:
            try:
                self.conn.request("shutdown", {}, timeout=10)
            except Exception as e:  # the daemon may already be gone; nothing to stop then
                logger.debug("beam: shutdown request failed: %s", e)
        elif self.role == "driver" and not self.conn.closed:
            # as Ray's driver marks its job finished: the head ends what this driver owned
            # (its non-detached actors, their names) before ray.shutdown() returns
            try:
                self.conn.request("disconnect", {}, timeout=10)
            except Exception as e:  # the daemon may already be gone; nothing is left to end
                logger.debug("beam: disconnect request failed: %s", e)
        self.conn.close("ray.shutdown() was called")
        if self.private_dir is not None:
            _remove_private_dir(self.private_dir)


def get_client() -> Optional[Client]:
    return process.current()


def ensure() -> Client:
    """The connected client; auto-connects with ``ray.init()`` as Ray does."""
    c = process.current()
    if c is not None:
        return c
    init()
    return process.current()


def is_initialized() -> bool:
    return process.current() is not None


def set_worker_client(c: Client) -> None:
    """Install the actor worker's client as this process's client."""
    with process.lock:
        process.install(c)


class RayContext(dict):
    """What ``ray.init`` returns: Ray's address info, as a dict and as attributes."""

    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None

    @property
    def address_info(self):
        return dict(self)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        shutdown()


def _context(c: Client) -> RayContext:
    return RayContext(node_ip_address=c.node_ip, raylet_ip_address=c.node_ip,
                      address=c.gcs_address, gcs_address=c.gcs_address,
                      session_dir=c.session_dir, node_id=c.node_id, job_id=c.job_id,
                      namespace=c.namespace, dashboard_url="", webui_url="")


def init(address: Optional[str] = None, *, num_cpus=None, num_gpus=None, resources=None,
         ignore_reinit_error: bool = False, runtime_env=None, log_to_driver: bool = True,
         namespace: Optional[str] = None, **ignored) -> RayContext:
    """Connect to the local daemon (or start a private one); see discovery.resolve."""
    with process.lock:
        if process.current() is not None:
            if ignore_reinit_error:
                logger.info("Calling ray.init() again after it has already been called.")
                return _context(process.current())
            raise RuntimeError(
                "Maybe you called ray.init twice by accident? This error can be suppressed by "
                "passing in 'ignore_reinit_error=True' or by calling 'ray.shutdown()' prior "
                "to 'ray.init()'.")
        if runtime_env is not None and not isinstance(runtime_env, dict):
            raise TypeError(f"runtime_env must be a dict or RuntimeEnv, got {type(runtime_env)}")
        from ray._beam.launch import discovery  # only drivers need it (it finds and starts daemons)
        namespace, runtime_env, lifetime = jc.for_init(ignored.get("job_config"), namespace, runtime_env)

        labels = ignored.get("labels")
        target = discovery.resolve(address, discovery.start_args(num_cpus, num_gpus, resources, labels),
                                   ignored.get("_temp_dir"))
        if labels is not None and target.private_dir is None:
            raise ValueError("When connecting to an existing cluster, labels must not be provided.")
        try:
            c = Client(target.address, "driver", log_to_driver=log_to_driver,
                       namespace=namespace, runtime_env=runtime_env,
                       private_dir=target.private_dir)
        except BaseException:
            if target.private_dir is not None:
                _stop_private(target)
            raise
        c.default_actor_lifetime = lifetime  # options.wire_options: actors without lifetime=
        process.install(c)
        return _context(c)


def _stop_private(target) -> None:
    """Stop a private cluster whose first connection failed (best effort)."""
    try:
        conn = Connection(target.address)
        conn.start()
        conn.request("hello", {"proto": PROTO, "role": "driver", "pid": os.getpid()}, timeout=10)
        conn.request("shutdown", {}, timeout=10)
        conn.close()
    except Exception:
        pass
    _remove_private_dir(target.private_dir)


def _remove_private_dir(path: str) -> None:
    """A private cluster's temp dir, once it is stopped. shutil is imported here, not with
    the client: it brings bz2, lzma and zlib, ~2 ms of every actor worker's start."""
    import shutil

    shutil.rmtree(path, ignore_errors=True)


def shutdown(_exiting_interpreter: bool = False) -> None:
    """Disconnect (idempotent). Pending gets fail with a clear error. No-op inside actors."""
    with process.lock:
        c = process.current()
        if c is None or c.role == "worker":
            return
        process.install(None)
    c.close()


def _after_fork_in_child() -> None:
    # The child shares the parent's socket; it must not use (or shut down) that link.
    process.install(None)


atexit.register(shutdown)
if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork_in_child)
