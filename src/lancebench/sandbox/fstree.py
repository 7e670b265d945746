"""Walking, copying and removing folder trees that hostile code may have written.

Everything here is iterative (no Python recursion, so 10,000 nested folders cannot raise
``RecursionError``), never follows a symbolic link, and skips special files (FIFOs, sockets,
devices, which could block the harness). Copies are bounded (``CopyBounds``): what is past a
bound is left out and said in the returned notes, never an exception. :func:`remove_tree` never
raises; it first unmounts what is mounted at or below the tree (:func:`unmount_below`: a storage
quota's filesystem, :mod:`lancebench.sandbox.quota`, or a cover, :func:`lancebench.sandbox.quota.cover`).
Removal, ownership and permission changes of whole trees use coreutils (``rm``, ``chown``,
``chmod``: fts-based, iterative, ``-P`` never follows links), which handle any depth and path
length.
"""

from __future__ import annotations

import os
import select
import shutil
import stat
import subprocess
import threading
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path


def notes_path(dest: Path) -> Path:
    """Where :func:`write_notes` puts the notes of a copy to ``dest``: beside it, never inside
    (a copy of a log folder holds only what was in the folder)."""
    return dest.with_name(dest.name + ".copy-notes.txt")


def write_notes(dest: Path, notes: list[str]) -> None:
    """Write ``notes`` (what a copy to ``dest`` left out, at most 200 lines) beside ``dest``;
    nothing when there are none. A name that is not UTF-8 is written escaped (``\\udcff``)."""
    if notes:
        notes_path(dest).write_text("\n".join(notes[:200]) + "\n", encoding="utf-8", errors="backslashreplace")


@dataclass(frozen=True)
class CopyBounds:
    """Bounds of one copy: ``max_entries`` (files, folders and links), ``max_depth`` (folders
    below the root), ``max_bytes`` (sum of regular file sizes, bytes)."""

    max_entries: int = 20_000
    max_depth: int = 48
    max_bytes: int = 256 * 1024 * 1024


def walk(root: Path, *, max_depth: int | None = None) -> Iterator[tuple[Path, os.stat_result, int]]:
    """Yield ``(path, lstat, depth)`` for everything below ``root`` (top-down, depth 1 for
    ``root``'s children), without following links; folders deeper than ``max_depth`` are not
    entered. Unreadable folders are skipped. Never recursive."""
    stack: list[tuple[Path, int]] = [(Path(root), 0)]
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError:
            continue
        for entry in entries:
            path = Path(entry.path)
            try:
                st = os.lstat(path)
            except OSError:
                continue
            yield path, st, depth + 1
            if stat.S_ISDIR(st.st_mode) and (max_depth is None or depth + 1 < max_depth):
                stack.append((path, depth + 1))


def copy_tree(src: Path, dest: Path, bounds: CopyBounds = CopyBounds(), *, links: bool = False) -> list[str]:
    """Copy folder ``src`` into ``dest`` (created; merged into an existing folder), special files
    skipped; symbolic links are left out (``links=False``: a link planted in a sandbox must not
    sit in the job folder pointing at a host path) or copied as links, never followed. Returns
    notes on what was left out (past ``bounds``, special files, unreadable files); empty when
    everything was copied. Raises ``OSError`` only when ``dest`` itself cannot be made."""
    dest.mkdir(parents=True, exist_ok=True)
    notes: list[str] = []
    entries = total = 0
    for path, st, depth in walk(src, max_depth=bounds.max_depth):
        rel = path.relative_to(src)
        if entries >= bounds.max_entries:
            notes.append(f"stopped after {bounds.max_entries} entries")
            break
        entries += 1
        target = dest / rel
        try:
            if stat.S_ISDIR(st.st_mode):
                target.mkdir(exist_ok=True)
                if depth >= bounds.max_depth:
                    notes.append(f"{rel}: deeper than {bounds.max_depth} folders, contents left out")
            elif stat.S_ISLNK(st.st_mode):
                if not links:
                    notes.append(f"{rel}: symbolic link left out")
                    continue
                if target.is_symlink() or target.exists():
                    _remove_one(target)
                os.symlink(os.readlink(path), target)
            elif stat.S_ISREG(st.st_mode):
                if total + st.st_size > bounds.max_bytes:
                    notes.append(f"{rel}: left out ({st.st_size} bytes; the copy is capped at {bounds.max_bytes})")
                    continue
                total += st.st_size
                if target.is_symlink() or target.is_dir():
                    _remove_one(target)
                copy_file(path, target, limit=st.st_size)
                os.chmod(target, stat.S_IMODE(st.st_mode) & 0o777)  # permission bits, never set-id
            else:
                notes.append(f"{rel}: special file left out")
        except OSError as exc:
            notes.append(f"{rel}: not copied ({exc.strerror or exc})")
    return notes


