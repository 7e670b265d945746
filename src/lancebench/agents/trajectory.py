"""Trajectories in Harbor's Agent Trajectory Interchange Format (ATIF, RFC 0001, v1.4 field names),
written as ``trajectory.json`` in a trial's agent log folder.

Shape: a root object (``schema_version``, ``session_id``, ``agent``, ``steps``, ``notes``,
``final_metrics``, ``extra``); each step has ``step_id`` (from 1), ``source`` (``system``,
``user`` or ``agent``), ``message``, and for agent steps ``tool_calls`` (the commands),
``observation.results`` (what each command printed) and ``metrics`` (``prompt_tokens``, which
include ``cached_tokens``; ``completion_tokens``; ``cost_usd`` in USD, absent when unknown).
``final_metrics`` sums them; ``total_cost_usd`` is absent when any step's cost is unknown.

The models are strict (unknown keys are errors) except the ``extra`` maps, which ATIF leaves open.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from lancebench.results.models import Usage

SCHEMA_VERSION = "ATIF-v1.4"
TRAJECTORY_FILE = "trajectory.json"


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


class AgentInfo(_Strict):
    """Who produced the trajectory: agent ``name`` and ``version``; default ``model_name``."""

    name: str
    version: str
    model_name: str | None = None
    extra: dict[str, Any] | None = None


class ToolCall(_Strict):
    """One action: for shell agents ``function_name`` is ``bash`` and ``arguments`` is
    ``{"command": "..."}``. ``tool_call_id`` links it to its observation result."""

    tool_call_id: str
    function_name: str
    arguments: dict[str, Any]


class ObservationResult(_Strict):
    """What one action returned (``source_call_id`` = its ``tool_call_id``; None for feedback
    not tied to a call, such as a format-error notice)."""

    source_call_id: str | None = None
    content: str | None = None
    extra: dict[str, Any] | None = None


class Observation(_Strict):
    results: list[ObservationResult] = Field(default_factory=list)


class Metrics(_Strict):
    """Per-step LLM usage: tokens (``prompt_tokens`` includes ``cached_tokens``), ``cost_usd`` (USD)."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    cached_tokens: int | None = None
    cost_usd: float | None = None
    extra: dict[str, Any] | None = None


class Step(_Strict):
    step_id: int = Field(ge=1)
    timestamp: str | None = None
    source: Literal["system", "user", "agent"]
    model_name: str | None = None
    message: str = ""
    reasoning_content: str | None = None
    tool_calls: list[ToolCall] | None = None
    observation: Observation | None = None
    metrics: Metrics | None = None
    extra: dict[str, Any] | None = None


class FinalMetrics(_Strict):
    total_prompt_tokens: int | None = None
    total_completion_tokens: int | None = None
    total_cached_tokens: int | None = None
    total_cost_usd: float | None = None
    total_steps: int | None = None
    extra: dict[str, Any] | None = None


class Trajectory(_Strict):
    schema_version: str = SCHEMA_VERSION
    session_id: str
    agent: AgentInfo
    steps: list[Step] = Field(default_factory=list)
    notes: str | None = None
    final_metrics: FinalMetrics | None = None
    extra: dict[str, Any] | None = None

    def usage(self) -> Usage:
        """Tokens and USD of the whole trajectory as a :class:`Usage` (cost None when any agent
        step's cost is unknown); ``calls`` counts agent steps with metrics."""
        total = Usage()
        for step in self.steps:
            m = step.metrics
            if step.source != "agent" or m is None:
                continue
            total = total + Usage(input_tokens=m.prompt_tokens or 0, output_tokens=m.completion_tokens or 0,
                                  cached_tokens=m.cached_tokens or 0, cost_usd=m.cost_usd, calls=1,
                                  retries=int((m.extra or {}).get("retries", 0)))
        return total


def now_iso() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")


