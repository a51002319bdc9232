"""Ray's ``ray.cluster_utils``: ``Cluster`` starts several beam daemons on this machine, one per
node, for testing multi-node code on one host (ray/_beam/api/localcluster.py)."""

from ray._beam.api.localcluster import AutoscalingCluster, Cluster  # noqa: F401
from ray._beam.api.localnode import LocalNode  # noqa: F401

__all__ = ["Cluster", "AutoscalingCluster"]
