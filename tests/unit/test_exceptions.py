"""Exception class chains and messages against real Ray 2.60's recorded shapes."""

import json
import pickle

import pytest

from _paths import SHAPES
import ray
import ray.exceptions as rex
from ray._beam.api import failures as errors

with open(SHAPES) as f:
    SHAPE = json.load(f)


def _mro(cls):
    return [c.__name__ for c in cls.__mro__]


@pytest.mark.parametrize("key,cls", [
    ("get timeout: types", rex.GetTimeoutError),
    ("killed actor pending call: types", rex.ActorDiedError),
    ("actor in removed pg: types", rex.ActorDiedError),
])
def test_mro_matches_ray(key, cls):
    assert _mro(cls) == SHAPE[key]


def _task_error():
    try:
        raise ValueError("bad thing")
    except ValueError as e:
        import traceback
        tb = "".join(traceback.format_exception(type(e), e, e.__traceback__))
        return errors.task_error({"exc": e, "tb": tb, "class_name": "A", "method": "boom",
                                  "pid": 5594, "ip": "10.0.0.1", "actor_id": "ab" * 16,
                                  "type_name": "ValueError", "repr": "<A object>",
                                  "message": "bad thing"})


def test_task_error_as_cause_matches_ray():
    exc = _task_error().as_instanceof_cause()
    assert _mro(type(exc)) == SHAPE["boom: exception types"]
    assert isinstance(exc, ValueError) and isinstance(exc, rex.RayTaskError)
    text = str(exc)
    assert text.startswith("\x1b[36mray::A.boom()\x1b[39m (pid=5594, ip=10.0.0.1, actor_id="
                           + "ab" * 16 + ", repr=<A object>)\n")
    assert text.endswith("ValueError: bad thing")
    assert exc.cause.args == ("bad thing",)


def test_unpicklable_cause_becomes_plain_exception():
    err = errors.task_error({"exc": None, "tb": "Traceback (most recent call last):\nX: y",
                             "class_name": "A", "method": "m", "pid": 1, "ip": "i",
                             "actor_id": "a", "type_name": "LockError", "repr": "r",
                             "message": "cannot pickle"})
    exc = err.as_instanceof_cause()
    assert type(exc) is rex.RayTaskError  # as in Ray: Exception is already a base
    assert str(exc.cause) == "LockError: cannot pickle"


def test_actor_died_error_message_and_pickle():
    msg = SHAPE["killed actor pending call: str"]
    e = rex.ActorDiedError(msg, actor_id="ab" * 16)
    assert str(e) == msg and isinstance(e, rex.RayActorError) and e.actor_id == "ab" * 16
    e2 = pickle.loads(pickle.dumps(e))
    assert type(e2) is rex.ActorDiedError and str(e2) == msg
    assert str(rex.ActorDiedError()) == rex.ActorDiedError.BASE_ERROR_MSG


def test_result_frames_to_exceptions():
    e = errors.from_result({"status": "actor_died", "message": "gone"}, b"")
    assert type(e) is rex.ActorDiedError and str(e) == "gone"
    e = errors.from_result({"status": "error", "kind": "ValueError", "message": "no method"}, b"")
    assert type(e) is ValueError and str(e) == "no method"
    e = errors.from_result({"status": "error", "kind": "Nope", "message": "x"}, b"")
    assert type(e) is RuntimeError
    e = errors.from_result({"status": "task_error"}, b"not a pickle")
    assert isinstance(e, rex.RaySystemError)


def test_other_chains():
    assert _mro(rex.RayChannelTimeoutError)[:5] == [
        "RayChannelTimeoutError", "RayChannelError", "RaySystemError", "RayError", "TimeoutError"]
    assert issubclass(rex.ActorUnavailableError, rex.RayActorError)
    assert issubclass(rex.ObjectLostError, rex.RayError)
    assert issubclass(rex.RayCgraphCapacityExceeded, rex.RaySystemError)
    assert ray.exceptions is rex
