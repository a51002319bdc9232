"""Actor worker process: ``python -m ray._beam.worker --socket PATH --actor-id ID``.

The daemon spawns one per actor (environment, accelerator visibility variables and cwd
already set), or hands the same to an idle pooled one (worker_start.py), then sends
``actor_init``; we construct the actor on the main thread and answer ``actor_ready`` /
``actor_failed``. Calls are then run:

- max_concurrency == 1: one at a time, in arrival order, on the main thread;
- max_concurrency > 1: on a thread pool of that size;
- async actors: as coroutines on one asyncio loop in its own thread, at most
  max_concurrency at once.

Incoming calls are only queued by whichever thread reads the connection (connection.py):
usually the main thread itself, waiting for its next call, so a call reaches it without a
hand-off between threads. A ray.get inside a call reads the connection in turn and queues
calls that arrive meanwhile, so results of calls this actor makes itself (the ray API works
inside actors over the same connection) are never stuck behind user code. The process
exits when its connection closes.
"""

from __future__ import annotations

import gc

# The imports below (cloudpickle with dataclasses, inspect, logging, typing; beam's client)
# make tens of thousands of objects that live as long as the process and no garbage, yet
# they trigger collections that walk them again and again: ~3 ms of the ~45 ms of CPU a
# worker spends before it can connect (docs/PERFORMANCE.md, "Actor start-up"). Collection
# is back on before any user code runs.
_GC_WAS_ON = gc.isenabled()
gc.disable()

import collections  # noqa: E402
import inspect  # noqa: E402
import os  # noqa: E402
import sys  # noqa: E402
import threading  # noqa: E402

from ray._beam.wire import framing  # noqa: E402
from ray._beam.api import pickling  # noqa: E402
from ray._beam.api import client as client_mod  # noqa: E402
from ray._beam.api import options  # noqa: E402
from ray._beam.api.objects import ObjectRef  # noqa: E402
from ray._beam.worker_calls import (  # noqa: E402
    bound_method, first_pending_ref, format_exc, run_shutdown_hook, safe_repr)
from ray._beam.api import usermetrics  # noqa: E402
from ray._beam import worker_loop, worker_process  # noqa: E402

if _GC_WAS_ON:
    gc.enable()

_STOP = object()
USAGE = "usage: python -m ray._beam.worker --socket PATH --actor-id ID"


