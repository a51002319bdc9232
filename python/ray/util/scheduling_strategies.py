"""``ray.util.scheduling_strategies``: plain data holders read by ``.options()``.

beam honours PlacementGroupSchedulingStrategy, NodeAffinitySchedulingStrategy (hard and
soft, placed by the daemon) and the "SPREAD" string strategy; NodeLabelSchedulingStrategy is
accepted and has no effect.
"""

from __future__ import annotations

from typing import Optional, Union

from ray._beam.api.pgs import PlacementGroupSchedulingStrategy  # noqa: F401  (defined beside the group it names


class NodeAffinitySchedulingStrategy:
    """Run on the node ``node_id`` (``soft``: elsewhere if it is gone)."""

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


SchedulingStrategyT = Union[None, str, PlacementGroupSchedulingStrategy,
                            NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy]

__all__ = ["NodeAffinitySchedulingStrategy", "NodeLabelSchedulingStrategy",
           "PlacementGroupSchedulingStrategy", "SchedulingStrategyT"]
