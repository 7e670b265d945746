"""The host folders of a :class:`lancebench.sandbox.local.LocalSandbox`, made when first needed.

A sandbox that never runs a command (a choice trial whose agent only puts its answer file) needs
no storage quota, no copy of the repository it never reads, and no change of owner: such work is
deferred (:class:`Deferred`, given by the backend) until something needs it, and costs in
proportion to what was written before:

- :func:`populate` fills the workspace with the pristine repository (at the first command, the
  first read of a path not put there, or the capture); files put before win over the pristine
  ones, as they would have overwritten them;
- :func:`move_onto_quota` mounts the ``storage_mb`` filesystem (:mod:`lancebench.sandbox.quota`)
  at the first command and moves onto it the little written before (skeleton folders, files put
  by the harness), so that everything a sandboxed process writes is on the quota.

Nothing here runs sandboxed code; the callers run these functions in a worker thread
(``asyncio.to_thread``), never in the event loop.
"""

from __future__ import annotations

import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from lancebench.sandbox.fstree import CopyBounds, copy_tree, remove_tree
from lancebench.sandbox.quota import mount_quota

# moving what the harness itself wrote: no bound may drop any of it
UNBOUNDED = CopyBounds(max_entries=10**12, max_depth=100_000, max_bytes=10**18)


@dataclass(frozen=True)
class Deferred:
    """Work a backend leaves to a local sandbox's first need of it.

    ``pristine``: a host folder copied into the workspace (the built repository; None: the
    workspace starts as it is). ``quota_dir``: a fresh host folder holding the sandbox's folders,
    where a ``storage_mb`` MiB filesystem is mounted at the first command (None: no quota, or
    one mounted already)."""

    pristine: Path | None = None
    quota_dir: Path | None = None
    storage_mb: int = 10240


def populate(pristine: Path, workspace: Path, *, written: bool) -> None:
    """Fill ``workspace`` with a copy of ``pristine`` (links kept as links). ``written``: files
    were put into the sandbox before; they are laid over the copy (cost in proportion to them).
    Raises ``OSError`` when the copy fails."""
    if not written and (not workspace.exists() or not any(workspace.iterdir())):
        if workspace.exists():
            workspace.rmdir()
        shutil.copytree(pristine, workspace, symlinks=True)
        return
    staged = workspace.with_name(workspace.name + ".staged")
    remove_tree(staged)
    os.rename(workspace, staged)
    shutil.copytree(pristine, workspace, symlinks=True)
    copy_tree(staged, workspace, UNBOUNDED, links=True)
    remove_tree(staged)


def move_onto_quota(folder: Path, size_mb: int) -> str | None:
    """Mount a fresh ``size_mb`` MiB filesystem at ``folder`` and move onto it what ``folder``
    holds (what the harness wrote before any command ran). Returns None when mounted, else why
    not (``folder`` is then left as it was; see :func:`lancebench.sandbox.quota.mount_quota`)."""
    if os.geteuid() != 0:
        return "not root: storage_mb bounds each file only"
    before = folder.with_name(folder.name + ".before-quota")
    remove_tree(before)
    os.rename(folder, before)
    reason = mount_quota(folder, size_mb)
    if reason is not None:
        remove_tree(folder)
        os.rename(before, folder)
        return reason
    copy_tree(before, folder, UNBOUNDED, links=True)
    st = before.stat()
    os.chmod(folder, st.st_mode & 0o7777)
    remove_tree(before)
    return None

