"""``-a codex``: OpenAI's Codex CLI (npm ``@openai/codex``, pinned; a static native binary from a
per-platform package, run directly, no Node needed), run once with ``codex exec`` on the
instruction (read from stdin), its approvals and its own sandbox off (lancebench's sandbox is the
boundary), talking the OpenAI Responses API to the model gateway through a model provider of its
own (``model_providers.lancebench``, ``wire_api = "responses"``; the trial's key in
``LANCEBENCH_GATEWAY_KEY``; no OpenAI login). Codex 0.171 no longer speaks chat completions.

Its session log (``$CODEX_HOME/sessions/.../rollout-*.jsonl``, kept in the agent's logs) becomes
the trajectory: one ``agent`` step per model answer (a ``token_usage_record`` line closes it)
with its text, its reasoning and its tool calls (``exec_command`` as a ``bash`` call), the tool
outputs as the observation, and the gateway's record of that call as its metrics.

Options (``--ao``): ``version``, ``model_alias`` (the model name Codex sends and believes it
talks to; default: the job model's name), ``extra_args`` (more ``codex exec`` flags).
"""

from __future__ import annotations

import json
import platform
import shlex

from lancebench.agents.base import AgentContext
from lancebench.agents.installed.base import InstalledAgent, Run, call_metrics, json_lines, quoted
from lancebench.agents.installed.install import INSIDE, Package
from lancebench.agents.trajectory import Step, ToolCall, Trajectory, TrajectoryBuilder
from lancebench.llm.client import resolve_model

EVENTS = "events.jsonl"
HOME = "codex-home"
TRIPLES = {"x86_64": ("linux-x64", "x86_64-unknown-linux-musl"),
           "aarch64": ("linux-arm64", "aarch64-unknown-linux-musl")}


def _vendor() -> str:
    pkg, triple = TRIPLES.get(platform.machine(), TRIPLES["x86_64"])
    return f"{INSIDE}/node_modules/@openai/codex-{pkg}/vendor/{triple}"


class CodexAgent(InstalledAgent):
    """Codex CLI; see the module docstring."""

    name = "codex"
    package = Package("npm", "@openai/codex", "0.171.0")

    def command(self, ctx: AgentContext, run: Run) -> tuple[str, dict[str, str]]:
        alias = str(self.options.get("model_alias")
                    or resolve_model(self.model, self.api_base).litellm_model.split("/", 1)[-1])
        provider = (f'model_providers.lancebench={{name="lancebench gateway",base_url="{run.base_url}/v1",'
                    'env_key="LANCEBENCH_GATEWAY_KEY",wire_api="responses"}')
        args = [f"{_vendor()}/bin/codex", "exec", "--json", "--skip-git-repo-check",
                "--dangerously-bypass-approvals-and-sandbox", "-c", "model_provider=lancebench", "-c", provider,
                "-m", alias, *shlex.split(str(self.options.get("extra_args", ""))), "-"]
        home = f"{run.logs_inside}/{HOME}"
        env = {"LANCEBENCH_GATEWAY_KEY": run.key, "CODEX_HOME": home,
               "PATH": f"{_vendor()}/codex-path:/usr/local/bin:/usr/bin:/bin"}
        cmd = f"mkdir -p {home} && {quoted(*args)} < {shlex.quote(run.instruction)} > {run.logs_inside}/{EVENTS}"
        return cmd, env

    def trajectory(self, ctx: AgentContext, run: Run, calls: list[dict]) -> Trajectory:
        rollouts = sorted((run.logs / HOME / "sessions").rglob("rollout-*.jsonl")) if run.logs.is_dir() else []
        builder = TrajectoryBuilder("codex", self.package.version, self.model)
        builder.user(ctx.instruction)
        for path in rollouts[:1]:
            _convert(builder, json_lines(path.read_text(errors="replace")), calls)
        return builder.finish(extra={"usage_source": "lancebench model gateway", "gateway_calls": len(calls),
                                     "codex_sessions": len(rollouts)})


def _convert(builder: TrajectoryBuilder, lines: list[dict], calls: list[dict]) -> None:
    """Codex's rollout lines as agent steps: the response items of one model answer (assistant
    messages, reasoning, function calls) form one step, closed by the ``token_usage_record`` Codex
    writes after each answer; ``function_call_output`` items are observations of their call."""
    step: Step | None = None
    by_call: dict[str, Step] = {}
    answers = 0
    for line in lines:
        kind, payload = line.get("type"), line.get("payload") or {}
        if kind == "token_usage_record":
            if step is not None:
                step.metrics, answers, step = call_metrics(calls, answers), answers + 1, None
            continue
        if kind != "response_item":
            continue
        item = payload.get("type")
        if item in ("message", "reasoning", "function_call", "custom_tool_call") and payload.get("role") != "user" \
                and payload.get("role") != "developer":
            step = step or builder.agent_step("")
            _add_item(step, payload, by_call)
        elif item in ("function_call_output", "custom_tool_call_output"):
            target = by_call.get(str(payload.get("call_id")))
            if target is not None:
                output = payload.get("output")
                builder.observe(target, output if isinstance(output, str) else json.dumps(output),
                                call_id=str(payload.get("call_id")))


def _add_item(step: Step, payload: dict, by_call: dict[str, Step]) -> None:
    item = payload.get("type")
    if item == "message":
        text = "\n".join(c.get("text", "") for c in payload.get("content") or [] if isinstance(c, dict))
        step.message = "\n".join(t for t in (step.message, text) if t)
    elif item == "reasoning":
        text = "\n".join(s.get("text", "") for s in payload.get("summary") or [] if isinstance(s, dict))
        step.reasoning_content = "\n".join(t for t in (step.reasoning_content, text) if t) or None
    else:
        call_id, name = str(payload.get("call_id")), str(payload.get("name"))
        raw = payload.get("arguments", payload.get("input", ""))
        try:
            args = json.loads(raw) if isinstance(raw, str) else raw
        except ValueError:
            args = {"input": raw}
        if not isinstance(args, dict):
            args = {"input": args}
        if name in ("exec_command", "shell"):
            cmd = args.get("cmd", args.get("command", ""))
            name, args = "bash", {"command": " ".join(cmd) if isinstance(cmd, list) else str(cmd)}
        step.tool_calls = [*(step.tool_calls or []), ToolCall(tool_call_id=call_id, function_name=name,
                                                              arguments=args)]
        by_call[call_id] = step
