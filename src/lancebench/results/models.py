"""File formats of a job's results folder (pydantic v2, strict: unknown keys are errors).

Layout (see :class:`lancebench.results.paths.JobPaths`)::

    JOBS_DIR/<job>/job.json            JobConfig
    JOBS_DIR/<job>/summary.json        written by ``lancebench show`` / at the end of a run
    JOBS_DIR/<job>/trials/<trial_id>/result.json   TrialResult (written atomically, last)
                                    patch.diff, trajectory.json, agent/, verifier/
"""

from __future__ import annotations

import hashlib
import json
from datetime import UTC, datetime
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, SerializerFunctionWrapHandler, model_serializer, model_validator

Status = Literal["resolved", "unresolved", "invalid"]


def readable(value: Any) -> Any:
    """``value`` (a str, or lists and dicts of them, any depth) with characters UTF-8 cannot hold
    (lone surrogates: the undecodable bytes of a file name kept by ``surrogateescape``) written as
    escapes (byte 0xff of a name reads ``\\udcff``), so JSON can hold it. Other values unchanged."""
    if isinstance(value, str):
        return value.encode("utf-8", "backslashreplace").decode("utf-8")
    if isinstance(value, list):
        return [readable(v) for v in value]
    if isinstance(value, dict):
        return {readable(k): readable(v) for k, v in value.items()}
    return value


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid")


MAX_USAGE_COUNT = 10**12  # tokens, calls or retries of one trial, at most (attack pass round 7)
MAX_USAGE_COST_USD = 10.0**9  # USD of one trial, at most


class Usage(_Strict):
    """Model usage of one trial (or a sum of trials).

    Tokens are counts; ``cost_usd`` is in USD, or ``None`` when some call's price is unknown
    (never silently 0). ``calls`` counts model requests, ``retries`` the retried ones."""

    input_tokens: int = 0
    output_tokens: int = 0
    cached_tokens: int = 0
    cost_usd: float | None = 0.0
    calls: int = 0
    retries: int = 0

    def __add__(self, other: Usage) -> Usage:
        cost = None if self.cost_usd is None or other.cost_usd is None else self.cost_usd + other.cost_usd
        return Usage(input_tokens=self.input_tokens + other.input_tokens,
                     output_tokens=self.output_tokens + other.output_tokens,
                     cached_tokens=self.cached_tokens + other.cached_tokens, cost_usd=cost,
                     calls=self.calls + other.calls, retries=self.retries + other.retries)

    def since(self, earlier: Usage) -> Usage:
        """What was used after ``earlier`` (a snapshot of the same running total)."""
        cost = None if self.cost_usd is None or earlier.cost_usd is None else self.cost_usd - earlier.cost_usd
        return Usage(input_tokens=self.input_tokens - earlier.input_tokens,
                     output_tokens=self.output_tokens - earlier.output_tokens,
                     cached_tokens=self.cached_tokens - earlier.cached_tokens, cost_usd=cost,
                     calls=self.calls - earlier.calls, retries=self.retries - earlier.retries)


class Timings(_Strict):
    """Wall seconds per phase of a trial."""

    environment_sec: float = 0.0
    agent_sec: float = 0.0
    capture_sec: float = 0.0
    grading_sec: float = 0.0  # verifiers, and senior grading when it ran
    judging_sec: float = 0.0  # senior grading alone (--judge-model)
    total_sec: float = 0.0


class PhaseTime(_Strict):
    """When one phase of a trial ran (``TrialResult.phases[name]``): ``started_at`` and
    ``finished_at`` as UTC ISO-8601 strings (milliseconds). A phase a multi-step trial repeats
    (agent, capture, grading) spans from its first start to its last end."""

    started_at: str
    finished_at: str


