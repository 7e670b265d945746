"""Senior grading of one graded trial: validation agent, rubric and taste judges, patch bloat and
the verdict, stored in ``TrialResult.judges`` and ``TrialResult.quality``.

Called by the trial runner after the verifiers, for code tasks whose patch applied; returns a
:class:`SeniorReview`, which the runner records in the trial's result:

- ``judges``: ``validation`` (when the task has ``validation_spec.toml``), ``rubric`` (when it has
  ``rubric.json``), ``taste`` (always): each ``ok``, ``skipped`` or ``failed:<why>``;
- ``status``: a resolved trial becomes ``unresolved`` when a validation story does not pass or the
  patched code changed the repository while validated (a control run shows the same scripts change
  nothing on the reference solution), and ``invalid`` (with the reason and ``control``) when the
  validation run is discarded or its infrastructure fails;
- ``quality``: the tasteful flag, the thresholds and the patch bloat.
"""

from __future__ import annotations

import asyncio
import dataclasses
import time
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.errors import SandboxError, TaskError
from lancebench.grading.patch import filter_patch
from lancebench.judging.bloat import patch_bloat
from lancebench.judging.conversation import Limits
from lancebench.judging.file_kinds import model_reclassifier
from lancebench.judging.record import recorded
from lancebench.judging.rubric import find_rubric, judge_rubric, load_rubric
from lancebench.judging.snapshot import RepoSnapshot
from lancebench.judging.taste import MIN_TOOL_TURNS, judge_taste
from lancebench.judging.validation import ValidationByAgent, ValidationInvalid, validate
from lancebench.judging.validation_spec import find_spec, load_spec
from lancebench.judging.verdict import Thresholds, quality_verdict, resolved_with_validation
from lancebench.judging.workspace import reference_patch, snapshot
from lancebench.llm.client import LLMClient
from lancebench.results.models import JudgeRecord, QualityVerdict, Status
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.model import Task

JUDGES = ("validation", "rubric", "taste")


@dataclass(frozen=True)
class JudgeSettings:
    """How senior grading runs (picklable, for remote executors).

    ``model``: the judge model as the user named it (a litellm name or ``local``), recorded in each
    record; ``client_model``/``api_base``: what the client is built with (the local server's
    address for ``local``); ``judges``: which of :data:`JUDGES` run; ``thresholds``; ``limits``
    (rubric, validation) and ``taste_limits`` (taste: with ``min_tool_turns``).
    """

    model: str
    client_model: str | None = None
    api_base: str | None = None
    judges: tuple[str, ...] = JUDGES
    thresholds: Thresholds = field(default_factory=Thresholds)
    limits: Limits = field(default_factory=Limits)
    taste_limits: Limits = field(default_factory=lambda: Limits(min_tool_turns=MIN_TOOL_TURNS))
    bloat_model: bool = False  # let the model reclassify behavioural files for patch bloat

    def client(self) -> LLMClient:
        """A fresh client (one per judge, so that each judge's usage is its own)."""
        return LLMClient(self.client_model or self.model, self.api_base, max_retries=3, backoff_sec=2.0,
                         max_backoff_sec=30.0, request_timeout_sec=self.limits.timeout_sec)


def judge_limits(max_turns: int = 16, max_tokens: int = 1024, timeout_sec: float = 600.0) -> tuple[Limits, Limits]:
    """``(limits, taste_limits)`` from the bounds of one conversation (model calls, tokens per
    reply, seconds). The taste judge must make :data:`MIN_TOOL_TURNS` tool calls first, fewer
    when ``max_turns`` leaves no room for them and an answer."""
    limits = Limits(max_turns=max_turns, max_tokens=max_tokens, timeout_sec=timeout_sec)
    return limits, dataclasses.replace(limits, min_tool_turns=max(0, min(MIN_TOOL_TURNS, max_turns - 1)))


def _failed(why: str, detail: str, model: str) -> JudgeRecord:
    return JudgeRecord(status=f"failed:{why}", rationale=detail[:2000], model=model)


async def _validation(s: JudgeSettings, task: Task, backend: Backend, env: PreparedEnvironment, patch: str,
                      snap_dir: Path, scratch: Path, labels: dict[str, str] | None) -> JudgeRecord | None:
    path = find_spec(task.paths.root)
    if path is None or "validation" not in s.judges:
        return None
    spec = load_spec(path)
    return await validate(s.client(), task, backend, env, patch, spec, snap_dir, scratch, s.limits, labels)


def _run_judges(s: JudgeSettings, task: Task, patch: str, reference: str | None, snap: RepoSnapshot,
                rubric_error: str | None) -> dict[str, JudgeRecord]:
    out: dict[str, JudgeRecord] = {}
    rubric_path = find_rubric(task.paths.root)
    if "rubric" in s.judges and rubric_path is not None:
        if rubric_error:
            out["rubric"] = _failed("bad-rubric", rubric_error, s.model)
        else:
            rubric = load_rubric(rubric_path)
            out["rubric"] = recorded(s.model, lambda: judge_rubric(s.client(), task.instruction, rubric, patch, snap,
                                                                   s.limits))
    if "taste" in s.judges:
        if reference is None:
            out["taste"] = JudgeRecord(status="skipped", rationale="the task has no reference solution", model=s.model)
        else:
            out["taste"] = recorded(s.model, lambda: judge_taste(s.client(), task.instruction, patch, reference, snap,
                                                                 s.taste_limits))
    return out


