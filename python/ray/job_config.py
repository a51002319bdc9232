"""``ray.job_config.JobConfig``: what a driver's ``ray.init(job_config=...)`` carries.

beam honours ``default_actor_lifetime`` (an actor created without ``lifetime=`` by this
driver is detached when it says "detached"), ``ray_namespace`` and ``runtime_env`` (used
when ``ray.init`` is not given its own); the JVM options and code search path belong to
Ray's Java workers, which beam has none of: kept, unused.
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional


class JobConfig:
    def __init__(self, jvm_options: Optional[List[str]] = None,
                 code_search_path: Optional[List[str]] = None,
                 runtime_env: Optional[dict] = None, _client_job: bool = False,
                 metadata: Optional[dict] = None, ray_namespace: Optional[str] = None,
                 default_actor_lifetime: str = "non_detached",
                 _disable_job_level_lineage_reconstruction: bool = False,
                 _py_driver_sys_path: Optional[List[str]] = None):
        self.jvm_options = jvm_options or []
        if not isinstance(code_search_path or [], (list, tuple)):
            raise TypeError(f"The type of code search path is incorrect: {type(code_search_path)}")
        self.code_search_path = code_search_path or []
        self._client_job = _client_job
        self.metadata = metadata or {}
        self.ray_namespace = ray_namespace
        self.set_runtime_env(runtime_env)
        self.set_default_actor_lifetime(default_actor_lifetime)
        self._disable_job_level_lineage_reconstruction = _disable_job_level_lineage_reconstruction
        self._py_driver_sys_path = _py_driver_sys_path or []
        self.py_logging_config = None

    def set_metadata(self, key: str, value: str) -> None:
        self.metadata[key] = value

    def set_runtime_env(self, runtime_env: Optional[Dict[str, Any]], validate: bool = False) -> None:
        self.runtime_env = runtime_env if runtime_env is not None else {}

    def set_ray_namespace(self, ray_namespace: str) -> None:
        self.ray_namespace = ray_namespace

    def set_default_actor_lifetime(self, default_actor_lifetime: str) -> None:
        if default_actor_lifetime not in ("detached", "non_detached"):
            raise ValueError("Default actor lifetime must be one of `detached`, `non_detached`")
        self.default_actor_lifetime = default_actor_lifetime


def for_init(job_config: Optional[JobConfig], namespace, runtime_env):
    """(namespace, runtime_env, default actor lifetime) of a ``ray.init``: its own arguments
    first, then the job config's, as Ray's."""
    if job_config is None:
        return namespace, runtime_env, "non_detached"
    if not isinstance(job_config, JobConfig):
        raise TypeError(f"job_config must be a ray.job_config.JobConfig, got {type(job_config)}")
    return (namespace if namespace is not None else job_config.ray_namespace,
            runtime_env if runtime_env is not None else (job_config.runtime_env or None),
            job_config.default_actor_lifetime)