class TrialError(_Strict):
    """Why a trial ended early (``TrialResult.error``; None when every phase ran to the end).

    - ``kind``: the class of what was raised (``TrialInvalid``, ``AgentFault``, ``WorkspaceError``,
      ``ModelError``, another lancebench error's class, or ``internal`` for a bug of the harness,
      whose traceback is in ``error.log``);
    - ``message``: its text, whole (``TrialResult.reason`` keeps at most 4,000 characters);
    - ``where``: the phase it ended in (``environment``, ``agent``, ``capture``, ``grading``,
      ``judging``), as ``steps.<name>.<phase>`` inside a step of a multi-step task.
    """

    kind: str
    message: str
    where: str


class StepResult(_Strict):
    """One step of a multi-step task (``TrialResult.steps``, in order): its ``name``, the
    ``status`` and ``reason`` of its verifier's verdict, its ``rewards``, the ``agent_exit`` of
    the step's agent run, and ``stopped``: why the later steps did not run (a ``min_reward`` gate;
    None when they did). Results imported from Harbor carry only ``name`` and ``rewards``."""

    name: str
    status: Status | None = None
    rewards: dict[str, float] = Field(default_factory=dict)
    reason: str | None = None
    agent_exit: str | None = None
    stopped: str | None = None


class JudgeRecord(_Strict):
    """One judge's outcome on one trial (``TrialResult.judges[name]``; names ``rubric``, ``taste``,
    ``validation``).

    - ``status``: ``ok`` | ``skipped`` (nothing to judge, e.g. an empty rubric or no validation
      spec) | ``failed:<why>`` (``failed:timeout``, ``failed:schema``, ``failed:model-error``,
      ``failed:turns``, ``failed:tokens``...). Only ``ok`` carries scores: a failed or skipped judge
      has none, never 0.
    - ``scores``: name -> number. Rubric: ``mean``, ``f2p``, ``p2p`` (fractions 0..1 of criteria
      met). Taste: the ten dimensions (1..5, anchored scales) and the group medians
      ``practice_alignment`` and ``relative_taste``. Validation: ``score`` (passed stories / stories).
    - ``rationale``: the judge's own summary (free text); ``details``: per-criterion or per-story
      records (``{"criteria": [{"name", "group", "score", "rationale"}]}``,
      ``{"stories": [{"name", "outcome", "detail"}]}``).
    - ``model``: the judge model; ``turns``: model calls made; ``usage``: tokens and USD;
      ``duration_sec``: wall seconds.
    """

    status: str
    scores: dict[str, float] = Field(default_factory=dict)
    rationale: str = ""
    details: dict = Field(default_factory=dict)
    model: str | None = None
    turns: int = 0
    usage: Usage = Field(default_factory=Usage)
    duration_sec: float = 0.0

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class QualityVerdict(_Strict):
    """Senior grading's verdict on one trial (``TrialResult.quality``).

    - ``tasteful``: True when the trial is resolved and clears every threshold, False when it is
      unresolved or misses one, None when unknown (a needed judge was skipped or failed).
    - ``thresholds``: the thresholds applied (stored with the result: ``taste_min`` for each taste
      group median, ``rubric_min`` for the rubric mean, absent when not required).
    - ``patch_bloat``: agent SLOC / reference SLOC over behavioural files (None when the reference
      has no behavioural SLOC); ``agent_sloc``, ``reference_sloc``: the counts (see
      :mod:`lancebench.judging.bloat`).
    - ``reason``: why the trial is not tasteful, or why that is unknown.
    """

    tasteful: bool | None = None
    thresholds: dict[str, float] = Field(default_factory=dict)
    patch_bloat: float | None = None
    agent_sloc: int | None = None
    reference_sloc: int | None = None
    reason: str | None = None


def utcnow() -> str:
    return datetime.now(UTC).isoformat(timespec="milliseconds")


