"""Collecting a trial's artifacts (Harbor's ``artifacts = [...]`` and ``[[steps]].artifacts``)
after its collect hooks (``[[verifier.collect]]``, a step's too) have run.

When: after the agent's work is captured (every process of the agent's sandbox has ended, so
nothing can change a file while it is copied, and what a hook writes never enters that capture;
in a multi-step task it stays in the environment for the later steps, as in Harbor)
and before the sandbox is removed; for a multi-step task after each step's capture. Harbor runs
the hooks and collects in the same place of its flow: after the agent, before the verifier.
Where from: the agent's sandbox (Harbor's ``main`` service; lancebench runs no other); a hook
runs with the agent phase's environment variables (never the verifier's), as its ``user`` on
docker (the local sandbox has one user). Where to: ``<trial>/artifacts/`` (``steps/<name>/artifacts/``
per step), each entry at :func:`lancebench.task.artifacts.host_relpath`, and ``manifest.json``
beside them in Harbor 0.25's format (``source``, ``destination``, ``type``, ``status`` one of
``ok``/``failed``/``empty``/``skipped``, ``service``, ``exclude``) plus ``reason`` and ``notes``
where something was not collected.

What the environment holds is hostile: links are never followed (a link inside a folder is left
out, a link as the source fails), special files are skipped, and one pass copies at most
:data:`MAX_BYTES` of file contents (:meth:`lancebench.sandbox.base.Sandbox.get` with
``max_bytes``; what is past the bound is left out and noted). A missing or unreadable artifact is
recorded, never an error of the trial.
"""

from __future__ import annotations

import fnmatch
import json
import stat
from pathlib import Path, PurePosixPath

from lancebench.errors import SandboxError
from lancebench.results.models import readable
from lancebench.results.store import atomic_write
from lancebench.runner.agent_phase import resume_sandbox
from lancebench.sandbox.backend import Backend
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import CopyBounds, copy_file, copy_tree, notes_path, remove_tree, walk
from lancebench.task.artifacts import CONVENTION_SOURCE, collection_set, hooks_for, host_relpath, is_main, overlaps
from lancebench.task.harbor import MAIN_SERVICE, ArtifactConfig, CollectHook, StepConfig
from lancebench.task.model import Task

MAX_BYTES = 256 * 1024 * 1024  # file contents copied by one collection pass, all entries together
_MAX_NOTES = 50
_HOOK_OUTPUT = 2000  # characters of a hook's output kept in collect-hooks.json (the tail)


async def collect(task: Task, step: StepConfig | None, sandbox: Sandbox, backend: Backend, root: Path,
                  scratch: Path, agent_env: dict[str, str]) -> list[dict]:
    """One collection pass of a trial (``step`` None) or of a step, into ``root`` (the trial's or
    the step's folder): the collect hooks (:func:`run_hooks` with the agent phase's ``agent_env``,
    their outcomes in ``root/collect-hooks.json``), then the artifacts (:func:`collect_artifacts`
    into ``root/artifacts``). The agent's work has been captured; a backend whose capture stopped the
    sandbox (docker) starts it again for the hooks (its files stay). Returns the manifest."""
    hooks = hooks_for(task, step)
    if hooks:
        await resume_sandbox(backend, sandbox)
        outcomes = await run_hooks(sandbox, hooks, agent_env)
        atomic_write(root / "collect-hooks.json", json.dumps(outcomes, indent=2))
    return await collect_artifacts(sandbox, collection_set(task, step), root / "artifacts", scratch)


async def run_hooks(sandbox: Sandbox, hooks: list[CollectHook], env: dict[str, str]) -> list[dict]:
    """Run each hook in ``sandbox`` with ``env``, best effort as in Harbor (a failure is recorded,
    never raised); a hook of another compose service is skipped. Returns one record per hook:
    ``command``, ``service``, ``user``, ``exit_code`` (None: timed out or not started),
    ``timed_out``, ``output`` (its tail), ``skipped`` (why not run) or ``error``."""
    records = []
    for hook in hooks:
        record: dict = {"command": hook.command, "service": hook.service, "user": hook.user}
        if hook.service != MAIN_SERVICE:
            record["skipped"] = f"service {hook.service!r}: lancebench runs the task in one container (main)"
        else:
            try:
                res = await sandbox.exec(hook.command, env=env, timeout=hook.timeout_sec,
                                         user=None if hook.user is None else str(hook.user))
                record.update(exit_code=res.exit_code, timed_out=res.timed_out, output=res.output[-_HOOK_OUTPUT:])
            except SandboxError as exc:
                record["error"] = str(exc)[:_HOOK_OUTPUT]
        records.append(record)
    return records


