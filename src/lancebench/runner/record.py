"""The record phase of a trial: what the phases returned (:class:`Trace`), when each ran
(:class:`lancebench.runner.progress.PhaseClock`), and the one function that builds the
:class:`TrialResult` from them (:func:`build_result`). Nothing else in the runner writes a field of
a ``TrialResult``."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from lancebench.agents.base import AgentOutcome
from lancebench.grading.verifier import Verdict
from lancebench.judging.senior import SeniorReview
from lancebench.results.models import StepResult, TrialError, TrialResult, Usage, utcnow
from lancebench.runner.progress import PhaseClock

if TYPE_CHECKING:
    from lancebench.runner.agent_phase import TrialSpec

AGENT_STOPS = {"timeout": "the agent ran out of time", "limit": "the agent reached its step or cost limit",
               "error": "the agent stopped with an error"}
# errors an agent names at the start of its message ("Name: ..."), said plainly in the reason (issue 28)
NAMED_STOPS = {"RepeatedFormatError": "the model kept replying in a format the agent cannot read"}


def agent_stop(agent_exit: str, message: str | None) -> str:
    """Why the agent did not finish on its own, for an unresolved trial's reason: :data:`AGENT_STOPS`
    by ``agent_exit``, naming an error of :data:`NAMED_STOPS` when the agent's ``message`` starts
    with its name (``RepeatedFormatError: ...`` from mini-swe-agent)."""
    name = (message or "").split(":", 1)[0].strip()
    if agent_exit == "error" and name in NAMED_STOPS:
        return f"the agent stopped with {name} ({NAMED_STOPS[name]})"
    return AGENT_STOPS[agent_exit]


@dataclass(frozen=True)
class Failure:
    """How a trial that ended early is recorded: its ``status`` (``invalid`` or ``unresolved``),
    ``reason`` (at most 4,000 characters), ``control`` (see :mod:`lancebench.runner.control`) and
    the structured ``error``."""

    status: str
    reason: str
    control: str | None
    error: TrialError


@dataclass
class Trace:
    """What the phases of one trial returned so far, in order (kept when a later phase raises):
    each agent run's ``outcomes``, each graded step of a multi-step task (``steps``: its record
    and its verdict), the trial's ``verdict`` with the ``control`` of an ``invalid`` one, and the
    senior grading's ``review``."""

    outcomes: list[AgentOutcome] = field(default_factory=list)
    steps: list[tuple[StepResult, Verdict]] = field(default_factory=list)
    verdict: Verdict | None = None
    control: str | None = None
    review: SeniorReview | None = None

    def reported_usage(self) -> Usage:
        """The sum of the usage the agent runs reported (an outcome without a :class:`Usage` counts 0)."""
        total = Usage()
        for outcome in self.outcomes:
            total = total + outcome.usage if isinstance(outcome.usage, Usage) else total
        return total


def merged_steps(verdicts: list[Verdict]) -> tuple[list[str], list[str], bool | None]:
    """``(dropped paths, scan notes, patch_applied)`` of a multi-step trial's graded steps'
    ``verdicts``: the protected paths dropped and the scan notes of any step (sorted), the last
    step's ``patch_applied`` (None when no step was graded)."""
    return (sorted({p for v in verdicts for p in v.dropped_paths}), sorted({n for v in verdicts for n in v.scan_notes}),
            verdicts[-1].patch_applied if verdicts else None)


def _steps_fields(trace: Trace) -> dict:
    """The fields a multi-step trial's graded steps give, also when a later step raised
    (:func:`merged_steps`); empty for a single-step trial."""
    if not trace.steps:
        return {}
    dropped, notes, applied = merged_steps([v for _, v in trace.steps])
    return {"steps": [record for record, _ in trace.steps], "dropped_paths": dropped, "scan_notes": notes,
            "patch_applied": applied}


def _verdict_fields(trace: Trace, failure: Failure | None) -> dict:
    """Status, reason, control and the verdict's fields: the failure's when the trial ended early
    (reward 0 when it is the agent's), else the verdict's, as senior grading changed it; an
    unresolved single-step trial's reason also says when the agent did not finish on its own
    (:data:`AGENT_STOPS`)."""
    if failure is not None:
        rewards = {"reward": 0.0} if failure.status == "unresolved" else {}
        return {"status": failure.status, "reason": failure.reason, "control": failure.control, "rewards": rewards,
                "error": failure.error, **_steps_fields(trace)}
    v = trace.verdict
    assert v is not None, "a trial that did not fail has a verdict"
    graded = [v, *(step for _, step in trace.steps)]
    excluded = any(run.excluded for verdict in graded for run in verdict.runs)
    out = {"status": v.status, "reason": v.reason, "control": trace.control, "rewards": dict(v.rewards),
           "exclusion_rule": "control" if excluded else None,
           "tests": dict(v.tests), "dropped_paths": list(v.dropped_paths), "scan_notes": list(v.scan_notes),
           "patch_applied": v.patch_applied, "choice": v.choice, **_steps_fields(trace)}
    last = trace.outcomes[-1] if trace.outcomes else None
    if v.status == "unresolved" and not trace.steps and last is not None and last.exit in AGENT_STOPS:
        out["reason"] = f"{v.reason or 'unresolved'}; {agent_stop(last.exit, last.message)}"
    review = trace.review
    if review is not None:
        out.update(judges=review.judges, quality=review.quality)
        if review.status is not None:
            out.update(status=review.status, reason=review.reason)
            if review.control is not None:
                out["control"] = review.control
    return out


def build_result(spec: TrialSpec, started_at: str, trace: Trace, failure: Failure | None, clock: PhaseClock,
                 usage: Usage, extra: dict) -> TrialResult:
    """The trial's :class:`TrialResult`, built once from what its phases returned (``trace``), how
    it failed (``failure``, None when it ran to the end), its ``clock``, the ``usage`` to record
    (:func:`lancebench.runner.spend.settle`) and ``extra`` fields (earlier runs' spend)."""
    task, last = spec.task, trace.outcomes[-1] if trace.outcomes else None
    if last is not None and last.exit == "error" and last.message:
        extra = {"agent_message": last.message, **extra}
    verdict = _verdict_fields(trace, failure)
    return TrialResult(trial_id=spec.trial_id, job=spec.job, task=task.name, task_digest=task.digest,
                       dataset=task.dataset, agent=spec.agent_name, model=spec.model, attempt=spec.attempt,
                       kind=task.kind, split=task.split, price_usd=task.price_usd, taxonomy=task.taxonomy,
                       config=spec.config, agent_exit=last.exit if last is not None else None, usage=usage,
                       extra=extra, timings=clock.timings(), phases=clock.spans(), started_at=started_at,
                       finished_at=utcnow(), **verdict)
