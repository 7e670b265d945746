"""Patch bloat without a model (Senior SWE-Bench): agent SLOC / reference SLOC over behavioural files.

- *SLOC* of a patch: its changed lines (added and removed lines both count) that hold at least
  one token which is neither a comment nor whitespace, by pygments' lexer for the file's name
  (docstrings, ``String.Doc``, count as comments; a file pygments has no lexer for counts every
  non-blank line). Each hunk side (context plus added lines, context plus removed lines) is lexed
  as one text, so a comment or string spanning several lines inside a hunk is seen whole; one
  that starts before the hunk is not (the patch does not hold it).
- *Behavioural files*: every changed file except tests, docs and formatting-only changes,
  classified by rules (:func:`classify`): test paths (``tests/``, ``test_*.py``, ``*_test.py``,
  ``conftest.py``, ``*.spec.*``, ``*.test.*``, ``__tests__/``), doc paths (``docs/``,
  ``*.md``/``*.rst``/``*.txt``, README/CHANGELOG/NEWS/LICENSE...), and files whose removed and
  added text are equal once all whitespace is removed. Binary files are not counted.
  Optionally (``reclassify``, see :mod:`lancebench.judging.file_kinds`) a model then looks at the
  files the rules call behavioural and may call one ``test``, ``docs`` or ``formatting``.
- ``bloat = agent SLOC / reference SLOC``; None when the reference has no behavioural SLOC.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache

from pygments.lexer import Lexer
from pygments.lexers import get_lexer_for_filename
from pygments.token import Comment, String
from pygments.util import ClassNotFound
from unidiff import PatchSet
from unidiff.errors import UnidiffParseError

from lancebench.grading.patch import glob_regex

TEST_GLOBS = ("tests/**", "test/**", "testing/**", "**/tests/**", "**/test/**", "**/__tests__/**",
              "**/test_*.py", "**/*_test.py", "**/*_test.go", "**/conftest.py", "**/*.spec.*", "**/*.test.*")
DOC_GLOBS = ("docs/**", "doc/**", "**/*.md", "**/*.rst", "**/*.txt", "**/*.adoc", "**/README*",
             "**/CHANGELOG*", "**/CHANGES*", "**/HISTORY*", "**/NEWS*", "**/LICENSE*", "**/AUTHORS*")


@dataclass(frozen=True)
class FileSloc:
    """One changed file: its ``path``, ``kind`` (``behavioural``, ``test``, ``docs``,
    ``formatting``, ``binary``) and ``sloc`` (changed lines holding code)."""

    path: str
    kind: str
    sloc: int


@dataclass(frozen=True)
class Bloat:
    """``agent_sloc`` and ``reference_sloc`` over behavioural files, and ``ratio`` (None when the
    reference has none); ``agent_files``/``reference_files`` give the per-file counts."""

    agent_sloc: int
    reference_sloc: int
    ratio: float | None
    agent_files: tuple[FileSloc, ...]
    reference_files: tuple[FileSloc, ...]


def _matches(path: str, globs: tuple[str, ...]) -> bool:
    return any(glob_regex(g).match(path) for g in globs)


def classify(path: str, removed: list[str], added: list[str]) -> str:
    """``test``, ``docs``, ``formatting`` or ``behavioural`` for one changed file (rules above)."""
    if _matches(path, TEST_GLOBS):
        return "test"
    if _matches(path, DOC_GLOBS):
        return "docs"
    if (removed or added) and re.sub(r"\s+", "", "".join(removed)) == re.sub(r"\s+", "", "".join(added)):
        return "formatting"
    return "behavioural"


@lru_cache(maxsize=256)
def _lexer(path: str) -> Lexer | None:
    try:
        return get_lexer_for_filename(path, stripnl=False, ensurenl=False)
    except ClassNotFound:
        return None


def code_lines(path: str, text: str) -> set[int]:
    """0-based indexes of the lines of ``text`` that hold a token other than comment/whitespace."""
    lexer = _lexer(path)
    if lexer is None:
        return {i for i, line in enumerate(text.split("\n")) if line.strip()}
    out: set[int] = set()
    line = 0
    for ttype, value in lexer.get_tokens(text):
        is_code = ttype not in Comment and ttype not in String.Doc
        for k, piece in enumerate(value.split("\n")):
            if is_code and piece.strip():
                out.add(line + k)
        line += value.count("\n")
    return out


def _side_sloc(path: str, lines: list[tuple[str, bool]]) -> int:
    """SLOC among the marked lines of one hunk side; ``lines`` is ``(text, changed)`` in order."""
    if not lines:
        return 0
    code = code_lines(path, "\n".join(text for text, _ in lines))
    return sum(1 for i, (_, changed) in enumerate(lines) if changed and i in code)


Reclassify = Callable[[str, str], str]
"""``(path, the file's diff) -> kind`` for a file the rules call behavioural."""


def file_slocs(patch: str, reclassify: Reclassify | None = None) -> list[FileSloc]:
    """Per changed file of a unified diff: kind and SLOC. A blank patch gives ``[]``; one unidiff
    cannot parse raises ValueError. ``reclassify`` may change the kind of behavioural files."""
    if not patch.strip():
        return []
    try:
        files = PatchSet(patch)
    except UnidiffParseError as exc:
        raise ValueError(f"not a unified diff: {exc}") from exc
    out = []
    for f in files:
        path = (f.target_file if not f.is_removed_file else f.source_file) or f.path
        path = re.sub(r"^[ab]/", "", path)
        if f.is_binary_file:
            out.append(FileSloc(path, "binary", 0))
            continue
        removed = [ln.value for h in f for ln in h if ln.is_removed]
        added = [ln.value for h in f for ln in h if ln.is_added]
        kind = classify(path, removed, added)
        if kind == "behavioural" and reclassify is not None:
            kind = reclassify(path, str(f))
        sloc = 0
        if kind == "behavioural":
            for h in f:
                new = [(ln.value.rstrip("\n"), ln.is_added) for ln in h if not ln.is_removed]
                old = [(ln.value.rstrip("\n"), ln.is_removed) for ln in h if not ln.is_added]
                sloc += _side_sloc(path, new) + _side_sloc(path, old)
        out.append(FileSloc(path, kind, sloc))
    return out


def patch_bloat(agent_patch: str, reference_patch: str, reclassify: Reclassify | None = None) -> Bloat:
    """Bloat of ``agent_patch`` against ``reference_patch`` (both unified diffs). Raises
    ValueError when either is not a unified diff."""
    a, r = file_slocs(agent_patch, reclassify), file_slocs(reference_patch, reclassify)
    a_sloc = sum(f.sloc for f in a if f.kind == "behavioural")
    r_sloc = sum(f.sloc for f in r if f.kind == "behavioural")
    return Bloat(a_sloc, r_sloc, a_sloc / r_sloc if r_sloc else None, tuple(a), tuple(r))
