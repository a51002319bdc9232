"""cloudpickle with real file names in tracebacks.

cloudpickle >= 3.1 replaces the file name of every function it pickles by value (classes
and functions defined in ``__main__`` or a notebook) with ``"<dynamic-code>"``, to make
payloads deterministic. Remote tracebacks then lose the file and source line that Ray
shows. This pickler keeps the real ``co_filename``; everything else is cloudpickle's.
"""
import collections
import io
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


def dumps(obj) -> bytes:
    with io.BytesIO() as f:
        _Pickler(f, protocol=cloudpickle.DEFAULT_PROTOCOL).dump(obj)
        return f.getvalue()


loads = cloudpickle.loads
