"""Agents: the protocol, the built-in ones (oracle, nop, script:PATH, random) and LLM agents."""
