"""Which executor runs a job's trials, by name (the only module that knows every executor)."""

from __future__ import annotations

from lancebench.errors import ConfigError
from lancebench.runner.executor import Executor, LocalExecutor


def make_executor(name: str, **options) -> Executor:
    """``local`` (:class:`LocalExecutor`) or ``ray`` (:class:`~lancebench.runner.ray_executor.RayExecutor`,
    options: ``address``, ``num_cpus``, ``runtime_env``, ``cpus_per_trial``, ``max_retries``).
    Raises :class:`ConfigError` for other names (and, from ``RayExecutor``, for bad options)."""
    if name == "local":
        return LocalExecutor()
    if name == "ray":
        # Ray is optional: imported only when chosen
        from lancebench.runner.ray_executor import RayExecutor
        return RayExecutor(**options)
    raise ConfigError(f"unknown executor '{name}'; choose local or ray")
