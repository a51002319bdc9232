"""``ray.util.scheduling_strategies``: plain data holders read by ``.options()``.

beam honours PlacementGroupSchedulingStrategy, NodeAffinitySchedulingStrategy (hard and
soft, placed by the daemon) and the "SPREAD" string strategy; NodeLabelSchedulingStrategy is
accepted and has no effect.
"""

from __future__ import annotations

from typing import Union

from ray._beam.api.pgs import PlacementGroupSchedulingStrategy  # noqa: F401  (defined beside the group it names
from ray._beam.api.strategies import NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy


SchedulingStrategyT = Union[None, str, PlacementGroupSchedulingStrategy,
                            NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy]

__all__ = ["NodeAffinitySchedulingStrategy", "NodeLabelSchedulingStrategy",
           "PlacementGroupSchedulingStrategy", "SchedulingStrategyT"]