def copy_file(src: Path, dest: Path, limit: int | None = None) -> None:
    """Copy one regular file without following a link at ``src`` (O_NOFOLLOW) or blocking on a
    FIFO swapped in (O_NONBLOCK, checked to be regular once opened), its first ``limit`` bytes
    at most (None: all): a file that a process still running grows while it is copied is copied
    as large as it was when checked against a bound (attack pass round 8)."""
    fd = os.open(src, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(f"{src} is no longer a regular file")
        left = limit
        with os.fdopen(fd, "rb", closefd=False) as fin, open(dest, "wb") as fout:
            while left is None or left > 0:
                chunk = fin.read(1024 * 1024 if left is None else min(left, 1024 * 1024))
                if not chunk:
                    break
                fout.write(chunk)
                left = None if left is None else left - len(chunk)
    finally:
        os.close(fd)


def _unescape(field: str) -> str:
    """A /proc/self/mountinfo path field (spaces and the like are octal escapes)."""
    out, i = [], 0
    while i < len(field):
        if field[i] == "\\" and field[i + 1:i + 4].isdigit():
            out.append(chr(int(field[i + 1:i + 4], 8)))
            i += 4
        else:
            out.append(field[i])
            i += 1
    return "".join(out)


class _MountTable:
    """The mount points of this process's mount namespace (``/proc/self/mountinfo``'s fifth
    field, still escaped), read again only when the kernel says the table changed: an open
    ``mountinfo`` polls ``POLLPRI | POLLERR`` once after any mount or unmount in the namespace
    since the last poll (proc(5)). A removal of a tree that never had a mount then costs one
    ``poll`` rather than reading and parsing the whole table (issue 29: ~0.35 ms of CPU per
    removal with the ~100 mounts of a busy host). Thread-safe; a forked child opens its own
    (a shared open file would share the change flag)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._fd: int | None = None
        self._pid = 0
        self._poll = select.poll()
        self._points: list[str] = []

    def points(self) -> list[str]:
        """Every mount point, escaped as in ``mountinfo``. Raises ``OSError`` when the table cannot
        be read, ``IndexError`` when a line of it has fewer than five fields."""
        with self._lock:
            try:
                if self._fd is None or self._pid != os.getpid():
                    self._fd, self._pid = os.open("/proc/self/mountinfo", os.O_RDONLY | os.O_CLOEXEC), os.getpid()
                    self._poll = select.poll()
                    self._poll.register(self._fd, select.POLLPRI | select.POLLERR)
                    self._points = self._read(self._fd)
                elif self._poll.poll(0):  # changed since the last poll (which reset the flag): read it again
                    self._points = self._read(self._fd)
            except BaseException:  # a table half read is never kept: the next call opens it afresh
                if self._fd is not None and self._pid == os.getpid():
                    os.close(self._fd)
                self._fd = None
                raise
            return self._points

    @staticmethod
    def _read(fd: int) -> list[str]:
        os.lseek(fd, 0, os.SEEK_SET)
        chunks = []
        while chunk := os.read(fd, 65536):
            chunks.append(chunk)
        return [line.split()[4] for line in b"".join(chunks).decode("utf-8", "surrogateescape").splitlines() if line]


_MOUNTS = _MountTable()


def unmount_below(path: Path) -> None:
    """Lazily unmount every mount at or below ``path``, deepest first. Never raises."""
    try:
        root = os.path.realpath(path)
        # mountinfo escapes these four characters as octal; compare escaped, unescape only matches
        escaped = "".join({"\\": "\\134", " ": "\\040", "\t": "\\011", "\n": "\\012"}.get(c, c) for c in root)
        points = [_unescape(field) for field in _MOUNTS.points() if field.startswith(escaped)]
        inside = sorted({p for p in points if p == root or p.startswith(root.rstrip("/") + "/")},
                        key=len, reverse=True)
        for point in inside:
            subprocess.run(["umount", "-l", point], capture_output=True, timeout=60)
    except (OSError, subprocess.SubprocessError, IndexError):
        pass


def _remove_one(path: Path) -> None:
    if path.is_dir() and not path.is_symlink():
        remove_tree(path)
    else:
        path.unlink()


def remove_tree(path: Path) -> str | None:
    """Remove ``path`` (a folder tree, a file or a link) whatever is inside, at any depth.
    Never raises: returns None when it is gone, else what was left and why."""
    try:
        if not os.path.lexists(path):
            return None
        unmount_below(path)  # a storage quota's filesystem (lancebench.sandbox.quota), a cover
        if _remove_small(path):
            return None
        res = subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], capture_output=True, text=True,
                             timeout=600)
        if not os.path.lexists(path):
            return None
        # e.g. folders an agent made unwritable (root is not stopped by that, other users are)
        subprocess.run(["chmod", "-R", "u+rwx", "--", str(path)], capture_output=True, timeout=600)
        res = subprocess.run(["rm", "-rf", "--one-file-system", "--", str(path)], capture_output=True, text=True,
                             timeout=600)
        return None if not os.path.lexists(path) else f"could not remove {path}: {res.stderr.strip()[-500:]}"
    except (OSError, subprocess.SubprocessError, ValueError) as exc:
        return f"could not remove {path}: {exc}"


SMALL_TREE = 200  # entries: a tree this small is removed in this process, without starting ``rm``


def _remove_small(path: Path) -> bool:
    """Remove ``path`` in this process when it is a link, a file, or a folder tree of at most
    :data:`SMALL_TREE` entries, all on one filesystem, none unwritable to us; True when it is gone.
    Anything else (larger, deeper, a mount inside, an error) is left to ``rm``: False."""
    try:
        st = os.lstat(path)
        if not stat.S_ISDIR(st.st_mode):
            os.unlink(path)
            return True
    except OSError:
        return not os.path.lexists(path)
    if not _small_enough(path, st.st_dev):
        return False
    try:  # file descriptor based: a folder swapped for a link meanwhile is never followed
        shutil.rmtree(path)
    except (OSError, RecursionError):
        return False
    return not os.path.lexists(path)


def _small_enough(path: Path, dev: int) -> bool:
    """True when the folder tree at ``path`` holds at most :data:`SMALL_TREE` entries, none 64
    folders deep or more, all on device ``dev``, and (unless we are root) every folder writable
    and searchable by us; False at the first entry that is not, or that cannot be read. Links
    are never followed (``scandir`` entries, ``lstat``)."""
    root = os.geteuid() == 0
    stack, entries = [(os.fspath(path), 0)], 0
    while stack:
        folder, depth = stack.pop()
        try:
            with os.scandir(folder) as it:
                for entry in it:
                    entries += 1
                    est = entry.stat(follow_symlinks=False)
                    if entries > SMALL_TREE or depth + 1 >= 64 or est.st_dev != dev:
                        return False
                    if stat.S_ISDIR(est.st_mode):
                        if est.st_mode & 0o300 != 0o300 and not root:
                            return False
                        stack.append((entry.path, depth + 1))
        except OSError:
            return False
    return True


def chown_tree(path: Path | list[Path], uid: int | None) -> None:
    """Give ``path`` (or each of a list of paths) and everything below to ``uid`` (no-op for None),
    never following links (``chown -R -P -h``, one process for all). Raises ``OSError`` when chown
    fails."""
    paths = [p for p in (path if isinstance(path, list) else [path]) if os.path.lexists(p)]
    if uid is None or not paths:
        return
    res = subprocess.run(["chown", "-R", "-P", "-h", f"{uid}:{uid}", "--", *map(str, paths)], capture_output=True,
                         text=True)
    if res.returncode != 0:
        raise OSError(f"chown of {', '.join(map(str, paths))} failed: {res.stderr.strip()[-500:]}")


def make_readable(root: Path) -> None:
    """Give the owner read (and, on folders, write and search) permission on everything under
    ``root``, so a file an agent made unreadable (``chmod 000``) cannot break the harness's
    capture. Links are never followed (``chmod -R`` skips them). Never raises."""
    try:
        subprocess.run(["chmod", "-R", "u+rwX", "--", str(root)], capture_output=True, timeout=600)
    except (OSError, subprocess.SubprocessError):
        pass


def seal_tree(path: Path, uid: int | None) -> None:
    """Give ``path`` and everything below it to ``uid`` (the harness's own uid when None) and take
    every permission from group and others (``chmod -R go-rwx``), never following links: only
    ``uid`` (and root) can read, write or create anything there. Used for the runner's folders
    when the code under test runs beside it under another uid. Raises ``OSError`` when it fails."""
    if not os.path.lexists(path):
        return
    chown_tree(path, uid)
    res = subprocess.run(["chmod", "-R", "go-rwx", "--", str(path)], capture_output=True, text=True)
    if res.returncode != 0:
        raise OSError(f"chmod of {path} failed: {res.stderr.strip()[-500:]}")
