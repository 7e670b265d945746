"""The trial's one agent loop: a task's steps run in order in one agent sandbox; a single-step task
is a list of one step (:func:`plan_steps`), so both take the same path. Each step's settings
(instruction, budget, user, network, folders) are resolved once into a :class:`StepPlan`.

Per step: the step's network (when the steps' differ), its health check, the agent, the capture
of its work and the task's (and step's) artifacts. A step that is not the last one is graded
while the agent's sandbox starts again for the next one; the last one is graded after that
sandbox stopped. Multi-step tasks (Harbor's ``[[steps]]``): each step's work is graded in a fresh
sandbox with the step's tests laid over the shared ones, ``min_reward`` stops the later steps,
and the trial's rewards follow ``multi_step_reward_strategy`` as Harbor 0.25 computes them; the
artifacts of the task and of the step go to ``steps/<name>/artifacts/`` (``harbor.trial.trial``):

- ``mean`` (the default): each key's mean over the steps that were graded, a key a step lacks
  counting 0 (steps stopped by a ``min_reward`` gate are not in the denominator);
- ``final``: the last graded step's rewards as they are.

A multi-step trial is ``resolved`` when the main reward of those rewards is >= 1
(:func:`lancebench.grading.outcome.main_reward`); per-step results land in ``result.steps``.
A single-step trial's verdict is its step's.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import math
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from lancebench.agents.base import Agent, AgentContext, AgentOutcome
from lancebench.agents.builtin import OracleAgent
from lancebench.errors import SandboxError
from lancebench.grading.choice import read_answer_file
from lancebench.grading.outcome import main_reward
from lancebench.grading.verifier import Verdict, judge_choice, patch_not_applied, verify_patch
from lancebench.results.models import Status, StepResult
from lancebench.results.paths import TrialPaths
from lancebench.results.store import atomic_write
from lancebench.runner.agent_phase import TrialSpec, agent_mounts, check_health, resume_sandbox, run_agent, trial_labels
from lancebench.runner.artifacts import collect
from lancebench.runner.control import MODEL_PROVIDER, Checkpoint, TrialInvalid, verdict_control
from lancebench.runner.progress import PhaseClock
from lancebench.runner.record import Trace, merged_steps
from lancebench.sandbox.as_user import as_user
from lancebench.sandbox.backend import Backend, PreparedEnvironment, task_limits
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.names import unnamed
from lancebench.task.artifacts import declares_artifacts
from lancebench.task.harbor import StepConfig
from lancebench.task.model import Task
from lancebench.task.settings import NetworkPolicy, TrialSettings, trial_settings
from lancebench.task.steps import step_instruction, step_solution_dir


@dataclass(frozen=True)
class Work:
    """What the capture took from the agent's sandbox after a step: the agent's ``outcome``, and
    the ``patch`` (code tasks) or the raw ``answer`` and the ``problem`` reading it (choice tasks)."""

    outcome: AgentOutcome
    patch: str | None = None
    answer: Any = None
    problem: str | None = None


@dataclass(frozen=True)
class StepPlan:
    """One step of the agent loop, resolved once from the task and the trial's options.

    - ``step``: the task's ``[[steps]]`` entry (None: a single-step task's one step);
    - ``instruction``: what the agent is asked; ``budget``: its time in seconds (a step's own
      ``[steps.agent] timeout_sec``, else ``--agent-timeout``, else ``[agent] timeout_sec``);
    - ``user``: the user the agent's commands run as (docker); ``network``: the agent's network;
    - ``logs``: the agent's logs folder; ``out``: the folder of the step's ``patch.diff``,
      ``verifier/`` and ``artifacts/`` (the trial's own folder for a single step);
    - ``solution_dir``: the reference solution an oracle applies (None: none);
    - ``settings``: the trial's settings (:class:`lancebench.task.settings.TrialSettings`, resolved
      once for every step: the agent's env, the solution's, the health check's).
    """

    step: StepConfig | None
    instruction: str
    budget: float
    user: str | None
    network: NetworkPolicy
    logs: Path
    out: Path
    solution_dir: Path | None
    settings: TrialSettings

    @property
    def name(self) -> str | None:
        return self.step.name if self.step is not None else None

    @property
    def tag(self) -> str:
        """The suffix of the step's scratch folders (``""`` for a single step)."""
        return f"-{self.step.name}" if self.step is not None else ""


def plan_steps(spec: TrialSpec, settings: TrialSettings) -> list[StepPlan]:
    """The steps of ``spec``'s trial in order, with the trial's ``settings``: a code task's
    ``[[steps]]``, else the task as one step."""
    task, paths = spec.task, spec.paths
    if not (task.config.steps and task.kind == "code"):
        solution = task.paths.solution if task.paths.solution.is_dir() else None
        return [StepPlan(None, task.instruction, spec.agent_timeout_sec or task.config.agent.timeout_sec,
                         settings.agent.user, settings.agent.network, paths.agent, paths.root, solution, settings)]
    return [StepPlan(step, step_instruction(task, step),
                     step.agent.timeout_sec or spec.agent_timeout_sec or task.config.agent.timeout_sec,
                     agent.user, agent.network, paths.agent / "steps" / step.name,
                     paths.root / "steps" / step.name, step_solution_dir(task, step), settings)
            for step, agent in zip(task.config.steps, settings.steps, strict=True)]


def gate_failure(rewards: dict[str, float] | None, min_reward: float | dict[str, float] | None) -> str | None:
    """Why ``rewards`` fail ``min_reward`` (a number gates ``reward``; a table gates each key; a
    missing key counts as -inf), or None when they pass or there is no gate."""
    if min_reward is None:
        return None
    thresholds = {"reward": float(min_reward)} if isinstance(min_reward, (int, float)) else min_reward
    for key, threshold in thresholds.items():
        actual = (rewards or {}).get(key, -math.inf)
        if actual < threshold:
            return f"{key}={actual:g} below min_reward {threshold:g}"
    return None


def combine_steps(graded: list[dict[str, float]], strategy: str) -> dict[str, float]:
    """The trial's rewards from each graded step's rewards (see the module docstring)."""
    if not graded:
        return {}
    if strategy == "final":
        return dict(graded[-1])
    keys = sorted({k for rewards in graded for k in rewards})
    return {k: sum(rewards.get(k, 0.0) for rewards in graded) / len(graded) for k in keys}


def steps_verdict(task: Task, steps: list[tuple[StepResult, Verdict]]) -> Verdict:
    """A multi-step trial's verdict from its graded steps (see the module docstring)."""
    strategy = task.config.multi_step_reward_strategy or "mean"
    rewards = combine_steps([record.rewards for record, _ in steps], strategy)
    value = main_reward(rewards, task.lb.reward_key)
    status: Status = "resolved" if value >= 1.0 else "unresolved"
    not_run = [st.name for st in (task.config.steps or [])[len(steps):]]
    summary = "; ".join([f"step {r.name} {r.status}" for r, _ in steps]
                        + ([f"not run: {', '.join(not_run)}"] if not_run else []))
    dropped, notes, applied = merged_steps([v for _, v in steps])
    reason = None if status == "resolved" else f"{strategy} reward {value:g} < 1 ({summary})"
    return Verdict(status=status, reason=reason, rewards=rewards, dropped_paths=tuple(dropped),
                   scan_notes=tuple(notes), patch_applied=applied)


async def run_steps(spec: TrialSpec, agent: Agent, backend: Backend, env: PreparedEnvironment, point: Checkpoint,
                    trace: Trace, clock: PhaseClock) -> Work:
    """Run the trial's steps (:func:`plan_steps`; see the module docstring), adding what each phase
    returns to ``trace`` (the agent's outcomes, each graded step, the trial's verdict); returns the
    work after the last step that ran. Raises what :func:`lancebench.runner.trial.run_trial` turns
    into ``invalid`` for harness faults, or blames with a control (``point``: what has run; a failed
    start of the container for the next step, or a failed step health check, after the agent's
    work, is the agent's unless a pristine sandbox fails too); a failed start is ignored when no
    step follows (a ``min_reward`` gate)."""
    clock.at("agent")
    task, settings = spec.task, trial_settings(spec.task)
    plans = plan_steps(spec, settings)
    point.settings = settings
    networks = [p.network for p in plans]
    point.network = networks[0] if len(set(networks)) == 1 else NetworkPolicy("allowlist")
    user_tool = None  # a single-step browser task's user tool (lancebench.grading.user_tool)
    if task.lb.browser and task.kind == "code" and plans[0].step is None:
        from lancebench.grading.user_tool import UserToolService
        user_tool = UserToolService(task, backend, env, spec.scratch / "user-tool", spec.paths.agent)
    agent_env = dataclasses.replace(env, variables={**env.variables, **settings.agent.env})
    mounts = (*(user_tool.mounts() if user_tool else ()), *await agent_mounts(agent))
    grading: list[asyncio.Future] = []  # the last step's verdict: begun beside the agent, or at the sandbox's removal
    box = backend.open(task, agent_env, unnamed(spec.scratch), mounts=mounts, network=point.network,
                       labels=trial_labels(spec))
    if user_tool:
        user_tool.attach(box)  # before start: a container backend reads PATH when it starts
    timing = contextlib.ExitStack()
    try:
        captured = _grade_early(spec, backend, env, plans[-1], grading)  # its sandboxes start beside the agent's
        async with box as sandbox:  # stopped last, whatever ended the steps
            try:
                await check_health(task, sandbox, settings.healthcheck_env, point=point)
                for i, plan in enumerate(plans):
                    if len(set(networks)) > 1:  # the steps' agent networks differ: this step's, before it runs
                        point.network = plan.network
                        await backend.set_network(sandbox, plan.network)  # refused at plan time where it cannot
                    last = i == len(plans) - 1
                    work = await _agent_step(spec, agent, backend, env, sandbox, plan, point, trace, clock, user_tool,
                                             grading if last else None, captured if last else None)
                    if last:
                        break
                    with clock.phase("grading", plan.name):
                        verdict, not_resumed = await _grade_and_resume(spec, backend, env, work, plan, sandbox)
                    if _note_step(trace, plan, verdict, work):  # a min_reward gate stopped the later steps
                        trace.verdict = steps_verdict(task, trace.steps)
                        return work
                    if not_resumed is not None:  # blamed by the trial (lancebench.runner.control.blame)
                        raise not_resumed
            finally:
                if user_tool:
                    await user_tool.close()
            # the capture ended every process of the agent's sandbox: grading (in sandboxes of its
            # own) begins while that sandbox is removed, instead of after
            timing.enter_context(clock.phase("grading", plans[-1].name, shown=True))
            if not grading:
                grading.append(asyncio.ensure_future(_grade(spec, backend, env, work, plans[-1])))
        verdict = await grading[0]
    finally:
        for pending in grading:  # unfinished: a capture or the sandbox's removal failed, or a cancel
            pending.cancel()
        await asyncio.gather(*grading, return_exceptions=True)
        timing.close()
    if plans[-1].step is not None:
        _note_step(trace, plans[-1], verdict, work)
        verdict = steps_verdict(task, trace.steps)
    elif verdict.status == "invalid":
        trace.control = verdict_control(spec.paths.verifier)
    trace.verdict = verdict
    return work


def _note_step(trace: Trace, plan: StepPlan, verdict: Verdict, work: Work) -> bool:
    """Add a multi-step task's graded step to ``trace``; whether its ``min_reward`` gate stops the
    later steps (then the trial's verdict is set from the steps graded)."""
    assert plan.step is not None
    stop = gate_failure(verdict.rewards, plan.step.min_reward)
    record = StepResult(name=plan.step.name, status=verdict.status, rewards=dict(verdict.rewards),
                        reason=verdict.reason, agent_exit=work.outcome.exit,
                        stopped=f"later steps not run: {stop}" if stop else None)
    trace.steps.append((record, verdict))
    return stop is not None


async def _agent_step(spec: TrialSpec, agent: Agent, backend: Backend, env: PreparedEnvironment, sandbox: Sandbox,
                      plan: StepPlan, point: Checkpoint, trace: Trace, clock: PhaseClock, user_tool,
                      grading: list[asyncio.Future] | None = None, captured: asyncio.Future | None = None) -> Work:
    """One step's health check, agent run and capture (with the artifacts); ``grading`` (the
    last step's) and ``captured``: the step's grading begun beside the agent (:func:`_grade_early`),
    given the patch once it is captured, or cancelled when the agent's own patch did not apply. Raises
    :class:`TrialInvalid` when a bundled agent reports a failure that is not its own (a model
    outage; see :func:`lancebench.runner.agent_phase.run_agent`)."""
    task = spec.task
    agent_box = as_user(sandbox, plan.user)  # the step's agent user (docker)
    clock.at("agent", plan.name)
    if plan.step is not None:
        await check_health(task, agent_box, plan.settings.healthcheck_env, plan.step, point)
    with clock.phase("agent", plan.name, shown=True):
        plan.logs.mkdir(parents=True, exist_ok=True)
        outcome = await run_agent(agent, _context(spec, env, agent_box, plan, agent), plan.budget, point,
                                    spec.model_endpoint)
        if user_tool:
            await user_tool.close()  # before the capture: user_tool/ never enters the patch
    trace.outcomes.append(outcome)
    if captured is not None and outcome.patch_applied is False:  # a given patch that did not apply: no run
        captured = None
        await _drop(grading)
    if outcome.invalid_reason:  # a bundled agent's (run_agent dropped any other's)
        prefix = f"step {plan.name}: " if plan.step is not None else ""
        raise TrialInvalid(prefix + outcome.invalid_reason, MODEL_PROVIDER)
    with clock.phase("capture", plan.name, shown=True):
        point.capturing = True
        work = await _capture(spec, backend, env, sandbox, outcome, plan)
        if captured is not None:
            captured.set_result(work.patch)
        point.capturing = False
        if task.kind == "code" and declares_artifacts(task):
            await collect(task, plan.step, sandbox, backend, plan.out, spec.scratch / f"artifacts{plan.tag}",
                              plan.settings.agent.env)
    return work


def _grade_early(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, plan: StepPlan,
                 grading: list[asyncio.Future] | None) -> asyncio.Future | None:
    """Begin grading the last step of a single-step code task as its agent's sandbox opens (added
    to ``grading``): :func:`verify_patch` opens and starts the grading sandboxes (fresh ones, of the
    pristine environment, sharing nothing with the agent's) while the agent's sandbox starts, the
    agent runs and its work is captured, and applies the patch once it is set on the future
    returned (None: grading waits for the capture). The capture ended the agent's processes
    before any patch is applied; a capture that fails, or an agent whose own patch did not
    apply (:func:`_drop`), leaves the future unset, and the grading is cancelled."""
    if grading is None or plan.step is not None or spec.task.kind != "code":
        return None
    captured: asyncio.Future[str] = asyncio.get_running_loop().create_future()
    grading.append(asyncio.ensure_future(verify_patch(spec.task, backend, env, captured, scratch=spec.scratch,
                                                      paths=spec.paths, labels=trial_labels(spec))))
    return captured


async def _drop(grading: list[asyncio.Future] | None) -> None:
    """Cancel the grading begun before the agent ran (:func:`_grade_early`): its sandboxes end."""
    for pending in grading or []:
        pending.cancel()
    await asyncio.gather(*(grading or []), return_exceptions=True)
    if grading:
        grading.clear()


def _context(spec: TrialSpec, env: PreparedEnvironment, sandbox: Sandbox, plan: StepPlan, agent: Agent) -> AgentContext:
    """What ``agent`` is given for ``plan``: instruction, sandbox, budget (seconds), limits, options;
    the reference solution and its environment for lancebench's ``oracle`` only, by the class's
    identity (attack pass round 7: every agent was handed them, and a plug-in agent that ran the
    solution it was given had its trial ``resolved``)."""
    task = spec.task
    choice = task.lb.choice
    oracle = type(agent) is OracleAgent
    return AgentContext(task_name=task.name, instruction=plan.instruction, sandbox=sandbox, workdir=env.workdir,
                        timeout_sec=plan.budget, deadline=time.monotonic() + plan.budget, limits=task_limits(task),
                        logs_dir=plan.logs, model=spec.model, options=dict(spec.options), kind=task.kind,
                        proposal_ids=choice.proposal_ids if choice else None,
                        answer_file=choice.answer_file if choice else None,
                        solution_dir=plan.solution_dir if oracle else None,
                        browser=task.lb.browser, price_usd=task.price_usd,
                        solution_env=dict(plan.settings.solution_env) if oracle else {}, attempt=spec.attempt)


async def _capture(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, sandbox: Sandbox,
                   outcome: AgentOutcome, plan: StepPlan) -> Work:
    """The agent's work: the answer file (choice tasks; else the answer the agent returned), or the
    patch against the pristine base, written to ``patch.diff`` (code tasks; a step's also to
    ``steps/<name>/patch.diff``)."""
    task = spec.task
    if task.kind == "choice":
        raw, problem = await _read_answer(sandbox, env, task, spec.scratch)
        if raw is None and problem == "no answer" and outcome.choice is not None:
            raw, problem = outcome.choice, None
        return Work(outcome, answer=raw, problem=problem)
    patch = await backend.capture(task, env, sandbox, spec.scratch / f"capture{plan.tag}")
    if plan.step is not None:
        plan.out.mkdir(parents=True, exist_ok=True)
        atomic_write(plan.out / "patch.diff", patch, errors="surrogateescape")
    atomic_write(spec.paths.patch, patch, errors="surrogateescape")  # the trial's patch: the work after the last step
    return Work(outcome, patch=patch)


async def _grade(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, work: Work, plan: StepPlan) -> Verdict:
    """The verdict on the work captured after ``plan`` (see :mod:`lancebench.grading.verifier`); a
    step's own verifier for a multi-step task, whose ``invalid`` verdict raises the runner's
    :class:`TrialInvalid` (a broken grader ends the trial)."""
    if spec.task.kind == "choice":
        return judge_choice(spec.task, work.answer, work.problem)
    if work.outcome.patch_applied is False:  # a given patch (predictions) that did not apply
        return patch_not_applied(work.outcome.message)
    assert work.patch is not None
    if plan.step is None:
        return await verify_patch(spec.task, backend, env, work.patch, scratch=spec.scratch, paths=spec.paths,
                                  labels=trial_labels(spec))
    verdict = await verify_patch(spec.task, backend, env, work.patch, scratch=spec.scratch / f"step{plan.tag}",
                                 paths=TrialPaths(root=plan.out), labels=trial_labels(spec), step=plan.step.name)
    if verdict.status == "invalid":
        raise TrialInvalid(f"step {plan.step.name}: {verdict.reason}", verdict_control(plan.out / "verifier"))
    return verdict


async def _grade_and_resume(spec: TrialSpec, backend: Backend, env: PreparedEnvironment, work: Work,
                            plan: StepPlan, sandbox: Sandbox) -> tuple[Verdict, BaseException | None]:
    """Grade the work after a step that is not the last (:func:`_grade`) while the agent's
    ``sandbox`` starts again for the next one: the grading runs in its own fresh sandbox from the
    captured patch, so the two are independent, and the agent runs nothing until the next step
    begins. Returns the step's verdict and the start's failure (None when it started; the caller
    raises it only when a step follows); raises the grading's error."""
    verdict, started = await asyncio.gather(_grade(spec, backend, env, work, plan), resume_sandbox(backend, sandbox),
                                            return_exceptions=True)
    if isinstance(verdict, BaseException):
        raise verdict
    if isinstance(started, BaseException) and not isinstance(started, Exception):
        raise started  # a cancellation
    return verdict, started if isinstance(started, BaseException) else None


async def _read_answer(sandbox: Sandbox, env: PreparedEnvironment, task: Task, scratch: Path) -> tuple[Any, str | None]:
    """(raw answer, problem) from the choice task's answer file in the sandbox; "no answer" when absent."""
    assert task.lb.choice is not None, "a choice task has [lancebench.choice]"
    dest = scratch / "answer" / "answer.json"
    try:
        await sandbox.get(f"{env.workdir}/{task.lb.choice.answer_file}", dest)
    except SandboxError:
        return None, "no answer"
    return read_answer_file(dest)
