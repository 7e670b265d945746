"""One trial: prepare → agent → capture → verify → record.

- prepare: :meth:`Backend.prepare` builds (or reuses) the task's environment;
- agent, capture, verify: :func:`lancebench.runner.steps.run_steps`, the one loop over the task's
  steps (a single-step task is a list of one step): the agent runs in a fresh sandbox, its work is
  captured (the patch, or the answer of a choice task) before that sandbox stops, the task's
  artifacts are collected (:mod:`lancebench.runner.artifacts`), and
  :mod:`lancebench.grading.verifier` grades the work in fresh sandboxes, returning a
  :class:`~lancebench.grading.verifier.Verdict`;
- senior grading (``--judge-model``, :func:`_senior`) of a graded patch returns a
  :class:`~lancebench.judging.senior.SeniorReview`;
- record: what the phases returned (:class:`~lancebench.runner.record.Trace`) becomes the
  :class:`TrialResult` in one place, :func:`lancebench.runner.record.build_result` (written last).

Infrastructure failures give ``invalid``, never a score of 0, and only with the control that
proved them (``TrialResult.control``, :mod:`lancebench.runner.control`): a sandbox failure or a
failed health check after agent code ran is the agent's (``unresolved``) unless a fresh sandbox
of the pristine environment fails the same way. How a trial ended early is also recorded as a
structured :class:`~lancebench.results.models.TrialError` (``TrialResult.error``).
"""

from __future__ import annotations

import asyncio
import traceback

from lancebench.agents.base import Agent
from lancebench.errors import LancebenchError, ModelAuthError, ModelError, SandboxError, WorkspaceError
from lancebench.judging.senior import senior_grade
from lancebench.llm.meter import UsageMeter
from lancebench.results.models import TrialError, TrialResult, utcnow
from lancebench.results.store import atomic_write, write_result
from lancebench.runner import spend
from lancebench.runner.agent_phase import TrialSpec, trial_labels
from lancebench.runner.control import (
    HARNESS,
    MODEL_PROVIDER,
    AgentFault,
    Checkpoint,
    TrialInvalid,
    blame,
    raised_by_model_client,
)
from lancebench.runner.healthcheck import HealthcheckFailed
from lancebench.runner.progress import PhaseClock
from lancebench.runner.record import AGENT_STOPS, Failure, Trace, build_result
from lancebench.runner.steps import Work, run_steps
from lancebench.sandbox.backend import Backend, PreparedEnvironment
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.steps import judged_as_one, step_instruction

__all__ = ["AGENT_STOPS", "TrialSpec", "run_trial"]


async def run_trial(spec: TrialSpec, agent: Agent, backend: Backend) -> TrialResult:
    """Run one trial and write its ``result.json`` (atomically, last). Returns the result.

    Raises :class:`ModelAuthError` (the job must stop); every failure of the harness, the backend,
    the model service or the grader is recorded as an ``invalid`` trial with the control that
    proved it (``control``), and a failure the agent's work caused as ``unresolved``
    (see :mod:`lancebench.runner.control`).
    """
    meter = spend.start(spec.paths)  # before the folder is replaced: it keeps earlier runs' spend
    await asyncio.to_thread(_fresh_folders, spec)  # file system calls block: never in the event loop
    started_at, trace, clock, point = utcnow(), Trace(), PhaseClock(spec.trial_id), Checkpoint()
    failure = None
    try:
        try:
            await _walk(spec, agent, backend, trace, clock, point)
        except (SandboxError, HealthcheckFailed) as exc:
            raise await blame(exc, point, spec.task, backend, spec.scratch, trial_labels(spec)) from exc
    except Exception as exc:
        if isinstance(exc, ModelAuthError):
            await asyncio.to_thread(remove_tree, spec.scratch)
            raise
        failure = _failure(spec, exc, clock.where)
    except BaseException:  # cancelled (the job stops): its scratch goes all the same
        await asyncio.to_thread(remove_tree, spec.scratch)
        raise
    return await asyncio.to_thread(_record, spec, started_at, trace, failure, clock, meter)


def _record(spec: TrialSpec, started_at: str, trace: Trace, failure: Failure | None, clock: PhaseClock,
            meter: UsageMeter) -> TrialResult:
    """The end of a trial however it ended, in a worker thread (file system calls block; the event
    loop runs the other trials): remove its scratch, settle its spend, build its result and write it
    (atomically, fsync'd: on disk when this returns). Returns the result."""
    remove_tree(spec.scratch)
    usage, extra = spend.settle(trace.reported_usage(), meter)  # the spend seen, however the trial ended
    result = build_result(spec, started_at, trace, failure, clock, usage, extra)
    write_result(spec.paths.result, result)
    return result


