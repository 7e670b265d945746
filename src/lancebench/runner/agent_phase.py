"""The pieces of a trial's agent phase that single-step trials (:mod:`lancebench.runner.trial`) and
multi-step trials (:mod:`lancebench.runner.steps`) share: what to run (:class:`TrialSpec`), the
agent run under its deadline, health checks, sandbox labels, and the internal "not the agent's
fault" signal (:class:`TrialInvalid`)."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from pathlib import Path

from lancebench.agents.base import Agent, AgentContext, AgentOutcome
from lancebench.errors import AgentError, LancebenchError, ModelError
from lancebench.judging.senior import JudgeSettings
from lancebench.results.models import TrialConfig, Usage
from lancebench.results.paths import TrialPaths
from lancebench.runner.healthcheck import HealthcheckFailed, run_healthcheck
from lancebench.sandbox.base import Mount, Sandbox
from lancebench.task.model import Task
from lancebench.task.settings import phase_env

AGENT_GRACE_SEC = 30.0  # beyond the agent's budget before the harness cancels it


@dataclass
class TrialSpec:
    """What to run: one ``attempt`` (0-based) of ``agent`` on ``task`` within job ``job``."""

    task: Task
    agent_name: str
    model: str | None
    attempt: int
    job: str
    trial_id: str
    paths: TrialPaths
    scratch: Path
    options: dict = field(default_factory=dict)
    agent_timeout_sec: float | None = None
    senior: JudgeSettings | None = None  # senior grading (--judge-model), see lancebench.judging.senior
    config: TrialConfig | None = None  # recorded in the result (see lancebench.results.models)


class TrialInvalid(Exception):
    """Internal: the trial cannot be graded for a reason that is not the agent's."""


async def check_health(task: Task, sandbox: Sandbox, step=None) -> None:
    """The task's health check (``[environment.healthcheck]``), or ``step``'s, before the agent
    runs; a failing one makes the trial invalid with the reason."""
    check = step.healthcheck if step is not None else task.config.environment.healthcheck
    if check is None:
        return
    where = f"steps.{step.name}.healthcheck" if step is not None else "environment.healthcheck"
    try:
        await run_healthcheck(sandbox, check, env=phase_env(task, "healthcheck"), where=where)
    except HealthcheckFailed as exc:
        raise TrialInvalid(str(exc)) from None


async def agent_mounts(agent: Agent) -> tuple[Mount, ...]:
    """The host folders an agent needs bound into its sandbox (an installed agent's package and
    the model gateway's socket, :mod:`lancebench.agents.installed`); it installs what is missing
    first. An install that fails raises :class:`AgentError`: the trial is ``invalid``."""
    prepare = getattr(agent, "sandbox_mounts", None)
    return tuple(await prepare()) if prepare is not None else ()


def trial_labels(spec: TrialSpec) -> dict[str, str]:
    """Labels of every sandbox of the trial (``lancebench gc`` finds a crashed job's containers by them)."""
    return {"lancebench.job": spec.job, "lancebench.trial": spec.trial_id}


async def run_agent(agent: Agent, ctx: AgentContext, budget: float) -> AgentOutcome:
    """Run the agent, ending it at its deadline (plus a grace period for its own clean-up)."""
    try:
        outcome = await asyncio.wait_for(agent.run(ctx), budget + AGENT_GRACE_SEC)
    except TimeoutError:
        return AgentOutcome(exit="timeout", message=f"ended by the harness after {budget:.0f}s",
                            usage=usage_from_trajectory(ctx.logs_dir / "trajectory.json"))
    except (ModelError, LancebenchError):
        raise
    except Exception as exc:
        raise AgentError(f"agent {getattr(agent, 'name', agent)!s} crashed: {type(exc).__name__}: {exc}") from exc
    if not isinstance(outcome, AgentOutcome):
        raise AgentError(f"agent {getattr(agent, 'name', agent)!s} returned {type(outcome).__name__}, not AgentOutcome")
    return outcome


def usage_from_trajectory(path: Path) -> Usage:
    """The usage an ended agent's trajectory recorded (empty when it wrote none)."""
    from lancebench.agents.trajectory import read_trajectory
    try:
        return read_trajectory(path).usage() if path.is_file() else Usage()
    except (LancebenchError, ValueError, OSError):
        return Usage()


async def resume_sandbox(backend: object, sandbox: Sandbox) -> None:
    """Make the agent's sandbox usable again after a capture ended its processes (docker: the
    container is started again, its files stay; local: nothing to do)."""
    resume = getattr(backend, "resume", None)
    if resume is not None:
        await resume(sandbox)
