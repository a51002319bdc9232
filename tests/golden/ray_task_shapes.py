"""Record Ray's task state rows (``ray.util.state.list_tasks(detail=True)``) for actor calls.

    .bench/ray-venv/bin/python tests/golden/ray_task_shapes.py > tests/golden/ray-2.60-tasks.json

Ray's state API is served by its dashboard, so that Ray needs the dashboard's packages
(``ray[default]``: aiohttp, grpcio, opentelemetry, ...; installed with ``pip install --target
DIR`` and put on PYTHONPATH when the venv itself is read-only).

Ray 2.60 enables token authentication for the local cluster ``ray.init()`` starts and writes
``~/.ray/auth_token`` when none exists: run it with a HOME of its own (``HOME=$(mktemp -d)``)
so that the machine's ~/.ray is not touched. The recording ran so.

Starts its own Ray (its own temp dir, shut down at the end) and catches one row in each
state an actor call shows: a call waiting for its actor to start (the constructor sleeps),
one running (it sleeps), one queued behind it on the same sequential actor, one finished,
one that raised. Ids, pids, IPs and times differ by nature; the keys, their types and the
state names are what beam's rows are compared with (tests/unit/test_task_shapes.py).
"""
import json
import socket
import sys
import tempfile
import time

import ray
from ray.util.state import list_tasks


@ray.remote
class Slow:
    def __init__(self, start_s):
        time.sleep(start_s)

    def nap(self, s):
        time.sleep(s)
        return s

    def execute_method(self, name, *args):
        return name

    def boom(self):
        raise ValueError("boom")


ADDRESS = None


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rows_by_name():
    out = {}
    for t in list_tasks(address=ADDRESS, detail=True, filters=[("type", "=", "ACTOR_TASK")], raise_on_missing_output=False):
        row = t.asdict() if hasattr(t, "asdict") else dict(t)
        out.setdefault(row["name"] + ":" + row["state"], row)
    return out


def main():
    global ADDRESS
    tmp = tempfile.mkdtemp(prefix="ray-task-shapes-")
    port = free_port()
    ray.init(num_cpus=4, _temp_dir=tmp, include_dashboard=True, dashboard_port=port)
    ADDRESS = f"http://127.0.0.1:{port}"
    try:
        out = {"ray.__version__": ray.__version__}
        starting = Slow.remote(8)
        waiting = starting.nap.remote(0)
        time.sleep(2)
        rows = rows_by_name()
        out["waiting_for_actor_start"] = next(v for k, v in rows.items() if k.startswith("Slow.nap:"))
        ray.get(waiting)
        busy = Slow.remote(0)
        ray.get(busy.nap.remote(0))
        running = busy.nap.remote(20)
        queued = busy.nap.remote(0.1)
        time.sleep(2)
        rows = rows_by_name()
        naps = [v for k, v in rows.items() if k.startswith("Slow.nap:")]
        out["running"] = next(v for v in naps if v["task_id"] == running.task_id().hex())
        out["queued_behind_running"] = next(v for v in naps if v["task_id"] == queued.task_id().hex())
        ray.get([running, queued])
        ray.get(busy.execute_method.remote("init_device", 1))
        try:
            ray.get(busy.boom.remote())
        except ValueError:
            pass
        time.sleep(2)
        rows = rows_by_name()
        out["finished"] = rows["Slow.execute_method:FINISHED"]
        out["failed"] = rows["Slow.boom:FAILED"]
        json.dump(out, sys.stdout, indent=1, sort_keys=True, default=str)
        print()
    finally:
        ray.shutdown()


if __name__ == "__main__":
    main()
