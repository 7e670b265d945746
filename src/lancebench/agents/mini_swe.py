"""The ``mini-swe-agent`` agent: mini-swe-agent's ``DefaultAgent`` loop, used as a library, with its
model calls going through :class:`lancebench.llm.LLMClient` and its shell actions running in the
trial's :class:`~lancebench.sandbox.base.Sandbox` through an adapter.

Modes: ``text`` (the model writes one fenced ```bash block per reply; for models without tool
calls) and ``tool`` (the model calls a ``bash`` tool). ``auto`` picks ``tool`` when litellm knows
the model supports tool calls, else ``text``.

Limits: ``max_steps`` (model replies), ``max_cost`` (USD; unknown costs count 0), the trial's
deadline (``ctx.deadline``; the loop stops a little before it so it can report its usage).
The agent is told all three in its prompt. It ends by running ``echo LANCEBENCH_SUBMIT``; the
harness then captures the patch from the workspace (nothing is taken from the agent's message).

mini-swe-agent's loop is synchronous: it runs in a worker thread; each command is submitted to the
trial's event loop with :func:`asyncio.run_coroutine_threadsafe` and awaited from the thread.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import json
import os
import re
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import yaml
from jinja2 import StrictUndefined, Template

from lancebench.agents.base import AgentContext, AgentOutcome
from lancebench.agents.trajectory import Metrics, TrajectoryBuilder, write_trajectory
from lancebench.errors import ConfigError, ModelAuthError, ModelError, ModelRefused
from lancebench.llm.client import ContextWindowError, DeadlineExceeded, LLMClient

os.environ.setdefault("MSWEA_SILENT_STARTUP", "1")  # mini-swe-agent prints a banner at import otherwise

SUBMIT_MARKER = "LANCEBENCH_SUBMIT"
LOCAL_MAX_TOKENS = 256  # per reply of a local model when max_tokens is not given
TEMPLATES_FILE = Path(__file__).parent / "config" / "mini_swe.yaml"
CLOSING_FENCE = "\n```\n"  # ends a fenced block (an opening fence is followed by its language tag)
BASH_BLOCK = re.compile(r"```(?:bash|sh|shell)[ \t]*\n(.*?)```", re.DOTALL)
BASH_TOOL = {
    "type": "function",
    "function": {
        "name": "bash",
        "description": "Run one shell command in the task's workspace and return its exit code and output.",
        "parameters": {"type": "object", "properties": {"command": {"type": "string", "description": "the command"}},
                       "required": ["command"]},
    },
}


@dataclass
class MiniSweOptions:
    """Options of the ``mini-swe-agent`` agent (command line: ``--max-steps``, ``--max-cost``...).

    - ``max_steps``: model replies allowed (0: no limit).
    - ``max_cost``: USD of model use allowed (0: no limit; calls of unknown price count 0).
    - ``mode``: ``auto`` | ``text`` | ``tool``.
    - ``command_timeout_sec``: wall seconds per command (also capped by the deadline).
    - ``output_limit``: characters of a command's output shown to the model (head and tail kept).
    - ``max_tokens``: tokens per model reply (None: the provider's default; 256 for ``local``
      models, which otherwise ramble on slowly).
    - ``stop_after_block``: in text mode, end each reply at the first closing code fence (only
      the first ``bash`` block is run; what follows is never used). None: on for ``local`` models,
      whose rambling after the block is most of their generation time.
    - ``temperature``: sampling temperature (None: the provider's default).
    - ``max_format_errors``: consecutive unparseable replies before giving up (0: no limit).
    - ``prices``: ``{"input": .., "output": .., "cached_input": ..}`` USD per million tokens.
    - ``max_retries`` / ``backoff_sec``: model call retries on 429/5xx/connection errors.
    - ``request_timeout_sec``: seconds per model call attempt.
    - ``deadline_margin_sec``: the loop stops this long before ``ctx.deadline`` (None: 5% of the
      budget, between 2 and 30 seconds).
    - ``templates``: a YAML file replacing the prompt templates (same keys as config/mini_swe.yaml).
    """

    max_steps: int = 50
    max_cost: float = 3.0
    mode: str = "auto"
    command_timeout_sec: float = 180.0
    output_limit: int = 10_000
    max_tokens: int | None = None
    stop_after_block: bool | None = None
    temperature: float | None = None
    max_format_errors: int = 3
    prices: dict | None = None
    max_retries: int = 6
    backoff_sec: float = 1.0
    request_timeout_sec: float = 600.0
    deadline_margin_sec: float | None = None
    templates: str | None = None

    @classmethod
    def build(cls, values: dict[str, Any], *, where: str) -> MiniSweOptions:
        known = set(cls.__dataclass_fields__)
        clean: dict[str, Any] = {}
        for key, value in values.items():
            k = key.replace("-", "_")
            if k not in known:
                raise ConfigError(f"{where}: unknown option {key!r} for agent mini-swe-agent "
                                  f"(allowed: {', '.join(sorted(known))})")
            clean[k] = value
        opts = cls(**clean)
        if opts.mode not in ("auto", "text", "tool"):
            raise ConfigError(f"{where}: mode must be auto, text or tool, not {opts.mode!r}")
        return opts


def truncate_middle(text: str, limit: int) -> str:
    """Keep the first and last ``limit // 2`` characters of ``text``, stating how many were cut."""
    if limit <= 0 or len(text) <= limit:
        return text
    half = limit // 2
    cut = len(text) - 2 * half
    return f"{text[:half]}\n[... {cut} characters cut by lancebench; look at less at a time ...]\n{text[-half:]}"


def _exit(status: str, content: str = "") -> dict:
    return {"role": "exit", "content": content or status, "extra": {"exit_status": status, "submission": ""}}


class _Stopped(Exception):
    """Raised inside the worker thread when the trial was cancelled."""


class _SandboxEnvironment:
    """mini-swe-agent Environment that runs each action with ``sandbox.exec`` on the trial's loop."""

    def __init__(self, ctx: AgentContext, loop: asyncio.AbstractEventLoop, opts: MiniSweOptions,
                 deadline: float, stop: threading.Event):
        self.ctx, self.loop, self.opts, self.deadline, self.stop = ctx, loop, opts, deadline, stop
        self.config = SimpleNamespace(cwd=ctx.workdir)
        self.current: Any = None  # the concurrent future of the running command

    def execute(self, action: dict, cwd: str = "") -> dict[str, Any]:
        from minisweagent.exceptions import Submitted, TimeExceeded

        if self.stop.is_set():
            raise _Stopped()
        left = self.deadline - time.monotonic()
        if left <= 1:
            raise TimeExceeded(_exit("TimeExceeded", "the deadline was reached"))
        timeout = min(self.opts.command_timeout_sec, left)
        command = action.get("command", "")
        fut = asyncio.run_coroutine_threadsafe(
            self.ctx.sandbox.exec(command, cwd=cwd or self.ctx.workdir, timeout=timeout), self.loop)
        self.current = fut
        try:
            res = fut.result()
        except (concurrent.futures.CancelledError, asyncio.CancelledError) as exc:  # the trial was cancelled
            raise _Stopped() from exc
        finally:
            self.current = None
        info = ""
        if res.timed_out:
            info = f"the command was stopped after {timeout:.0f} seconds (time limit per command)"
        out = {"output": truncate_middle(res.output, self.opts.output_limit),
               "returncode": res.exit_code if res.exit_code is not None else -1,
               "exception_info": info,
               "extra": {"duration_sec": round(res.duration_sec, 3), "timed_out": res.timed_out}}
        first = res.stdout.lstrip().splitlines()[:1]
        if res.exit_code == 0 and first and first[0].strip() == SUBMIT_MARKER:
            raise Submitted({"role": "exit", "content": "submitted",
                             "extra": {"exit_status": "Submitted", "submission": ""}})
        return out

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {"workdir": self.ctx.workdir, **kwargs}

    def serialize(self) -> dict:
        return {}


class _ClientModel:
    """mini-swe-agent Model backed by :class:`LLMClient` (text or tool mode)."""

    def __init__(self, client: LLMClient, mode: str, opts: MiniSweOptions, templates: dict[str, str],
                 deadline: float, stop: threading.Event):
        self.client, self.mode, self.opts, self.templates = client, mode, opts, templates
        self.deadline, self.stop = deadline, stop
        self.config = SimpleNamespace(model_name=client.resolved.name)

    @staticmethod
    def _api_messages(messages: list[dict]) -> list[dict]:
        keep = ("role", "content", "tool_calls", "tool_call_id", "name")
        roles = ("system", "user", "assistant", "tool")
        return [{k: m[k] for k in keep if k in m} for m in messages if m.get("role") in roles]

    def query(self, messages: list[dict], **kwargs: Any) -> dict:
        from minisweagent.exceptions import FormatError, LimitsExceeded, TimeExceeded

        if self.stop.is_set():
            raise _Stopped()
        extra_args: dict[str, Any] = {}
        if self.opts.temperature is not None:
            extra_args["temperature"] = self.opts.temperature
        if self.mode == "text" and self.opts.stop_after_block:
            extra_args["stop"] = [CLOSING_FENCE]
        try:
            c = self.client.complete(self._api_messages(messages), tools=[BASH_TOOL] if self.mode == "tool" else None,
                                     max_tokens=self.opts.max_tokens, deadline=self.deadline, **extra_args)
        except ContextWindowError as exc:
            raise LimitsExceeded(_exit("ContextWindowExceeded", str(exc))) from exc
        except DeadlineExceeded as exc:
            raise TimeExceeded(_exit("TimeExceeded", str(exc))) from exc
        u = c.usage
        message = dict(c.message)
        if "stop" in extra_args and c.finish_reason == "stop" and (c.content or "").count("```") % 2 == 1:
            c.content = message["content"] = c.content + "\n```"  # the stop sequence is not part of the reply
        message["extra"] = {"cost": u.cost_usd or 0.0, "cost_usd": u.cost_usd, "input_tokens": u.input_tokens,
                            "output_tokens": u.output_tokens, "cached_tokens": u.cached_tokens,
                            "retries": u.retries, "latency_sec": round(u.latency_sec, 3), "model": c.model,
                            "finish_reason": c.finish_reason, "reasoning": c.reasoning, "timestamp": time.time()}
        if c.empty:  # an answer without content (filtered, no choices): an error turn, its usage kept
            message["extra"]["empty_reply"] = c.empty
        try:
            actions = self._parse(c)
        except FormatError as err:
            message.pop("tool_calls", None)  # unanswerable tool calls would break the next request
            message["extra"]["actions"] = []
            message["extra"]["format_error"] = True
            raise FormatError(message, *err.messages) from None
        message["extra"]["actions"] = actions
        return message

    def _parse(self, c: Any) -> list[dict]:
        from minisweagent.exceptions import FormatError
        from minisweagent.models.utils.actions_toolcall import parse_toolcall_actions

        if c.empty:
            text = Template(self.templates["empty_reply"], undefined=StrictUndefined).render(
                reason=c.empty, mode=self.mode)
            raise FormatError({"role": "user", "content": text, "extra": {"interrupt_type": "FormatError"}})
        if self.mode == "tool":
            calls = [SimpleNamespace(id=t["id"], function=SimpleNamespace(name=t["name"], arguments=t["arguments"]))
                     for t in c.tool_calls]
            return parse_toolcall_actions(calls, format_error_template=self.templates["format_error_tool"],
                                          template_kwargs={"finish_reason": c.finish_reason})
        blocks = [b.strip() for b in BASH_BLOCK.findall(c.content or "")]
        blocks = [b for b in blocks if b]
        if not blocks:
            text = Template(self.templates["format_error_text"], undefined=StrictUndefined).render(
                finish_reason=c.finish_reason or "")
            raise FormatError({"role": "user", "content": text, "extra": {"interrupt_type": "FormatError"}})
        return [{"command": blocks[0], "ignored_blocks": len(blocks) - 1}]

    def format_message(self, **kwargs: Any) -> dict:
        return dict(kwargs)

    def format_observation_messages(self, message: dict, outputs: list[dict],
                                    template_vars: dict | None = None) -> list[dict]:
        from minisweagent.models.utils.actions_toolcall import format_toolcall_observation_messages

        actions = message.get("extra", {}).get("actions", [])
        msgs = format_toolcall_observation_messages(actions=actions, outputs=outputs,
                                                    observation_template=self.templates["observation"],
                                                    template_vars=template_vars)
        for action, msg in zip(actions, msgs, strict=False):
            if action.get("ignored_blocks"):
                msg["content"] += f"\n[only the first bash block was run; {action['ignored_blocks']} more ignored]"
        return msgs

    def get_template_vars(self, **kwargs: Any) -> dict[str, Any]:
        return {"mode": self.mode, **kwargs}

    def serialize(self) -> dict:
        return {}


def _loop_class():
    from minisweagent.agents.default import DefaultAgent
    from minisweagent.exceptions import TimeExceeded

    class _Loop(DefaultAgent):
        """DefaultAgent whose wall-time check uses the trial's deadline (monotonic seconds)."""

        deadline: float = float("inf")
        stop_event: threading.Event | None = None

        def query(self) -> dict:
            if self.stop_event is not None and self.stop_event.is_set():
                raise _Stopped()
            if time.monotonic() >= self.deadline - 1:
                raise TimeExceeded(_exit("TimeExceeded", "the deadline was reached"))
            return super().query()

        def handle_uncaught_exception(self, e: Exception) -> list[dict]:
            return self.add_messages(_exit(type(e).__name__, str(e)))

    return _Loop


def load_templates(path: str | Path | None = None) -> dict[str, str]:
    """The prompt templates (our config/mini_swe.yaml, or a user file with the same keys)."""
    base = yaml.safe_load(TEMPLATES_FILE.read_text())
    if path:
        user = yaml.safe_load(Path(path).read_text()) or {}
        unknown = set(user) - set(base)
        if unknown:
            raise ConfigError(f"{path}: unknown template keys {sorted(unknown)} (allowed: {sorted(base)})")
        base.update(user)
    return base


_EXITS = {"Submitted": "completed", "LimitsExceeded": "limit", "ContextWindowExceeded": "limit",
          "TimeExceeded": "timeout", "RepeatedFormatError": "error"}


class MiniSweAgent:
    """The ``mini-swe-agent`` agent (see the module docstring).

    ``model``: a litellm model name or ``local...``; ``api_base``: an OpenAI-compatible server
    (required for ``local``: the address :func:`lancebench.llm.serve_model` yields).
    ``options``: see :class:`MiniSweOptions`; ``ctx.options`` override them per trial.
    Raises :class:`ConfigError` for unknown options. ``run`` raises :class:`ModelAuthError` (job
    stops) and :class:`ModelRefused` (a request refused for what it held: the agent phase's control,
    a plain request to the same model, decides whose failure it is); a model outage returns an
    outcome with ``invalid_reason`` set.
    """

    name = "mini-swe-agent"

    def __init__(self, model: str, api_base: str | None = None, **options: Any):
        self.model = model
        self.api_base = api_base
        self.options = dict(options)
        MiniSweOptions.build(self.options, where="agent options")  # fail early on a bad option

    async def run(self, ctx: AgentContext) -> AgentOutcome:
        from minisweagent import __version__ as mini_version

        opts = MiniSweOptions.build({**self.options, **(ctx.options or {})}, where=f"trial {ctx.task_name}")
        templates = load_templates(opts.templates)
        # imports litellm (seconds, once): kept off the event loop
        client, mode = await asyncio.to_thread(self._client, opts)
        if opts.max_tokens is None and client.resolved.local:
            opts.max_tokens = LOCAL_MAX_TOKENS
        if opts.stop_after_block is None:
            opts.stop_after_block = client.resolved.local
        budget = max(0.0, ctx.deadline - time.monotonic())
        margin = opts.deadline_margin_sec
        if margin is None:
            margin = min(30.0, max(2.0, 0.05 * budget))
        deadline = ctx.deadline - margin
        stop = threading.Event()
        loop = asyncio.get_running_loop()
        env = _SandboxEnvironment(ctx, loop, opts, deadline, stop)
        model = _ClientModel(client, mode, opts, templates, deadline, stop)
        agent = _loop_class()(model, env, system_template=templates[f"system_{mode}"],
                              instance_template=templates["instance"], step_limit=opts.max_steps,
                              cost_limit=opts.max_cost, max_consecutive_format_errors=opts.max_format_errors)
        agent.deadline = deadline
        agent.stop_event = stop
        variables = _template_variables(ctx, opts, mode, budget)
        started = time.monotonic()
        done = _run_in_thread(lambda: agent.run(ctx.instruction, **variables), f"mini-swe-{ctx.task_name}", loop)
        meta = {"mode": mode, "mini_swe_agent_version": mini_version, "max_steps": opts.max_steps,
                "max_cost_usd": opts.max_cost, "deadline_margin_sec": round(margin, 1)}
        try:
            await asyncio.shield(done)
        except asyncio.CancelledError:
            stop.set()
            done.add_done_callback(lambda f: f.cancelled() or f.exception())  # nobody awaits it any more
            if env.current is not None:
                env.current.cancel()
            self._save(ctx, agent, client, mode, {**meta, "exit_status": "Cancelled",
                                                   "agent_sec": round(time.monotonic() - started, 3)})
            raise
        except ModelAuthError as exc:  # a refused key, or a used-up quota (ModelQuotaError)
            self._save(ctx, agent, client, mode, {**meta, "exit_status": type(exc).__name__})
            raise
        except ModelRefused as exc:  # for what the conversation held: the harness's control decides (round 5)
            self._save(ctx, agent, client, mode, {**meta, "exit_status": "ModelRefused", "error": str(exc)})
            raise
        except ModelError as exc:
            self._save(ctx, agent, client, mode, {**meta, "exit_status": "ModelError", "error": str(exc)})
            return AgentOutcome(exit="error", message=str(exc), usage=client.usage,
                                invalid_reason=f"model error: {exc}")
        except _Stopped:
            self._save(ctx, agent, client, mode, {**meta, "exit_status": "Cancelled"})
            return AgentOutcome(exit="timeout", message="stopped", usage=client.usage)
        except Exception as exc:
            self._save(ctx, agent, client, mode, {**meta, "exit_status": type(exc).__name__, "error": str(exc)})
            raise
        status = (done.result() or {}).get("exit_status", "")
        last = agent.messages[-1] if agent.messages else {}
        self._save(ctx, agent, client, mode, {**meta, "exit_status": status,
                                               "agent_sec": round(time.monotonic() - started, 3)})
        exit_kind = _EXITS.get(status, "error")
        message = {"completed": "submitted", "limit": f"limit reached ({status})",
                   "timeout": "deadline reached"}.get(exit_kind, f"{status}: {last.get('content', '')}"[:500])
        empty = _empty_replies(agent.messages)
        if status == "RepeatedFormatError" and empty:
            message = f"{status}: the model's last replies came back empty ({empty})"
        return AgentOutcome(exit=exit_kind, message=message, usage=client.usage)  # type: ignore[arg-type]

    def _client(self, opts: MiniSweOptions) -> tuple[LLMClient, str]:
        """The model client and the mode (``tool`` or ``text``; ``auto`` asks litellm)."""
        c = LLMClient(self.model, self.api_base, prices=opts.prices, max_retries=opts.max_retries,
                      backoff_sec=opts.backoff_sec, request_timeout_sec=opts.request_timeout_sec)
        return c, opts.mode if opts.mode != "auto" else ("tool" if c.supports_tool_calls() else "text")

    # -- trajectory ------------------------------------------------------------------------------
    def _save(self, ctx: AgentContext, agent: Any, client: LLMClient, mode: str, extra: dict[str, Any]) -> None:
        from minisweagent import __version__ as mini_version

        builder = TrajectoryBuilder(self.name, mini_version, client.resolved.name,
                                    agent_extra={"mode": mode, "litellm_model": client.resolved.litellm_model,
                                                 "api_base": client.resolved.api_base})
        build_steps(builder, list(agent.messages), started_at=_ts(agent._start_time))
        notes = None
        if client.usage.cost_usd is None:
            notes = ("cost_usd is unknown for some calls: the model is not in litellm's price table and no prices "
                     "were given")
        write_trajectory(builder.finish(notes=notes, extra={**extra, "usage": client.usage.model_dump()}), ctx.logs_dir)


def _empty_replies(messages: list[dict]) -> str | None:
    """Why the last model reply was empty (``finish_reason content_filter``, ``no choices``...),
    None when it was not."""
    replies = [m for m in messages if m.get("role") == "assistant"]
    return (replies[-1].get("extra") or {}).get("empty_reply") if replies else None


def _template_variables(ctx: AgentContext, opts: MiniSweOptions, mode: str, budget: float) -> dict[str, Any]:
    """What the prompt templates see; ``budget``: seconds left for the agent."""
    deadline_utc = datetime.now(UTC) + timedelta(seconds=budget)
    return {
        "workdir": ctx.workdir, "mode": mode, "deadline_utc": deadline_utc.strftime("%Y-%m-%d %H:%M:%S UTC"),
        "time_budget_min": max(1, round(budget / 60)), "max_steps": opts.max_steps or "unlimited",
        "max_cost": opts.max_cost, "browser": ctx.browser, "kind": ctx.kind, "answer_file": ctx.answer_file or "",
        "submit_marker": SUBMIT_MARKER, "output_limit": opts.output_limit,
    }


def _run_in_thread(fn: Callable[[], Any], name: str, loop: asyncio.AbstractEventLoop) -> asyncio.Future:
    """Run ``fn`` in a daemon thread; the returned future (of ``loop``) gets its result or exception.
    A cancelled future, or a loop already closed when ``fn`` ends, drops the outcome."""
    done: asyncio.Future = loop.create_future()

    context = contextvars.copy_context()  # the trial's usage meter follows the model calls into the thread

    def work() -> None:
        try:
            result: Any = context.run(fn)
            err: BaseException | None = None
        except BaseException as exc:  # handed to the event loop, which decides
            result, err = None, exc

        def settle() -> None:
            if done.cancelled():
                return
            if err is not None:
                done.set_exception(err)
            else:
                done.set_result(result)

        try:
            loop.call_soon_threadsafe(settle)
        except RuntimeError:  # the event loop is already closed: nobody waits any more
            pass

    threading.Thread(target=work, name=name, daemon=True).start()
    return done


def _ts(value: Any) -> str | None:
    if isinstance(value, (int, float)):
        return datetime.fromtimestamp(value, UTC).isoformat(timespec="milliseconds").replace("+00:00", "Z")
    return None


def build_steps(builder: TrajectoryBuilder, messages: list[dict], *, started_at: str | None = None) -> None:
    """Turn mini-swe-agent messages into ATIF steps: system prompt, task, then one agent step per
    model reply holding its commands, their observations (and any format-error notice) and its
    tokens and cost. The final ``exit`` message is not a step: its status goes in the
    trajectory's ``extra``, and a submission is recorded as the last step's observation.
    ``started_at``: ISO time of the system and task steps."""
    current = None
    pending: list[str] = []
    for msg in messages:
        role = msg.get("role")
        extra = msg.get("extra") or {}
        content = msg.get("content") or ""
        if not isinstance(content, str):
            content = json.dumps(content)
        if role == "system":
            builder.system(content, timestamp=started_at)
        elif role == "exit":
            if extra.get("exit_status") == "Submitted" and current is not None and pending:
                builder.observe(current, "submitted: the harness collects the work", call_id=pending[-1],
                                extra={"submitted": True})
        elif role == "assistant":
            n = len(builder.trajectory.steps) + 1
            ids = []
            commands = []
            for i, action in enumerate(extra.get("actions") or []):
                cid = action.get("tool_call_id") or f"step{n}-cmd{i + 1}"
                ids.append(cid)
                commands.append((cid, action.get("command", "")))
            metrics = Metrics(prompt_tokens=extra.get("input_tokens"), completion_tokens=extra.get("output_tokens"),
                              cached_tokens=extra.get("cached_tokens"), cost_usd=extra.get("cost_usd"),
                              extra={"retries": extra.get("retries", 0), "latency_sec": extra.get("latency_sec")})
            step_extra = {k: extra[k] for k in ("finish_reason", "format_error", "empty_reply")
                          if extra.get(k) is not None}
            current = builder.agent_step(content, commands=commands, metrics=metrics, model_name=extra.get("model"),
                                         reasoning=extra.get("reasoning"), timestamp=_ts(extra.get("timestamp")),
                                         extra=step_extra or None)
            pending = ids
        elif role in ("user", "tool"):
            if current is None:
                builder.user(content, timestamp=started_at)
            elif extra.get("interrupt_type") == "FormatError":
                builder.observe(current, content, extra={"format_error": True})
            else:
                cid = msg.get("tool_call_id") or (pending.pop(0) if pending else None)
                if msg.get("tool_call_id") and cid in pending:
                    pending.remove(cid)
                builder.observe(current, content, call_id=cid,
                                extra={"returncode": extra.get("returncode"), "timed_out": extra.get("timed_out")})
