"""``ray.util.scheduling_strategies``: plain data holders read by ``.options()``.

beam honours PlacementGroupSchedulingStrategy, NodeAffinitySchedulingStrategy (hard and
soft), NodeLabelSchedulingStrategy (hard and soft, with In, NotIn, Exists and DoesNotExist)
and the "SPREAD" string strategy; the daemon places each.
"""

from __future__ import annotations

from typing import Union

from ray._beam.api.pgs import PlacementGroupSchedulingStrategy  # noqa: F401  (defined beside the group it names
from ray._beam.api.strategies import (  # noqa: F401  (In ... DoesNotExist: Ray's names here)
    DoesNotExist, Exists, In, NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy, NotIn)


SchedulingStrategyT = Union[None, str, PlacementGroupSchedulingStrategy,
                            NodeAffinitySchedulingStrategy, NodeLabelSchedulingStrategy]

__all__ = ["DoesNotExist", "Exists", "In", "NodeAffinitySchedulingStrategy", "NodeLabelSchedulingStrategy", "NotIn",
           "PlacementGroupSchedulingStrategy", "SchedulingStrategyT"]
