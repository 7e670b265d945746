"""Collecting a trial's artifacts (Harbor's ``artifacts = [...]`` and ``[[steps]].artifacts``).

When: after the agent's work is captured (every process of the agent's sandbox has ended, so
nothing can change a file while it is copied) and before the sandbox is removed; for a
multi-step task after each step's capture. Where from: the agent's sandbox (Harbor's ``main``
service; lancebench runs no other). Where to: ``<trial>/artifacts/`` (``steps/<name>/artifacts/``
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
from lancebench.results.store import atomic_write
from lancebench.sandbox.base import Sandbox
from lancebench.sandbox.fstree import CopyBounds, copy_file, copy_tree, notes_path, remove_tree, walk
from lancebench.task.artifacts import CONVENTION_SOURCE, host_relpath, is_main, overlaps
from lancebench.task.harbor import ArtifactConfig

MAX_BYTES = 256 * 1024 * 1024  # file contents copied by one collection pass, all entries together
_MAX_NOTES = 50


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
    atomic_write(dest / "manifest.json", json.dumps(manifest, indent=2))
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
        notes = notes_path(got).read_text().splitlines() if notes_path(got).is_file() else []
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
            copy_file(got, target)
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
