"""Plug-in agents of the attack pass round 7 (``-a round7_agents:Class``, this folder on
``PYTHONPATH``). A ``VARIANT=...`` line of the instruction picks the variant, so that one job runs
them all (one derived task each)."""

from __future__ import annotations

import asyncio
import re

from lancebench.agents.base import AgentContext, AgentOutcome


def variant(ctx: AgentContext, default: str) -> str:
    """The instruction's last ``VARIANT=`` value (``default`` without one)."""
    found = re.findall(r"^VARIANT=(\w+)$", ctx.instruction, re.M)
    return found[-1] if found else default


class Round7Agent:
    """``VARIANT=reader``: solves the task with the reference solution the harness handed every
    agent in its context (``AgentContext.solution_dir``, documented "only the oracle should read
    it"; ``resolved`` before the fix), noting in ``solution.txt`` of its logs whether it was given.
    Otherwise it writes a wrong change (``calc.add`` left broken), then: ``VARIANT=deaf`` runs past
    its deadline swallowing every cancellation (a retry loop catching ``BaseException``: the trial,
    and the job, stayed in the agent phase for ever, a SIGTERM swallowed too); ``VARIANT=interrupt``
    raises ``KeyboardInterrupt`` itself (the job ended, exit 130, "interrupted", no result);
    ``VARIANT=busy`` keeps running Python (a SIGTERM of the harness lands in its frames);
    ``VARIANT=bigusage`` reports 10**30 input tokens (``show`` and ``report`` of the job crashed)."""

    name = "round7"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        kind = variant(ctx, "reader")
        if kind == "reader":
            (ctx.logs_dir / "solution.txt").write_text(f"{ctx.solution_dir} {sorted(ctx.solution_env)}\n")
            if ctx.solution_dir is not None:
                await ctx.sandbox.put(ctx.solution_dir, "/tmp/sol")
                await ctx.sandbox.exec(["bash", "/tmp/sol/solve.sh"], cwd=ctx.workdir, timeout=60)
                return AgentOutcome(exit="completed")
        await ctx.sandbox.exec("echo '# touched' >> calc.py", cwd=ctx.workdir, timeout=30)
        if kind == "busy":  # runs Python nearly all the time, so a signal lands in its frames
            (ctx.logs_dir / "busy").write_text("running\n")
            while True:
                sum(range(10_000))
                await asyncio.sleep(0)
        if kind == "interrupt":
            raise KeyboardInterrupt
        if kind == "bigusage":  # more calls than the meter saw (none), so its report would be recorded
            from lancebench.results.models import Usage

            return AgentOutcome(exit="completed", usage=Usage(calls=1, input_tokens=10**30, cost_usd=0.0))
        while kind == "deaf":
            try:
                await asyncio.sleep(0.2)
            except BaseException:  # noqa: BLE001,S110 - the attack: every cancellation swallowed
                pass
        return AgentOutcome(exit="completed")
