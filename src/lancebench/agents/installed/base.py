"""What every installed agent (Claude Code, Codex, Aider, ...) shares: its package installed once
and bound into the sandbox (:mod:`.install`), the model gateway started on the host
(:mod:`lancebench.llm.gateway`), a per-trial key issued before the run and revoked after it, the
agent's command run non-interactively in the sandbox under the trial's deadline, its own logs
copied out, and a trajectory built from them with usage and cost from the gateway.

A subclass sets ``name``, ``package`` and ``version_note`` and implements :meth:`command` (the
shell command and its environment) and :meth:`trajectory` (its logs to ATIF). Agent options
(``--ao key=value``) are kept in ``self.options``; ``version=X`` installs another version.
The job's ``max_steps`` (model calls) and ``max_cost`` (USD) are enforced by the gateway on the
trial's key (:meth:`Gateway.issue_key`), whatever the agent does with them: a call past either is
refused, and the trial's agent exit is ``limit``.
"""

from __future__ import annotations

import abc
import asyncio
import dataclasses
import json
import random
import shlex
import time
from pathlib import Path
from typing import Any

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.agents.installed.install import INSIDE, Package, install
from lancebench.agents.trajectory import FinalMetrics, Metrics, Step, Trajectory, now_iso, write_trajectory
from lancebench.errors import AgentError, ConfigError
from lancebench.llm.client import resolve_model
from lancebench.llm.gateway import SOCKET_NAME, Gateway, shared_gateway
from lancebench.llm.meter import record as record_usage
from lancebench.sandbox.base import Mount

GATEWAY_INSIDE = "/run/lancebench-gateway"
WORK = "/tmp/lancebench"  # the agent's scratch in the sandbox (instruction, relay, logs)
LOGS_INSIDE = f"{WORK}/agent-logs"
LOG_BYTES = 64 * 1024 * 1024
RELAY = Path(__file__).with_name("relay.py")


@dataclasses.dataclass
class Run:
    """One trial's run: ``base_url`` of the gateway inside the sandbox (``http://127.0.0.1:PORT``),
    the trial's gateway ``key``, the task's instruction path inside, the agent's log folder inside
    and, after the run, on the host (``logs``)."""

    base_url: str
    key: str
    instruction: str
    logs_inside: str
    logs: Path
    timeout_sec: float


