"""Agents by name: ``oracle``, ``nop``, ``random``, ``script:PATH``, ``mini-swe-agent`` (needs
``-m``), the installed agents of :data:`INSTALLED` (``aider``, ``claude-code``, ``codex``,
``opencode``; need ``-m``, run through the model gateway, :mod:`lancebench.agents.installed`), or
``module:Class`` for a custom agent (constructed with the agent options as keyword arguments, plus
``model`` and ``api_base`` when it accepts them)."""

from __future__ import annotations

import inspect

from lancebench.agents.base import Agent
from lancebench.agents.builtin import NopAgent, OracleAgent, RandomChoiceAgent, ScriptAgent
from lancebench.errors import ConfigError
from lancebench.plugins import load_object

BUILTIN: dict[str, type[Agent]] = {"oracle": OracleAgent, "nop": NopAgent, "random": RandomChoiceAgent}
INSTALLED = {"aider": "lancebench.agents.installed.aider:AiderAgent",
             "claude-code": "lancebench.agents.installed.claude_code:ClaudeCodeAgent",
             "codex": "lancebench.agents.installed.codex:CodexAgent",
             "opencode": "lancebench.agents.installed.opencode:OpencodeAgent"}
# the backends each installed agent runs on: Claude Code, Codex and opencode are native binaries
# (glibc / static musl / glibc); Aider's virtual environment links to the host's Python, which a container has
# when its image has the same one (checked in the sandbox before Aider runs: AiderAgent.probe)
INSTALLED_BACKENDS = {"aider": ("local", "docker"), "claude-code": ("local", "docker"), "codex": ("local", "docker"),
                      "opencode": ("local", "docker")}
LLM_AGENTS = {"mini-swe-agent": "lancebench.agents.mini_swe:MiniSweAgent", **INSTALLED}


def agent_names() -> list[str]:
    return [*BUILTIN, "script:PATH", *LLM_AGENTS, "module:Class"]


def make_agent(spec: str, *, model: str | None = None, api_base: str | None = None, **options) -> Agent:
    """Build the agent named by ``spec``. Raises :class:`ConfigError` for an unknown name, a
    missing script, or an LLM agent without a model."""
    if spec in BUILTIN:
        cls = BUILTIN[spec]
        params = inspect.signature(cls).parameters
        return cls(**{k: v for k, v in options.items() if k in params})
    if spec.startswith("script:"):
        return ScriptAgent(spec.removeprefix("script:"))
    if spec in LLM_AGENTS:
        if not model:
            raise ConfigError(f"agent '{spec}' needs a model: pass -m MODEL (for example -m local)")
        cls = load_object(LLM_AGENTS[spec], "agent")
        return cls(model=model, api_base=api_base, **options)
    if ":" in spec:
        cls = load_object(spec, "agent")
        params = inspect.signature(cls).parameters
        accepts_any = any(p.kind == p.VAR_KEYWORD for p in params.values())
        kwargs = {k: v for k, v in {"model": model, "api_base": api_base, **options}.items()
                  if v is not None and (accepts_any or k in params)}
        return cls(**kwargs)
    raise ConfigError(f"unknown agent '{spec}'; choose one of: {', '.join(agent_names())}")
