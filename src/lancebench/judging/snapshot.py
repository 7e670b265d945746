"""Read-only tools over a host snapshot of a patched repository: what a judge may look at.

The snapshot holds what an agent wrote, so it is hostile content:

- paths are repository-relative; absolute paths, ``..`` and any symbolic link on the way are
  refused (a link is never followed, in or out of the snapshot); ``.git`` is hidden;
- every answer is capped: ``read_file`` gives at most :data:`MAX_LINES` lines of at most
  :data:`MAX_LINE_CHARS` characters, from files up to :data:`MAX_FILE_BYTES`; ``list_dir`` at most
  :data:`MAX_ENTRIES` entries; ``search`` (a fixed string, never a regex) at most :data:`MAX_HITS`
  hits over at most :data:`MAX_SEARCH_FILES` files;
- nothing is executed and nothing is written.

Errors in a request (a missing file, a refused path) come back as text for the model, never as
an exception.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

MAX_LINES = 200
MAX_LINE_CHARS = 400
MAX_FILE_BYTES = 2_000_000
MAX_ENTRIES = 200
MAX_HITS = 50
MAX_SEARCH_FILES = 5_000
HIDDEN = frozenset({".git"})


class PathRefused(Exception):
    """Internal: a requested path is outside what the tools may show."""


class RepoSnapshot:
    """The tools over the folder ``root`` (a host copy of the repository). See the module docstring."""

    def __init__(self, root: Path):
        self.root = Path(root).resolve()

    # -- path safety ------------------------------------------------------------------------
    def _resolve(self, rel: str) -> Path:
        rel = (rel or ".").strip().replace("\\", "/")
        if rel.startswith("/"):
            raise PathRefused(f"{rel}: give a path relative to the repository root")
        parts = [p for p in rel.split("/") if p not in ("", ".")]
        here = self.root
        for part in parts:
            if part == ".." or part in HIDDEN:
                raise PathRefused(f"{rel}: '{part}' is not allowed")
            here = here / part
            try:
                mode = os.lstat(here).st_mode
            except OSError:
                raise PathRefused(f"{rel}: no such file or folder") from None
            if stat.S_ISLNK(mode):
                raise PathRefused(f"{rel}: a symbolic link, not followed")
        return here

    def _rel(self, path: Path) -> str:
        return path.relative_to(self.root).as_posix() or "."

    # -- tools ------------------------------------------------------------------------------
    def read_file(self, path: str, start: int = 1) -> str:
        """Lines ``start``.. (1-based) of a file, numbered, at most :data:`MAX_LINES` of them."""
        try:
            p = self._resolve(path)
        except PathRefused as exc:
            return f"error: {exc}"
        if not p.is_file():
            return f"error: {path}: not a regular file"
        size = p.stat().st_size
        if size > MAX_FILE_BYTES:
            return f"error: {path}: {size} bytes, over the {MAX_FILE_BYTES}-byte cap"
        lines = p.read_bytes().decode("utf-8", errors="replace").splitlines()
        start = max(1, int(start or 1))
        chunk = lines[start - 1:start - 1 + MAX_LINES]
        body = "\n".join(f"{start + i:5d}  {_cap(line)}" for i, line in enumerate(chunk))
        end = start + len(chunk) - 1
        more = f"\n[lines {start}-{end} of {len(lines)}; read on with start={end + 1}]" if end < len(lines) else ""
        return f"{self._rel(p)} ({len(lines)} lines)\n{body}{more}"

    def list_dir(self, path: str = ".") -> str:
        """Entries of a folder (``name/`` for folders, ``name@`` for links), at most :data:`MAX_ENTRIES`."""
        try:
            p = self._resolve(path)
        except PathRefused as exc:
            return f"error: {exc}"
        if not p.is_dir():
            return f"error: {path}: not a folder"
        names = []
        for entry in sorted(os.scandir(p), key=lambda e: e.name):
            if entry.name in HIDDEN:
                continue
            kind = "@" if entry.is_symlink() else "/" if entry.is_dir(follow_symlinks=False) else ""
            names.append(_cap(entry.name) + kind)
        shown = names[:MAX_ENTRIES]
        more = f"\n[{len(names) - MAX_ENTRIES} more entries not shown]" if len(names) > MAX_ENTRIES else ""
        return f"{self._rel(p)}/\n" + "\n".join(shown) + more

    def search(self, text: str, path: str = ".") -> str:
        """Lines holding ``text`` (case-insensitive fixed string) under ``path``: ``file:line: text``."""
        needle = (text or "").lower()
        if not needle:
            return "error: give a non-empty text to search for"
        try:
            base = self._resolve(path)
        except PathRefused as exc:
            return f"error: {exc}"
        hits: list[str] = []
        for n, f in enumerate(self._files(base)):
            if n >= MAX_SEARCH_FILES or len(hits) >= MAX_HITS:
                break
            try:
                if f.stat().st_size > MAX_FILE_BYTES:
                    continue
                content = f.read_bytes().decode("utf-8", errors="replace")
            except OSError:
                continue
            for i, line in enumerate(content.splitlines(), 1):
                if needle in line.lower():
                    hits.append(f"{self._rel(f)}:{i}: {_cap(line.strip())}")
                    if len(hits) >= MAX_HITS:
                        break
        return "\n".join(hits) if hits else f"no line holds {text!r}"

    def _files(self, base: Path):
        if base.is_file():
            yield base
            return
        for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
            dirnames[:] = sorted(d for d in dirnames if d not in HIDDEN and not os.path.islink(os.path.join(dirpath,
                                                                                                            d)))
            for name in sorted(filenames):
                full = Path(dirpath) / name
                if not full.is_symlink():
                    yield full

    def exists(self, path: str) -> bool:
        """Whether ``path`` is a regular file the tools may read."""
        try:
            return self._resolve(path).is_file()
        except PathRefused:
            return False

    def call(self, tool: str, args: dict) -> str:
        """Run tool ``tool`` (``read_file``, ``list_dir``, ``search``) with ``args`` from the model."""
        if tool == "read_file":
            return self.read_file(str(args.get("path", "")), _int(args.get("start"), 1))
        if tool == "list_dir":
            return self.list_dir(str(args.get("path", ".")))
        if tool == "search":
            return self.search(str(args.get("text", "")), str(args.get("path", ".")))
        return f"error: unknown tool {tool!r} (use read_file, list_dir or search)"


def _cap(line: str) -> str:
    return line if len(line) <= MAX_LINE_CHARS else line[:MAX_LINE_CHARS] + " [...]"


def _int(value: object, default: int) -> int:
    try:
        return int(value)  # type: ignore[call-overload]
    except (TypeError, ValueError):
        return default
