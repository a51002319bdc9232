"""``ray.util.metrics``: Counter, Gauge and Histogram with Ray's signatures and checks.

Values go to this node's beam daemon (ray/_beam/api/usermetrics.py), which exports them on its
Prometheus port (``ray start --metrics-export-port``) as Ray's metrics agent does: a metric
``foo`` as ``ray_foo``, its tags as labels; counters and histograms summed over the node's
processes, the newest value of a gauge.
"""

from __future__ import annotations

from typing import Dict, List, Optional, Tuple

from ray._beam.api import usermetrics


class Metric:
    def __init__(self, name: str, description: str = "",
                 tag_keys: Optional[Tuple[str, ...]] = None):
        if not name:
            raise ValueError("Empty name is not allowed. Please provide a metric name.")
        if tag_keys is not None and not isinstance(tag_keys, (tuple, list)):
            raise TypeError(f"tag_keys should be a tuple type, got: {type(tag_keys)}")
        for key in tag_keys or ():
            if not isinstance(key, str):
                raise TypeError(f"Tag keys must be str, got {type(key)}.")
        self._name = name
        self._description = description
        self._tag_keys = tuple(tag_keys or ())
        self._default_tags: Dict[str, str] = {}

    def set_default_tags(self, default_tags: Dict[str, str]) -> "Metric":
        for key, value in default_tags.items():
            if key not in self._tag_keys:
                raise ValueError(f"Unrecognized tag key {key}.")
            if not isinstance(value, str):
                raise TypeError(f"Tag values must be str, got {type(value)}.")
        self._default_tags = dict(default_tags)
        return self

    @property
    def info(self) -> dict:
        return {"name": self._name, "description": self._description,
                "tag_keys": self._tag_keys, "default_tags": self._default_tags}

    def _tags(self, tags: Optional[Dict[str, str]]) -> Dict[str, str]:
        final = dict(self._default_tags)
        for key, value in (tags or {}).items():
            if key not in self._tag_keys:
                raise ValueError(f"Unrecognized tag key {key}.")
            if not isinstance(value, str):
                raise TypeError(f"Tag values must be str, got {type(value)}.")
            final[key] = value
        missing = [k for k in self._tag_keys if k not in final]
        if missing:
            raise ValueError(f"Missing value for tag key(s): {','.join(missing)}.")
        return final

    def record(self, value: float, tags: Optional[Dict[str, str]] = None, _internal=False):
        raise NotImplementedError("record is implemented by Counter, Gauge and Histogram")


class Counter(Metric):
    def inc(self, value: float = 1.0, tags: Optional[Dict[str, str]] = None) -> None:
        if value <= 0:
            raise ValueError(f"value must be >0, got {value}")
        usermetrics.add(self._name, self._description, self._tags(tags), float(value))

    def record(self, value: float, tags: Optional[Dict[str, str]] = None, _internal=False):
        self.inc(value, tags)


class Gauge(Metric):
    def set(self, value: Optional[float], tags: Optional[Dict[str, str]] = None) -> None:
        if value is None:
            return
        usermetrics.set_gauge(self._name, self._description, self._tags(tags), float(value))

    def record(self, value: float, tags: Optional[Dict[str, str]] = None, _internal=False):
        self.set(value, tags)


class Histogram(Metric):
    def __init__(self, name: str, description: str = "", boundaries: List[float] = None,
                 tag_keys: Optional[Tuple[str, ...]] = None):
        super().__init__(name, description, tag_keys)
        if not boundaries:
            raise ValueError("boundaries argument should be provided when using the "
                             "Histogram class. e.g., Histogram(boundaries=[1.0, 2.0])")
        for i, b in enumerate(boundaries):
            if b <= 0:
                raise ValueError(f"Invalid `boundaries` argument at index {i}, "
                                 f"{boundaries}. Use positive values for the arguments.")
        self.boundaries = sorted(float(b) for b in boundaries)

    def observe(self, value: float, tags: Optional[Dict[str, str]] = None) -> None:
        usermetrics.observe(self._name, self._description, self._tags(tags), self.boundaries,
                            float(value))

    def record(self, value: float, tags: Optional[Dict[str, str]] = None, _internal=False):
        self.observe(value, tags)

    @property
    def info(self) -> dict:
        return dict(super().info, boundaries=self.boundaries)


__all__ = ["Counter", "Gauge", "Histogram", "Metric"]
