"""What a backend is: the :class:`Backend` protocol, the :class:`PreparedEnvironment` it returns and
the sandbox limits a task asks for (:func:`task_limits`). Low in the layers, so that the runner and
the verifier can type against it; the backends themselves (``local``, ``docker``, ``module:Class``)
and choosing one by name live in :mod:`lancebench.backends` (see docs/architecture.md)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

from lancebench.errors import SandboxError
from lancebench.sandbox.base import CapturedPatch, Limits, Mount, Sandbox
from lancebench.task.model import Task
from lancebench.task.settings import NO_NETWORK, NetworkPolicy


@dataclass(frozen=True)
class PreparedEnvironment:
    """A built environment: the repository's ``base_commit``, the ``workdir`` it sits at, the
    ``variables`` every command gets, and backend-specific ``handle`` (a cache folder, an image)."""

    base_commit: str
    workdir: str
    variables: dict[str, str] = field(default_factory=dict)
    handle: object = None
    build_sec: float = 0.0


@dataclass(frozen=True)
class Capabilities:
    """What a backend can run, read when a job is planned
    (:func:`lancebench.backends.registry.cannot_run`), so that no trial is recorded for a task it
    could never run as its author meant:

    - ``builds``: what a code task must provide for the backend to build its environment:
      ``"local"`` (a ``[lancebench.local]`` recipe), ``"docker"`` (``environment/Dockerfile`` or
      ``docker_image``), or None (the backend decides for itself when it prepares the task).
    - ``network_filter``: None when the backend can enforce a network allowlist and change a
      sandbox's network between steps here; else ``(problem, fix)``, one line each, why it
      cannot and what to do.
    """

    builds: Literal["local", "docker"] | None = None
    network_filter: tuple[str, str] | None = None


@runtime_checkable
class Backend(Protocol):
    """Plug point for sandbox backends: every method the runner and grading call on a backend, the
    optional hooks with their defaults. A backend class is built as ``Class(options=...)`` with a
    :class:`lancebench.backends.options.BackendOptions` (see :func:`lancebench.backends.make_backend`);
    the built-in ones subclass this protocol, and a plug-in that does not gets its defaults mixed in
    when it is built (a plug-in need only define ``prepare``, ``open`` and ``capture``).

    - ``prepare(task)``: build or fetch the environment (cached by digest).
    - ``open(task, env, scratch, ...)``: a *fresh*, not yet started sandbox holding the
      repository at its base commit; ``scratch`` is a host folder the backend may use;
      ``network`` is the phase's :class:`NetworkPolicy` (default: none), turned into
      ``SandboxSpec`` fields by :func:`network_fields`. A backend that cannot enforce a policy
      raises :class:`SandboxError` (never a wider network); a policy has no truth value (reading
      it as a bool raises :class:`TypeError`), so a plug-in written for ``network: bool`` fails
      instead of giving a phase a network it did not declare.
    - ``capture(task, env, sandbox, scratch)``: end every process of ``sandbox``, then return
      the work as a patch (``git diff --binary`` against the base commit, new files included,
      with its changed paths: a :class:`CapturedPatch`), computed so that the agent cannot falsify
      it (its own ``.git`` is not trusted).
    - hooks with defaults: :meth:`resume`, :meth:`set_network`, :meth:`apply_patch`,
      :meth:`guard_mounts`, :meth:`guard_python`, :meth:`halt`; and :meth:`capabilities`, what planning reads.
    """

    name: str

    @classmethod
    def capabilities(cls) -> Capabilities:
        """What this backend can run on this machine (read from the class when a job is planned,
        before any backend is built). Default: ``Capabilities()``, a backend that decides for
        itself what it can build and enforces every network policy it is given (one that cannot
        raises :class:`SandboxError` when it opens the sandbox)."""
        return Capabilities()

    async def prepare(self, task: Task) -> PreparedEnvironment: ...

    def open(self, task: Task, env: PreparedEnvironment, scratch: Path, *, mounts: tuple[Mount, ...] = (),
             network: NetworkPolicy = NO_NETWORK, labels: dict[str, str] | None = None) -> Sandbox: ...

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox,
                      scratch: Path) -> CapturedPatch: ...

    async def resume(self, sandbox: Sandbox) -> None:
        """Make the agent's ``sandbox`` usable again after a capture ended its processes (a
        multi-step task's next step runs in it). Default: nothing to do (its processes were ended,
        the sandbox itself still runs). Raises :class:`SandboxError` when it cannot."""
        return None

    async def set_network(self, sandbox: Sandbox, policy: NetworkPolicy) -> None:
        """Give the running agent ``sandbox`` the network ``policy`` (a multi-step task whose steps'
        agent networks differ). Default: raises :class:`SandboxError` (the backend cannot; such
        tasks are refused when the job is planned: declare it in :meth:`capabilities`)."""
        raise SandboxError(f"this backend cannot change the network between steps (to {policy.mode})")

    async def apply_patch(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, patch: str,
                          scratch: Path) -> tuple[bool, str] | None:
        """Apply ``patch`` in a started grading sandbox the backend's own way (an image without
        git), returning ``(applied, log)``. Default: None, and the verifier runs ``git apply``
        inside (:func:`lancebench.grading.verifier.apply_in_sandbox`)."""
        return None

    async def guard_mounts(self, task: Task, env: PreparedEnvironment, *,
                           user: str | None = None) -> tuple[Mount, ...]:
        """Read-only mounts that put the verifier's Python guard into every site folder ``user``
        sees, for a grading sandbox opened with them, when the backend knows those folders before
        the sandbox starts (:meth:`guard_python` then writes none of them). Default: none."""
        return ()

    async def guard_python(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, *,
                           user: str | None = None) -> list[str] | None:
        """Write the verifier's Python guard (:mod:`lancebench.grading.pyguard`) into every site
        folder ``user`` sees in the fresh grading ``sandbox``; returns the folders written.
        Default: None (the backend has no guard; nothing is written)."""
        return None

    async def halt(self, sandbox: Sandbox) -> bool:
        """End every process of the started grading ``sandbox`` at once, its files and its removal
        left to :meth:`Sandbox.stop` (which the caller still calls), so that the next run of the
        graded work may begin while it is removed. True when no code of it runs from then on;
        False (the default, and whenever the backend cannot tell): the caller waits for ``stop``.
        Never raises."""
        return False


def task_limits(task: Task) -> Limits:
    """Sandbox limits from task.toml (``[environment]`` and ``[lancebench.limits]``)."""
    e, lim = task.config.environment, task.lb.limits
    return Limits(memory_mb=e.memory_mb, pids=lim.pids, cpus=e.cpus, cpu_time_sec=lim.cpu_time_sec,
                  output_bytes=lim.output_bytes, storage_mb=e.storage_mb)


def network_fields(network: NetworkPolicy) -> dict:
    """``SandboxSpec`` keyword arguments for a phase's network: ``{"network": bool, "allow_hosts":
    tuple or None}`` (``public``: the whole network; ``no-network``: none; ``allowlist``: the
    bridge limited to the policy's hosts)."""
    if network.mode == "allowlist":
        return {"network": True, "allow_hosts": tuple(network.hosts)}
    return {"network": network.public, "allow_hosts": None}
