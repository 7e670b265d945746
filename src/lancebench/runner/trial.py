"""One trial: prepare → agent → capture → verify → record.

- prepare: :meth:`Backend.prepare` builds (or reuses) the task's environment;
- agent: :func:`run_agent` runs the agent in a fresh sandbox (:func:`_agent_phase`);
- capture: :func:`_capture` takes the patch (code tasks) or the answer (choice tasks) before that
  sandbox stops, then the task's artifacts are collected (:mod:`lancebench.runner.artifacts`);
- verify: :mod:`lancebench.grading.verifier` grades the work in fresh sandboxes and returns a
  :class:`~lancebench.grading.verifier.Verdict`;
- record: :func:`_record` copies the verdict into the :class:`TrialResult` (written last);
  :func:`_senior` adds senior grading (``--judge-model``) of a graded patch.

Infrastructure failures give ``invalid``, never a score of 0, and only with the control that
proved them (``TrialResult.control``, :mod:`lancebench.runner.control`): a sandbox failure or a
failed health check after agent code ran is the agent's (``unresolved``) unless a fresh sandbox
of the pristine environment fails the same way.
"""

from __future__ import annotations

import dataclasses
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lancebench.agents.base import Agent, AgentContext, AgentOutcome
from lancebench.errors import LancebenchError, ModelAuthError, ModelError, SandboxError, WorkspaceError
from lancebench.grading.choice import read_answer_file
from lancebench.grading.verifier import Verdict, judge_choice, patch_not_applied, verify_patch
from lancebench.judging.senior import senior_grade
from lancebench.results.models import Timings, TrialResult, Usage, utcnow
from lancebench.results.store import atomic_write
from lancebench.runner import progress, spend
from lancebench.runner.agent_phase import TrialSpec, agent_mounts, check_health, run_agent, trial_labels
from lancebench.runner.artifacts import collect
from lancebench.runner.control import (
    HARNESS,
    MODEL_PROVIDER,
    AgentFault,
    Checkpoint,
    TrialInvalid,
    blame,
    raised_by_model_client,
    verdict_control,
)
from lancebench.runner.healthcheck import HealthcheckFailed
from lancebench.sandbox.as_user import as_user
from lancebench.sandbox.backend import Backend, PreparedEnvironment, task_limits
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import remove_tree
from lancebench.task.artifacts import declares_artifacts
from lancebench.task.model import Task
from lancebench.task.settings import network_policy, phase_env, phase_user
from lancebench.task.steps import judged_as_one, step_instruction


@dataclass(frozen=True)
class _Work:
    """What the capture took from the agent's sandbox: the agent's ``outcome``, and the ``patch``
    (code tasks) or the raw ``answer`` and the ``problem`` reading it (choice tasks)."""

    outcome: AgentOutcome
    patch: str | None = None
    answer: Any = None
    problem: str | None = None


async def run_trial(spec: TrialSpec, agent: Agent, backend: Backend) -> TrialResult:
    """Run one trial and write its ``result.json`` (atomically, last). Returns the result.

    Raises :class:`ModelAuthError` (the job must stop); every failure of the harness, the backend,
    the model service or the grader is recorded as an ``invalid`` trial with the control that
    proved it (``control``), and a failure the agent's work caused as ``unresolved``
    (see :mod:`lancebench.runner.control`).
    """
    meter = spend.start(spec.paths)  # before the folder is replaced: it keeps earlier runs' spend
    _fresh_folders(spec)
    result = _new_result(spec)
    timings = Timings()
    t_start = time.monotonic()
    point = Checkpoint()
    try:
        try:
            await _walk(spec, agent, backend, result, timings, point)
        except (SandboxError, HealthcheckFailed) as exc:
            raise await blame(exc, point, spec.task, backend, spec.scratch, trial_labels(spec)) from exc
    except ModelAuthError:
        raise
    except WorkspaceError as exc:  # what the agent left cannot be captured or graded: its doing
        result.status, result.reason, result.rewards = "unresolved", str(exc)[:4000], {"reward": 0.0}
    except AgentFault as exc:
        result.status, result.reason, result.rewards = "unresolved", str(exc)[:4000], {"reward": 0.0}
        result.control = exc.control
    except TrialInvalid as exc:
        result.status, result.reason, result.control = "invalid", str(exc)[:4000], exc.control
    except ModelError as exc:
        control = MODEL_PROVIDER if raised_by_model_client(exc) else f"{HARNESS}: lancebench raised ModelError"
        result.status, result.reason, result.control = "invalid", f"ModelError: {exc}"[:4000], control
    except LancebenchError as exc:
        result.status, result.reason = "invalid", f"{type(exc).__name__}: {exc}"[:4000]
        result.control = f"{HARNESS}: lancebench raised {type(exc).__name__}"
    except Exception as exc:  # a bug anywhere must not lose the job: record it as invalid
        import traceback
        spec.paths.error_log.write_text(traceback.format_exc())
        result.status, result.reason = "invalid", f"internal error {type(exc).__name__}: {exc}"[:4000]
        result.control = f"{HARNESS}: an internal error (traceback in error.log)"
    finally:
        remove_tree(spec.scratch)
    spend.settle(result, meter)  # the spend seen, however the trial ended
    timings.total_sec = time.monotonic() - t_start
    result.timings = timings
    result.finished_at = utcnow()
    atomic_write(spec.paths.result, result.model_dump_json(indent=2))
    return result


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


