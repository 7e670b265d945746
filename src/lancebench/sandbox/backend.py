"""Backends: how a trial gets its environment and sandboxes. ``local`` (bubblewrap) lives here;
``docker`` in :mod:`lancebench.sandbox.docker_backend`. A user may name ``module:Class``."""

from __future__ import annotations

import importlib
import os
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol, runtime_checkable

from lancebench.errors import ConfigError, SandboxError, WorkspaceError
from lancebench.sandbox.base import CapturedPatch, Limits, Mount, Sandbox, SandboxSpec
from lancebench.sandbox.cgroups import CgroupSet
from lancebench.sandbox.fstree import make_readable, remove_tree
from lancebench.sandbox.local import LocalSandbox
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
set -uo pipefail
export GIT_DIR=/lancebench/base.git GIT_WORK_TREE="$1" GIT_INDEX_FILE=/tmp/capture.index
export GIT_OBJECT_DIRECTORY=/tmp/capture-objects GIT_ALTERNATE_OBJECT_DIRECTORIES=/lancebench/base.git/objects
fail() { echo "$2" >&2; exit "$1"; }
{ mkdir -p "$GIT_OBJECT_DIRECTORY" && git cat-file -e "$2^{commit}" && git read-tree "$2"; } \
  || fail 90 "the pristine base repository cannot be read"
git add -A -- . || fail 91 "git could not read the workspace (git add -A failed)"
git diff --cached --no-renames --name-only -z "$2" > /tmp/capture.names || fail 91 "git diff failed on the workspace"
( ulimit -f $(( $3 / 1024 + 1 )); exec git diff --cached --no-renames --binary --no-color --no-ext-diff \
    --no-textconv "$2" > /tmp/capture.patch ) 2>/tmp/capture.err
code=$?
[ "$(stat -c %s /tmp/capture.patch)" -le "$3" ] || fail 92 "the patch is over the cap of $3 bytes ([lancebench.limits] patch_mb)"
[ $code -eq 0 ] || fail 91 "git diff failed on the workspace: $(tail -c 500 /tmp/capture.err)"
"""


async def run_capture(box: Sandbox, tree: str, task: Task, env: PreparedEnvironment, scratch: Path) -> CapturedPatch:
    """Run :data:`CAPTURE` in ``box`` (a sandbox holding the workspace at ``tree`` and the pristine
    base repository at ``/lancebench/base.git``) and read the patch and its NUL-separated paths.

    The patch is capped at ``[lancebench.limits] patch_mb`` inside the sandbox, before the harness
    reads a byte of it. Raises :class:`SandboxError` when the base repository cannot be read (the
    harness's fault) and :class:`WorkspaceError` when the workspace cannot be captured (the agent's)."""
    cap = task.lb.limits.patch_mb * 1024 * 1024
    res = await box.exec(["bash", "-c", CAPTURE, "capture", tree, env.base_commit, str(cap)], timeout=600)
    if res.exit_code == 90 or (res.exit_code is None and not res.timed_out):
        raise SandboxError(f"patch capture failed (exit {res.exit_code}): {res.stderr[-1500:]}")
    if res.timed_out:
        raise WorkspaceError("the workspace could not be captured within 600 s (too many or too large files)")
    if not res.ok:
        raise WorkspaceError(f"the workspace could not be captured (exit {res.exit_code}): {res.stderr.strip()[-1000:]}")
    scratch.mkdir(parents=True, exist_ok=True)
    out, names = scratch / "capture.patch", scratch / "capture.names"
    await box.get("/tmp/capture.patch", out)
    await box.get("/tmp/capture.names", names)
    if out.stat().st_size > cap or names.stat().st_size > cap:
        raise WorkspaceError(f"the patch is over the cap of {cap} bytes ([lancebench.limits] patch_mb)")
    paths = names.read_bytes().decode("utf-8", errors="surrogateescape").split("\0")
    return CapturedPatch(out.read_text(encoding="utf-8", errors="surrogateescape"), [p for p in paths if p])


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
        if os.path.lexists(workspace):
            remove_tree(workspace)
        scratch.mkdir(parents=True, exist_ok=True)
        shutil.copytree(built.app, workspace, symlinks=True)
        spec = SandboxSpec(workdir=env.workdir, workspace=workspace, env=dict(env.variables),
                           mounts=(Mount(built.env, "/env", False), *mounts), network=network,
                           allow_hosts=tuple(task.lb.allow_hosts), limits=task_limits(task), labels=labels or {})
        return LocalSandbox(spec, root=scratch / "root")

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, scratch: Path) -> CapturedPatch:
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
            return await run_capture(capture, env.workdir, task, env, scratch)
        finally:
            await capture.stop()
            remove_tree(scratch / "capture-root")


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