class Worker:
    """Runs one actor: init, then calls, each answered with a ``result`` frame."""

    def __init__(self, socket_path: str, actor_id: str):
        self.actor_id = actor_id
        # ("init"|"call", header, payload), appended by the reading thread (deque appends
        # are atomic; the reader wakes waiters after each batch of frames)
        self.frames: collections.deque = collections.deque()
        self.instance = None
        self.class_name = "Actor"
        self.client = client_mod.Client(
            socket_path, "worker", actor_id=actor_id,
            handlers={"actor_init": lambda h, p: self.frames.append(("init", h, p)),
                      "call": lambda h, p: self.frames.append(("call", h, p))})
        self.client.on_lost = self._exit
        # Workers sleep at once (no polling, spin.py): several share a node's cores, and a
        # polling worker takes the core another one or the daemon needs (docs/PERFORMANCE.md).
        self.client.conn.spin.budget = 0.0
        client_mod.set_worker_client(self.client)

    def _next_frame(self):
        """The next queued frame; while waiting, this thread reads the connection itself."""
        self.client.conn.wait_for(lambda: bool(self.frames))
        return self.frames.popleft()

    @staticmethod
    def _exit(_reason: str = "") -> None:
        usermetrics.flush()  # the values recorded since the last send (a no-op once the link is gone)
        if os.environ.get("BEAM_WORKER_DEBUG"):
            print(f"beam worker exiting: {_reason}", file=sys.stderr, flush=True)
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except Exception:  # noqa: BLE001
                pass
        os._exit(0)

    def _flush_and_exit(self) -> None:
        """A graceful exit (``exit_actor()``, ``__ray_terminate__``, its last handle dropped,
        sys.exit() in a method): the actor's ``__ray_shutdown__`` runs (its exception logged),
        calls it made that are still held back go out, then its atexit handlers run, as in
        Ray (``ray.kill`` is a SIGKILL from the daemon and runs none)."""
        run_shutdown_hook(self.instance)
        try:
            self.client.conn.flush()
        except ConnectionError:
            pass
        import atexit

        atexit._run_exitfuncs()
        self._exit()

    def _exit_if_requested(self) -> None:
        """exit_actor() ends the actor even when user code caught its SystemExit."""
        if getattr(self.client, "exit_requested", False):
            self._flush_and_exit()

    def run(self) -> None:
        kind, header, payload = self._next_frame()
        while kind != "init":  # calls cannot precede init; ignore anything odd
            kind, header, payload = self._next_frame()
        self.loop = worker_loop.start(self._flush_and_exit) if header.get("is_async") else None
        if not self._construct(header, payload):
            threading.Event().wait(30)  # the daemon closes us; exit regardless
            self._exit()
        max_concurrency = int(header.get("max_concurrency") or 1)
        if header.get("is_async"):
            self._run_async(max_concurrency)
        elif max_concurrency > 1:
            from concurrent.futures import ThreadPoolExecutor

            pool = ThreadPoolExecutor(max_concurrency, thread_name_prefix="beam-actor")
            self._dispatch(lambda h, p: pool.submit(self._call, h, p))
        else:
            self._dispatch(self._call)

    def _construct(self, header: dict, payload: bytes) -> bool:
        c = self.client
        c.actor = dict(header)
        for key in ("node_id", "node_ip", "namespace", "gcs_address", "job_id"):
            if header.get(key):
                setattr(c, key, header[key])
        self.class_name = header.get("class_name") or "Actor"
        try:
            cls, args, kwargs = pickling.loads(payload)
            c.actor["methods"] = options.class_methods(cls)
            self.instance = worker_loop.construct(self.loop, cls, args, kwargs) if self.loop else cls(*args, **kwargs)
        except SystemExit:
            self._flush_and_exit()  # exit_actor() in the constructor: a graceful exit
        except BaseException as e:  # noqa: BLE001 - reported to the daemon, then we exit
            message = format_exc(e, skip_frames=1)
            if os.environ.get("BEAM_WORKER_DEBUG"):
                print("beam worker: constructor failed:\n" + message, file=sys.stderr, flush=True)
            c.conn.send("actor_failed", {"actor_id": self.actor_id, "message": message})
            return False
        self._exit_if_requested()
        c.conn.send("actor_ready", {"actor_id": self.actor_id, "repr_name": options.repr_name(self.instance)})
        return True

    def _dispatch(self, run_call) -> None:
        while True:
            kind, header, payload = self._next_frame()
            if kind == "call":
                run_call(header, payload)

    def _run_async(self, max_concurrency: int) -> None:
        import asyncio

        loop = self.loop  # started before the constructor (worker_loop)
        sem_box = {}

        async def run(header, payload):
            if "sem" not in sem_box:
                sem_box["sem"] = asyncio.Semaphore(max_concurrency)
            async with sem_box["sem"]:
                await self._call_async(header, payload)

        self._dispatch(lambda h, p: asyncio.run_coroutine_threadsafe(run(h, p), loop))

    def _prepare(self, header: dict, payload: bytes):
        method = header.get("method")
        args, kwargs = pickling.loads(payload) if payload else ((), {})  # the head's terminate has none
        if method == "__ray_ready__":
            return (lambda: True), (), {}
        if method == "__ray_terminate__":
            return self._flush_and_exit, (), {}
        return bound_method(self.instance, method), args, kwargs

    def _call(self, header: dict, payload: bytes) -> None:
        try:
            fn, args, kwargs = self._prepare(header, payload)
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result) and not isinstance(result, ObjectRef):  # a ref stays one
                import asyncio

                result = asyncio.run(_awaited(result))
        except SystemExit:
            self._flush_and_exit()
        except BaseException as e:  # noqa: BLE001 - becomes the call's task_error
            self._exit_if_requested()
            self._send_error(header, e)
            return
        self._exit_if_requested()
        self._send_ok(header, result)

    async def _call_async(self, header: dict, payload: bytes) -> None:
        try:
            fn, args, kwargs = self._prepare(header, payload)
            result = fn(*args, **kwargs)
            if inspect.isawaitable(result) and not isinstance(result, ObjectRef):  # a ref stays one
                result = await result
        except SystemExit:
            self._flush_and_exit()
        except BaseException as e:  # noqa: BLE001
            self._exit_if_requested()
            self._send_error(header, e)
            return
        self._exit_if_requested()
        self._send_ok(header, result)

    def _send_ok(self, header: dict, result) -> None:
        waiting = first_pending_ref(self.client.table, result)
        if waiting is not None:
            # A returned ref stays a ref for the caller (Ray), but beam has no cross-process
            # fetch: a ref travels with its value (refs.py). So the result goes out once the
            # refs in it are ready, from the callback, while this thread takes the next call
            # (the one the ref may wait for on this very actor).
            self.client.table.on_done(waiting.hex(), lambda _e: self._send_ok(header, result))
            self.client.table.flush_writes()  # the call it waits for may still be held back
            return
        try:
            data = pickling.dumps(result)
        except Exception as e:  # noqa: BLE001
            err = TypeError(f"Could not serialize the return value of "
                            f"{self.class_name}.{header.get('method')}() "
                            f"(type {type(result).__name__}): {e}")
            self._send_error(header, err, skip_frames=0)
            return
        self._send_result(header["oid"], "ok", data)

    def _send_error(self, header: dict, exc: BaseException, skip_frames: int = 1) -> None:
        tb_text = format_exc(exc, skip_frames)
        info = {"exc": exc, "tb": tb_text, "class_name": self.class_name,
                "method": header.get("method"), "pid": os.getpid(), "ip": self.client.node_ip,
                "actor_id": self.actor_id, "type_name": type(exc).__name__,
                "repr": safe_repr(self.instance), "message": str(exc)}
        try:
            data = pickling.dumps(info)
            pickling.loads(data)
        except Exception:  # noqa: BLE001 - send the text; the driver wraps it
            info["exc"] = None
            data = pickling.dumps(info)
        self._send_result(header["oid"], "task_error", data)

    def _send_result(self, oid: str, status: str, payload: bytes) -> None:
        try:
            self.client.conn.send_head("result", framing.result_head(oid, status, len(payload)), payload)
        except ConnectionError:
            self._exit()


