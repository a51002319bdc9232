"""``ray.dag``: importable so imports succeed, but compiled graphs are not supported by beam.

vLLM's default executor (RayExecutorV2) does not use compiled graphs; the legacy one does,
and it fails here with a clear message instead of a confusing AttributeError.
"""

_MSG = "compiled graphs are not supported by beam (ray.dag)"


class _Unsupported:
    def __init__(self, *args, **kwargs):
        raise NotImplementedError(_MSG)


class DAGNode(_Unsupported):
    pass


class InputNode(_Unsupported):
    pass


class MultiOutputNode(_Unsupported):
    pass


class ClassMethodNode(_Unsupported):
    pass


class InputAttributeNode(_Unsupported):
    pass


__all__ = ["ClassMethodNode", "DAGNode", "InputAttributeNode", "InputNode", "MultiOutputNode"]
