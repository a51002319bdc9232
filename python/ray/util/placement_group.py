"""``ray.util.placement_group``: Ray's placement group API (implemented in ray._beam.api.pgs)."""

from __future__ import annotations

from typing import Dict, List, Optional

from ray._beam.api import pgs
from ray._beam.api.pgs import PlacementGroup, VALID_STRATEGIES  # noqa: F401

VALID_PLACEMENT_GROUP_STRATEGIES = VALID_STRATEGIES


def placement_group(bundles: List[Dict[str, float]], strategy: str = "PACK", name: str = "",
                    lifetime: Optional[str] = None, _soft_target_node_id=None,
                    bundle_label_selector=None, **_ignored) -> PlacementGroup:
    """Reserve ``bundles`` of resources; ``.ready()`` resolves once they are placed."""
    return pgs.create(bundles, strategy=strategy, name=name, lifetime=lifetime,
                      bundle_label_selector=bundle_label_selector)


def remove_placement_group(placement_group: PlacementGroup) -> None:
    """Release the group; actors in it die (their pending calls fail with ActorDiedError)."""
    pgs.remove(placement_group)


def placement_group_table(placement_group: Optional[PlacementGroup] = None) -> dict:
    """One group's entry, or all groups keyed by id hex (Ray's shape)."""
    return pgs.table(placement_group)


def get_current_placement_group() -> Optional[PlacementGroup]:
    """The group of the actor this runs in; None in a driver."""
    return pgs.current()


def check_placement_group_index(placement_group, bundle_index: int) -> None:
    if placement_group is None:
        if bundle_index != -1:
            raise ValueError("If placement_group is not set, the value of bundle_index "
                             "must be -1.")
    elif bundle_index >= placement_group.bundle_count or bundle_index < -1:
        raise ValueError(f"placement group bundle index {bundle_index} is invalid. Valid "
                         f"placement group indexes: 0-{placement_group.bundle_count}")


__all__ = ["PlacementGroup", "get_current_placement_group", "placement_group",
           "placement_group_table", "remove_placement_group"]
