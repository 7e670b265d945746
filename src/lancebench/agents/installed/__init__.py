"""Installed agents: third-party coding agents (Aider, ...) installed at a pinned version into a
cache bound into the sandbox, reaching their model only through the host's model gateway
(:mod:`lancebench.llm.gateway`). See ``docs/agents.md``."""
