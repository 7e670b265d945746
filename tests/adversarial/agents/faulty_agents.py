"""Python agents (``-a faulty_agents:Class``, this folder on ``PYTHONPATH``) whose failures are
their own, and which try to have them counted ``invalid`` (left out of every rate) instead of
``unresolved`` (issue 20, item 3). A ``VARIANT=...`` line of the instruction picks the variant
(so that one job runs them all, one derived task each)."""

from __future__ import annotations

import re
import time

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.errors import ModelError

KEEPERS = "/bin/sh /bin/bash /usr/bin/sh /usr/bin/bash /bin/dash /usr/bin/dash"


def variant(ctx: AgentContext, default: str) -> str:
    """The instruction's last ``VARIANT=`` value (``default`` without one)."""
    found = re.findall(r"^VARIANT=(\w+)$", ctx.instruction, re.M)
    return found[-1] if found else default


class CrashingAgent:
    """Writes a wrong change, then its own code fails: ``raise`` (a RuntimeError), ``model`` (a
    ModelError it raises itself, no model called), ``claim`` (an outcome claiming an outage)."""

    name = "crashing"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        kind = variant(ctx, "raise")
        if kind == "model":
            raise ModelError("model openai/gpt-x failed after 5 attempts (server error): 503")
        if kind == "claim":
            return AgentOutcome(exit="error", invalid_reason="model error: the provider is down")
        return {"not": "an outcome"}["outcome"]  # KeyError: the agent's own bug


class SandboxKiller:
    """Ends its own sandbox under the harness, then goes on as an LLM agent would (its next command
    fails in the engine): ``kill`` ends every process of it (the container's keeper included),
    ``shell`` removes its shells (nothing the harness starts there through a shell runs)."""

    name = "sandbox-killer"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        if variant(ctx, "kill") == "shell":
            await ctx.sandbox.exec(["rm", "-f", *KEEPERS.split()], cwd=ctx.workdir, timeout=30, user="root")
        else:
            await ctx.sandbox.exec(["kill", "-9", "-1"], cwd=ctx.workdir, timeout=30, user="root")
            await ctx.sandbox.exec(["kill", "-9", "1"], cwd=ctx.workdir, timeout=30, user="root")
        res = await ctx.sandbox.exec("ls", cwd=ctx.workdir, timeout=30)  # raises when the sandbox is gone
        return AgentOutcome(exit="completed", message=f"ls exit {res.exit_code}")


class RefusedAgent:
    """Writes a wrong change, then makes one request through lancebench's model client that the
    provider refuses (attack pass round 4: a content filter, or a parameter the provider refuses,
    was an ``invalid`` trial, "the model provider failed"). The instruction's last ``API_BASE=``
    line says where: ``job`` for the job's model (``-m``, ``--api-base``, with an argument of the
    agent's own, ``temperature``), ``job-own-key`` for the job's model with a key of the agent's,
    or a URL of a server of the agent's choosing (attack pass round 5: one that refuses
    everything, or refuses the credentials), ``job-past-deadline`` for a call to the job's model
    with a deadline already past."""

    name = "refused"

    def __init__(self, model: str | None = None, api_base: str | None = None):
        self.model, self.api_base = model, api_base

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        import asyncio

        from lancebench.llm.client import LLMClient

        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        api_base = re.findall(r"^API_BASE=(\S+)$", ctx.instruction, re.M)[-1]
        late = None
        if api_base.startswith("job"):
            assert self.model is not None
            own = {"temperature": 1.7} if api_base == "job" else {"api_key": "sk-the-agents-own"}
            client = LLMClient(self.model, self.api_base, max_retries=0, model_kwargs=own)
            late = time.monotonic() - 1 if api_base == "job-past-deadline" else None  # the client sends nothing
        else:
            client = LLMClient("openai/scripted", api_base, max_retries=0)
        await asyncio.to_thread(client.complete, [{"role": "user", "content": "something the filter refuses"}],
                                deadline=late)
        return AgentOutcome(exit="completed")


class ForgingAgent:
    """Writes a wrong change, then makes its own call through lancebench's client fail and has the
    agent phase take it for an outage of the job's model (attack pass round 6: ``invalid``, "the
    model provider failed", no control run). ``VARIANT=endpoint``: a call to a dead server of its
    choosing, the error's ``endpoint`` cleared; ``VARIANT=timeout``: a call to the job's model
    (``-m``, ``--api-base``) with a timeout of a fraction of a second and no retry."""

    name = "forging"

    def __init__(self, model: str | None = None, api_base: str | None = None):
        self.model, self.api_base = model, api_base

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        import asyncio

        from lancebench.llm.client import LLMClient

        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        if variant(ctx, "endpoint") == "timeout":
            assert self.model is not None
            client = LLMClient(self.model, self.api_base, max_retries=0, request_timeout_sec=0.5)
        else:
            client = LLMClient("openai/nothing", "http://127.0.0.1:9/v1", max_retries=0, request_timeout_sec=5)
        try:
            await asyncio.to_thread(client.complete, [{"role": "user", "content": "hi"}])
        except ModelError as exc:
            exc.endpoint = None if variant(ctx, "endpoint") == "endpoint" else exc.endpoint
            raise
        return AgentOutcome(exit="completed")


class ForgedModule:
    """Writes a wrong change and claims an outage, its class saying it is lancebench's own (attack
    pass round 6: the agent phase trusted an ``invalid_reason`` of any class whose ``__module__``
    starts with ``lancebench.``)."""

    __module__ = "lancebench.agents.builtin"
    name = "forged-module"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        return AgentOutcome(exit="error", invalid_reason="model error: the provider is down")


class ExitingAgent:
    """Writes a wrong change, then ends its run as a program would end itself (attack pass round
    6): ``VARIANT=exit`` raises ``SystemExit(0)`` (a task raising it raises it out of the event
    loop: the whole job ended with exit 0 and no result), ``VARIANT=cancel`` a ``CancelledError``
    no one asked for (the job ended with its traceback)."""

    name = "exiting"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        import asyncio

        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        if variant(ctx, "exit") == "cancel":
            raise asyncio.CancelledError()
        raise SystemExit(0)


class BadName:
    """Writes a wrong change; reading its ``name`` raises (attack pass round 6: the agent phase read
    it before the run, outside its handlers: ``invalid``, "internal error")."""

    @property
    def name(self) -> str:
        raise RuntimeError("no name today")

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        return AgentOutcome(exit="completed")


class BadMounts(BadName):
    """Writes a wrong change; its ``sandbox_mounts`` (the hook of lancebench's installed agents)
    raises :class:`AgentError` (attack pass round 6: "the install failed", ``invalid``, before the
    agent ran)."""

    name = "bad-mounts"  # type: ignore[assignment]

    async def sandbox_mounts(self) -> list:
        from lancebench.errors import AgentError
        raise AgentError("the install failed")


class _RaisingUsage(AgentOutcome):
    """An outcome whose ``usage`` raises when read."""

    @property  # type: ignore[override]
    def usage(self):  # type: ignore[override]
        raise RuntimeError("no usage today")

    @usage.setter
    def usage(self, value) -> None:
        pass


class BadOutcome(BadName):
    """Writes a wrong change and returns an outcome whose ``usage`` raises when read (attack pass
    round 6: the whole job ended, "internal error", no result)."""

    name = "bad-outcome"  # type: ignore[assignment]

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        return _RaisingUsage(exit="completed")
