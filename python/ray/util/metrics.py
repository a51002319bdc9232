"""``ray.util.metrics``: Counter, Gauge and Histogram with Ray's signatures, as no-ops.

vLLM wraps these for Prometheus export through Ray; beam has no metrics agent, so the
objects check their arguments like Ray and then record nothing.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple


class Metric:
    def __init__(self, name: str, description: str = "",
                 tag_keys: Optional[Tuple[str, ...]] = None):
        if not name:
            raise ValueError("Empty name is not allowed. Please provide a metric name.")
        if tag_keys is not None and not isinstance(tag_keys, (tuple, list)):
            raise TypeError(f"tag_keys should be a tuple type, got: {type(tag_keys)}")
        self._name = name
        self._description = description
        self._tag_keys = tuple(tag_keys or ())
        self._default_tags: Dict[str, str] = {}

    def set_default_tags(self, default_tags: Dict[str, str]) -> "Metric":
        for key in default_tags:
            if key not in self._tag_keys:
                raise ValueError(f"Unrecognized tag key {key}.")
        self._default_tags = dict(default_tags)
        return self

    @property
    def info(self) -> dict:
        return {"name": self._name, "description": self._description,
                "tag_keys": self._tag_keys, "default_tags": self._default_tags}

    def record(self, value: float, tags: Optional[Dict[str, str]] = None, _internal=False):
        pass


class Counter(Metric):
    def inc(self, value: float = 1.0, tags: Optional[Dict[str, str]] = None) -> None:
        if value <= 0:
            raise ValueError(f"value must be >0, got {value}")


class Gauge(Metric):
    def set(self, value: Optional[float], tags: Optional[Dict[str, str]] = None) -> None:
        pass


class Histogram(Metric):
    def __init__(self, name: str, description: str = "", boundaries: List[float] = None,
                 tag_keys: Optional[Tuple[str, ...]] = None):
        super().__init__(name, description, tag_keys)
        if not boundaries:
            raise ValueError("boundaries argument should be provided when using the "
                             "Histogram class. e.g., Histogram(boundaries=[1.0, 2.0])")
        for b in boundaries:
            if b <= 0:
                raise ValueError("Invalid `boundaries` argument at index 0, "
                                 f"{boundaries}. Use positive values for the arguments.")
        self.boundaries = list(boundaries)

    def observe(self, value: float, tags: Optional[Dict[str, str]] = None) -> None:
        pass


__all__ = ["Counter", "Gauge", "Histogram", "Metric"]
