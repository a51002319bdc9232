"""The object table alone: ordering, timeouts, errors, refcounts, threads (no daemon)."""

import threading

import cloudpickle
import pytest

from ray._beam.api import ids
from ray._beam.api.objects import ObjectRef, ObjectTable
from ray.exceptions import ActorDiedError, GetTimeoutError


def test_ids_have_rays_lengths():
    assert len(ids.new_object_id()) == 56 and ids.new_object_id().endswith("00000000")
    assert len(ids.new_actor_id("01000000")) == 32
    assert ids.new_actor_id("01000000").endswith("01000000")
    assert len(ids.new_pg_id("01000000")) == 36
    assert ids.new_object_id() != ids.new_object_id()


def test_get_timeout_then_result_from_another_thread():
    t = ObjectTable()
    ref = t.register("aa" * 28)
    with pytest.raises(GetTimeoutError, match="Get timed out: some object"):
        t.get([ref.hex()], 0.05)
    threading.Timer(0.05, t.resolve, args=(ref.hex(),), kwargs={"data": cloudpickle.dumps(7)}).start()
    assert t.get([ref.hex()], 5) == [7]
    assert repr(ref) == f"ObjectRef({'aa' * 28})"


def test_ready_mask_keeps_input_order():
    t = ObjectTable()
    refs = [t.register(f"{i:056x}") for i in range(4)]
    t.resolve(refs[2].hex(), data=cloudpickle.dumps(2))
    t.resolve(refs[0].hex(), error=ActorDiedError("dead"))
    assert t.ready_mask([r.hex() for r in refs], 1, 0) == [True, False, True, False]


def test_error_raised_and_refcount_frees():
    t = ObjectTable()
    ref = t.register("bb" * 28)
    t.resolve(ref.hex(), error=ActorDiedError("dead"))
    with pytest.raises(ActorDiedError, match="dead"):
        t.get([ref.hex()], 0)
    assert len(t) == 1
    del ref
    assert len(t) == 0


def test_many_threads_wait_and_get():
    t = ObjectTable()
    refs = [t.register(ids.new_object_id()) for _ in range(50)]
    results = []

    def getter():
        results.append(t.get([r.hex() for r in refs], 10))
    threads = [threading.Thread(target=getter) for _ in range(4)]
    for th in threads:
        th.start()
    for i, r in enumerate(refs):
        t.resolve(r.hex(), data=cloudpickle.dumps(i))
    for th in threads:
        th.join(5)
    assert results == [list(range(50))] * 4


def test_callbacks_run_once_on_completion():
    t = ObjectTable()
    ref = t.register("cc" * 28)
    seen = []
    t.on_done(ref.hex(), lambda e: seen.append(e.load()))
    t.resolve(ref.hex(), data=cloudpickle.dumps("x"))
    t.resolve(ref.hex(), data=cloudpickle.dumps("y"))
    t.on_done(ref.hex(), lambda e: seen.append(e.load()))
    assert seen == ["x", "x"]
    assert ref.future().result(1) == "x"


def test_waits_tell_the_reader_how_many_results_are_still_missing():
    """ray.get / ray.wait pass the connection a count of results still to come, re-read after
    each arrival: it decides whether the reading thread polls before sleeping (spin.py), so
    the last reply of a broadcast is polled for and the first three are not."""
    t = ObjectTable()
    oids = [f"o{i}" for i in range(4)]
    refs = [t.register(o) for o in oids]  # noqa: F841 - keeps the entries alive
    seen = []

    def wait_for(done, timeout, replies):
        arrived = 0
        while not done():
            seen.append(replies())
            t.resolve(oids[arrived], data=cloudpickle.dumps(arrived))
            arrived += 1
        return True
    t.wait_for = wait_for
    assert t.get(oids, None) == [0, 1, 2, 3]
    assert seen == [4, 3, 2, 1]
    more = [f"p{i}" for i in range(3)]
    refs += [t.register(o) for o in more]
    seen.clear()
    oids = more
    assert t.ready_mask(more, 2, None) == [True, True, False]  # ray.wait(num_returns=2)
    assert seen == [2, 1]


def test_a_future_or_callback_first_writes_the_calls_held_back():
    # They wait outside wait_for, so the table's flush hook (the connection's outbox) must run.
    t = ObjectTable()
    flushes = []
    t.flush_writes = lambda: flushes.append(1)
    ref = t.register(ids.new_object_id())
    fut = ref.future()
    ref._on_completed(lambda v: None)
    assert len(flushes) == 2
    t.resolve(ref.hex(), data=cloudpickle.dumps(7))
    assert fut.result(timeout=5) == 7


def test_a_failing_callback_does_not_stop_the_others():
    t = ObjectTable()
    ref = t.register(ids.new_object_id())
    ran = []

    def bad(_entry):
        raise RuntimeError("a bug in a callback")
    t.on_done(ref.hex(), bad)
    t.on_done(ref.hex(), lambda _entry: ran.append(1))
    t.resolve(ref.hex(), data=cloudpickle.dumps(1))
    assert ran == [1]


def test_an_entry_lives_as_long_as_any_of_its_refs():
    t = ObjectTable()
    oid = "ab" * 28
    first = t.register(oid)
    copy = ObjectRef(oid, t)  # a second ref to the same entry
    again = t.register(oid)  # registering a known id adds a ref, not a second entry
    assert len(t) == 1
    del first, again
    assert len(t) == 1, "one ref is left"
    del copy
    assert len(t) == 0


def test_callbacks_on_pending_objects_make_the_idle_reader_prompt():
    """While a callback or future waits for a pending object, its result must be handled
    soon even with no thread in ray.get (connection.py, the idle reader's prompt checks):
    the table says so, and calls its hook on the first such object only."""
    t = ObjectTable()
    woken = []
    t.on_first_watch = lambda: woken.append(t.watched())
    a, b = t.register("aa" * 28), t.register("bb" * 28)
    assert not t.watched()
    fut = a.future()
    a._on_completed(lambda v: None)  # a second callback on the same object
    b.future()
    assert t.watched() and woken == [True]  # one wake-up, on the first
    t.resolve(a.hex(), data=cloudpickle.dumps(1))
    assert fut.result(1) == 1 and t.watched()  # b still waits
    t.resolve(b.hex(), error=ActorDiedError("dead"))
    assert not t.watched()
    c = t.register("cc" * 28)
    t.resolve(c.hex(), data=cloudpickle.dumps(3))
    c.future()  # already done: nothing waits
    assert not t.watched() and woken == [True]
    t.register("dd" * 28).future()
    assert t.watched() and woken == [True, True]
    t.fail_pending(lambda: ActorDiedError("gone"))  # shutdown fails it: nothing waits any more
    assert not t.watched()


def test_a_pending_ref_takes_what_has_arrived_before_it_is_pickled():
    """A ref nested in an argument carries its value if it is ready when pickled; a result
    that lies unread in the socket counts as ready: pickling reads it first (no waiting)."""
    t = ObjectTable()
    ref = t.register("ee" * 28)
    looks = []

    def wait_for(done, timeout, replies=1):  # the connection's read finds the result
        looks.append(timeout)
        t.resolve(ref.hex(), data=cloudpickle.dumps("arrived"))
        return done()
    t.wait_for = wait_for
    rebuild, (oid, data) = ref.__reduce__()
    assert looks == [0] and oid == ref.hex()
    assert data is not None and cloudpickle.loads(data) == "arrived"
    ref.__reduce__()
    assert looks == [0]  # a ready ref is pickled without a look
