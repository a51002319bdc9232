"""ray.get / ray.wait argument checks, timeouts, ordering and thread safety."""

import os
import threading
import time

import pytest

import ray
from ray.exceptions import GetTimeoutError


@ray.remote(num_cpus=0)
class Sleeper:
    def sleep(self, s, tag=None):
        time.sleep(s)
        return tag if tag is not None else s

    def echo(self, x):
        return x

    def until_exists(self, path, limit_s=120):
        """Ends only once the test creates ``path``: a call that certainly outlasts a timeout,
        however slow the machine (a sleep of N s may end before a loaded get returns)."""
        deadline = time.monotonic() + limit_s
        while not os.path.exists(path) and time.monotonic() < deadline:
            time.sleep(0.02)
        return os.path.exists(path)


@pytest.fixture(scope="module")
def sleepers(cluster):
    actors = [Sleeper.remote() for _ in range(3)]
    ray.get([a.echo.remote(0) for a in actors], timeout=60)
    return actors


def test_get_rejects_a_non_ref_naming_its_type(cluster):
    with pytest.raises(ValueError, match="str"):
        ray.get("x")


def test_get_timeout_is_get_timeout_error_and_timeout_error(sleepers, tmp_path):
    go = str(tmp_path / "go")
    ref = sleepers[0].until_exists.remote(go)  # runs until the test says so
    start = time.monotonic()
    with pytest.raises(GetTimeoutError) as ei:
        ray.get(ref, timeout=0.2)
    took = time.monotonic() - start
    assert isinstance(ei.value, TimeoutError)
    assert took >= 0.15, f"ray.get(timeout=0.2) gave up after {took:.2f} s"
    open(go, "w").close()
    assert ray.get(ref, timeout=60) is True  # the call itself went on


def test_wait_keeps_input_order_and_num_returns(sleepers):
    a, (_, b, c) = Sleeper.remote(), sleepers
    slow = a.sleep.remote(30, "slow")
    fast = [b.echo.remote(i) for i in range(3)] + [c.echo.remote(i) for i in range(3, 5)]
    ray.get(fast, timeout=30)
    refs = [fast[4], slow, fast[0], fast[2], fast[1], fast[3]]
    ready, not_ready = ray.wait(refs, num_returns=5, timeout=10)
    assert ready == [fast[4], fast[0], fast[2], fast[1], fast[3]]
    assert not_ready == [slow]
    ready, not_ready = ray.wait(refs, num_returns=2, timeout=10)
    assert ready == [fast[4], fast[0]], "ready refs not the first done ones in input order"
    assert not_ready == [slow, fast[2], fast[1], fast[3]]
    ray.kill(a)


def test_wait_timeout_returns_what_is_ready(sleepers, tmp_path):
    go = str(tmp_path / "go")
    slow = sleepers[1].until_exists.remote(go)  # runs until the test says so
    done = sleepers[2].echo.remote("x")
    ray.get(done, timeout=30)
    start = time.monotonic()
    ready, not_ready = ray.wait([slow, done], num_returns=2, timeout=0.3)
    took = time.monotonic() - start
    assert (ready, not_ready) == ([done], [slow])
    assert took >= 0.25, f"ray.wait(timeout=0.3) gave up after {took:.2f} s"
    assert ray.wait([slow], timeout=0) == ([], [slow])
    open(go, "w").close()
    assert ray.wait([slow], timeout=60) == ([slow], [])


def test_wait_rejects_duplicates_and_bad_num_returns(sleepers):
    ref = sleepers[2].echo.remote(1)
    with pytest.raises(ValueError):
        ray.wait([ref, ref])
    with pytest.raises(ValueError):
        ray.wait([ref], num_returns=2)
    with pytest.raises(TypeError):
        ray.wait(ref)
    assert ray.wait([ref], timeout=30) == ([ref], [])


def test_eight_threads_get_and_wait_concurrently(sleepers):
    results, errors = {}, []

    def work(k):
        try:
            actor = sleepers[k % 3]
            refs = [actor.echo.remote((k, i)) for i in range(100)]
            if k % 2:
                ready, rest = ray.wait(refs, num_returns=len(refs), timeout=60)
                assert not rest and ready == refs
            results[k] = ray.get(refs, timeout=60)
        except Exception as e:  # noqa: BLE001
            errors.append((k, repr(e)))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not errors, errors
    assert all(not t.is_alive() for t in threads), "a thread is stuck in ray.get/ray.wait"
    for k in range(8):
        assert results[k] == [(k, i) for i in range(100)], f"thread {k} got wrong values"


def test_a_future_on_a_pending_result_makes_the_idle_reader_prompt(sleepers):
    """The driver's object table tells its connection when a future waits for a result (the
    idle reader then checks every 5 ms instead of 200 ms, connection.py)."""
    from ray._beam.api import client

    conn = client.get_client().conn
    assert client.get_client().table.on_first_watch == conn.pushes_now_prompt  # wakes it at once
    ref = sleepers[1].sleep.remote(0.3, "done")
    assert not conn.prompt_pushes()
    fut = ref.future()
    assert conn.prompt_pushes()
    assert fut.result(timeout=30) == "done"
    assert not conn.prompt_pushes()
