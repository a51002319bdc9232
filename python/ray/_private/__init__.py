"""``ray._private``: only the modules vLLM imports (``state``)."""

from ray._private import state  # noqa: F401