class TrajectoryBuilder:
    """Collects steps in order and numbers them. ``agent_step`` returns the step so observations
    can be attached when the commands have run."""

    def __init__(self, agent_name: str, agent_version: str, model_name: str | None = None, *,
                 session_id: str | None = None, agent_extra: dict[str, Any] | None = None):
        self.trajectory = Trajectory(session_id=session_id or str(uuid.uuid4()),
                                     agent=AgentInfo(name=agent_name, version=agent_version,
                                                     model_name=model_name, extra=agent_extra))

    def _add(self, **fields: Any) -> Step:
        step = Step(step_id=len(self.trajectory.steps) + 1, **fields)
        self.trajectory.steps.append(step)
        return step

    def system(self, message: str, *, timestamp: str | None = None, extra: dict | None = None) -> Step:
        return self._add(source="system", message=message, timestamp=timestamp or now_iso(), extra=extra)

    def user(self, message: str, *, timestamp: str | None = None, extra: dict | None = None) -> Step:
        return self._add(source="user", message=message, timestamp=timestamp or now_iso(), extra=extra)

    def agent_step(self, message: str, *, commands: Sequence[tuple[str, str]] = (), metrics: Metrics | None = None,
                   model_name: str | None = None, reasoning: str | None = None, timestamp: str | None = None,
                   extra: dict | None = None) -> Step:
        """An agent turn; ``commands``: ``[(tool_call_id, shell command)]``."""
        calls = [ToolCall(tool_call_id=cid, function_name="bash", arguments={"command": cmd}) for cid, cmd in commands]
        return self._add(source="agent", message=message, tool_calls=calls or None, metrics=metrics,
                         model_name=model_name, reasoning_content=reasoning, timestamp=timestamp or now_iso(),
                         extra=extra)

    @staticmethod
    def observe(step: Step, content: str, *, call_id: str | None = None, extra: dict | None = None) -> None:
        if step.observation is None:
            step.observation = Observation()
        step.observation.results.append(ObservationResult(source_call_id=call_id, content=content, extra=extra))

    def finish(self, *, notes: str | None = None, extra: dict[str, Any] | None = None) -> Trajectory:
        """Fill ``final_metrics`` from the steps and return the trajectory."""
        t = self.trajectory
        u = t.usage()
        t.final_metrics = FinalMetrics(total_prompt_tokens=u.input_tokens, total_completion_tokens=u.output_tokens,
                                       total_cached_tokens=u.cached_tokens, total_cost_usd=u.cost_usd,
                                       total_steps=len(t.steps), extra={"model_calls": u.calls, "retries": u.retries})
        if notes is not None:
            t.notes = notes
        if extra is not None:
            t.extra = {**(t.extra or {}), **extra}
        return t


def write_trajectory(trajectory: Trajectory, logs_dir: Path) -> Path:
    """Write ``logs_dir/trajectory.json`` atomically (None fields left out); returns its path."""
    logs_dir.mkdir(parents=True, exist_ok=True)
    path = logs_dir / TRAJECTORY_FILE
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    tmp.write_text(json.dumps(trajectory.model_dump(mode="json", exclude_none=True), indent=2, ensure_ascii=False))
    os.replace(tmp, path)
    return path


def _known_only(model: type[BaseModel], data: Any) -> Any:
    """``data`` without the keys ``model`` (and its nested models) does not define, except inside
    the open ``extra`` maps."""
    if not isinstance(data, dict):
        return data
    out = {}
    for key, value in data.items():
        field = model.model_fields.get(key)
        if field is None:
            continue
        inner = _nested_model(field.annotation)
        if inner is not None and key != "extra":
            value = [_known_only(inner, v) for v in value] if isinstance(value, list) else _known_only(inner, value)
        out[key] = value
    return out


def _nested_model(annotation: Any) -> type[BaseModel] | None:
    """The pydantic model inside ``annotation`` (``Model``, ``Model | None``, ``list[Model]``)."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    for arg in getattr(annotation, "__args__", ()):
        found = _nested_model(arg)
        if found is not None:
            return found
    return None


def read_trajectory(path: Path) -> Trajectory:
    """Load and validate a ``trajectory.json``. A trajectory of another ATIF version (Harbor 0.25
    writes ``ATIF-v1.8``) loads with the fields this version defines; the ones it does not know
    are left out. Raises pydantic's ValidationError when malformed."""
    text = Path(path).read_text()
    data = json.loads(text)
    if isinstance(data, dict) and data.get("schema_version", SCHEMA_VERSION) != SCHEMA_VERSION:
        return Trajectory.model_validate(_known_only(Trajectory, data))
    return Trajectory.model_validate_json(text)
