"""``ray.runtime_env``: RuntimeEnv, a dict with Ray's keyword constructor.

beam applies only ``env_vars`` (set in the actor process before the class is unpickled);
other keys are kept, reported back by the runtime context, and logged as ignored.
"""

from __future__ import annotations

from typing import Any, Dict, Optional


class RuntimeEnvConfig(dict):
    def __init__(self, setup_timeout_seconds: int = 600, eager_install: bool = True,
                 log_files: Optional[list] = None, **kwargs):
        super().__init__(setup_timeout_seconds=setup_timeout_seconds,
                         eager_install=eager_install, **kwargs)
        if log_files is not None:
            self["log_files"] = log_files


class RuntimeEnv(dict):
    """A runtime environment: a dict of the non-None fields it was built with."""

    def __init__(self, *, py_modules=None, py_executable=None, working_dir=None, pip=None,
                 conda=None, container=None, env_vars: Optional[Dict[str, str]] = None,
                 worker_process_setup_hook=None, nsight=None, config=None, _validate=True,
                 mpi=None, image_uri=None, uv=None, **kwargs: Any):
        super().__init__()
        fields = dict(py_modules=py_modules, py_executable=py_executable,
                      working_dir=working_dir, pip=pip, conda=conda, container=container,
                      env_vars=env_vars, worker_process_setup_hook=worker_process_setup_hook,
                      nsight=nsight, config=config, mpi=mpi, image_uri=image_uri, uv=uv)
        fields.update(kwargs)
        for key, value in fields.items():
            if value is not None:
                self[key] = value
        if env_vars is not None:
            if not isinstance(env_vars, dict) or not all(
                    isinstance(k, str) and isinstance(v, str) for k, v in env_vars.items()):
                raise TypeError("runtime_env['env_vars'] must be of type Dict[str, str], "
                                f"got {env_vars!r}")

    def env_vars(self) -> Dict[str, str]:
        return dict(self.get("env_vars") or {})

    def working_dir(self) -> str:
        return self.get("working_dir", "")

    def to_dict(self) -> dict:
        return dict(self)

    @classmethod
    def from_dict(cls, d: dict) -> "RuntimeEnv":
        return cls(**d)

    def serialize(self) -> str:
        import json

        return json.dumps(self.to_dict(), sort_keys=True)

    @classmethod
    def deserialize(cls, s: str) -> "RuntimeEnv":
        import json

        return cls(**json.loads(s))


__all__ = ["RuntimeEnv", "RuntimeEnvConfig"]
