"""`ray stack` on a cluster of two loopback hosts (127.0.0.1 head, 127.0.0.2 joined): every
actor's and driver's Python stack, from either node, also of an actor whose thread sleeps
in C code holding the GIL; a stopped process or one without a handler is listed with why
(the command's own bound, not a stopwatch, keeps it from hanging); --node-ip / --actor-id / --pid narrow it and refuse what the cluster does not know."""
import json
import os
import signal
import time

from conftest import WAIT_S, ray_cli, spawn_driver, read_line_with, finish, pid_alive, process_state, wait_until
from test_diagnostics import hosts, join, start_head  # noqa: F401  (hosts is a fixture)

DRIVER = """
    import ctypes, faulthandler, os, sys, time
    import ray
    ray.init()

    @ray.remote
    class Hung:
        def ident(self):
            return os.getpid(), ray.get_runtime_context().get_actor_id()

        def hang_in_c(self):
            # PyDLL keeps the GIL across the call: no Python code, and no Python-level signal
            # handler, can run in this process until sleep() returns. A signal ends a C sleep
            # early (nanosleep is never restarted), as it would a hang waiting there: sleep again.
            libc = ctypes.PyDLL(None)
            while True:
                libc.sleep(600)

    @ray.remote
    class Idle:
        def ident(self):
            return os.getpid(), ray.get_runtime_context().get_actor_id()

    hung = Hung.options(resources={"node:127.0.0.2": 0.01}).remote()
    idle = Idle.options(resources={"node:127.0.0.1": 0.01}).remote()
    (hung_pid, hung_id), (idle_pid, idle_id) = ray.get([hung.ident.remote(), idle.ident.remote()])
    hung.hang_in_c.remote()
    print("IDS", hung_pid, hung_id, idle_pid, idle_id, os.getpid(), flush=True)

    def driver_waits_here():
        while True:
            time.sleep(0.2)
    driver_waits_here()
"""

QUIET_DRIVER = """
    import faulthandler, os, time
    import ray
    ray.init()
    faulthandler.unregister(40)  # as a process that never registered: it must not be sent the signal
    print("QUIET", os.getpid(), flush=True)
    while True:
        time.sleep(0.2)
"""


def stack(base, *args, timeout=60):
    """`ray stack`; one that hung would fail at ``timeout`` (it answers within 5 s, but a test
    on a loaded machine cannot hold a fresh CLI process to that figure)."""
    return ray_cli(["stack", "--temp-dir", base, *args], timeout=timeout)


def stack_json(base, *args):
    done = stack(base, "--json", *args)
    assert done.returncode in (0, 1), done.stderr
    return json.loads(done.stdout), done.returncode


def by_pid(report):
    return {p["pid"]: p for p in report["processes"]}


def test_stacks_of_actors_and_drivers_on_two_nodes_also_one_holding_the_gil_in_c(hosts):
    address, token = start_head(hosts[0])
    join(hosts[1], address, token, "127.0.0.2")
    driver = spawn_driver(hosts[0], DRIVER)
    try:
        line = [ln for ln in read_line_with(driver, "IDS ") if ln.startswith("IDS ")][0].split()
        hung_pid, hung_id, idle_pid, idle_id, driver_pid = int(line[1]), line[2], int(line[3]), line[4], int(line[5])
        wait_until(lambda: "in hang_in_c" in stack(hosts[0], "--pid", str(hung_pid)).stdout, WAIT_S,
                   "the hang call reached the worker and entered sleep()")

        for base in (hosts[0], hosts[1]):  # from the head and from the joined node
            done = stack(base)
            assert done.returncode == 0, done.stdout + done.stderr
            out = done.stdout
            assert f"Actor Hung actor_id={hung_id} pid={hung_pid} node_ip=127.0.0.2" in out, out
            assert f"Actor Idle actor_id={idle_id} pid={idle_pid} node_ip=127.0.0.1" in out, out
            assert f"pid={driver_pid} node_ip=127.0.0.1" in out and "Driver job_id=" in out, out
        report, rc = stack_json(hosts[1])
        rows = by_pid(report)
        assert "in hang_in_c" in rows[hung_pid]["stack"], rows[hung_pid]
        assert "in driver_waits_here" in rows[driver_pid]["stack"], rows[driver_pid]
        assert rows[hung_pid]["class_name"] == "Hung" and rows[hung_pid]["node_ip"] == "127.0.0.2"
        # the header names the call it runs, from the head's call records
        assert rows[hung_pid]["call"].startswith("Hung.hang_in_c for "), rows[hung_pid]
        assert "call" not in rows[idle_pid], rows[idle_pid]
        assert " call=Hung.hang_in_c for " in done.stdout, done.stdout
        assert report["nodes_not_answering"] == []

        # narrowed: by node, by actor, by pid (the driver's)
        report, rc = stack_json(hosts[0], "--node-ip", "127.0.0.2")
        assert set(by_pid(report)) == {hung_pid}, report
        report, rc = stack_json(hosts[1], "--actor-id", idle_id)
        assert set(by_pid(report)) == {idle_pid} and "stack" in report["processes"][0], report
        report, rc = stack_json(hosts[0], "--pid", str(driver_pid))
        assert set(by_pid(report)) == {driver_pid} and report["processes"][0]["role"] == "driver", report

        # a stopped actor is listed with why, and the others still answer
        os.kill(idle_pid, signal.SIGSTOP)
        try:
            # the kernel stops it when it next runs, not when kill() returns
            wait_until(lambda: process_state(idle_pid) == "T", WAIT_S, f"actor pid {idle_pid} stopped by SIGSTOP")
            done = stack(hosts[0])
            assert done.returncode == 1, done.stdout
            assert "(no stack: stopped (T (stopped)): it runs no signal handler until it gets SIGCONT)" in done.stdout
            assert "in hang_in_c" in done.stdout  # the others are still dumped
        finally:
            os.kill(idle_pid, signal.SIGCONT)
    finally:
        finish(driver)


def test_a_process_without_the_handler_is_listed_not_signalled_and_unknown_names_are_refused(hosts):
    address, token = start_head(hosts[0])
    join(hosts[1], address, token, "127.0.0.2")
    quiet = spawn_driver(hosts[1], QUIET_DRIVER)  # a driver of the joined node
    try:
        quiet_pid = int([ln for ln in read_line_with(quiet, "QUIET ") if ln.startswith("QUIET ")][0].split()[1])
        report, rc = stack_json(hosts[0], "--pid", str(quiet_pid))
        assert rc == 1
        row = by_pid(report)[quiet_pid]
        assert row["node_ip"] == "127.0.0.2" and "registered no stack dump handler" in row["error"], row
        time.sleep(0.3)
        assert pid_alive(quiet_pid) and quiet.poll() is None  # signal 40 would have ended it

        # pids, actors and nodes the cluster does not know are refused, naming what it knows
        done = stack(hosts[0], "--pid", str(os.getpid()))  # this test's own process: never signalled
        assert done.returncode == 2 and "no actor process or connected driver has that pid" in done.stderr
        done = stack(hosts[0], "--node-ip", "10.9.9.9")
        assert done.returncode == 2 and "no live node has that IP" in done.stderr and "127.0.0.2" in done.stderr
        done = stack(hosts[0], "--actor-id", "ab" * 16)
        assert done.returncode == 2 and "no such actor" in done.stderr
        done = stack(hosts[0], "--actor-id", "not-an-id")
        assert done.returncode == 2 and "32 hex characters" in done.stderr
    finally:
        finish(quiet)
