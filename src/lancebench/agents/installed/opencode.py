"""``-a opencode``: opencode (npm ``opencode-ai``, pinned; a native Bun-compiled binary, glibc,
that its install script takes out of a per-platform package such as ``opencode-linux-x64``, the
one package of them installed: :func:`native_package`; no Node needed), run once with
``opencode run --format json --auto`` on the instruction (read from stdin), talking OpenAI chat
completions to the model gateway through a provider of its own
(``provider.lancebench``, opencode's bundled ``@ai-sdk/openai-compatible`` with ``baseURL`` the
gateway and ``apiKey`` read from ``LANCEBENCH_GATEWAY_KEY``), given in
``OPENCODE_CONFIG_CONTENT``; no opencode login.

Nothing is fetched while the agent runs: models.dev, updates and LSP downloads are switched off,
sessions are not shared, and the package opencode installs from npm into its global config
folder at first run (``@opencode-ai/plugin``, at opencode's own version) is installed with it at
build time; the config folder in the sandbox links to it, which opencode takes as installed.
``--title`` names the session, so opencode makes no title-generation call of its own.

Its ``--format json`` events (stdout, kept in the agent's logs) become the trajectory: one
``agent`` step per ``step_start`` … ``step_finish`` (one model answer): its text, its reasoning,
its tool calls (``bash`` as a ``bash`` call) with their output as the observation, and the
gateway's record of that call as its metrics.

Options (``--ao``): ``version``, ``model_alias`` (the model name opencode sends; default: the job
model's name), ``max_output_tokens`` and ``context_tokens`` (the model's limits as opencode sees
them: tokens per answer, opencode's default 32,000, and the window, 128,000 when only the
former is given), ``agent`` (opencode's primary agent, ``build``), ``extra_args`` (more
``opencode run`` flags).
"""

from __future__ import annotations

import json
import os
import platform
import re
import shlex
import sys
from pathlib import Path
from typing import Any

from lancebench.agents.base import AgentContext
from lancebench.agents.installed.base import WORK, InstalledAgent, Run, call_metrics, json_lines, quoted
from lancebench.agents.installed.install import INSIDE, Package
from lancebench.agents.trajectory import Step, ToolCall, Trajectory, TrajectoryBuilder
from lancebench.llm.client import resolve_model

VERSION = "1.18.33"
EVENTS = "events.jsonl"
PROVIDER = "lancebench"


def native_package(version: str, machine: str | None = None, cpuinfo: str | None = None,
                   libc: str | None = None) -> str | None:
    """The per-platform package (``name@version``) whose binary opencode's install script would
    choose on this machine, as that script chooses (``postinstall.mjs`` of ``opencode-ai``):
    ``opencode-linux-x64``, ``-baseline`` on an x86-64 CPU without AVX2, ``-musl`` on a musl
    libc; ``opencode-linux-arm64`` on arm64. ``machine`` (``platform.machine()``), ``cpuinfo``
    (``/proc/cpuinfo``'s text) and ``libc`` (``glibc`` or not; :func:`_libc`) default to this
    machine's. None off Linux or on another CPU: then npm installs every optional
    package that fits, the install script picks among them, as without this choice."""
    if sys.platform != "linux":
        return None
    arch = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}.get(
        (machine or platform.machine()).lower())
    if arch is None:
        return None
    name = f"opencode-linux-{arch}"
    if arch == "x64":
        if cpuinfo is None:
            try:
                cpuinfo = Path("/proc/cpuinfo").read_text(errors="replace")
            except OSError:
                cpuinfo = ""
        if not re.search(r"(^|\s)avx2(\s|$)", cpuinfo, re.IGNORECASE | re.MULTILINE):
            name += "-baseline"
    if (libc if libc is not None else _libc()) != "glibc":
        name += "-musl"
    return f"{name}@{version}"


def _libc() -> str:
    """``glibc`` when the C library answers glibc's version query (musl's does not)."""
    try:
        return "glibc" if (os.confstr("CS_GNU_LIBC_VERSION") or "").startswith("glibc") else "other"
    except (ValueError, OSError):
        return "other"


def opencode_package(version: str) -> Package:
    """opencode at ``version`` with ``@opencode-ai/plugin`` at the same version (as opencode asks
    for it) and, on Linux, only the one native package this machine needs (:func:`native_package`;
    npm would otherwise fetch both ``opencode-linux-x64`` and its ``-baseline``, 177 MB each)."""
    native = native_package(version)
    return Package("npm", "opencode-ai", version, omit_optional=native is not None,
                   with_packages=(f"@opencode-ai/plugin@{version}", *([native] if native else [])))


