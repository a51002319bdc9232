"""The daemon out of file descriptors: it backs off instead of spinning, and serves again
once descriptors are free (a real daemon, a real RLIMIT_NOFILE, real sockets)."""

import os
import resource
import socket
import time

from conftest import WAIT_S, node_json, run_driver, wait_until


def _cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def test_out_of_fds_backs_off_then_serves_again(clusters):
    base = clusters.start("--num-cpus", "1", "--num-gpus", "0")
    info = node_json(base)
    daemon = info["pid"]
    old = resource.prlimit(daemon, resource.RLIMIT_NOFILE)
    in_use = len(os.listdir(f"/proc/{daemon}/fd"))
    resource.prlimit(daemon, resource.RLIMIT_NOFILE, (in_use, old[1]))  # no fd left: accept fails
    sock_path = os.path.join(base, "session_latest", "sockets", "beamd.sock")
    clients = []
    try:
        for _ in range(40):  # the kernel queues these in the backlog; the daemon cannot accept them
            c = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            c.connect(sock_path)
            clients.append(c)
        log = os.path.join(base, "session_latest", "logs", "beamd.log")
        wait_until(lambda: "accept failed" in open(log).read(), WAIT_S, "the daemon's first 'accept failed' warning")
        cpu0 = _cpu_seconds(daemon)
        time.sleep(2.0)  # the window measured: out of fds, the daemon must sit still in it
        spent = _cpu_seconds(daemon) - cpu0
        assert spent < 0.5, f"the daemon spun for {spent:.2f} s of CPU in 2 s while out of fds"
    finally:
        for c in clients:
            c.close()
        resource.prlimit(daemon, resource.RLIMIT_NOFILE, old)
    with open(os.path.join(base, "session_latest", "logs", "beamd.log")) as f:
        warnings = [line for line in f if "accept failed" in line]
    assert 0 < len(warnings) < 20, f"{len(warnings)} accept warnings (want a few, not a flood)"
    assert "retrying in" in warnings[0], warnings[0]
    done = run_driver(base, """
        import ray
        ray.init(address="auto")

        @ray.remote
        class A:
            def ping(self):
                return "pong"

        print("GOT", ray.get(A.remote().ping.remote(), timeout=60))
    """)
    assert done.returncode == 0, done.stderr
    assert "GOT pong" in done.stdout
