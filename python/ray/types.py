"""``ray.types``: ObjectRef for type annotations (as vLLM imports it)."""

from ray._beam.api.objects import ObjectRef  # noqa: F401

__all__ = ["ObjectRef"]