async def collect_artifacts(sandbox: Sandbox, entries: list[ArtifactConfig], dest: Path, scratch: Path, *,
                            max_bytes: int = MAX_BYTES) -> list[dict]:
    """Copy each of ``entries`` (one collection set, in order) from ``sandbox`` into ``dest``
    and write ``dest/manifest.json``; returns the manifest's entries. ``max_bytes`` bounds the
    file contents copied in all. An entry landing on or inside one already collected is
    ``skipped`` (the first claim wins, as in Harbor). Never raises for what the sandbox holds;
    ``OSError`` only when ``dest`` cannot be written."""
    dest.mkdir(parents=True, exist_ok=True)
    claimed: list[PurePosixPath] = []
    budget = max_bytes
    manifest = []
    for i, entry in enumerate(entries):
        rel = host_relpath(entry)
        record = {"source": entry.source, "destination": "artifacts" if str(rel) == "." else f"artifacts/{rel}",
                  "type": "file" if PurePosixPath(entry.source).suffix else "directory", "status": "skipped",
                  "service": entry.service, "exclude": list(entry.exclude)}
        if not is_main(entry):
            record["reason"] = f"service {entry.service!r}: lancebench runs the task in one container (main)"
        elif any(overlaps(rel, c) for c in claimed):
            record["reason"] = "lands on or inside an artifact collected before it"
        else:
            claimed.append(rel)
            budget -= await _collect_one(sandbox, entry, dest / rel, scratch / f"artifact-{i}", budget, record)
        if record["type"] == "file":
            record["exclude"] = []
        manifest.append(record)
    atomic_write(dest / "manifest.json", json.dumps(readable(manifest), indent=2))  # names not UTF-8: escaped
    return manifest


async def _collect_one(sandbox: Sandbox, entry: ArtifactConfig, target: Path, scratch: Path, budget: int,
                       record: dict) -> int:
    """Collect one entry into ``target`` (through ``scratch``), filling ``record``; returns the
    bytes it used of ``budget``."""
    got = scratch / "got"
    missing = "empty" if entry.source.rstrip("/") == CONVENTION_SOURCE else "failed"
    try:
        try:
            await sandbox.get(entry.source, got, max_bytes=max(budget, 0))
        except SandboxError as exc:
            record["status"], record["reason"] = missing, str(exc)[:500]
            return 0
        notes_file = notes_path(got)
        notes = notes_file.read_text(encoding="utf-8", errors="replace").splitlines() if notes_file.is_file() else []
        if got.is_dir() and not got.is_symlink():
            record["type"] = "directory"
            drop_excluded(got, entry.exclude)
            notes += copy_tree(got, target, CopyBounds(max_bytes=max(budget, 0)))
        elif got.is_file() and not got.is_symlink():
            record["type"] = "file"
            if got.lstat().st_size > budget:
                record["status"], record["reason"] = "failed", f"larger than the {max(budget, 0)} bytes left to copy"
                return 0
            target.parent.mkdir(parents=True, exist_ok=True)
            copy_file(got, target, limit=max(budget, 0))
        else:
            record["status"], record["reason"] = missing, "not a regular file or folder"
            return 0
        used = _size(target)
        record["status"] = "ok" if target.is_file() or any(target.iterdir()) else "empty"
        if notes:
            record["notes"] = notes[:_MAX_NOTES]
        return used
    finally:
        remove_tree(scratch)


def tar_excluded(rel: str, pattern: str) -> bool:
    """GNU tar's ``--exclude`` test (its defaults: unanchored, ``*`` matching ``/``): ``pattern``
    matches ``rel`` or any tail of it that starts at a path component."""
    parts = rel.split("/")
    return any(fnmatch.fnmatchcase("/".join(parts[i:]), pattern) for i in range(len(parts)))


def drop_excluded(root: Path, patterns: list[str]) -> None:
    """Remove from the host folder ``root`` every entry that a pattern of ``patterns`` excludes
    (a folder with everything in it)."""
    if not patterns:
        return
    for path, _st, _depth in walk(root):
        if any(tar_excluded(path.relative_to(root).as_posix(), p) for p in patterns):
            remove_tree(path)


def _size(target: Path) -> int:
    """Bytes of the regular files at ``target`` (a file or a folder; never follows a link)."""
    try:
        st = target.lstat()
    except OSError:
        return 0
    if stat.S_ISREG(st.st_mode):
        return st.st_size
    return sum(s.st_size for _p, s, _d in walk(target) if stat.S_ISREG(s.st_mode))
