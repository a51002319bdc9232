"""The scheduling strategies ``.options(scheduling_strategy=)`` reads, defined in the api layer
so that options.py can read them; ``ray.util.scheduling_strategies`` re-exports them."""

from __future__ import annotations

from typing import Optional


class NodeAffinitySchedulingStrategy:
    """Run on the node ``node_id``: hard (``soft=False``) there only, soft elsewhere if it is
    gone or too small (the daemon places it: docs/PROTOCOL.md, ``node_affinity``)."""

    def __init__(self, node_id: str, soft: bool, _spill_on_unavailable: bool = False,
                 _fail_on_unavailable: bool = False):
        self.node_id = node_id
        self.soft = soft
        self._spill_on_unavailable = _spill_on_unavailable
        self._fail_on_unavailable = _fail_on_unavailable


def _values(values: tuple, operator: str) -> list:
    if not values:
        raise ValueError(f"The variadic parameter of the {operator} operator"
                         f' must be a non-empty tuple: e.g. {operator}("value1", "value2").')
    for i, value in enumerate(values):
        if not isinstance(value, str):
            raise ValueError(f"Type of value in position {i} for the {operator} operator "
                             f'must be str (e.g. {operator}("value1", "value2")) '
                             f"but got {value} of type {type(value)}.")
    return list(values)


class In:
    """The node's label is one of ``values``."""

    def __init__(self, *values):
        self.values = _values(values, "In")


class NotIn:
    """The node lacks the label, or has another value."""

    def __init__(self, *values):
        self.values = _values(values, "NotIn")


class Exists:
    """The node has the label, whatever its value."""


class DoesNotExist:
    """The node lacks the label."""


# each operator as the daemon takes it (docs/PROTOCOL.md, create_actor's node_labels)
_WIRE_OPS = {In: "in", NotIn: "not_in", Exists: "exists", DoesNotExist: "does_not_exist"}


def _expressions(expressions: Optional[dict], param: str) -> list:
    if expressions is None:
        return []
    if not isinstance(expressions, dict):
        raise ValueError(f'The {param} parameter must be a map (e.g. {{"key1": In("value1")}}) '
                         f"but got type {type(expressions)}.")
    out = []
    for key, op in expressions.items():
        if not isinstance(key, str):
            raise ValueError(f"The map key of the {param} parameter must "
                             f'be of type str (e.g. {{"key1": In("value1")}}) but got {key} of type {type(key)}.')
        if type(op) not in _WIRE_OPS:
            raise ValueError(f"The map value for key {key} of the {param} parameter "
                             "must be one of the `In`, `NotIn`, `Exists` or `DoesNotExist` "
                             f'operator (e.g. {{"key1": In("value1")}}) but got {op} of type {type(op)}.')
        out.append({"key": key, "op": _WIRE_OPS[type(op)], "values": getattr(op, "values", [])})
    return out


class NodeLabelSchedulingStrategy:
    """Ray's label-based node affinity: every ``hard`` expression must hold on the node; nodes
    where the ``soft`` ones hold are preferred (the daemon places it: docs/PROTOCOL.md)."""

    def __init__(self, hard: dict, *, soft: Optional[dict] = None):
        self.hard = hard
        self.soft = soft
        self._wire = {"hard": _expressions(hard, "hard"), "soft": _expressions(soft, "soft")}
        if not (self._wire["hard"] or self._wire["soft"]):
            raise ValueError("The `hard` and `soft` parameter of NodeLabelSchedulingStrategy cannot both be empty.")

    def wire(self) -> dict:
        """What create_actor's ``node_labels`` carries."""
        return self._wire