def _failure(spec: TrialSpec, exc: Exception, where: str) -> Failure:
    """How the trial that raised ``exc`` in phase ``where`` is recorded: the agent's doing
    (``unresolved``: what it left cannot be captured or graded, or a control blamed its work), or
    ``invalid`` with the control that proved the fault is not the agent's (a bug of the harness:
    its traceback goes to ``error.log``)."""
    def failed(status: str, reason: str, control: str | None, kind: str | None = None) -> Failure:
        error = TrialError(kind=kind or type(exc).__name__, message=str(exc), where=where)
        return Failure(status, reason[:4000], control, error)

    if isinstance(exc, WorkspaceError):  # with the control that cleared the harness, when one ran
        return failed("unresolved", str(exc), exc.control)
    if isinstance(exc, AgentFault):
        return failed("unresolved", str(exc), exc.control)
    if isinstance(exc, TrialInvalid):
        return failed("invalid", str(exc), exc.control)
    if isinstance(exc, ModelError):
        control = MODEL_PROVIDER if raised_by_model_client(exc) else f"{HARNESS}: lancebench raised ModelError"
        return failed("invalid", f"ModelError: {exc}", control)
    if isinstance(exc, LancebenchError):
        return failed("invalid", f"{type(exc).__name__}: {exc}", f"{HARNESS}: lancebench raised {type(exc).__name__}")
    # a bug anywhere must not lose the job: record it as invalid
    spec.paths.error_log.write_text("".join(traceback.format_exception(exc)))
    return failed("invalid", f"internal error {type(exc).__name__}: {exc}",
                  f"{HARNESS}: an internal error (traceback in error.log)", kind="internal")


def _fresh_folders(spec: TrialSpec) -> None:
    """Remove what an unfinished earlier run of this trial left (kill -9); make agent/ and verifier/;
    write the instruction the agent gets (``instruction.md``; a multi-step task's: every step's, in
    order, under ``## Step i of n: name`` headings)."""
    for stale in (spec.paths.root, spec.scratch):
        remove_tree(stale)
    for d in (spec.paths.agent, spec.paths.verifier):
        d.mkdir(parents=True, exist_ok=True)
    steps = spec.task.config.steps or []
    text = "\n\n".join(f"## Step {i} of {len(steps)}: {st.name}\n\n{step_instruction(spec.task, st).strip()}"
                       for i, st in enumerate(steps, 1)) + "\n" if steps else spec.task.instruction
    atomic_write(spec.paths.instruction, text)  # for reports: the task folder may be gone later


async def _walk(spec: TrialSpec, agent: Agent, backend: Backend, trace: Trace, clock: PhaseClock,
                point: Checkpoint) -> None:
    """prepare → the steps (agent, capture, verify) → senior grading; what each returns goes to
    ``trace``, phase times to ``clock``; what has run so far goes to ``point`` (for
    :func:`lancebench.runner.control.blame`)."""
    with clock.phase("environment", shown=True):
        env = await backend.prepare(spec.task)
    point.env = env  # point.network: the steps' (run_steps)
    work = await run_steps(spec, agent, backend, env, point, trace, clock)
    if spec.senior is not None:
        with clock.phase("judging"):
            trace.review = await _senior(spec, backend, env, work, trace)


async def _senior(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, work: Work, trace: Trace):
    """Senior grading (``--judge-model``) of a graded patch, by
    :func:`lancebench.judging.senior.senior_grade`, of the task as the trial asked for it (a
    multi-step trial: :func:`lancebench.task.steps.judged_as_one` of the steps that ran); None when
    skipped: choice tasks, patches that did not apply (given or graded) and invalid trials."""
    verdict = trace.verdict
    if (spec.senior is None or work.patch is None or work.outcome.patch_applied is False or verdict is None
            or verdict.status == "invalid" or verdict.patch_applied is False):
        return None
    task = judged_as_one(spec.task, [record.name for record, _ in trace.steps]) if trace.steps else spec.task
    return await senior_grade(spec.senior, task, backend, env, work.patch, verdict.status, spec.scratch / "senior",
                              trial_labels(spec))
