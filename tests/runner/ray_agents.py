"""An agent for the Ray executor tests, importable by Ray workers as ``ray_agents:SleepyAgent``
(the test puts this folder on the workers' PYTHONPATH through the job's runtime_env)."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

from lancebench.agents.base import AgentContext, AgentOutcome


class SleepyAgent:
    """On task ``calc``, the first time only (while ``pid_file`` does not exist): writes the pid of
    the process running it (a Ray worker) to ``pid_file`` and sleeps 600 s, so the test can kill
    that process mid-trial. Otherwise it does nothing, like ``nop``."""

    name = "sleepy"

    def __init__(self, pid_file: str):
        self.pid_file = Path(pid_file)

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        if ctx.task_name == "calc" and not self.pid_file.exists():
            tmp = self.pid_file.with_suffix(".tmp")
            tmp.write_text(str(os.getpid()))
            tmp.rename(self.pid_file)
            await asyncio.sleep(600)
        return AgentOutcome(exit="completed", message="nop")


class RefusedAgent:
    """On task ``calc``, waits until ``ready_file`` exists (written by the agent on the other
    task, so both trials are in flight), then calls the job's model (``model`` at ``api_base``:
    a server refusing the credentials), whose ModelAuthError stops the job; on every other task
    writes ``ready_file`` and sleeps 600 s (the trial the job must cancel)."""

    name = "refused"

    def __init__(self, ready_file: str, model: str, api_base: str):
        self.ready_file = Path(ready_file)
        self.model, self.api_base = model, api_base

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        from lancebench.llm.client import LLMClient
        if ctx.task_name == "calc":
            for _ in range(600):
                if self.ready_file.exists():
                    client = LLMClient(self.model, self.api_base, max_retries=0)
                    await asyncio.to_thread(client.complete, [{"role": "user", "content": "hello"}])
                await asyncio.sleep(0.1)
            raise TimeoutError("the other trial never started")
        self.ready_file.write_text(str(os.getpid()))
        await asyncio.sleep(600)
        return AgentOutcome(exit="completed")
