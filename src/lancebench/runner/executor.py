"""Executors run a job's trials: ``local`` (:class:`LocalExecutor`, asyncio tasks in this process,
bounded by the job's concurrency) or ``ray`` (each trial a Ray task; see
:mod:`lancebench.runner.ray_executor`, which imports this module). The choice by name is
:func:`lancebench.runner.job.make_executor`.

An executor receives :class:`TrialSpec` objects plus the *names* of the agent and backend and the
backend's :class:`~lancebench.backends.options.BackendOptions` (values, pickled to Ray workers), so
a remote worker can rebuild them: :func:`execute_trial` is the whole unit of work.
"""

from __future__ import annotations

import asyncio
import dataclasses
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol

from lancebench.agents.registry import make_agent
from lancebench.backends.options import BackendOptions
from lancebench.backends.registry import make_backend
from lancebench.results.models import TrialResult
from lancebench.runner import progress
from lancebench.runner.trial import TrialSpec, run_trial


@dataclass(frozen=True)
class AgentRecipe:
    """How to build the agent anywhere: its registry name, model, api base and options."""

    spec: str
    model: str | None = None
    api_base: str | None = None
    options: dict = field(default_factory=dict)
    instance: object = None  # a ready agent object (in-process executors only)
    resolved_model: str | None = None  # the name the model client uses (``model`` stays the label)
    resolved_api_base: str | None = None  # the server the client calls (``api_base`` stays as given)

    def build(self):
        if self.instance is not None:
            return self.instance
        return make_agent(self.spec, model=self.resolved_model or self.model,
                          api_base=self.resolved_api_base or self.api_base,
                          **self.options)


async def execute_trial(spec: TrialSpec, agent: AgentRecipe, backend: str,
                        options: BackendOptions | None = None) -> TrialResult:
    """Build the agent, and the backend by name with ``options``, and run one trial (writes its
    result.json), the job's model endpoint set on ``spec`` (:attr:`TrialSpec.model_endpoint`). Raises
    :class:`lancebench.errors.ConfigError` for an unknown agent or backend."""
    model = agent.resolved_model or agent.model
    endpoint = (model, agent.resolved_api_base or agent.api_base) if model else None
    return await run_trial(dataclasses.replace(spec, model_endpoint=endpoint), agent.build(),
                           make_backend(backend, options))


OnResult = Callable[[TrialResult], None]
Runner = Callable[[TrialSpec, AgentRecipe, str, "BackendOptions | None"], Awaitable[TrialResult]]


class Executor(Protocol):
    """Runs every spec (at most ``concurrency`` at once) and calls ``on_result`` per finished trial.
    Must let :class:`lancebench.errors.ModelAuthError` propagate (the job stops)."""

    async def run(self, specs: list[TrialSpec], agent: AgentRecipe, backend: str, concurrency: int,
                  on_result: OnResult, options: BackendOptions | None = None) -> None: ...


class LocalExecutor:
    """Trials as asyncio tasks in this process; one semaphore bounds concurrency. On an error that
    stops the job (or Ctrl-C), the trials in flight are cancelled and their sandboxes stopped."""

    def __init__(self, runner: Runner = execute_trial):
        self.runner = runner

    async def run(self, specs: list[TrialSpec], agent: AgentRecipe, backend: str, concurrency: int,
                  on_result: OnResult, options: BackendOptions | None = None) -> None:
        """Run ``specs`` with backend ``backend`` built with ``options``; see :class:`Executor`."""
        sem = asyncio.Semaphore(max(concurrency, 1))

        async def one(spec: TrialSpec) -> None:
            async with sem:
                progress.set_phase(spec.trial_id, "starting", task=spec.task.name, attempt=spec.attempt)
                try:
                    result = await self.runner(spec, agent, backend, options)
                finally:
                    progress.finished(spec.trial_id)
                on_result(result)

        tasks = [asyncio.create_task(one(s)) for s in specs]
        try:
            for fut in asyncio.as_completed(tasks):
                await fut
        finally:
            for t in tasks:
                t.cancel()
            await asyncio.gather(*tasks, return_exceptions=True)