def _bloat(s: JudgeSettings, patch: str, reference: str | None) -> tuple[float | None, int | None, int | None]:
    """``(ratio, agent SLOC, reference SLOC)``; all None without a reference or a parsable patch."""
    if reference is None:
        return None, None, None
    reclassify = model_reclassifier(s.client(), s.limits) if s.bloat_model else None
    try:
        b = patch_bloat(patch, reference, reclassify)
    except ValueError:
        return None, None, None
    return b.ratio, b.agent_sloc, b.reference_sloc


def senior_file_errors(task: Task) -> list[TaskError]:
    """Problems of the task's ``rubric.json`` and ``validation_spec.toml`` (each names the file, the
    field and the fix); empty when they are fine or absent."""
    errors = []
    for find, load in ((find_rubric, load_rubric), (find_spec, load_spec)):
        path = find(task.paths.root)
        if path is None:
            continue
        try:
            load(path)
        except TaskError as exc:
            errors.append(TaskError(exc.path, exc.problem, key=exc.key, fix=exc.fix, task_dir=task.paths.root))
    return errors


def _check_rubric(task: Task) -> str | None:
    path = find_rubric(task.paths.root)
    try:
        if path is not None:
            load_rubric(path)
    except TaskError as exc:
        return str(exc)
    return None


@dataclass(frozen=True)
class SeniorReview:
    """What senior grading concluded about one graded trial (see the module docstring): the
    ``judges`` records, the ``quality`` verdict (None when the validation ended the trial), and
    when it changes the trial's verdict, the new ``status`` with its ``reason`` and ``control``
    (``status`` None: the verifier's verdict stands)."""

    judges: dict[str, JudgeRecord]
    quality: QualityVerdict | None = None
    status: Status | None = None
    reason: str | None = None
    control: str | None = None


async def senior_grade(s: JudgeSettings, task: Task, backend: Backend, env: PreparedEnvironment, patch: str,
                       status: Status, scratch: Path, labels: dict[str, str] | None = None) -> SeniorReview | None:
    """Senior-grade a trial whose verifier's verdict is ``status`` (see the module docstring);
    None for a task or verdict it does not grade (a choice task, an ``invalid`` trial).
    ``patch``: the captured patch (protected paths are dropped here as for grading). Never raises
    for a judge's failure; raises :class:`~lancebench.errors.ModelAuthError` (the job must stop)."""
    if task.kind != "code" or status == "invalid":
        return None
    kept, _ = filter_patch(patch, task.protected_globs(), task.lb.unprotect)
    try:
        snap_dir = await snapshot(task, backend, env, kept, scratch / "snapshot", labels)
        reference = await reference_patch(task, backend, env, scratch / "reference", labels)
    except SandboxError as exc:
        failed = {j: _failed("snapshot", str(exc), s.model) for j in s.judges}
        return SeniorReview(failed, quality_verdict(status == "resolved", failed, s.thresholds))
    started = time.monotonic()
    try:
        validation = await _validation(s, task, backend, env, kept, snap_dir, scratch / "validation", labels)
    except TaskError as exc:  # the task's spec is broken: not the agent's fault
        return SeniorReview({"validation": _failed("bad-spec", str(exc), s.model)}, status="invalid",
                            reason=f"validation spec: {exc}"[:4000],
                            control="the task's validation spec is broken (no agent code read)")
    except (ValidationInvalid, ValidationByAgent) as exc:  # (issue 20: a control decides which)
        record = exc.record.model_copy(update={"model": s.model, "duration_sec": time.monotonic() - started})
        return SeniorReview({"validation": record}, status="unresolved" if isinstance(exc, ValidationByAgent)
                            else "invalid", reason=str(exc)[:4000], control=exc.control)
    validation_sec = time.monotonic() - started
    judges = await asyncio.to_thread(_run_judges, s, task, kept, reference, RepoSnapshot(snap_dir), _check_rubric(task))
    if validation is not None:
        timed = validation.model_copy(update={"model": s.model, "duration_sec": validation_sec})
        judges = {"validation": timed, **judges}
    new_status: Status | None = None
    reason = None
    if status == "resolved" and not resolved_with_validation(True, validation):
        failed_stories = [st["name"] for st in (validation.details.get("stories", []) if validation else [])
                          if st["outcome"] != "pass"]
        new_status = "unresolved"
        reason = (f"validation: stories not passed: {', '.join(failed_stories)}" if failed_stories
                  else f"validation {validation.status if validation else 'missing'}")
    bloat = await asyncio.to_thread(_bloat, s, kept, reference)
    quality = quality_verdict((new_status or status) == "resolved", judges, s.thresholds, bloat)
    remove_tree(scratch / "snapshot")
    return SeniorReview(judges, quality, status=new_status, reason=reason)