class InstalledAgent(abc.ABC):
    """Base of the installed agents (see the module docstring). Built with ``model`` (``-m``,
    required), ``api_base`` and the agent options. Raises :class:`ConfigError` without a model."""

    name = "installed"
    package = Package("pypi", "none", "0")
    # a shell command that must succeed in the sandbox before the agent starts (its installed
    # files run there); when it fails the trial is invalid: lancebench's agent could not run
    probe: str | None = None
    probe_hint = ""  # what to do when the probe fails

    def __init__(self, model: str | None = None, api_base: str | None = None, version: str | None = None,
                 **options: Any):
        if not model:
            raise ConfigError(f"agent '{self.name}' needs a model: pass -m MODEL (for example -m local)")
        self.model, self.api_base, self.options = model, api_base, options
        if version:
            self.package = dataclasses.replace(self.package, version=str(version))
        self._installed: Path | None = None
        self._gateway: Gateway | None = None

    # -- what the runner calls -----------------------------------------------------------------
    async def sandbox_mounts(self) -> tuple[Mount, ...]:
        """Install the agent (cached) and start the gateway; the folders to bind into the agent's
        sandbox. Raises :class:`AgentError` (install failed) or :class:`ModelError` (gateway)."""
        self._installed = await asyncio.to_thread(install, self.package)
        self._gateway = await asyncio.to_thread(shared_gateway, resolve_model(self.model, self.api_base))
        return (Mount(self._installed, INSIDE), Mount(self._gateway.socket_dir, GATEWAY_INSIDE))

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        """Run the agent on the instruction; usage and cost from the gateway, never the agent. When
        the run ends (its deadline, a cancellation, the agent's exit), the trial's key is ended and
        the calls still in flight are counted as cut (:meth:`Gateway.end`); the gateway's usage
        goes to the trial's meter (:func:`lancebench.llm.meter.record`) before anything else, so
        that a cancelled run's spend is recorded too, and cut calls get a step of their own in the
        trajectory (:func:`with_cut_calls`)."""
        if self._gateway is None:
            raise AgentError(f"{self.name}: the runner did not prepare the sandbox (sandbox_mounts)")
        gw = self._gateway
        await self._probe(ctx)
        key = gw.issue_key(f"{ctx.task_name}#{ctx.attempt}", max_calls=int(self.options.get("max_steps") or 0),
                           max_cost_usd=float(self.options.get("max_cost") or 0.0))
        run = Run(base_url="", key=key, instruction=f"{WORK}/instruction.md", logs_inside=LOGS_INSIDE,
                  logs=ctx.logs_dir / "native", timeout_sec=max(ctx.deadline - time.monotonic() - 5, 1.0))
        reason = "the agent's run was cancelled"  # kept when the run is cancelled (its deadline, a stop)
        try:
            res = await self._execute(ctx, run)
            reason = "the agent's deadline" if res.timed_out else "the agent ended without the answer"
        except Exception:
            reason = "the agent's run failed"
            raise
        finally:  # before any await: a cancelled run's spend is counted too
            usage, calls = gw.end(key, reason)
            cut = [c for c in calls if c.get("cut")]
            record_usage(usage, cut)  # the trial's meter: usage.json, the job's budgets
            await self._fetch_logs(ctx, run)
        traj = self.trajectory(ctx, run, [c for c in calls if not c.get("cut")])
        write_trajectory(with_cut_calls(traj, cut), ctx.logs_dir)
        if res.timed_out:
            return AgentOutcome(exit="timeout", message=f"{self.name} timed out", usage=usage)
        if (limit := gw.refused(key)) is not None:  # the gateway refused a call: the run ended on its limit
            return AgentOutcome(exit="limit", usage=usage,
                                message=f"limit reached ({limit}; {self.name} exit code {res.exit_code})")
        return AgentOutcome(exit="completed" if res.exit_code == 0 else "error", usage=usage,
                            message=f"{self.name} exit code {res.exit_code}")

    # -- for subclasses ------------------------------------------------------------------------
    @abc.abstractmethod
    def command(self, ctx: AgentContext, run: Run) -> tuple[str, dict[str, str]]:
        """The shell command that runs the agent (from the workdir) and its environment."""

    @abc.abstractmethod
    def trajectory(self, ctx: AgentContext, run: Run, calls: list[dict]) -> Trajectory:
        """The agent's logs in ``run.logs`` as ATIF; ``calls``: the gateway's per-call usage."""

    # -- helpers -------------------------------------------------------------------------------
    async def _execute(self, ctx: AgentContext, run: Run):
        port = random.randint(20000, 60000)
        run.base_url = f"http://127.0.0.1:{port}"
        await ctx.sandbox.put(RELAY, f"{WORK}/relay.py")
        instruction = ctx.logs_dir / "instruction.md"
        instruction.write_text(ctx.instruction)
        await ctx.sandbox.put(instruction, run.instruction)
        cmd, env = self.command(ctx, run)
        script = (f"mkdir -p {LOGS_INSIDE}\n"
                  f"python3 {WORK}/relay.py {port} {GATEWAY_INSIDE}/{SOCKET_NAME} 2>{LOGS_INSIDE}/relay.err &\n"
                  f"for i in $(seq 100); do (exec 3<>/dev/tcp/127.0.0.1/{port}) 2>/dev/null && break; sleep 0.1; done\n"
                  f"{cmd}\n")
        res = await ctx.sandbox.exec(["bash", "-c", script], cwd=ctx.workdir, timeout=run.timeout_sec, env=env)
        (ctx.logs_dir / f"{self.name}.log").write_text(
            f"exit code: {res.exit_code}\n--- stdout\n{res.stdout}\n--- stderr\n{res.stderr}")
        return res

    async def _probe(self, ctx: AgentContext) -> None:
        """Run :attr:`probe` in the sandbox, before any agent code. Raises :class:`AgentError`
        (the runner makes the trial ``invalid``: a bundled agent that could not run)."""
        if not self.probe:
            return
        res = await ctx.sandbox.exec(["bash", "-c", self.probe], cwd=ctx.workdir, timeout=120)
        if res.exit_code != 0:
            raise AgentError(f"{self.name} cannot run in this sandbox ({self.probe!r} failed with exit code "
                             f"{res.exit_code}: {res.output[-500:]}); {self.probe_hint}")

    async def _fetch_logs(self, ctx: AgentContext, run: Run) -> None:
        try:
            await ctx.sandbox.get(LOGS_INSIDE, run.logs, max_bytes=LOG_BYTES)
        except Exception as exc:  # noqa: BLE001  (the agent's logs are a bonus, never the verdict)
            (ctx.logs_dir / "native-logs-error.txt").write_text(f"{type(exc).__name__}: {exc}")


