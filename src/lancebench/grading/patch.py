"""Splitting a ``git diff --binary`` patch per file and dropping changes to protected paths.

A file's diff starts at a ``diff --git a/X b/Y`` line. When the capture gives the changed paths
from git's NUL-separated output (``CapturedPatch.paths``, ``git diff --no-renames --name-only -z``,
in diff order), each chunk must name exactly its path there: a chunk whose header cannot be read
as exactly that path is dropped and recorded (the path filter must never read a path other than
the one ``git apply`` will write). Without that list (a patch from elsewhere), paths are read from
the headers only when unambiguous: C-quoted names (``core.quotePath``) are parsed token by token,
unquoted ``a/X b/X`` must have two equal halves; otherwise the ``---``/``+++``/rename lines decide,
and a chunk left without a certain path is dropped. Own code rather than ``unidiff``: unidiff
does not carry ``GIT binary patch`` sections through unchanged, and this needs only the headers.
"""

from __future__ import annotations

import re
import sys
from dataclasses import dataclass
from functools import lru_cache

# Top-level modules the verifier's Python or its test runner imports (beside the standard
# library): a file the patch *creates* under one of these names where it could come first on
# sys.path (the repository root, src/, lib/) would be imported instead of the real module.
RUNNER_MODULES = frozenset({
    "pytest", "_pytest", "py", "pluggy", "iniconfig", "packaging", "exceptiongroup", "tomli", "colorama", "pygments",
    "attr", "attrs", "more_itertools", "xdist", "execnet", "hypothesis", "coverage", "pytest_cov", "xmlrunner",
    "junit_xml", "nose", "nose2", "typing_extensions", "six", "setuptools", "pkg_resources", "_distutils_hack",
    "importlib_metadata", "zipp", "playwright", "greenlet", "pyee", "lancebench_trace", "certifi", "urllib3", "idna",
    "charset_normalizer", "sitecustomize", "usercustomize"})
SHADOWABLE = RUNNER_MODULES | frozenset(sys.stdlib_module_names)
_MODULE_FILE = re.compile(r"^(?:(?:src|lib)/)?([A-Za-z_][A-Za-z0-9_]*)(?:\.py|\.pyc|(?:\.[^/]*)?\.so|/__init__\.py|"
                          r"/__init__(?:\.[^/]*)?\.so)\Z")
_ESCAPES = {"a": 7, "b": 8, "t": 9, "n": 10, "v": 11, "f": 12, "r": 13, '"': 34, "\\": 92}
UNREADABLE = "<unreadable path>"


@dataclass(frozen=True)
class FileDiff:
    """One file's part of a patch: ``old``/``new`` repository paths (None for /dev/null or when
    not known exactly), its text, and ``certain`` (False when the header could not be read exactly)."""

    old: str | None
    new: str | None
    text: str
    certain: bool = True

    @property
    def paths(self) -> set[str]:
        return {p for p in (self.old, self.new) if p}


def _read_quoted(s: str, i: int) -> tuple[str, int] | None:
    """Parse a C-quoted string starting at ``s[i] == '"'``: (unquoted text, index after the
    closing quote), or None when it is malformed."""
    out = bytearray()
    i += 1
    while i < len(s):
        c = s[i]
        if c == '"':
            return out.decode("utf-8", errors="surrogateescape"), i + 1
        if c == "\\":
            nxt = s[i + 1:i + 2]
            if nxt in _ESCAPES:
                out.append(_ESCAPES[nxt])
                i += 2
            elif re.fullmatch(r"[0-7]{3}", s[i + 1:i + 4]):
                out.append(int(s[i + 1:i + 4], 8) & 0xFF)
                i += 4
            else:
                return None
        else:
            out += c.encode("utf-8", errors="surrogateescape")
            i += 1
    return None


def _unquote(s: str) -> str | None:
    if not s.startswith('"'):
        return s
    got = _read_quoted(s, 0)
    return got[0] if got and got[1] == len(s) else None


def _strip(p: str, prefix: str) -> str | None:
    """A ``---``/``+++`` path: None for /dev/null or anything not exactly ``prefix`` + path."""
    p = p.rstrip("\t")
    q = _unquote(p)
    if q is None or q == "/dev/null" or not q.startswith(prefix):
        return None
    return q[len(prefix):]