class TrialConfig(_Strict):
    """The configuration that produced a trial (recorded in each ``result.json`` and in ``job.json``).

    - ``agent``: the agent as given (``oracle``, ``script:PATH``, ``mini-swe-agent``, ``module:Class``);
    - ``agent_options``: its options (``seed``, ``max_steps``, ``max_cost`` in USD, ``--ao`` ones);
    - ``model``: the ``-m`` model (None without one); ``api_base``: the ``--api-base`` URL given;
    - ``backend``: ``local`` or ``docker``; ``agent_timeout_sec``: the ``--agent-timeout`` budget
      in seconds (None: each task's ``task.toml``);
    - ``judge_model``: the ``--judge-model`` of senior grading (None without);
    - ``verifier_network``: ``--verifier-network``: ``harbor`` (Harbor's public verifier network
      for Harbor tasks that declare none) or ``none`` (closed); compared only when ``none``, so
      jobs recorded before the switch existed keep their key;
    - ``timeout_multiplier``: ``--timeout-multiplier``, the factor every phase timeout of the
      task (and ``agent_timeout_sec``) was scaled by (1: none);
    - ``lancebench_version``: recorded, not compared (an upgrade does not refuse a resume).

    Two runs of one job must have the same :meth:`key` (see ``runner.job``)."""

    agent: str
    agent_options: dict = Field(default_factory=dict)
    model: str | None = None
    api_base: str | None = None
    backend: str = "local"
    agent_timeout_sec: float | None = None
    judge_model: str | None = None
    verifier_network: Literal["harbor", "none"] = "harbor"
    lancebench_version: str = ""
    timeout_multiplier: float = 1.0

    def compared(self) -> dict:
        """The fields two runs of one job must share (all but the version; ``verifier_network``
        only when it is not the default, the timeout multiplier only when not 1, so that
        configurations recorded before either existed keep their key)."""
        exclude = {"lancebench_version"} | ({"verifier_network"} if self.verifier_network == "harbor" else set())
        exclude |= {"timeout_multiplier"} if self.timeout_multiplier == 1 else set()
        return self.model_dump(exclude=exclude)

    def key(self) -> str:
        """12 hex digits of sha256 over :meth:`compared` (JSON, sorted keys): one per configuration."""
        text = json.dumps(self.compared(), sort_keys=True, default=str)
        return hashlib.sha256(text.encode()).hexdigest()[:12]

    def differences(self, other: TrialConfig) -> list[str]:
        """``field: mine -> other's`` for each compared field that differs (nested options one by one)."""
        every = {"lancebench_version"}  # every other field, defaults included (compared() leaves some out)
        mine, theirs = _flatten(self.model_dump(exclude=every)), _flatten(other.model_dump(exclude=every))
        return [f"{k}: {_show(mine.get(k))} -> {_show(theirs.get(k))}"
                for k in sorted(set(mine) | set(theirs)) if mine.get(k, _UNSET) != theirs.get(k, _UNSET)]

    def settings_parts(self) -> list[str]:
        """The settings beside agent and model as ``key=value`` strings (empty when none): agent
        options (sorted by key), API base, agent timeout in seconds (``timeout=15s``), judge model,
        and the backend when not local."""
        parts = [f"{k}={_show(v)}" for k, v in sorted(self.agent_options.items())]
        timeout = f"{self.agent_timeout_sec:g}s" if self.agent_timeout_sec else None
        parts += [f"{k}={v}" for k, v in (("api_base", self.api_base), ("timeout", timeout),
                                            ("judge", self.judge_model)) if v]
        if self.timeout_multiplier != 1:
            parts.append(f"timeout_multiplier={self.timeout_multiplier:g}")
        if self.backend != "local":
            parts.append(f"backend={self.backend}")
        if self.verifier_network != "harbor":
            parts.append(f"verifier_network={self.verifier_network}")
        return parts

    def settings_label(self) -> str:
        """:meth:`settings_parts` joined by spaces ("" when none)."""
        return " ".join(self.settings_parts())

    def label(self) -> str:
        """A short human label: agent, model and :meth:`settings_label` (for tables)."""
        return " ".join([self.agent] + ([self.model] if self.model else []) + ([self.settings_label()] if
                                                                                self.settings_label() else []))


