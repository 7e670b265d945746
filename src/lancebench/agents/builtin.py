"""Built-in agents that need no model: ``oracle`` (applies the reference solution), ``nop`` (does
nothing), ``script:PATH`` (runs a user's shell script as the agent) and ``random`` (picks a
proposal uniformly at random, seeded, for choice tasks)."""

from __future__ import annotations

import asyncio
import json
import os
import random
import tempfile
import time
from pathlib import Path

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.agents.script_trace import MAX_TRACE_BYTES, TRACE_DIR, parse_trace, trace_trajectory, traced_script
from lancebench.agents.trajectory import write_trajectory
from lancebench.errors import AgentError, ConfigError, SandboxError


def _remaining(ctx: AgentContext) -> float:
    return max(ctx.deadline - time.monotonic(), 1.0)


async def _collect_trace(ctx: AgentContext, agent: str, exit_code: int | None, stdout: str,
                         stderr: str) -> tuple[str, str]:
    """Read a traced script's trace and output files back (the trace at most ``MAX_TRACE_BYTES``,
    each output file at most half of it; a file the script removed is empty), write
    ``trajectory.json`` and return its stdout and stderr as text (the exec's own output, the wrapper's, comes first)."""
    data: dict[str, bytes] = {}
    with tempfile.TemporaryDirectory() as tmp:
        for name in ("trace", "stdout", "stderr"):
            try:
                await ctx.sandbox.get(f"{TRACE_DIR}/{name}", Path(tmp) / name)
                with open(Path(tmp) / name, "rb") as fh:
                    # the output files at most 1 MB each: script.log holds them (an 80 MB flood
                    # reached the job folder when they were read up to 40 MB)
                    data[name] = fh.read(MAX_TRACE_BYTES if name == "trace" else MAX_TRACE_BYTES // 2)
            except (SandboxError, OSError):
                data[name] = b""
    commands = parse_trace(data["trace"], data["stdout"], data["stderr"], exit_code)
    write_trajectory(trace_trajectory(agent, ctx.instruction, commands), ctx.logs_dir)
    return (stdout + data["stdout"].decode("utf-8", "replace"), stderr + data["stderr"].decode("utf-8", "replace"))


async def _run_script(ctx: AgentContext, script_inside: str, log_name: str,
                      env: dict[str, str] | None = None, traced_as: str | None = None) -> AgentOutcome:
    res = await ctx.sandbox.exec(["bash", script_inside], cwd=ctx.workdir, timeout=_remaining(ctx),
                                 env={**(env or {}), "LANCEBENCH_INSTRUCTION": "/tmp/lancebench/instruction.md",
                                      "LANCEBENCH_TIMEOUT_SEC": str(int(ctx.timeout_sec)),
                                      "LANCEBENCH_ATTEMPT": str(ctx.attempt)})
    stdout, stderr = res.stdout, res.stderr
    if traced_as is not None:
        stdout, stderr = await _collect_trace(ctx, traced_as, None if res.timed_out else res.exit_code, stdout,
                                              stderr)
    (ctx.logs_dir / log_name).write_text(f"exit code: {res.exit_code}\n--- stdout\n{stdout}\n--- "
                                         f"stderr\n{stderr}")
    if res.timed_out:
        return AgentOutcome(exit="timeout", message="script timed out")
    return AgentOutcome(exit="completed" if res.exit_code == 0 else "error",
                        message=f"script exit code {res.exit_code}")


async def _put_text(ctx: AgentContext, text: str, dest: str) -> None:
    """Put ``text`` at ``dest`` in the sandbox, through a temporary file written in a worker thread
    (file system calls block; the event loop runs the other trials) and unlinked after: a file,
    not a folder, whose removal waits on nothing."""
    path = await asyncio.to_thread(_temp_file, text)
    try:
        await ctx.sandbox.put(path, dest)
    finally:
        path.unlink(missing_ok=True)


def _temp_file(text: str) -> Path:
    """A new temporary file holding ``text``, mode 0644 (``put`` copies the mode into the sandbox)."""
    fd, name = tempfile.mkstemp(prefix="lancebench-put-")
    os.fchmod(fd, 0o644)
    with os.fdopen(fd, "w") as fh:
        fh.write(text)
    return Path(name)


class OracleAgent:
    """Runs the task's ``solution/solve.sh`` in the agent sandbox (the solution folder is copied to
    ``/solution`` for the run) with the task's ``[solution].env``. Validates tasks: the oracle must resolve every task.
    Raises :class:`AgentError` when the task has no solution."""

    name = "oracle"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        if ctx.solution_dir is None or not (ctx.solution_dir / "solve.sh").is_file():
            raise AgentError(f"{ctx.task_name}: no solution/solve.sh, so the oracle cannot run")
        await ctx.sandbox.put(ctx.solution_dir, "/solution")
        await _put_text(ctx, ctx.instruction, "/tmp/lancebench/instruction.md")
        return await _run_script(ctx, "/solution/solve.sh", "oracle.log", env=ctx.solution_env)


class NopAgent:
    """Does nothing: no task should be resolved by it."""

    name = "nop"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        return AgentOutcome(exit="completed", message="nop")


class ScriptAgent:
    """Runs a user's shell script in the agent sandbox as the agent (baselines, replays). The
    script runs with cwd at the workdir; ``$LANCEBENCH_INSTRUCTION`` is the path of the
    instruction inside the sandbox, ``$LANCEBENCH_ATTEMPT`` the attempt (0-based), and
    ``$LANCEBENCH_TIMEOUT_SEC`` its budget in seconds. Raises :class:`ConfigError` if the script does not exist."""

    def __init__(self, path: str):
        self.path = Path(path).resolve()
        if not self.path.is_file():
            raise ConfigError(f"agent script {path} not found; pass script:PATH to an existing shell script")
        self.name = f"script:{self.path.name}"

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        """Run the script under a shell trace and write ``trajectory.json`` from it
        (:mod:`lancebench.agents.script_trace`); ``script.log`` holds its exit code and output."""
        with tempfile.TemporaryDirectory() as tmp:
            traced = Path(tmp) / "agent.sh"
            traced.write_bytes(traced_script(self.path.read_bytes()))
            await ctx.sandbox.put(traced, "/tmp/lancebench/agent.sh")
        await _put_text(ctx, ctx.instruction, "/tmp/lancebench/instruction.md")
        return await _run_script(ctx, "/tmp/lancebench/agent.sh", "script.log",
                                 env={"LANCEBENCH_TRACE_DIR": TRACE_DIR}, traced_as=self.name)


class RandomChoiceAgent:
    """For choice tasks: picks one proposal id uniformly at random, seeded by ``seed``, the task
    name and the attempt (reproducible per trial; attempts draw independently, so pass@k > pass@1
    when k > 1), and writes it to the answer file. Does nothing on code tasks. Attempt 0 draws
    as earlier versions did (seed string ``"{seed}:{task}"``); attempt i > 0 uses ``"{seed}:{task}:{i}"``."""

    name = "random"

    def __init__(self, seed: int = 0):
        self.seed = seed

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        if ctx.kind != "choice" or not ctx.proposal_ids:
            return AgentOutcome(message="random: not a choice task")
        rng = random.Random(f"{self.seed}:{ctx.task_name}" + (f":{ctx.attempt}" if ctx.attempt else ""))
        pick = rng.choice(sorted(ctx.proposal_ids))
        await _put_text(ctx, json.dumps({"selected_proposal_id": pick}), f"{ctx.workdir}/{ctx.answer_file}")
        return AgentOutcome(choice=pick, message=f"random pick {pick}")
