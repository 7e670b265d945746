"""The ``local`` backend: environments are cached folders built in bubblewrap
(:mod:`lancebench.backends.local_environment`), sandboxes are
:class:`lancebench.sandbox.local.LocalSandbox` over a copy of the repository."""

from __future__ import annotations

import asyncio
import functools
import os
from pathlib import Path
from typing import cast

from lancebench.backends.capture import controlled, run_capture
from lancebench.backends.local_environment import LocalEnvironment, build_local_environment
from lancebench.backends.options import BackendOptions
from lancebench.errors import SandboxError
from lancebench.grading.pyguard import find_site_folders, write_pth
from lancebench.sandbox.backend import Backend, Capabilities, PreparedEnvironment, network_fields, task_limits
from lancebench.sandbox.base import CapturedPatch, Mount, Sandbox, SandboxSpec
from lancebench.sandbox.cgroups import CgroupSet
from lancebench.sandbox.fstree import remove_tree
from lancebench.sandbox.local import LocalSandbox
from lancebench.sandbox.local_files import Deferred
from lancebench.sandbox.local_owner import reap_orphans
from lancebench.sandbox.quota import quota_with_covers
from lancebench.task.model import Task
from lancebench.task.settings import NO_NETWORK, NetworkPolicy


@functools.cache
def _prune_once() -> int:
    """Once per process (an executor makes a backend per trial): end the sandboxes of harness
    processes that were killed (:func:`lancebench.sandbox.local_owner.reap_orphans`), then
    :meth:`CgroupSet.prune_stale`."""
    reap_orphans()
    return CgroupSet.prune_stale()


