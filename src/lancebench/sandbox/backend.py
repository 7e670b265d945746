"""Backends: how a trial gets its environment and sandboxes. ``local`` (bubblewrap) lives here;
``docker`` in :mod:`lancebench.sandbox.docker_backend`. A user may name ``module:Class``."""

from __future__ import annotations

import importlib
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from lancebench.errors import ConfigError, SandboxError
from lancebench.sandbox.base import Limits, Mount, Sandbox, SandboxSpec
from lancebench.sandbox.cgroups import CgroupSet
from lancebench.sandbox.local import LocalSandbox, make_readable
from lancebench.task.model import Task


@dataclass(frozen=True)
class PreparedEnvironment:
    """A built environment: the repository's ``base_commit``, the ``workdir`` it sits at, the
    ``variables`` every command gets, and backend-specific ``handle`` (a cache folder, an image)."""

    base_commit: str
    workdir: str
    variables: dict[str, str] = field(default_factory=dict)
    handle: object = None
    build_sec: float = 0.0


@runtime_checkable
class Backend(Protocol):
    """Plug point for sandbox backends.

    - ``prepare(task)``: build or fetch the environment (cached by digest).
    - ``open(task, env, scratch, ...)``: a *fresh*, not yet started sandbox holding the
      repository at its base commit; ``scratch`` is a host folder the backend may use.
    - ``capture(task, env, sandbox, scratch)``: end every process of ``sandbox``, then return
      the work as a patch (``git diff --binary`` against the base commit, new files included),
      computed so that the agent cannot falsify it (its own ``.git`` is not trusted).
    """

    name: str

    async def prepare(self, task: Task) -> PreparedEnvironment: ...

    def open(self, task: Task, env: PreparedEnvironment, scratch: Path, *, mounts: tuple[Mount, ...] = (),
             network: bool = False, labels: dict[str, str] | None = None) -> Sandbox: ...

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, scratch: Path) -> str: ...


def task_limits(task: Task) -> Limits:
    """Sandbox limits from task.toml (``[environment]`` and ``[lancebench.limits]``)."""
    e, lim = task.config.environment, task.lb.limits
    return Limits(memory_mb=e.memory_mb, pids=lim.pids, cpus=e.cpus, cpu_time_sec=lim.cpu_time_sec,
                  output_bytes=lim.output_bytes, storage_mb=e.storage_mb)


CAPTURE = r"""
set -euo pipefail
export GIT_DIR=/lancebench/base.git GIT_WORK_TREE="$1" GIT_INDEX_FILE=/tmp/capture.index
export GIT_OBJECT_DIRECTORY=/tmp/capture-objects GIT_ALTERNATE_OBJECT_DIRECTORIES=/lancebench/base.git/objects
mkdir -p "$GIT_OBJECT_DIRECTORY"
git read-tree "$2"
git add -A -- .
git diff --cached --binary --no-color --no-ext-diff --no-textconv "$2" > /tmp/capture.patch
"""


class LocalBackend:
    """The ``local`` backend: environments are cached folders (see
    :mod:`lancebench.environment.local`), sandboxes are :class:`LocalSandbox` over a copy."""

    name = "local"

    def __init__(self) -> None:
        CgroupSet.prune_stale()

    async def prepare(self, task: Task) -> PreparedEnvironment:
        """Build (or reuse) the task's environment. Raises :class:`SandboxError` for a code task
        that has no ``[lancebench.local]`` recipe: its repository would be empty, and every agent
        would fail for a reason that is not its own (Harbor tasks with only a Dockerfile run on
        ``--backend docker``)."""
        from lancebench.environment.local import build_local_environment
        if task.kind == "code" and task.lb.local is None:
            has_docker = task.paths.dockerfile.is_file() or task.config.environment.docker_image
            raise SandboxError(f"{task.paths.task_toml}: no [lancebench.local] recipe, so the local backend cannot "
                               "build this task's environment; " + ("run it with --backend docker" if has_docker else
                               "add [lancebench.local] setup = \"setup.sh\" (see docs/tasks.md)"))
        built = await build_local_environment(task)
        return PreparedEnvironment(base_commit=built.base_commit, workdir=built.workdir, variables=built.variables,
                                   handle=built, build_sec=built.build_sec)

    def open(self, task: Task, env: PreparedEnvironment, scratch: Path, *, mounts: tuple[Mount, ...] = (),
             network: bool = False, labels: dict[str, str] | None = None) -> LocalSandbox:
        built = env.handle
        workspace = scratch / "workspace"
        if workspace.exists():
            shutil.rmtree(workspace)
        scratch.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built.app, workspace, symlinks=True)
        spec = SandboxSpec(workdir=env.workdir, workspace=workspace, env=dict(env.variables),
                           mounts=(Mount(built.env, "/env", False), *mounts), network=network,
                           allow_hosts=tuple(task.lb.allow_hosts), limits=task_limits(task), labels=labels or {})
        return LocalSandbox(spec, root=scratch / "root")

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, scratch: Path) -> str:
        """Diff the agent's workspace against the pristine base repository (the cached ``.git``,
        read-only), in a separate sandbox: the agent's own ``.git`` is ignored."""
        assert isinstance(sandbox, LocalSandbox)
        if sandbox.cgroups:
            sandbox.cgroups.kill()
        make_readable(sandbox.spec.workspace)
        built = env.handle
        spec = SandboxSpec(workdir=env.workdir, workspace=sandbox.spec.workspace, env=dict(env.variables),
                           mounts=(Mount(built.git_dir, "/lancebench/base.git", False),), limits=task_limits(task))
        capture = LocalSandbox(spec, root=scratch / "capture-root")
        await capture.start()
        try:
            res = await capture.exec(["bash", "-c", CAPTURE, "capture", env.workdir, env.base_commit], timeout=600)
            if not res.ok:
                raise SandboxError(f"patch capture failed (exit {res.exit_code}): {res.stderr[-1500:]}")
            out = scratch / "capture.patch"
            await capture.get("/tmp/capture.patch", out)
            return out.read_text(encoding="utf-8", errors="surrogateescape")
        finally:
            await capture.stop()
            shutil.rmtree(scratch / "capture-root", ignore_errors=True)


BACKENDS = {"local": "lancebench.sandbox.backend:LocalBackend",
            "docker": "lancebench.sandbox.docker_backend:DockerBackend"}


def load_object(spec: str, what: str):
    """Import ``module:Name``. Raises :class:`ConfigError` naming the spec when it fails."""
    module_name, _, attr = spec.partition(":")
    if not module_name or not attr:
        raise ConfigError(f"{what} '{spec}' must look like module.path:ClassName")
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise ConfigError(f"{what} '{spec}': cannot import {module_name} ({exc})") from exc
    try:
        return getattr(module, attr)
    except AttributeError:
        raise ConfigError(f"{what} '{spec}': {module_name} has no {attr}") from None


def make_backend(name: str, **options) -> Backend:
    """A backend by name (``local``, ``docker``) or ``module:Class``. Raises :class:`ConfigError`."""
    spec = BACKENDS.get(name, name)
    if ":" not in spec:
        raise ConfigError(f"unknown backend '{name}'; choose one of {', '.join(BACKENDS)} or module:Class")
    return load_object(spec, "backend")(**options)
