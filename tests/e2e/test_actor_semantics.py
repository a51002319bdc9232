"""Actor semantics end to end (what test_actors_e2e.py does not cover): argument
resolution, ordering, parallelism, errors and deaths with their messages, names,
concurrency. The pytest process is the driver (the module's `cluster`)."""

import asyncio
import glob
import os
import re
import signal
import sys
import threading
import time

import pytest

import ray
from ray.exceptions import ActorDiedError, RayActorError, RayTaskError

from conftest import WAIT_S, wait_until


@ray.remote(num_cpus=0)
class Worker:
    def __init__(self):
        self.seen = []

    def pid(self):
        return os.getpid()

    def slow_time(self, s):
        time.sleep(s)
        return time.time()

    def inspect(self, x=None, *, kw=None):
        return type(x).__name__, x, type(kw).__name__, kw, time.time()

    def append(self, i):
        self.seen.append(i)

    def seen_list(self):
        return self.seen

    def sleep(self, s):
        time.sleep(s)
        return s

    def span(self, s, marker=None):
        """Sleeps ``s`` (touching ``marker`` first, so a test can wait until it runs); returns
        when it began and ended on the host's monotonic clock, which every process shares."""
        began = time.monotonic()
        if marker:
            open(marker, "w").close()
        time.sleep(s)
        return began, time.monotonic()

    def fail_here(self, text):
        raise ValueError(text)

    def echo(self, x):
        return x

    def exit_with(self, code):
        os._exit(code)

    def last_words(self, text):
        print(text, file=sys.stderr, flush=True)
        return os.getpid()


def _warm(*actors):
    """Wait until every actor answered once (creation is not what these tests time)."""
    ray.get([a.pid.remote() for a in actors], timeout=60)


def test_object_ref_args_are_resolved_before_the_method_runs(cluster):
    producer, consumer = Worker.remote(), Worker.remote()
    _warm(producer, consumer)
    still_running = producer.slow_time.remote(0.5)
    put = ray.put({"k": [1, 2]})
    kind, value, kw_kind, kw_value, started = ray.get(
        consumer.inspect.remote(still_running, kw=put), timeout=30)
    assert kind == "float", f"method got a {kind}, not the value of the pending call"
    assert started >= value, "method ran before the call its argument came from finished"
    assert (kw_kind, kw_value) == ("dict", {"k": [1, 2]}), "keyword ray.put ref not resolved"


def test_thousand_calls_run_in_submission_order(cluster):
    a = Worker.remote()
    refs = [a.append.remote(i) for i in range(1000)]
    ray.get(refs, timeout=120)
    assert ray.get(a.seen_list.remote(), timeout=30) == list(range(1000))


@ray.remote(num_cpus=0)
class LineWriter:
    def write(self, path, i):
        with open(path, "a") as f:
            f.write(f"{i}\n")


def test_a_burst_of_calls_nobody_waits_for_still_runs_soon(cluster, tmp_path):
    # 50 calls back to back: all but the first few are held and written together
    # (python/ray/_beam/wire/outbox.py). With no ray.get after them, the flusher must send them.
    w = LineWriter.remote()
    ray.get(w.write.remote(str(tmp_path / "warm"), 0), timeout=30)
    path = str(tmp_path / "lines")
    for i in range(50):
        w.write.remote(path, i)

    def lines():
        if not os.path.exists(path):
            return []
        with open(path) as f:
            return f.read().split()
    # no ray call here: only the flusher can send them (without it they would never run)
    wait_until(lambda: len(lines()) == 50, WAIT_S, "all 50 calls ran without a ray.get")
    assert lines() == [str(i) for i in range(50)]


def test_two_actors_run_in_parallel(cluster):
    a, b = Worker.remote(), Worker.remote()
    _warm(a, b)
    (a0, a1), (b0, b1) = ray.get([a.span.remote(1.0), b.span.remote(1.0)], timeout=60)
    # parallel: each began before the other ended (one after the other would not overlap),
    # whatever the load makes the sleeps last
    assert a0 < b1 and b0 < a1, f"two 1 s sleeps on two actors did not overlap: {(a0, a1)} {(b0, b1)}"


def test_method_exception_round_trip(cluster):
    a = Worker.remote()
    try:
        ray.get(a.fail_here.remote("boom-123"), timeout=30)
    except ValueError as e:  # a plain `except ValueError` must catch it
        err = e
    else:
        pytest.fail("no exception raised")
    assert isinstance(err, RayTaskError)
    assert type(err).__name__ == "RayTaskError(ValueError)"
    text = str(err)
    assert "ray::Worker.fail_here()" in text, text
    assert re.search(r'File ".*", line \d+, in fail_here', text), f"no remote traceback: {text}"
    assert text.rstrip().endswith("ValueError: boom-123"), text
    assert isinstance(err.cause, ValueError) and str(err.cause) == "boom-123"
    assert ray.get(a.echo.remote("still alive"), timeout=30) == "still alive"