_UNSET = object()


def _flatten(d: dict, prefix: str = "") -> dict:
    out: dict = {}
    for k, v in d.items():
        if isinstance(v, dict) and v:
            out.update(_flatten(v, f"{prefix}{k}."))
        else:
            out[f"{prefix}{k}"] = v
    return out


def _show(value) -> str:
    if value is None or value is _UNSET:
        return "(unset)"
    return value if isinstance(value, str) else json.dumps(value, default=str)


class TrialResult(_Strict):
    """The outcome of one trial: one attempt of one agent on one task.

    - ``trial_id``: stable id from (task digest, agent, model, attempt) — see ``trial_key``.
    - ``status``: ``resolved`` | ``unresolved`` | ``invalid``; ``reason`` says why for the
      latter two (``invalid`` means the harness, the model service or the grader failed: the trial
      is excluded from rates and counted apart, never scored 0).
    - ``control``: the control that decided a failure that looked like the harness's: for an
      ``invalid`` trial, what proved the fault is not the agent's (the untouched base graded the
      same way, a fresh sandbox of the pristine environment failed too, the failure lay outside
      every sandbox: the model provider after retries, the engine, the harness itself, or no
      agent code had run yet); for an ``unresolved`` one, the control that cleared the harness
      (the pristine environment works). None when no control was needed.
    - ``rewards``: flat map of floats read from the verifier (``reward`` is the main one).
    - ``steps``: a multi-step task's per-step results in order (:class:`StepResult`); empty for a
      single-step task.
    - ``patch_applied``: whether the captured patch applied in the grading sandbox (None: no patch).
    - ``dropped_paths``: protected files whose changes were removed from the patch before grading.
    - ``scan_notes``: the static scan's findings that did not decide the verdict (harmless uses of
      names it watches, ``grading.scan``), as ``path: what: 'line'``.
    - ``tests``: test id -> ``passed`` | ``failed`` | ``error`` | ``skipped`` | ``missing`` (JUnit).
    - ``choice``: the proposal id the agent chose (choice tasks).
    - ``price_usd``: the task's price (USD); ``usage``: tokens and USD; ``timings``: seconds.
    - ``exclusion_rule``: set when the task's own verifier excluded the trial (an empty
      ``reward.txt``): the rule its ``status`` follows, ``control`` as recorded (lancebench's: the
      exclusion stands, ``invalid``, only when the untouched base is excluded too or the patch is
      empty, else ``unresolved``), ``task`` as ``show``/``report --exclusions task`` count it
      (left out, ``invalid``, as Harbor and the leaderboard do; :mod:`lancebench.metrics.exclusions`).
      None when no verifier run excluded the trial.
    - ``judges``: senior grading, judge name -> :class:`JudgeRecord` (empty without
      ``--judge-model``); ``quality``: the :class:`QualityVerdict` (None without judges).
    - ``config``: the configuration that produced it (None in results of older versions).
    - ``error``: the :class:`TrialError` that ended the trial early (None when it ran to the end,
      and in results of older versions); ``phases``: phase name -> :class:`PhaseTime` (empty in
      results of older versions).

    Built once, by :func:`lancebench.runner.record.build_result`.
    """

    schema_version: int = 1
    trial_id: str
    job: str
    task: str
    task_digest: str
    dataset: str | None = None
    agent: str
    model: str | None = None
    attempt: int = Field(ge=0)
    kind: Literal["code", "choice"] = "code"
    split: Literal["public", "private"] = "public"
    price_usd: float = 0.0
    taxonomy: dict = Field(default_factory=dict)
    status: Status
    reason: str | None = None
    control: str | None = None
    rewards: dict[str, float] = Field(default_factory=dict)
    steps: list[StepResult] = Field(default_factory=list)
    patch_applied: bool | None = None
    dropped_paths: list[str] = Field(default_factory=list)
    scan_notes: list[str] = Field(default_factory=list)
    tests: dict[str, str] = Field(default_factory=dict)
    choice: int | None = None
    exclusion_rule: Literal["control", "task"] | None = None
    agent_exit: str | None = None
    usage: Usage = Field(default_factory=Usage)
    timings: Timings = Field(default_factory=Timings)
    started_at: str = Field(default_factory=utcnow)
    finished_at: str = Field(default_factory=utcnow)
    extra: dict = Field(default_factory=dict)
    judges: dict[str, JudgeRecord] = Field(default_factory=dict)
    quality: QualityVerdict | None = None
    config: TrialConfig | None = None
    error: TrialError | None = None
    phases: dict[str, PhaseTime] = Field(default_factory=dict)

    def configuration(self) -> tuple[str, str | None, str | None, str]:
        """The configuration this trial counts under wherever results are grouped (report rows, the
        HTML leaderboard, plots and task table, analysis, contamination): ``(agent, model,
        dataset, settings)``, ``settings`` being :meth:`TrialConfig.settings_label` ("" when the
        configuration was not recorded). Two trials are pooled exactly when these are equal."""
        return (self.agent, self.model, self.dataset, self.config.settings_label() if self.config else "")

    @property
    def success(self) -> float | None:
        """1.0 resolved, 0.0 unresolved, None invalid."""
        return None if self.status == "invalid" else float(self.status == "resolved")

    @model_serializer(mode="wrap")
    def _readable(self, handler: SerializerFunctionWrapHandler) -> dict:
        """Strings holding bytes of the agent's file names that are not UTF-8 are written escaped
        (:func:`readable`): JSON cannot hold them, and a result that cannot be written loses the trial."""
        return readable(handler(self))


