"""Splitting a ``git diff --binary`` patch per file and dropping changes to protected paths.

A file's diff starts at a ``diff --git a/X b/Y`` line. The paths are read from that line or, when
a name has spaces or quotes, from the ``---``/``+++``/``rename from``/``rename to`` lines, and
C-style quoting (git's ``core.quotePath``) is undone. Own code rather than ``unidiff``: unidiff
does not carry ``GIT binary patch`` sections through unchanged, and this needs only the headers.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

_HEADER = re.compile(r"^diff --git (\"?a/.*\"?) (\"?b/.*\"?)$")


@dataclass(frozen=True)
class FileDiff:
    """One file's part of a patch: ``old``/``new`` repository paths (None for /dev/null) and its text."""

    old: str | None
    new: str | None
    text: str

    @property
    def paths(self) -> set[str]:
        return {p for p in (self.old, self.new) if p}


def _unquote(s: str) -> str:
    if not (s.startswith('"') and s.endswith('"')):
        return s
    raw = s[1:-1].encode("latin-1", "backslashreplace").decode("unicode_escape").encode("latin-1")
    return raw.decode("utf-8", errors="replace")


def _strip(p: str) -> str | None:
    p = _unquote(p.strip())
    if p == "/dev/null":
        return None
    return p[2:] if p[:2] in ("a/", "b/") else p


def split_patch(patch: str) -> list[FileDiff]:
    """Split ``patch`` into per-file diffs (text before the first header is dropped)."""
    chunks: list[list[str]] = []
    for line in patch.splitlines(keepends=True):
        if line.startswith("diff --git "):
            chunks.append([line])
        elif chunks:
            chunks[-1].append(line)
    return [_parse_chunk(c) for c in chunks]


def _parse_chunk(lines: list[str]) -> FileDiff:
    old = new = None
    m = _HEADER.match(lines[0].rstrip("\n"))
    if m:
        old, new = _strip(m.group(1)), _strip(m.group(2))
    for line in lines[1:]:
        body = line.rstrip("\n")
        if body.startswith(("@@", "GIT binary patch")):
            break
        if body.startswith("--- "):
            old = _strip(body[4:])
        elif body.startswith("+++ "):
            new = _strip(body[4:])
        elif body.startswith(("rename from ", "copy from ")):
            old = _unquote(body.split(" ", 2)[2])
        elif body.startswith(("rename to ", "copy to ")):
            new = _unquote(body.split(" ", 2)[2])
        elif body.startswith("new file mode"):
            old = None if m is None else old
        elif body.startswith("deleted file mode"):
            pass
    return FileDiff(old=old, new=new, text="".join(lines))


@lru_cache(maxsize=512)
def glob_regex(pattern: str) -> re.Pattern:
    """Compile a path glob: ``**/`` any folders (or none), ``**`` anything, ``*`` and ``?`` within
    one path component. A pattern without ``/`` matches the path's last component at any depth."""
    if "/" not in pattern:
        pattern = "**/" + pattern
    out, i = [], 0
    while i < len(pattern):
        if pattern.startswith("**/", i):
            out.append("(?:.*/)?")
            i += 3
        elif pattern.startswith("**", i):
            out.append(".*")
            i += 2
        elif pattern[i] == "*":
            out.append("[^/]*")
            i += 1
        elif pattern[i] == "?":
            out.append("[^/]")
            i += 1
        else:
            out.append(re.escape(pattern[i]))
            i += 1
    return re.compile("".join(out) + r"\Z", re.DOTALL)


def is_protected(path: str, globs: list[str] | tuple[str, ...], unprotect: list[str] | tuple[str, ...] = ()) -> bool:
    """Whether repository-relative ``path`` matches any of ``globs`` and none of ``unprotect``."""
    path = path.removeprefix("./")
    return any(glob_regex(g).match(path) for g in globs) and not any(glob_regex(g).match(path) for g in unprotect)


def filter_patch(patch: str, globs: list[str] | tuple[str, ...],
                 unprotect: list[str] | tuple[str, ...] = ()) -> tuple[str, list[str]]:
    """Return (patch without protected files' diffs, sorted protected paths that were dropped).
    A diff is dropped when either its old or its new path is protected (renames included)."""
    kept, dropped = [], set()
    for fd in split_patch(patch):
        hit = {p for p in fd.paths if is_protected(p, globs, unprotect)}
        if hit:
            dropped |= fd.paths
        else:
            kept.append(fd.text)
    return "".join(kept), sorted(dropped)
