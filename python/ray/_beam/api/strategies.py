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


class NodeLabelSchedulingStrategy:
    def __init__(self, hard: dict, *, soft: Optional[dict] = None):
        self.hard = hard
        self.soft = soft