def parse_header(line: str) -> tuple[str, str] | None:
    """The (old, new) paths of a ``diff --git`` line, or None when they cannot be read exactly."""
    rest = line.removeprefix("diff --git ").rstrip("\n")
    if rest.startswith('"'):
        first = _read_quoted(rest, 0)
        if first is None or rest[first[1]:first[1] + 1] != " ":
            return None
        a, second = first[0], rest[first[1] + 1:]
        b = _unquote(second)
    else:
        if '"' in rest:  # "a/x b/\"y\"": the first unquoted, the second quoted
            idx = rest.find(' "')
            a, b = rest[:idx], (_unquote(rest[idx + 1:]) if idx > 0 else None)
        else:  # no renames: both halves are the same path, "a/X b/X"
            half = (len(rest) - 1) // 2
            a, b = rest[:half], rest[half + 1:]
            if len(rest) % 2 == 0 or rest[half] != " " or a[2:] != b[2:]:
                return None
    if b is None or not a.startswith("a/") or not b.startswith("b/"):
        return None
    return a[2:], b[2:]


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
    header = parse_header(lines[0])
    seen: dict[str, str | None] = {}
    for line in lines[1:]:
        body = line.rstrip("\n")
        if body.startswith(("@@", "GIT binary patch", "Binary files ")):
            break
        for key, prefix in (("minus", "--- "), ("plus", "+++ "), ("from", "rename from "), ("from", "copy from "),
                            ("to", "rename to "), ("to", "copy to ")):
            if body.startswith(prefix):
                raw = body[len(prefix):]
                seen[key] = (_strip(raw, "a/" if key == "minus" else "b/") if key in ("minus", "plus")
                             else _unquote(raw))
                if key in ("minus", "plus") and raw == "/dev/null":
                    seen[key + "_null"] = "1"
        if body.startswith(("new file mode", "deleted file mode")):
            seen[body.split()[0]] = "1"
    old = seen.get("from", seen.get("minus"))
    new = seen.get("to", seen.get("plus"))
    created, deleted = "new" in seen, "deleted" in seen
    old, new = (new if created and old is None else old), (old if deleted and new is None else new)
    if header:
        agree = all(seen[k] == v for k, v in (("from", header[0]), ("minus", header[0]), ("to", header[1]),
                                               ("plus", header[1])) if k in seen and k + "_null" not in seen)
        old, new, certain = header[0], header[1], agree
    else:
        certain = old is not None and new is not None
    return FileDiff(old=None if created else old, new=None if deleted else new, text="".join(lines), certain=certain)


def shadowed_module(path: str) -> str | None:
    """The module a *new* file at ``path`` would shadow (see :data:`SHADOWABLE`), or None."""
    m = _MODULE_FILE.match(path)
    return m.group(1) if m and m.group(1) in SHADOWABLE else None


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
    """Return (patch without protected files' diffs, sorted paths whose changes were dropped).

    A diff is dropped when either its old or its new path is protected (renames included), when
    it creates a module that would shadow one the verifier imports (:func:`shadowed_module`), or
    when its path cannot be read exactly (recorded as the exact path from ``patch.paths`` when
    ``patch`` is a :class:`~lancebench.sandbox.base.CapturedPatch`, else as ``UNREADABLE``).
    With ``patch.paths``, chunk *i* must name exactly ``paths[i]`` (see the module docstring)."""
    exact = getattr(patch, "paths", None)
    kept: list[str] = []
    dropped: set[str] = set()
    for i, fd in enumerate(split_patch(patch)):
        if exact is not None:
            want = exact[i] if i < len(exact) else None
            readable = want is not None and fd.certain and fd.paths == {want}
            names = {want} if want is not None else {UNREADABLE}
        else:
            readable, names = fd.certain and bool(fd.paths), fd.paths or {UNREADABLE}
        created = fd.old is None and fd.new is not None
        shadow = (created and fd.new is not None and shadowed_module(fd.new) is not None
                  and not any(glob_regex(g).match(fd.new) for g in unprotect))
        if not readable or shadow or any(is_protected(p, globs, unprotect) for p in names):
            dropped |= names if not readable else fd.paths
        else:
            kept.append(fd.text)
    return "".join(kept), sorted(dropped)
