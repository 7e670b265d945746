"""A sandbox's storage quota: on the ``local`` backend, the sandbox's host folders live on a
filesystem of their own, exactly ``storage_mb`` MiB large; on both backends, its writable host
folders are covered by folders of that filesystem.

``RLIMIT_FSIZE`` bounds one file; only a filesystem bounds the sum of everything a sandbox
writes (workspace, ``/tmp``, ``$HOME``). When the harness runs as root, :func:`mount_quota`
makes a sparse image (it takes only what is written), formats it ext4 without a journal and
mounts it through a loop device at the sandbox's scratch folder; the image file is unlinked at
once, so unmounting (:func:`lancebench.sandbox.fstree.unmount_below`, called by every tree removal)
frees everything. Not root, or no loop device free: no mount, and the per-file limit is all that
holds (the returned reason says so; docs/security.md).

*Covers* (both backends): the writable host folders of a sandbox put on its storage quota, so
that ``storage_mb`` bounds what the sandbox writes there too (the verifier's log folder, the user
tool's requests, a trace folder).

A *cover* copies the folder's content (bounded, links kept as links and never followed, special
files left out) into a folder of the quota filesystem and binds that over the host folder. The
harness keeps reading and writing the host folder by its path (the report witness makes its FIFO
there after the cover, so on the quota). The cover stays until the host folder is removed with
:func:`lancebench.sandbox.fstree.remove_tree`, which unmounts it; the quota's filesystem lives
until its last mount goes. Root only (``mount``).
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterable
from pathlib import Path

from lancebench.sandbox.base import Mount
from lancebench.sandbox.fstree import copy_tree

MKFS = ["mkfs.ext4", "-q", "-F", "-m", "0", "-O", "^has_journal", "-E", "lazy_itable_init=1,nodiscard"]


def mount_quota(folder: Path, size_mb: int) -> str | None:
    """Mount a fresh ``size_mb`` MiB filesystem at ``folder`` (created, must be empty). Returns
    None when mounted, else why not (never raises)."""
    if os.geteuid() != 0:
        return "not root: storage_mb bounds each file only"
    folder.mkdir(parents=True, exist_ok=True)
    image = folder.with_name(f".{folder.name}.quota.img")
    try:
        with open(image, "wb") as fh:
            fh.truncate(size_mb * 1024 * 1024)
        for argv in (MKFS + [str(image)], ["mount", "-o", "loop,nosuid,nodev", str(image), str(folder)]):
            res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
            if res.returncode != 0:
                return f"{argv[0]} failed: {res.stderr.strip()[-300:]}; storage_mb bounds each file only"
        os.chmod(folder, 0o755)
        return None
    except (OSError, subprocess.SubprocessError) as exc:
        return f"no storage quota ({exc}); storage_mb bounds each file only"
    finally:
        try:
            image.unlink()
        except OSError:
            pass


def coverable(mounts: Iterable[Mount]) -> list[Path]:
    """The host folders of the writable ``mounts`` that can be covered: existing folders, not
    mount points already (covered by another sandbox, or bound on purpose), not reached through a
    symbolic link (a cover must not land on another path). Resolved paths, in order."""
    out = []
    for m in mounts:
        source = Path(m.source).resolve()
        if (m.writable and source.is_dir() and not os.path.ismount(source)
                and source == Path(os.path.abspath(m.source)) and source not in out):
            out.append(source)
    return out


def quota_with_covers(scratch: Path, mounts: Iterable[Mount], size_mb: int) -> bool:
    """For a local sandbox whose fresh scratch folder ``scratch`` (not yet made) has writable
    ``mounts`` (the verifier's logs, the user tool's requests): mount its ``size_mb`` MiB quota
    there (:func:`mount_quota`) and cover each coverable mount with a
    folder of it, ``scratch/.mounts/<n>``; the caller removes ``scratch`` with ``remove_tree``,
    which unmounts the covers. A folder that cannot be covered, or every one when the quota
    cannot be mounted, stays bounded per file only. Returns False, doing nothing, when no mount
    is coverable (the quota then waits for the sandbox's first command,
    :mod:`lancebench.sandbox.local_files`); True otherwise. Never raises ``OSError`` for a cover."""
    sources = coverable(mounts)
    if not sources:
        return False
    if mount_quota(scratch, size_mb) is None:
        for n, source in enumerate(sources):
            try:
                cover(source, scratch / ".mounts" / str(n))
            except OSError:
                pass
    return True


def cover(source: Path, copy: Path) -> list[str]:
    """Cover host folder ``source`` with ``copy`` (a new folder on the quota; see the module
    docstring). Returns notes on what the copy left out. Raises ``OSError`` when the bind fails."""
    notes = copy_tree(source, copy, links=True)
    st = source.stat()
    os.chmod(copy, st.st_mode & 0o7777)
    os.chown(copy, st.st_uid, st.st_gid)
    run_tool(["mount", "--bind", str(copy), str(source)])
    return notes


def run_tool(argv: list[str], *, mkdir: Path | None = None) -> None:
    """Run ``argv`` (``mount``, ``cp``), making folder ``mkdir`` first. Raises ``OSError`` with
    its error output when it fails."""
    if mkdir is not None:
        mkdir.mkdir(parents=True, exist_ok=True)
    try:
        res = subprocess.run(argv, capture_output=True, text=True, timeout=120)
    except subprocess.SubprocessError as exc:
        raise OSError(f"{argv[0]} failed: {exc}") from exc
    if res.returncode != 0:
        raise OSError(f"{' '.join(argv[:2])} failed: {res.stderr.strip()[-300:]}")
