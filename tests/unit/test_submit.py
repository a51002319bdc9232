"""Submitter (python/ray/_beam/api/submit.py) against a fake connection: queued calls and a link
that breaks while they drain."""

import enum
import io
import threading

import cloudpickle

import pytest

from ray._beam.api import ids, pickling
from ray._beam.api.objects import ObjectTable
from ray._beam.api.submit import Submitter
from ray.exceptions import ActorDiedError

ACTOR_X, ACTOR_Y = "aa" * 16, "bb" * 16


class FakeConn:
    def __init__(self):
        self.sent = []
        self.broken = False

    def send_call(self, head, payload):
        if self.broken:
            raise ConnectionError("the beam daemon went away")
        self.sent.append(head)


def test_calls_wait_for_their_arguments_then_leave_in_order():
    table, conn = ObjectTable(), FakeConn()
    sub = Submitter(conn, table)
    dep = table.register(ids.new_object_id())
    first = sub.submit(ACTOR_X, "f", (dep,), {})
    second = sub.submit(ACTOR_X, "g", (1,), {})  # no dependency, but queued behind the first
    assert conn.sent == []
    table.resolve(dep.hex(), data=pickling.dumps(5))
    assert [b'"method":"f"' in h for h in conn.sent] == [True, False]
    assert b'"method":"g"' in conn.sent[1]
    del first, second


def test_a_link_that_breaks_while_a_queue_drains_fails_the_dependent_calls_without_deadlock():
    # The drain of X's queue (holding the submitter's lock) fails to send its call; failing that
    # call's result runs the callback that drains Y's queue, on the same thread.
    table, conn = ObjectTable(), FakeConn()
    sub = Submitter(conn, table)
    dep = table.register(ids.new_object_id())
    on_x = sub.submit(ACTOR_X, "f", (dep,), {})
    on_y = sub.submit(ACTOR_Y, "g", (on_x,), {})
    conn.broken = True
    resolver = threading.Thread(target=table.resolve, args=(dep.hex(),), kwargs={"data": pickling.dumps(1)},
                                daemon=True)
    resolver.start()
    resolver.join(10)
    assert not resolver.is_alive(), "the drain deadlocked on the submitter's lock"
    for ref in (on_x, on_y):
        with pytest.raises(ActorDiedError, match="went away"):
            table.entry(ref.hex()).load()


def test_a_drain_reentered_for_the_same_actor_leaves_other_actors_calls_going():
    # The first queued call to X fails to pickle when its argument resolves; failing it runs
    # the drain of X again (the second call waits for its result) inside the first drain.
    table, conn = ObjectTable(), FakeConn()
    sub = Submitter(conn, table)
    dep = table.register(ids.new_object_id())
    first = sub.submit(ACTOR_X, "f", (dep, threading.Lock()), {})
    second = sub.submit(ACTOR_X, "g", (first,), {})
    on_y = sub.submit(ACTOR_Y, "h", (dep,), {})
    table.resolve(dep.hex(), data=pickling.dumps(1))
    with pytest.raises(TypeError, match="Could not serialize"):
        table.entry(first.hex()).load()
    with pytest.raises(TypeError):
        table.entry(second.hex()).load()
    assert [b'"method":"h"' in h for h in conn.sent] == [True], "the call to Y was never sent"
    assert sub._queues == {}
    later = sub.submit(ACTOR_X, "k", (1,), {})  # the actor's queue still works
    assert b'"method":"k"' in conn.sent[-1]
    del on_y, later


def test_a_call_without_ref_arguments_leaves_at_once_and_an_unpicklable_one_names_its_method():
    table, conn = ObjectTable(), FakeConn()
    sub = Submitter(conn, table)
    ref = sub.submit(ACTOR_X, "f", (b"x" * 10, "s", 3), {"k": 1.5})
    assert len(conn.sent) == 1 and b'"method":"f"' in conn.sent[0]
    with pytest.raises(TypeError, match="Could not serialize the arguments of the actor method 'g'"):
        sub.submit(ACTOR_X, "g", (threading.Lock(),), {})
    assert len(conn.sent) == 1
    del ref


class _Flag(enum.IntEnum):
    ON = 1


@pytest.mark.parametrize("args,kwargs", [
    ((b"x" * 4096,), {}),
    ((1, 2.5, "s", None, True, b""), {}),
    ((), {}),
    ((1,), {"k": "v"}),  # keyword arguments: cloudpickle
    ((_Flag.ON,), {}),  # a subclass of int: cloudpickle
    (([1, 2], {"a": (3,)}), {}),  # containers: cloudpickle
    ((lambda v: v + 1,), {}),  # by value: cloudpickle
])
def test_call_arguments_round_trip_whichever_pickler_writes_them(args, kwargs):
    data = pickling.dumps_call_args(args, kwargs)
    got_args, got_kwargs = pickling.loads(data)
    if args and callable(args[0]):
        assert got_args[0](1) == 2
    else:
        assert (got_args, got_kwargs) == (args, kwargs)
        assert [type(a) for a in got_args] == [type(a) for a in args]
    if all(type(a) in (bytes, int, float, str, bool, type(None)) for a in args) and not kwargs:
        assert data == pickling.dumps((args, kwargs)) == _cloudpickled((args, kwargs))


def _cloudpickled(obj):
    with io.BytesIO() as f:
        pickling._Pickler(f, protocol=cloudpickle.DEFAULT_PROTOCOL).dump(obj)
        return f.getvalue()


@pytest.mark.parametrize("value", [7, 2.5, "text", b"bytes", None, False, _Flag.ON, [1]])
def test_a_return_value_pickles_to_cloudpickles_bytes(value):
    assert pickling.dumps(value) == _cloudpickled(value)
    assert pickling.loads(pickling.dumps(value)) == value
