"""cloudpickle with real file names in tracebacks.

cloudpickle >= 3.1 replaces the file name of every function it pickles by value (classes
and functions defined in ``__main__`` or a notebook) with ``"<dynamic-code>"``, to make
payloads deterministic. Remote tracebacks then lose the file and source line that Ray
shows. This pickler keeps the real ``co_filename``; everything else is cloudpickle's.

Values of the plain built-in types (bytes, str, numbers, None), alone or as the positional
arguments of a call, go through the standard library's C pickler instead: cloudpickle's
Pickler costs about 1.5 us more to set up each time and would write the same bytes.
"""
import collections
import io
import pickle
import types

import cloudpickle

_PLACEHOLDER = "<dynamic-code>"
_base_table = getattr(cloudpickle.Pickler, "dispatch_table", None)
_code_reduce = _base_table.get(types.CodeType) if hasattr(_base_table, "get") else None


def _code_reduce_keeping_filename(code):
    ctor, args = _code_reduce(code)
    return ctor, tuple(code.co_filename if a == _PLACEHOLDER else a for a in args)


class _Pickler(cloudpickle.Pickler):
    if _code_reduce is not None:
        dispatch_table = collections.ChainMap({types.CodeType: _code_reduce_keeping_filename}, _base_table)


# Exact types only: a subclass (an IntEnum, a str subclass of the user's) may need cloudpickle.
_PLAIN_TYPES = frozenset((bytes, str, int, float, bool, type(None)))


def dumps(obj) -> bytes:
    if type(obj) in _PLAIN_TYPES:
        return pickle.dumps(obj, cloudpickle.DEFAULT_PROTOCOL)
    with io.BytesIO() as f:
        _Pickler(f, protocol=cloudpickle.DEFAULT_PROTOCOL).dump(obj)
        return f.getvalue()


def dumps_call_args(args: tuple, kwargs: dict) -> bytes:
    """``(args, kwargs)`` of an actor call, as ``dumps((args, kwargs))`` would write them."""
    if not kwargs:
        for a in args:
            if type(a) not in _PLAIN_TYPES:
                break
        else:
            return pickle.dumps((args, kwargs), cloudpickle.DEFAULT_PROTOCOL)
    return dumps((args, kwargs))


loads = cloudpickle.loads