def test_remote_traceback_names_source_file_and_line(cluster):
    # Ray keeps code file names when it pickles a class by value (a @ray.remote class in a
    # script or test module is), so the remote traceback shows the file and the source line.
    a = Worker.remote()
    with pytest.raises(RayTaskError) as ei:
        ray.get(a.fail_here.remote("boom-456"), timeout=30)
    text = str(ei.value)
    assert re.search(r'File ".*test_actor_semantics\.py", line \d+, in fail_here', text), text
    assert "raise ValueError(text)" in text, f"no source line in the remote traceback: {text}"


def test_failing_constructor_gives_actor_died_error_with_its_text(cluster):
    @ray.remote(num_cpus=0)
    class Broken:
        def __init__(self):
            raise RuntimeError("ctor-broke-42")

        def m(self):
            return 1

    b = Broken.remote()
    with pytest.raises(ActorDiedError) as ei:
        ray.get(b.m.remote(), timeout=30)
    assert "ctor-broke-42" in str(ei.value), str(ei.value)
    with pytest.raises(ActorDiedError):
        ray.get(b.m.remote(), timeout=30)


def test_os_exit_gives_actor_died_error_naming_the_code(cluster):
    a = Worker.remote()
    _warm(a)
    with pytest.raises(ActorDiedError) as ei:
        ray.get(a.exit_with.remote(3), timeout=30)
    msg = str(ei.value)
    assert re.search(r"\b(exit )?code:? 3\b", msg), f"exit code 3 not named in: {msg}"
    with pytest.raises(ActorDiedError):
        ray.get(a.echo.remote(1), timeout=30)


def test_sigkill_fails_pending_call_fast_with_signal_and_stderr(cluster, tmp_path):
    a = Worker.remote()
    pid = ray.get(a.last_words.remote("LAST-WORDS-7f3a"), timeout=60)
    err_files = glob.glob(os.path.join(cluster, "session_latest", "logs", f"*{pid}.err"))
    wait_until(lambda: any("LAST-WORDS-7f3a" in open(f).read() for f in err_files), WAIT_S,
               f"the actor's last words in its log file {err_files}")  # the daemon has them then
    running = str(tmp_path / "running")
    pending = a.span.remote(600, running)
    wait_until(lambda: os.path.exists(running), WAIT_S, "the pending call running in the actor")
    os.kill(pid, signal.SIGKILL)
    # failed by the death itself: the call sleeps 600 s, and a get that timed out would raise
    # GetTimeoutError, not ActorDiedError (the bound only leaves room for a loaded machine)
    with pytest.raises(ActorDiedError) as ei:
        ray.get(pending, timeout=60)
    msg = str(ei.value)
    assert "SIGKILL" in msg, f"signal not named in: {msg}"
    assert "LAST-WORDS-7f3a" in msg, f"last stderr lines missing from: {msg}"


def test_ray_kill_fails_pending_and_later_calls(cluster):
    a = Worker.remote()
    _warm(a)
    pending = a.sleep.remote(60)
    ray.kill(a)
    for ref in (pending, a.echo.remote(1)):
        with pytest.raises(ActorDiedError) as ei:
            ray.get(ref, timeout=10)
        assert isinstance(ei.value, RayActorError)
        assert "ray.kill" in str(ei.value), str(ei.value)


def test_named_actors(cluster):
    a = Worker.options(name="semantics_named").remote()
    b = ray.get_actor("semantics_named")
    assert ray.get(b.echo.remote("via name"), timeout=30) == "via name"
    assert b == a
    with pytest.raises(ValueError):
        Worker.options(name="semantics_named").remote()
    with pytest.raises(ValueError):
        ray.get_actor("semantics_no_such_name")
    assert ray.get(a.echo.remote("first survives"), timeout=30) == "first survives"


def test_max_concurrency_runs_four_calls_at_once(cluster):
    @ray.remote(num_cpus=0, max_concurrency=4)
    class Gate:
        def __init__(self):
            self.barrier = threading.Barrier(4, timeout=10)

        def arrive(self):
            self.barrier.wait()  # breaks (raises) unless 4 calls run at the same time
            return True

    g = Gate.remote()
    assert ray.get([g.arrive.remote() for _ in range(4)], timeout=60) == [True] * 4


def test_async_methods_run_concurrently(cluster):
    @ray.remote(num_cpus=0)
    class AsyncGate:
        def __init__(self):
            self.count = 0
            self.event = None

        async def arrive(self, total):
            if self.event is None:
                self.event = asyncio.Event()
            self.count += 1
            if self.count == total:
                self.event.set()
            await asyncio.wait_for(self.event.wait(), 10)
            return self.count

    g = AsyncGate.remote()
    assert ray.get([g.arrive.remote(5) for _ in range(5)], timeout=60) == [5] * 5