def with_cut_calls(traj: Trajectory, cut: list[dict]) -> Trajectory:
    """``traj`` with one agent step per cut call in ``cut`` (the gateway's records marked ``cut``:
    :meth:`Gateway.end`), its message saying so, its metrics the call's estimated tokens and cost
    with ``extra`` ``{"cut": reason, "estimate": true}``; ``final_metrics`` counted again and
    ``extra.cut_calls`` the number of them. ``traj`` unchanged when ``cut`` is empty."""
    if not cut:
        return traj
    for c in cut:
        traj.steps.append(Step(
            step_id=len(traj.steps) + 1, source="agent", timestamp=now_iso(),
            message=f"[lancebench] model call cut ({c['cut']}): no answer reached the agent; its tokens are "
                    "an estimate (LiteLLM's token counter)",
            metrics=Metrics(prompt_tokens=c["prompt_tokens"], completion_tokens=c["completion_tokens"],
                            cached_tokens=c.get("cached_tokens", 0), cost_usd=c.get("cost_usd"),
                            extra={"cut": c["cut"], "estimate": True}),
            extra={"cut": c["cut"]}))
    u = traj.usage()
    traj.final_metrics = FinalMetrics(total_prompt_tokens=u.input_tokens, total_completion_tokens=u.output_tokens,
                                      total_cached_tokens=u.cached_tokens, total_cost_usd=u.cost_usd,
                                      total_steps=len(traj.steps),
                                      extra={**((traj.final_metrics and traj.final_metrics.extra) or {}),
                                             "model_calls": u.calls, "retries": u.retries})
    traj.extra = {**(traj.extra or {}), "cut_calls": len(cut)}
    return traj


def quoted(*parts: str) -> str:
    """``parts`` as one shell command line."""
    return " ".join(shlex.quote(p) for p in parts)


def json_lines(text: str) -> list[dict]:
    """The JSON objects of a JSON-lines log ``text``, one per line, in order (Claude Code's
    ``stream-json``, Codex's rollout, opencode's ``--format json`` events); lines that do not parse,
    or are not objects, are skipped."""
    objects = []
    for line in text.splitlines():
        try:
            obj = json.loads(line)
        except ValueError:
            continue
        if isinstance(obj, dict):
            objects.append(obj)
    return objects


def call_metrics(calls: list[dict], n: int) -> Metrics | None:
    """The gateway's record of the ``n``-th model call of a trial (0-based; each a dict with
    ``prompt_tokens``, ``completion_tokens``, optional ``cached_tokens`` and ``cost_usd`` in USD)
    as a trajectory step's metrics; None when the gateway recorded fewer calls. Usage comes from
    the gateway, never from the agent's own counts."""
    call = calls[n] if n < len(calls) else None
    return None if call is None else Metrics(
        prompt_tokens=call["prompt_tokens"], completion_tokens=call["completion_tokens"],
        cached_tokens=call.get("cached_tokens", 0), cost_usd=call.get("cost_usd"))