async def _awaited(awaitable):
    return await awaitable


def parse_args(argv: list[str]) -> tuple[str, str]:
    """``--socket PATH --actor-id ID``, the daemon's two arguments, in either order (parsed
    by hand: argparse and gettext cost every worker ~2 ms to import). Anything else is a
    usage error (exit 2), as argparse would make it."""
    found = {}
    i = 0
    while i < len(argv):
        name = argv[i].split("=", 1)[0]
        if name not in ("--socket", "--actor-id"):
            _usage_error(f"unrecognized argument: {argv[i]}")
        if "=" in argv[i]:
            found[name] = argv[i].split("=", 1)[1]
            i += 1
        elif i + 1 < len(argv):
            found[name] = argv[i + 1]
            i += 2
        else:
            _usage_error(f"argument {name}: expected one argument")
    missing = [n for n in ("--socket", "--actor-id") if n not in found]
    if missing:
        _usage_error("the following arguments are required: " + ", ".join(missing))
    return found["--socket"], found["--actor-id"]


def _usage_error(message: str) -> None:
    print(f"{USAGE}\npython -m ray._beam.worker: error: {message}", file=sys.stderr, flush=True)
    sys.exit(2)


def main(argv=None) -> None:
    socket_path, actor_id = parse_args(sys.argv[1:] if argv is None else list(argv))
    worker_process.prepare_process()
    Worker(socket_path, actor_id).run()


if __name__ == "__main__":
    main()

