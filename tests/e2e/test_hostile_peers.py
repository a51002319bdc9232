"""Hostile peers at the head's door, with a joined node (127.0.0.2) and a live
driver working throughout, as users run: payloads announced and never sent cost the head
nothing, and idle or trickling strangers never keep a real node from its challenge."""
import json
import os
import shutil
import sys
import tempfile
import time

import pytest

from conftest import ROOT, ray_cli, read_line_with, run_driver, spawn_driver, wait_gone
from test_security_load import start_head, token_of

sys.path.insert(0, os.path.join(ROOT, "tools"))
import hostile_peers as hp  # noqa: E402

# A driver that keeps calling an actor on each node and says so every 200 calls.
WORKING_DRIVER = """
    import ray
    ray.init()
    @ray.remote
    class Echo:
        def echo(self, x):
            return x
    actors = [Echo.options(resources={f"node:{ip}": 0.01}).remote() for ip in ("127.0.0.1", "127.0.0.2")]
    n = 0
    while True:
        for a in actors:
            assert ray.get(a.echo.remote(n), timeout=30) == n
        n += 1
        if n % 200 == 0:  # runs until the test kills it
            print("calls", n, flush=True)
"""

BIG_CALL = """
    import ray
    ray.init()
    @ray.remote
    class Size:
        def size(self, b):
            return len(b)
    a = Size.options(resources={"node:127.0.0.2": 0.01}).remote()
    print("big", ray.get(a.size.remote(b"x" * (64 << 20)), timeout=120))
    print("alive", sum(1 for n in ray.nodes() if n["Alive"]))
"""


@pytest.fixture
def cluster():
    dirs = [tempfile.mkdtemp(prefix=f"beam-hostile{i}-") for i in range(3)]
    address = start_head(dirs[0])
    joined = ray_cli(["start", "--address", address, "--temp-dir", dirs[1], "--node-ip-address", "127.0.0.2"],
                     RAY_AUTH_TOKEN=token_of(dirs[0]))
    assert joined.returncode == 0, joined.stderr
    with open(os.path.join(dirs[0], "session_latest", "node.json")) as f:
        node = json.load(f)
    driver = spawn_driver(dirs[0], WORKING_DRIVER)
    read_line_with(driver, "calls 200", timeout=60)
    host, port = address.rsplit(":", 1)
    yield dirs, (host, int(port)), node, driver
    driver.kill()
    driver.wait()
    for d in reversed(dirs):
        ray_cli(["stop", "--temp-dir", d], timeout=30)
    wait_gone(base=dirs[0], within=10)
    for d in dirs:
        shutil.rmtree(d, ignore_errors=True)


def strangers_settle_under(bound, *crowds, seconds=30.0):
    """How many of the crowds' connections the head keeps open, once that count is at most
    `bound` or `seconds` have passed (then the last count, for the assertion to show)."""
    deadline = time.monotonic() + seconds
    while True:
        alive = sum(crowd.alive() for crowd in crowds)
        if alive <= bound or time.monotonic() > deadline:
            return alive
        time.sleep(0.2)


def calls_so_far(driver):
    lines = read_line_with(driver, "calls", timeout=30)
    return int([line for line in lines if line.startswith("calls")][-1].split()[1])


def assert_still_working(dirs, driver, before_calls, nodes=2):
    deadline = time.monotonic() + 30
    while calls_so_far(driver) <= before_calls and time.monotonic() < deadline:
        read_line_with(driver, f"calls {before_calls + 200}", timeout=30)
    assert calls_so_far(driver) > before_calls, "the driver stopped making progress"
    assert driver.poll() is None, driver.stderr.read()
    out = run_driver(dirs[0], BIG_CALL, timeout=180)
    assert out.returncode == 0, out.stderr[-3000:]
    assert f"big {64 << 20}" in out.stdout and f"alive {nodes}" in out.stdout, out.stdout


def test_a_thousand_strangers_announcing_a_gigabyte_cost_the_head_nothing(cluster):
    dirs, address, node, driver = cluster
    rss0 = hp.rss_bytes(node["pid"])
    calls0 = calls_so_far(driver)
    with hp.Crowd() as crowd:
        # a join that announces a payload, and any other first frame that does, each with
        # a few bytes of the gigabyte, from 20 source addresses
        sources = [f"127.0.3.{i}" for i in range(1, 21)]
        join = hp.announcing({"op": "join", "rid": 1}, hp.GIB, b"x" * 1000)
        call = hp.announcing({"op": "call", "rid": 1}, hp.GIB, b"x" * 1000)
        hp.open_many(crowd, address, 500, join, read_challenge=True, sources=sources)
        hp.open_many(crowd, address, 500, call, read_challenge=True, sources=sources)
        # and on the unix socket, where a local client is trusted but its memory is not free
        hello = hp.frame({"op": "hello", "rid": 1, "proto": 1, "role": "driver", "pid": os.getpid()})
        hp.open_many(crowd, node["socket"], 100, hello + hp.announcing({"op": "put", "rid": 2}, hp.GIB, b"y" * 1000))
        time.sleep(1.0)
        grown = hp.rss_bytes(node["pid"]) - rss0
        assert grown < 64 << 20, f"the head grew by {grown >> 20} MiB"
        assert_still_working(dirs, driver, calls0)


def test_a_real_node_gets_its_challenge_at_once_past_1500_idle_and_trickling_strangers(cluster):
    dirs, address, node, driver = cluster
    assert hp.fd_limit(node["pid"]) >= 4096, "the daemon's soft fd limit is too low for its connection limit"
    calls0 = calls_so_far(driver)
    with hp.Crowd() as idle, hp.Crowd() as trickling:
        sources = [f"127.0.4.{i}" for i in range(1, 31)]
        hp.open_many(idle, address, 1400, sources=sources)
        hp.open_many(trickling, address, 100, sources=sources)
        trickler = hp.Trickler(trickling, every=0.2, seconds=20)
        trickler.start()
        waits = [hp.challenge_seconds(address) for _ in range(5)]
        # the target is 0.2 s (bench and docs/ROBUSTNESS.md measure it); 1 s here leaves room
        # for a busy CI machine and is still far below the 3-4 s a held door cost
        assert max(waits) < 1.0, waits
        # strangers are bounded in total (a quarter of --max-connections, at most 512). The
        # bound holds for the connections the head has accepted; those still in the kernel's
        # accept queue look open to us until the head takes them and cuts off the oldest, so
        # the count settles within moments, and without the bound it would stay near 1,500.
        assert strangers_settle_under(512, idle, trickling) <= 512
        # a real node joins while they hold the door, and everyone already in keeps working
        joined = ray_cli(["start", "--address", f"{address[0]}:{address[1]}", "--temp-dir", dirs[2],
                          "--node-ip-address", "127.0.0.3"], RAY_AUTH_TOKEN=token_of(dirs[0]))
        assert joined.returncode == 0, joined.stderr
        trickler.stop.set()
        trickler.join()
        assert_still_working(dirs, driver, calls0, nodes=3)