def _new_result(spec: TrialSpec) -> TrialResult:
    """The trial's result before it runs: ``invalid`` until a verdict is recorded."""
    task = spec.task
    return TrialResult(trial_id=spec.trial_id, job=spec.job, task=task.name, task_digest=task.digest,
                       dataset=task.dataset, agent=spec.agent_name, model=spec.model, attempt=spec.attempt,
                       kind=task.kind, split=task.split, price_usd=task.price_usd, taxonomy=task.taxonomy,
                       status="invalid", started_at=utcnow(), config=spec.config)


async def _walk(spec: TrialSpec, agent: Agent, backend: Backend, result: TrialResult, timings: Timings,
                point: Checkpoint) -> None:
    """prepare → agent → capture → verify → record; phase times go to ``timings`` (seconds); what
    has run so far goes to ``point`` (for :func:`lancebench.runner.control.blame`)."""
    t0 = time.monotonic()
    progress.set_phase(spec.trial_id, "environment")
    env = await backend.prepare(spec.task)
    point.env, point.network = env, network_policy(spec.task, "agent")
    timings.environment_sec = time.monotonic() - t0
    if spec.task.config.steps and spec.task.kind == "code":  # agent, capture, verify per step
        from lancebench.runner.steps import run_steps
        t0 = time.monotonic()
        patch = await run_steps(spec, agent, backend, env, result, timings, point)
        t_judge = time.monotonic()
        ran = [record["name"] for record in result.steps]
        await _senior(spec, backend, env, _Work(AgentOutcome(), patch=patch), result, judged_as_one(spec.task, ran))
        timings.judging_sec = time.monotonic() - t_judge if spec.senior is not None else 0.0
        timings.grading_sec = time.monotonic() - t0 - (timings.agent_sec or 0.0)
        return
    work = await _agent_phase(spec, agent, backend, env, result, timings, point)
    t0 = time.monotonic()
    progress.set_phase(spec.trial_id, "grading")
    verdict = await _verify(spec, backend, env, work)
    _record(result, verdict)
    if result.status == "invalid":
        result.control = verdict_control(spec.paths.verifier)
    t_judge = time.monotonic()
    await _senior(spec, backend, env, work, result, spec.task)
    timings.judging_sec = time.monotonic() - t_judge if spec.senior is not None else 0.0
    timings.grading_sec = time.monotonic() - t0


async def _agent_phase(spec: TrialSpec, agent: Agent, backend: Backend, env: PreparedEnvironment,
                       result: TrialResult, timings: Timings, point: Checkpoint) -> _Work:
    """Run the agent in a fresh sandbox, record its exit and usage, then capture its work before the
    sandbox stops. Raises :class:`TrialInvalid` when a bundled agent reports a failure that is not
    its own (a model outage; see :func:`lancebench.runner.agent_phase.run_agent`)."""
    task, paths = spec.task, spec.paths
    budget = spec.agent_timeout_sec or task.config.agent.timeout_sec
    user_tool = None  # browser tasks: see lancebench.grading.user_tool
    if task.lb.browser and task.kind == "code":
        from lancebench.grading.user_tool import UserToolService
        user_tool = UserToolService(task, backend, env, spec.scratch / "user-tool", paths.agent)
    agent_env = dataclasses.replace(env, variables={**env.variables, **phase_env(task, "agent")})
    mounts = (*(user_tool.mounts() if user_tool else ()), *await agent_mounts(agent))
    sandbox = backend.open(task, agent_env, spec.scratch / "agent", mounts=mounts,
                           network=network_policy(task, "agent"), labels=trial_labels(spec))
    if user_tool:
        user_tool.attach(sandbox)  # before start: a container backend reads PATH when it starts
    await sandbox.start()
    try:
        await check_health(task, sandbox, point=point)
        t0 = time.monotonic()
        progress.set_phase(spec.trial_id, "agent")
        agent_box = as_user(sandbox, phase_user(task, "agent"))  # [agent] user (docker)
        outcome = await run_agent(agent, _context(spec, env, agent_box, budget), budget, point)
        if user_tool:
            await user_tool.close()  # before the capture: user_tool/ never enters the patch
        timings.agent_sec = time.monotonic() - t0
        result.agent_exit = outcome.exit
        result.usage = outcome.usage if isinstance(outcome.usage, Usage) else Usage()
        if outcome.exit == "error" and outcome.message:
            result.extra["agent_message"] = outcome.message
        if outcome.invalid_reason:  # a bundled agent's (run_agent dropped any other's)
            raise TrialInvalid(outcome.invalid_reason, MODEL_PROVIDER)
        t0 = time.monotonic()
        progress.set_phase(spec.trial_id, "capture")
        point.capturing = True
        work = await _capture(spec, backend, env, sandbox, outcome)
        point.capturing = False
        if task.kind == "code" and declares_artifacts(task):
            await collect(task, None, sandbox, backend, paths.root, spec.scratch / "artifacts")
    finally:
        if user_tool:
            await user_tool.close()
        await sandbox.stop()
    timings.capture_sec = time.monotonic() - t0
    return work