class JobConfig(_Strict):
    """What a job was started with (``job.json``). ``config`` is the configuration every trial of
    the job shares (None in jobs of older versions); a run with another one is refused.
    ``agent``, ``model`` and ``agent_options`` are ``config``'s own when it is given: taken from
    it (:meth:`_from_config`) and written once, inside ``config`` (:meth:`_once`); a ``job.json``
    of an older version, with or without ``config``, holds them at the top and reads as before.
    ``controls``: the latest run's run-level controls (``max_total_cost_usd``, ``max_total_tokens``,
    ``max_invalid_rate``, ``invalid_rate_min_trials``, ``max_calls_in_flight``; see
    ``runner.controls``): recorded, never compared (a rerun may raise a budget)."""

    name: str
    agent: str
    model: str | None = None
    attempts: int = 1
    concurrency: int = 1
    backend: str = "local"
    sources: list[str] = Field(default_factory=list)
    task_filters: list[str] = Field(default_factory=list)
    limit: int | None = None
    agent_options: dict = Field(default_factory=dict)
    created_at: str = Field(default_factory=utcnow)
    lancebench_version: str = ""
    config: TrialConfig | None = None
    controls: dict = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _from_config(cls, data: Any) -> Any:
        """``agent``, ``model`` and ``agent_options`` not given: ``config``'s (a mapping read from
        ``job.json``, or a :class:`TrialConfig`), when there is one."""
        config = data.get("config") if isinstance(data, dict) else None
        if config is None:
            return data
        data = dict(data)
        for key, default in (("agent", None), ("model", None), ("agent_options", {})):
            if key not in data:
                data[key] = config.get(key, default) if isinstance(config, dict) else getattr(config, key)
        return data

    @model_serializer(mode="wrap")
    def _once(self, handler: SerializerFunctionWrapHandler) -> dict:
        """With ``config``, its agent, model and options are written in it only."""
        out = handler(self)
        if self.config is not None:
            for key in ("agent", "model", "agent_options"):
                out.pop(key, None)
        return out