class LocalBackend(Backend):
    """The ``local`` backend (a :class:`lancebench.sandbox.backend.Backend`). ``options``: the CA
    bundle environment builds trust, the host repositories a checkout may snapshot."""

    name = "local"

    def __init__(self, options: BackendOptions | None = None) -> None:
        self.options = options or BackendOptions()
        _prune_once()

    @classmethod
    def capabilities(cls) -> Capabilities:
        """Builds from a ``[lancebench.local]`` recipe; no network filter (bubblewrap gives a
        sandbox the whole network or none)."""
        return Capabilities(builds="local", network_filter=(
            "it cannot enforce a network allowlist (nor change the network between steps)",
            "run it with --backend docker"))

    async def prepare(self, task: Task) -> PreparedEnvironment:
        """Build (or reuse) the task's environment. Raises :class:`SandboxError` for a code task
        that has no ``[lancebench.local]`` recipe: its repository would be empty, and every agent
        would fail for a reason that is not its own (Harbor tasks with only a Dockerfile run on
        ``--backend docker``); :class:`lancebench.errors.EnvironmentBuildError` when the build fails."""
        if task.kind == "code" and task.lb.local is None:
            has_docker = task.paths.dockerfile.is_file() or task.config.environment.docker_image
            raise SandboxError(f"{task.paths.task_toml}: no [lancebench.local] recipe, so the local backend cannot "
                               "build this task's environment; " + ("run it with --backend docker" if has_docker else
                               "add [lancebench.local] setup = \"setup.sh\" (see docs/tasks.md)"))
        built = await build_local_environment(task, options=self.options)
        return PreparedEnvironment(base_commit=built.base_commit, workdir=built.workdir, variables=built.variables,
                                   handle=built, build_sec=built.build_sec)

    def open(self, task: Task, env: PreparedEnvironment, scratch: Path, *, mounts: tuple[Mount, ...] = (),
             network: NetworkPolicy = NO_NETWORK, labels: dict[str, str] | None = None) -> LocalSandbox:
        """A fresh, not yet started sandbox over a copy of the built repository (in ``scratch``).
        The copy and the storage quota wait for the sandbox's first need of them
        (:mod:`lancebench.sandbox.local_files`), except a quota that writable ``mounts`` go on."""
        built = cast(LocalEnvironment, env.handle)
        workspace = scratch / "workspace"
        if os.path.lexists(workspace):
            remove_tree(workspace)
        spec = SandboxSpec(workdir=env.workdir, workspace=workspace, env=dict(env.variables),
                           mounts=(Mount(built.env, "/env", False), *mounts), **network_fields(network),
                           limits=task_limits(task), labels=labels or {})
        quota_dir = None
        if not scratch.exists():  # a fresh folder: everything the sandbox writes lands on its quota
            # now, when writable mounts go on it, before the harness makes anything in them (the
            # report witness); else at the first command, if one ever runs (sandbox.local_files)
            if not quota_with_covers(scratch, mounts, task.config.environment.storage_mb):
                scratch.mkdir(parents=True)
                quota_dir = scratch
        deferred = Deferred(pristine=built.app, quota_dir=quota_dir, storage_mb=task.config.environment.storage_mb)
        return LocalSandbox(spec, root=scratch / "root", deferred=deferred, lease_uid=True)

    async def guard_python(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, *,
                           user: str | None = None) -> list[str]:
        """Write the verifier's Python guard (``grading.pyguard.PTH_NAME``) into every site folder of
        a fresh grading ``sandbox`` before anything of the agent's is in it: the environment's
        (``/env``, the cached folder, read-only inside) and the workspace's (a ``.venv`` in the
        repository). Returns the folders written, as paths inside. The host's ``/usr`` is not
        written: its interpreters get the guard through ``PYTHONPATH`` only. ``user`` is ignored
        (the local sandbox has one user)."""
        assert isinstance(sandbox, LocalSandbox)
        built = cast(LocalEnvironment, env.handle)
        done = []
        await sandbox.provision()
        for host_root, inside in ((built.env, "/env"), (sandbox.workspace, env.workdir)):
            for folder in find_site_folders(host_root):
                if write_pth(folder):
                    done.append(f"{inside.rstrip('/')}/{folder.relative_to(host_root)}")
        return done

    async def capture(self, task: Task, env: PreparedEnvironment, sandbox: Sandbox, scratch: Path) -> CapturedPatch:
        """Diff the agent's workspace against the pristine base repository (the cached ``.git``,
        read-only), in a separate sandbox as the sandbox user: the agent's own ``.git`` is ignored.
        A never-started ``sandbox`` (the user tool's snapshot of a running agent) is read as it is,
        without any change by root. A failure is blamed by a control
        (:func:`lancebench.backends.capture.controlled`: the same capture of a fresh, never started
        sandbox of the environment, made at ``<scratch>-control``, captured in ``scratch/control``).
        Raises :class:`SandboxError` and :class:`lancebench.errors.WorkspaceError` (see
        :func:`run_capture`, :func:`controlled`)."""
        assert isinstance(sandbox, LocalSandbox)

        async def pristine() -> CapturedPatch:
            # its copy of the repository beside the capture's scratch space (as the agent's sandbox
            # folder is, in a trial), its capture in it, as the work's
            copy = scratch.parent / f"{scratch.name}-control"
            try:
                return await self._capture(task, env, self.open(task, env, copy), scratch / "control")
            finally:
                for folder in (copy, scratch / "control"):
                    await asyncio.to_thread(remove_tree, folder)
        return await controlled(lambda: self._capture(task, env, sandbox, scratch), pristine,
                                "a fresh sandbox of the environment, never started")

    async def _capture(self, task: Task, env: PreparedEnvironment, sandbox: LocalSandbox,
                       scratch: Path) -> CapturedPatch:
        await sandbox.settled()
        built = cast(LocalEnvironment, env.handle)
        spec = SandboxSpec(workdir=env.workdir, workspace=sandbox.spec.workspace, env=dict(env.variables),
                           mounts=(Mount(built.git_dir, "/lancebench/base.git", False),), limits=task_limits(task))
        try:
            async with LocalSandbox(spec, root=scratch / "capture-root", uid=sandbox.uid) as capture:
                return await run_capture(capture, env.workdir, task, env, scratch)
        finally:
            await asyncio.to_thread(remove_tree, scratch / "capture-root")
