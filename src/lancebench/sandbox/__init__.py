"""Sandboxes: the protocol and its backends, chosen by name (``local``, ``docker``) or ``module:Class``."""

from lancebench.sandbox.base import ExecResult, Limits, Mount, Sandbox, SandboxSpec

__all__ = ["ExecResult", "Limits", "Mount", "Sandbox", "SandboxSpec"]
