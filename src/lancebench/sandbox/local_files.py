"""The host folders of a :class:`lancebench.sandbox.local.LocalSandbox`, made when first needed.

:func:`provide_folders` is the sandbox's set-up before its first command: the quota mounted,
its own folders and ``/etc`` made, the repository copied in, every writable folder given to the
sandbox user, each checked reachable by it.

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

from lancebench.errors import SandboxError
from lancebench.sandbox.base import Mount
from lancebench.sandbox.fstree import CopyBounds, chown_tree, copy_tree, remove_tree
from lancebench.sandbox.local_net import RESOLV_CONF
from lancebench.sandbox.quota import mount_quota

INSIDE_UID = 1000
HOME = "/home/agent"
# writable folders besides the workdir, /tmp and HOME: inside path -> folder of the sandbox root
# (bound, so that storage_mb's filesystem holds them; the sandbox's own root is read-only)
WRITABLE_ELSEWHERE = {"/dev/shm": "shm", "/var/tmp": "var-tmp", "/run": "run"}

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


def provide_folders(root: Path, workspace: Path, mounts: tuple[Mount, ...], deferred: Deferred, *,
                    uid: int | None, pristine: Path | None, written: bool) -> None:
    """Make a sandbox's host folders ready for its first command (in a worker thread): the
    deferred quota mounted and what was written moved onto it, the sandbox's own folders under
    ``root`` (``tmp``, ``home``, ``etc``, ``extra`` and :data:`WRITABLE_ELSEWHERE`'s) and its
    ``/etc`` files made, ``pristine`` copied into ``workspace`` (None: nothing to copy;
    ``written``: see :func:`populate`), every writable folder (``workspace``, ``root``'s, the
    writable ``mounts``) given to host uid ``uid`` (None: left as they are). Raises
    :class:`SandboxError` when the copy fails, or a folder cannot be given to ``uid`` or
    reached by it."""
    if deferred.quota_dir is not None:
        move_onto_quota(deferred.quota_dir, deferred.storage_mb)
    for sub in ("tmp", "home", "etc", "extra", *WRITABLE_ELSEWHERE.values()):
        (root / sub).mkdir(parents=True, exist_ok=True)
    os.chmod(root, 0o755)
    _write_etc(root / "etc")
    if pristine is not None:
        populate(pristine, workspace, written=written)
    owned = [workspace, root / "tmp", root / "home", root / "extra",
             *(root / sub for sub in WRITABLE_ELSEWHERE.values())]
    for m in mounts:
        if m.writable:
            m.source.mkdir(parents=True, exist_ok=True)
            owned.append(m.source)
    try:
        chown_tree(owned, uid)
    except OSError as exc:
        raise SandboxError(str(exc)) from exc
    for path in [workspace, root] + [m.source for m in mounts]:
        _check_reachable(path, uid)


def _write_etc(etc: Path) -> None:
    """The sandbox's own ``/etc`` files (the rest of ``/etc`` is the host's, bound read-only)."""
    (etc / "passwd").write_text("root:x:0:0:root:/root:/bin/bash\n"
                                f"agent:x:{INSIDE_UID}:{INSIDE_UID}:agent:{HOME}:/bin/bash\n"
                                "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n")
    (etc / "group").write_text(f"root:x:0:\nagent:x:{INSIDE_UID}:\nnogroup:x:65534:\n")
    (etc / "hosts").write_text("127.0.0.1 localhost lancebench\n::1 localhost\n")
    (etc / "hostname").write_text("lancebench\n")
    (etc / "nsswitch.conf").write_text("passwd: files\ngroup: files\nhosts: files dns\n")
    (etc / "resolv.conf").write_text(RESOLV_CONF)  # slirp4netns's DNS; unreachable without the network


def _check_reachable(path: Path, uid: int | None) -> None:
    """Raise :class:`SandboxError` when the sandbox uid cannot traverse a parent of ``path``
    (for example a folder under /root, which is private)."""
    if uid is None:
        return
    for parent in Path(path).resolve().parents:
        st = parent.stat()
        if not (st.st_mode & 0o001 or st.st_uid == uid):
            raise SandboxError(f"{path} is not reachable by the sandbox user (uid {uid}): {parent} is not "
                               "searchable by others; put lancebench's folders elsewhere (LANCEBENCH_HOME, -o) "
                               f"or run `chmod o+x {parent}`")


def populate(pristine: Path, workspace: Path, *, written: bool) -> None:
    """Fill ``workspace`` with a copy of ``pristine`` (links kept as links). ``written``: files
    were put into the sandbox before; they are laid over the copy (cost in proportion to them).
    Raises :class:`SandboxError` when the copy fails."""
    try:
        _populate(pristine, workspace, written=written)
    except OSError as exc:
        raise SandboxError(f"could not copy the repository into the sandbox: {exc}") from exc


def _populate(pristine: Path, workspace: Path, *, written: bool) -> None:
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

