"""Multi-step tasks (Harbor's ``[[steps]]``): the steps run in order in one agent sandbox; after
each, the work so far is captured and graded in a fresh sandbox with the step's tests laid over
the shared ones; ``min_reward`` stops the later steps; the trial's rewards follow
``multi_step_reward_strategy`` as Harbor 0.25 computes them; the artifacts of the task and of
the step are collected after each step's capture into ``steps/<name>/artifacts/`` (``harbor.trial.trial``):

- ``mean`` (the default): each key's mean over the steps that were graded, a key a step lacks
  counting 0 (steps stopped by a ``min_reward`` gate are not in the denominator);
- ``final``: the last graded step's rewards as they are.

The trial is ``resolved`` when the main reward of those rewards is >= 1
(:func:`lancebench.grading.outcome.main_reward`). Per-step results land in ``result.steps``.
"""

from __future__ import annotations

import asyncio
import dataclasses
import math
import time
from typing import cast

from lancebench.agents.base import Agent, AgentContext
from lancebench.grading.outcome import main_reward
from lancebench.grading.verifier import verify_patch
from lancebench.results.models import Timings, TrialResult, Usage
from lancebench.results.paths import TrialPaths
from lancebench.runner.agent_phase import agent_mounts, check_health, resume_sandbox, run_agent, trial_labels
from lancebench.runner.artifacts import collect
from lancebench.runner.control import MODEL_PROVIDER, Checkpoint, TrialInvalid, verdict_control
from lancebench.sandbox.as_user import as_user
from lancebench.sandbox.backend import Backend, PreparedEnvironment, task_limits
from lancebench.task.artifacts import declares_artifacts
from lancebench.task.harbor import StepConfig
from lancebench.task.settings import NetworkPolicy, phase_env, phase_user, step_agent_networks
from lancebench.task.steps import step_instruction, step_solution_dir


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


async def run_steps(spec, agent: Agent, backend: Backend, env: PreparedEnvironment, result: TrialResult,
                    timings: Timings, point: Checkpoint) -> str:
    """Run every step of ``spec.task`` (see the module docstring) and fill ``result``; returns the
    last captured patch (the work after the last step that ran). Raises what
    :func:`lancebench.runner.trial.run_trial` turns into ``invalid`` for harness faults, or blames
    with a control (``point``: what has run; a failed start of the container for the next step,
    or a failed step health check, after the agent's work, is the agent's unless a pristine
    sandbox fails too); a failed start is ignored when no step follows (a ``min_reward`` gate)."""
    task, paths = spec.task, spec.paths
    agent_env = dataclasses.replace(env, variables={**env.variables, **phase_env(task, "agent")})
    per_step = step_agent_networks(task)
    point.network = per_step[0] if len(set(per_step)) == 1 else NetworkPolicy("allowlist")
    sandbox = backend.open(task, agent_env, spec.scratch / "agent", labels=trial_labels(spec),
                           mounts=await agent_mounts(agent), network=point.network)
    await sandbox.start()
    graded: list[dict[str, float]] = []
    usage = Usage()
    patch = ""
    try:
        await check_health(task, sandbox, point=point)
        for i, step in enumerate(task.config.steps or []):
            agent_box = as_user(sandbox, phase_user(task, "agent", step=step.name))  # the step's agent user (docker)
            if len(set(per_step)) > 1:  # the steps' agent networks differ: this step's, before anything of it runs
                point.network = per_step[i]
                await _set_network(sandbox, per_step[i])
            await check_health(task, agent_box, step, point)
            budget = step.agent.timeout_sec or spec.agent_timeout_sec or task.config.agent.timeout_sec
            logs = paths.agent / "steps" / step.name
            logs.mkdir(parents=True, exist_ok=True)
            t0 = time.monotonic()
            ctx = AgentContext(task_name=task.name, instruction=step_instruction(task, step), sandbox=agent_box,
                               workdir=env.workdir, timeout_sec=budget, deadline=time.monotonic() + budget,
                               limits=task_limits(task), logs_dir=logs, model=spec.model, options=dict(spec.options),
                               solution_dir=step_solution_dir(task, step), price_usd=task.price_usd,
                               solution_env=phase_env(task, "solution"))
            outcome = await run_agent(agent, ctx, budget, point)
            timings.agent_sec = (timings.agent_sec or 0.0) + time.monotonic() - t0
            usage = usage + outcome.usage if isinstance(outcome.usage, Usage) else usage
            result.agent_exit = outcome.exit
            if outcome.invalid_reason:
                raise TrialInvalid(f"step {step.name}: {outcome.invalid_reason}", MODEL_PROVIDER)
            last = i == len(task.config.steps) - 1
            point.capturing = True
            patch = await backend.capture(task, env, sandbox, spec.scratch / f"capture-{step.name}")
            point.capturing = False
            if declares_artifacts(task):
                await collect(task, step, sandbox, backend, paths.root / "steps" / step.name,
                              spec.scratch / f"artifacts-{step.name}")
            record, not_resumed = await _grade_and_resume(spec, backend, env, patch, step, result,
                                                          None if last else sandbox)
            record["agent_exit"] = outcome.exit
            result.steps.append(record)
            graded.append(record["rewards"])
            stop = gate_failure(record["rewards"], step.min_reward)
            if stop:
                record["stopped"] = f"later steps not run: {stop}"
                break
            if not_resumed is not None:  # blamed by the trial (lancebench.runner.control.blame)
                raise not_resumed
    finally:
        await sandbox.stop()
    result.usage = usage
    strategy = task.config.multi_step_reward_strategy or "mean"
    result.rewards = combine_steps(graded, strategy)
    value = main_reward(result.rewards, task.lb.reward_key)
    result.status = "resolved" if value >= 1.0 else "unresolved"
    not_run = [st.name for st in (task.config.steps or [])[len(result.steps):]]
    summary = "; ".join([f"step {r['name']} {r['status']}" for r in result.steps]
                        + ([f"not run: {', '.join(not_run)}"] if not_run else []))
    result.reason = None if result.status == "resolved" else f"{strategy} reward {value:g} < 1 ({summary})"
    return patch


