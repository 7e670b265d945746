"""``--timeout-multiplier`` (Harbor's name and meaning): every phase timeout of a task scaled by one
factor, for slow machines or busy hosts."""

from __future__ import annotations

import dataclasses

from pydantic import BaseModel

from lancebench.task.model import Task

# the fields of task.toml that bound a phase, in seconds: [environment] build_timeout_sec, and
# timeout_sec of [agent], [verifier], the healthcheck, each collect hook and each step's phases
TIMEOUT_FIELDS = ("timeout_sec", "build_timeout_sec")


def _scaled(value: object, factor: float) -> object:
    """``value`` (a model, a list of them, or anything else) with every timeout field scaled."""
    if isinstance(value, list):
        return [_scaled(v, factor) for v in value]
    if not isinstance(value, BaseModel):
        return value
    update: dict[str, object] = {}
    for name in type(value).model_fields:
        field = getattr(value, name)
        if name in TIMEOUT_FIELDS and isinstance(field, (int, float)) and not isinstance(field, bool):
            update[name] = field * factor
        elif isinstance(field, (BaseModel, list)):
            update[name] = _scaled(field, factor)
    return value.model_copy(update=update)


def scale_timeouts(task: Task, factor: float) -> Task:
    """``task`` with every phase timeout of its ``task.toml`` (seconds: environment build, agent,
    verifier, healthcheck tries, collect hooks, each step's agent and verifier; unset step timeouts
    stay unset and so take the task's scaled one) multiplied by ``factor`` (> 0), as Harbor's
    ``--timeout-multiplier``. The task's digest (its files) is unchanged: the factor is recorded in
    the trial's configuration instead. Returns ``task`` itself for a factor of 1."""
    if factor == 1:
        return task
    return dataclasses.replace(task, config=_scaled(task.config, factor))  # type: ignore[arg-type]