def _context(spec: TrialSpec, env: PreparedEnvironment, sandbox: Sandbox, budget: float) -> AgentContext:
    """What the agent is given: instruction, sandbox, budget (seconds), limits and options."""
    task = spec.task
    choice = task.lb.choice
    return AgentContext(task_name=task.name, instruction=task.instruction, sandbox=sandbox, workdir=env.workdir,
                        timeout_sec=budget, deadline=time.monotonic() + budget, limits=task_limits(task),
                        logs_dir=spec.paths.agent, model=spec.model, options=dict(spec.options), kind=task.kind,
                        proposal_ids=choice.proposal_ids if choice else None,
                        answer_file=choice.answer_file if choice else None,
                        solution_dir=task.paths.solution if task.paths.solution.is_dir() else None,
                        browser=task.lb.browser, price_usd=task.price_usd,
                        solution_env=phase_env(task, "solution"), attempt=spec.attempt)


async def _capture(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, sandbox: Sandbox,
                   outcome: AgentOutcome) -> _Work:
    """The agent's work: the answer file (choice tasks; else the answer the agent returned), or the
    patch against the pristine base, written to ``patch.diff`` (code tasks)."""
    task = spec.task
    if task.kind == "choice":
        raw, problem = await _read_answer(sandbox, env, task, spec.scratch)
        if raw is None and problem == "no answer" and outcome.choice is not None:
            raw, problem = outcome.choice, None
        return _Work(outcome, answer=raw, problem=problem)
    patch = await backend.capture(task, env, sandbox, spec.scratch / "capture")
    atomic_write(spec.paths.patch, patch, errors="surrogateescape")
    return _Work(outcome, patch=patch)


async def _verify(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, work: _Work) -> Verdict:
    """The verdict on the captured work (see :mod:`lancebench.grading.verifier`)."""
    if spec.task.kind == "choice":
        return judge_choice(spec.task, work.answer, work.problem)
    if work.outcome.patch_applied is False:  # a given patch (predictions) that did not apply
        return patch_not_applied(work.outcome.message)
    assert work.patch is not None
    return await verify_patch(spec.task, backend, env, work.patch, scratch=spec.scratch, paths=spec.paths,
                              labels=trial_labels(spec))


async def _senior(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, work: _Work,
                  result: TrialResult, task: Task) -> None:
    """Senior grading (``--judge-model``) of a graded patch as ``task`` asks for it (a multi-step
    trial: :func:`lancebench.task.steps.judged_as_one`), recorded into ``result`` by
    :func:`lancebench.judging.senior.senior_grade`; skipped for choice tasks, given patches that did
    not apply and invalid trials."""
    if spec.senior is None or work.patch is None or work.outcome.patch_applied is False or result.status == "invalid":
        return
    await senior_grade(spec.senior, task, backend, env, work.patch, result, spec.scratch / "senior",
                       trial_labels(spec))


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


def _record(result: TrialResult, verdict: Verdict) -> None:
    """Copy the verdict into the trial's result; an unresolved trial's reason also says when the
    agent did not finish on its own (:data:`AGENT_STOPS`, from ``agent_exit``)."""
    result.status, result.reason = verdict.status, verdict.reason
    if result.status == "unresolved" and result.agent_exit in AGENT_STOPS:
        result.reason = (f"{result.reason or 'unresolved'}; "
                         f"{agent_stop(result.agent_exit, result.extra.get('agent_message'))}")
    result.rewards = dict(verdict.rewards)
    result.tests = dict(verdict.tests)
    result.dropped_paths = list(verdict.dropped_paths)
    result.scan_notes = list(verdict.scan_notes)
    result.patch_applied = verdict.patch_applied
    result.choice = verdict.choice


async def _read_answer(sandbox: Sandbox, env: PreparedEnvironment, task: Task, scratch: Path) -> tuple[Any, str | None]:
    """(raw answer, problem) from the choice task's answer file in the sandbox; "no answer" when absent."""
    assert task.lb.choice is not None, "a choice task has [lancebench.choice]"
    dest = scratch / "answer" / "answer.json"
    try:
        await sandbox.get(f"{env.workdir}/{task.lb.choice.answer_file}", dest)
    except SandboxError:
        return None, "no answer"
    return read_answer_file(dest)