async def _grade_and_resume(spec, backend: Backend, env: PreparedEnvironment, patch: str, step: StepConfig,
                            result: TrialResult, sandbox) -> tuple[dict, BaseException | None]:
    """Grade the work after ``step`` (:func:`_grade_step`) while the agent's ``sandbox`` (None
    after the last step) starts again for the next one: the grading runs in its own fresh
    sandbox from the captured patch, so the two are independent, and the agent runs nothing
    until the next step begins. Returns the step's record and the start's failure (None when it
    started; the caller raises it only when a step follows); raises the grading's error."""
    resumed = resume_sandbox(backend, sandbox) if sandbox is not None else asyncio.sleep(0)
    record, started = await asyncio.gather(_grade_step(spec, backend, env, patch, step, result), resumed,
                                           return_exceptions=True)
    if isinstance(record, BaseException):
        raise record
    if isinstance(started, BaseException) and not isinstance(started, Exception):
        raise started  # a cancellation
    return cast(dict, record), started if isinstance(started, BaseException) else None


async def _grade_step(spec, backend: Backend, env: PreparedEnvironment, patch: str, step: StepConfig,
                      result: TrialResult) -> dict:
    """Grade the work after ``step`` with the step's verifier; returns the step's record. Raises
    the runner's ``TrialInvalid`` when the verdict is ``invalid`` (a broken grader ends the trial)."""
    from lancebench.results.store import atomic_write
    root = spec.paths.root / "steps" / step.name
    root.mkdir(parents=True, exist_ok=True)
    atomic_write(root / "patch.diff", patch, errors="surrogateescape")
    atomic_write(spec.paths.patch, patch, errors="surrogateescape")  # the trial's patch: the work after the last step
    verdict = await verify_patch(spec.task, backend, env, patch, scratch=spec.scratch / f"step-{step.name}",
                                 paths=TrialPaths(root=root), labels=trial_labels(spec), step=step.name)
    if verdict.status == "invalid":
        raise TrialInvalid(f"step {step.name}: {verdict.reason}", verdict_control(root / "verifier"))
    result.dropped_paths = sorted(set(result.dropped_paths) | set(verdict.dropped_paths))
    result.scan_notes = sorted(set(result.scan_notes) | set(verdict.scan_notes))
    result.patch_applied = verdict.patch_applied
    return {"name": step.name, "status": verdict.status, "rewards": dict(verdict.rewards), "reason": verdict.reason}


async def _set_network(sandbox, policy: NetworkPolicy) -> None:
    """Give the running agent sandbox ``policy`` (a step's network). Raises :class:`SandboxError`
    for a backend that cannot change it (checked when the job is planned, see
    :func:`lancebench.backends.registry.cannot_run`)."""
    from lancebench.errors import SandboxError
    setter = getattr(sandbox, "set_allow_hosts", None)
    if setter is None:
        raise SandboxError(f"this backend cannot change the network between steps (to {policy.mode})")
    await setter(None if policy.mode == "public" else tuple(policy.hosts))

