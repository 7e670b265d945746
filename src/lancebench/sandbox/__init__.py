"""Sandboxes: the protocol (:mod:`.base`), bubblewrap (:mod:`.local`) and Docker (:mod:`.docker`)
implementations, and what a backend is (:mod:`.backend`). Choosing and building backends by name
lives above, in :mod:`lancebench.backends`."""

from lancebench.sandbox.base import ExecResult, Limits, Mount, Sandbox, SandboxSpec

__all__ = ["ExecResult", "Limits", "Mount", "Sandbox", "SandboxSpec"]