class OpencodeAgent(InstalledAgent):
    """opencode; see the module docstring."""

    name = "opencode"
    package = opencode_package(VERSION)

    def __init__(self, model: str | None = None, api_base: str | None = None, version: str | None = None,
                 **options: Any):
        super().__init__(model, api_base, None, **options)
        if version:
            self.package = opencode_package(str(version))

    def config(self, run: Run) -> dict:
        """opencode's configuration (``OPENCODE_CONFIG_CONTENT``): the gateway as its one provider,
        waited on as long as the trial runs (opencode aborts a request after 300 s without
        response headers or between chunks: a long first prompt on a CPU model takes longer)."""
        alias, wait_ms = self.alias(), max(int(run.timeout_sec * 1000), 1)
        model: dict[str, Any] = {"name": alias}
        if self.options.get("max_output_tokens") or self.options.get("context_tokens"):
            model["limit"] = {"context": int(self.options.get("context_tokens") or 128_000),
                              "output": int(self.options.get("max_output_tokens") or 32_000)}
        provider = {"npm": "@ai-sdk/openai-compatible", "name": "lancebench gateway",
                    "options": {"baseURL": f"{run.base_url}/v1", "apiKey": "{env:LANCEBENCH_GATEWAY_KEY}",
                                "headerTimeout": wait_ms, "chunkTimeout": wait_ms},
                    "models": {alias: model}}
        return {"provider": {PROVIDER: provider}, "model": f"{PROVIDER}/{alias}",
                "small_model": f"{PROVIDER}/{alias}", "autoupdate": False, "share": "disabled",
                "snapshot": False}

    def alias(self) -> str:
        return str(self.options.get("model_alias")
                   or resolve_model(self.model, self.api_base).litellm_model.split("/", 1)[-1])

    def command(self, ctx: AgentContext, run: Run) -> tuple[str, dict[str, str]]:
        args = [f"{INSIDE}/node_modules/.bin/opencode", "run", "--format", "json", "--auto", "--print-logs",
                "--title", "lancebench", "--agent", str(self.options.get("agent", "build")),
                *shlex.split(str(self.options.get("extra_args", "")))]
        home = f"{WORK}/home"
        conf = f"{home}/.config/opencode"
        # opencode installs @opencode-ai/plugin into its config folder unless node_modules is
        # there and package-lock.json lists what package.json asks for: the build-time install
        prepare = (f"mkdir -p {conf} && ln -sfn {INSIDE}/node_modules {conf}/node_modules && "
                   f"cp {INSIDE}/package.json {INSIDE}/package-lock.json {conf}/")
        env = {"LANCEBENCH_GATEWAY_KEY": run.key, "HOME": home,
               "OPENCODE_CONFIG_CONTENT": json.dumps(self.config(run)),
               "OPENCODE_DISABLE_MODELS_FETCH": "1", "OPENCODE_DISABLE_AUTOUPDATE": "1",
               "OPENCODE_DISABLE_LSP_DOWNLOAD": "1", "OPENCODE_DISABLE_SHARE": "1",
               "PATH": "/usr/local/bin:/usr/bin:/bin"}
        cmd = f"{prepare} && {quoted(*args)} < {shlex.quote(run.instruction)} > {run.logs_inside}/{EVENTS}"
        return cmd, env

    def trajectory(self, ctx: AgentContext, run: Run, calls: list[dict]) -> Trajectory:
        path = run.logs / EVENTS
        builder = TrajectoryBuilder("opencode", self.package.version, self.model)
        builder.user(ctx.instruction)
        errors = convert_events(builder, json_lines(path.read_text(errors="replace") if path.is_file() else ""),
                                calls)
        return builder.finish(extra={"usage_source": "lancebench model gateway", "gateway_calls": len(calls),
                                     "opencode_errors": errors})


def convert_events(builder: TrajectoryBuilder, events: list[dict], calls: list[dict]) -> list[str]:
    """opencode's events as agent steps: ``step_start`` opens a step (one model answer),
    ``text``/``reasoning`` parts add to it, a ``tool_use`` part (printed when the tool ended) is a
    call with its output (or error) as the observation, ``step_finish`` closes it with the n-th
    gateway call's metrics. Returns the messages of ``error`` events."""
    step: Step | None = None
    answers, errors = 0, []
    for event in events:
        kind, part = event.get("type"), event.get("part") or {}
        if kind == "error":
            error = event.get("error") or {}
            errors.append(str((error.get("data") or {}).get("message") or error.get("name") or error))
            continue
        if kind == "step_finish":
            if step is not None:
                step.metrics, answers, step = call_metrics(calls, answers), answers + 1, None
            continue
        if kind not in ("step_start", "text", "reasoning", "tool_use"):
            continue
        step = step or builder.agent_step("")
        if kind == "text":
            step.message = "\n".join(t for t in (step.message, str(part.get("text", ""))) if t)
        elif kind == "reasoning":
            step.reasoning_content = "\n".join(t for t in (step.reasoning_content, str(part.get("text", ""))) if t)
        elif kind == "tool_use":
            _add_tool(builder, step, part)
    return errors


def _add_tool(builder: TrajectoryBuilder, step: Step, part: dict) -> None:
    state = part.get("state") or {}
    call_id, name = str(part.get("callID") or part.get("id")), str(part.get("tool"))
    raw = state.get("input")
    args: dict = raw if isinstance(raw, dict) else {"input": raw}
    if name == "bash":
        args = {"command": str(args.get("command", ""))}
    step.tool_calls = [*(step.tool_calls or []), ToolCall(tool_call_id=call_id, function_name=name, arguments=args)]
    failed = state.get("status") == "error"
    output = state.get("error") if failed else state.get("output")
    builder.observe(step, output if isinstance(output, str) else json.dumps(output), call_id=call_id,
                    extra={"is_error": failed})

